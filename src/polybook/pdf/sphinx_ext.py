"""polybook's Sphinx extension for the LaTeX build: source markers in the ``.tex``.

Before every section and every block of a section it puts a LaTeX comment ``% polybook-src DOC:LINE``
(the MyST file and line the block came from). A LaTeX error reports a line of the one big
``.tex`` file; the nearest marker above it, through the staged file's line map, gives the
chapter's ``path:line`` (:func:`polybook.pdf.log.source_of`).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from polybook import __version__

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


def setup(app: Sphinx) -> dict[str, Any]:
    from polybook.render import sphinx_speed

    sphinx_speed.install()
    app.add_post_transform(SourceMarkers)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
