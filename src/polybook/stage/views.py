"""What one framework's version of a page holds: the rule the site's framework tabs, a PDF and a
notebook share, so a reader finds the same text and code in each.

A code cell belongs to the frameworks its tab names (``#@tab all``: every one), and shows each of
them its own code (:meth:`polybook.dialect.nodes.CodeCell.code_for`); a text tab belongs to the
frameworks its ``:begin_tab:`` names. ``#@hide`` markers hide a cell's code or outputs from the
page, never from its program.
"""

from __future__ import annotations

from collections.abc import Iterator

from polybook.dialect.nodes import CodeCell, Node, TextTab

#: Markers that hide a cell's code, or its outputs, on the page.
HIDE_CODE = ("hide", "hide_code")
HIDE_OUTPUT = ("hide", "hide_output")


def shows(node: CodeCell | TextTab, framework: str) -> bool:
    """Whether ``framework``'s version of the page has this code cell or text tab."""
    return framework in node.frameworks


def hides_code(cell: CodeCell) -> bool:
    return any(m.name in HIDE_CODE for m in cell.markers)


def hides_output(cell: CodeCell) -> bool:
    return any(m.name in HIDE_OUTPUT for m in cell.markers)


def framework_nodes(nodes: list[Node], framework: str) -> Iterator[Node]:
    """The nodes ``framework``'s version shows, in order: its text tabs opened in place, the code
    cells of other frameworks and their text tabs left out."""
    for node in nodes:
        if isinstance(node, TextTab):
            if shows(node, framework):
                yield from framework_nodes(node.children, framework)
        elif not isinstance(node, CodeCell) or shows(node, framework):
            yield node
