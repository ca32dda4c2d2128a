"""polybook's Sphinx extension for the LaTeX build: source markers in the ``.tex``, and
every character set in a font that has it.

Before every section and every block of a section it puts a LaTeX comment ``% polybook-src DOC:LINE``
(the MyST file and line the block came from). A LaTeX error reports a line of the one big
``.tex`` file; the nearest marker above it, through the staged file's line map, gives the
chapter's ``path:line`` (:func:`polybook.pdf.log.source_of`).

Math is rewritten so LaTeX's math fonts can set it (a U+2212 minus becomes ``-``,
:mod:`polybook.pdf.unicode_math`), and a character of the text that the main font lacks
is set in the fallback font the build chose for it (``polybook_fonts``,
:mod:`polybook.pdf.fonts`). Code blocks are left alone (Pygments highlights them).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from polybook import __version__
from polybook.pdf.unicode_math import latex_math

MARKER = "% polybook-src"


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


class UnicodeCharacters(SphinxPostTransform):
    """Math as LaTeX can set it; text characters the main font lacks in their fallback font."""

    default_priority = 890
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        fonts: dict[str, str] = self.config.polybook_fonts or {}
        for node in list(self.document.findall(lambda n: isinstance(n, nodes.math | nodes.math_block))):
            tex = node.astext()
            rewritten = latex_math(tex, fonts)
            if rewritten != tex:
                node.children = []
                node += nodes.Text(rewritten)
        if not fonts:
            return
        skip = (nodes.math, nodes.math_block, nodes.literal_block, nodes.raw, nodes.comment)
        for text in list(self.document.findall(nodes.Text)):
            parent = text.parent
            if parent is None or isinstance(parent, skip) or not any(c in fonts for c in text):
                continue
            if any(isinstance(a, skip) for a in _ancestors(parent)):
                continue
            parent.replace(text, _with_fonts(str(text), fonts))


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    out = []
    while node is not None:
        out.append(node)
        node = node.parent
    return out


def _with_fonts(text: str, fonts: dict[str, str]) -> list[nodes.Node]:
    """``text`` as text nodes, with each run of characters of one fallback font in that font."""
    out: list[nodes.Node] = []
    run, font = "", None
    for char in text:
        mine = fonts.get(char)
        if mine != font and run:
            out.append(_piece(run, font))
            run = ""
        run, font = run + char, mine
    if run:
        out.append(_piece(run, font))
    return out


def _piece(run: str, font: str | None) -> nodes.Node:
    """A run of text; in a fallback font, raw LaTeX (its characters are never LaTeX's
    specials: those are ASCII, which the main font has)."""
    if font is None:
        return nodes.Text(run)
    return nodes.raw("", "{\\" + font + " " + run + "}", format="latex")


def setup(app: Sphinx) -> dict[str, Any]:
    from polybook.render import sphinx_speed

    sphinx_speed.install()
    app.add_config_value("polybook_fonts", {}, "env", types=frozenset({dict}))
    app.add_post_transform(SourceMarkers)
    app.add_post_transform(UnicodeCharacters)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
