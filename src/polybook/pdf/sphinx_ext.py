"""polybook's Sphinx extension for the LaTeX build: source markers in the ``.tex``, math
LaTeX can set, captions without links.

Before every section and every block of a section it puts a LaTeX comment ``% polybook-src DOC:LINE``
(the MyST file and line the block came from). A LaTeX error reports a line of the one big
``.tex`` file; the nearest marker above it, through the staged file's line map, gives the
chapter's ``path:line`` (:func:`polybook.pdf.log.source_of`).

Math is rewritten so LaTeX's math fonts can set it (a U+2212 minus becomes ``-``,
:mod:`polybook.pdf.unicode_math`); a character of the text the main font lacks is set in
its fallback font by the preamble (:mod:`polybook.pdf.fonts`), in code blocks too.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from polybook import __version__
from polybook.pdf.log import MARKER
from polybook.pdf.unicode_math import latex_math


class SourceMarkers(SphinxPostTransform):
    default_priority = 900
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        # The LaTeX builder runs this on the whole book assembled into one tree: each
        # block's own ``source`` says which document it came from.
        for section in list(self.document.findall(nodes.section)):
            blocks = [c for c in section.children if isinstance(c, nodes.Body) and not isinstance(c, nodes.title)]
            for node in [section, *blocks]:
                located = next((n for n in node.findall(nodes.Element) if n.line and n.source), None)
                docname = self.env.path2doc(located.source) if located else None
                if located and docname and node.parent is not None:
                    marker = nodes.raw("", f"\n{MARKER} {docname}:{located.line}\n", format="latex")
                    node.parent.insert(node.parent.index(node), marker)


class CaptionCitations(SphinxPostTransform):
    r"""A citation in a figure or table caption: sphinxcontrib-bibtex writes its link as raw
    ``\hyperlink{cite.…}{`` … ``}``, which breaks in a caption, a moving argument of LaTeX
    ("Argument of \Hy@tempa has an extra }"); ``\protect`` keeps it (and the link)."""

    default_priority = 880  # after references are resolved
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        for caption in list(self.document.findall(_is_caption)):
            for raw in caption.findall(lambda n: n.__class__.__name__ == "raw_latex"):
                if raw.rawsource.startswith("\\hyperlink{"):
                    raw.rawsource = "\\protect" + raw.rawsource


def _is_caption(node: nodes.Node) -> bool:
    return isinstance(node, nodes.caption) or (isinstance(node, nodes.title) and isinstance(node.parent, nodes.table))


class UnicodeMath(SphinxPostTransform):
    """Math as LaTeX's math fonts can set it (:mod:`polybook.pdf.unicode_math`)."""

    default_priority = 890
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        for node in list(self.document.findall(lambda n: isinstance(n, nodes.math | nodes.math_block))):
            tex = node.astext()
            rewritten = latex_math(tex)
            if rewritten != tex:
                node.children = []
                node += nodes.Text(rewritten)


def release_name(app: Sphinx) -> None:
    """ "Release" (in the book's language, Sphinx's word) before the release on the cover and in
    the page headers: Sphinx's own default leaves it blank (its ``releasename`` element is empty)."""
    context = getattr(app.builder, "context", None)
    if (
        app.builder.name == "latex"
        and app.config.release
        and isinstance(context, dict)
        and not context.get("releasename")
    ):
        from sphinx.locale import _

        context["releasename"] = _("Release")


def setup(app: Sphinx) -> dict[str, Any]:
    from polybook.stage import sphinx_speed

    sphinx_speed.install(app)
    app.connect("builder-inited", release_name)
    app.add_post_transform(SourceMarkers)
    app.add_post_transform(CaptionCitations)
    app.add_post_transform(UnicodeMath)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
