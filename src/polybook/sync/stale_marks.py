"""What a port says of a translated block whose source text changed: nothing, when only white
space, typography or markup changed (the translation is still right: kept as it is); else a
``stale`` mark holding the source's text now and then, so a page can show the words that changed.

The text then is the source block's own lines with the base's words in them (a heading's title,
a figure's caption and file): its label lines and attributes are the source's, so the two texts
differ only where the source changed what it says.
"""

from __future__ import annotations

from collections.abc import Mapping

from polybook.check.word_diff import same_words
from polybook.dialect.marks import MarkKind, holding
from polybook.dialect.nodes import Block, Figure, Heading, Node, Paragraph, TextTab
from polybook.sync.source_parts import with_references

_PROSE = (Paragraph, Block, Heading, Figure, TextTab)


def text_then(base: Node, node: Node, now: str) -> str | None:
    """The source block ``node`` (its text ``now``) as its ``base`` said it; None when the two
    are not of one kind (no text then to show)."""
    if isinstance(base, Heading) and isinstance(node, Heading):
        first, _, rest = now.partition("\n")
        title = "#" * node.level + " " + base.text if first.lstrip().startswith("#") else base.text
        return title + ("\n" + rest if rest else "")
    if isinstance(base, Figure) and isinstance(node, Figure):
        return now.replace(node.caption, base.caption, 1).replace(node.src, base.src, 1)
    if isinstance(base, TextTab) and isinstance(node, TextTab):
        return "\n\n".join(_prose(child) for child in base.children)
    if isinstance(base, Paragraph | Block) and type(base) is type(node):
        return base.source
    return None


def _prose(node: Node) -> str:
    if isinstance(node, Heading):
        return "#" * node.level + " " + node.text
    return getattr(node, "source", "") or getattr(node, "caption", "")


def _said(node: Node) -> str:
    """What a block says, as :func:`same_words` compares it (a heading: its title; a figure: its
    caption; a text tab: its prose, not its ``:begin_tab:`` lines)."""
    if isinstance(node, Heading):
        return node.text
    if isinstance(node, TextTab):
        return "\n\n".join(_prose(child) for child in node.children)
    if isinstance(node, Figure):
        return node.caption  # its image, size and label are the source's whatever the translation had
    return getattr(node, "source", "")


def only_form_changed(base: Node | None, node: Node, renamed: Mapping[str, str]) -> bool:
    """Whether the source block ``node`` says what its ``base`` said, but for white space,
    typography, markup or references to ``renamed`` labels (the port renames them in the
    translation too): its translation needs nothing."""
    if base is None or type(base) is not type(node) or not isinstance(node, _PROSE):
        return False  # code, math and the rest come from the source whatever changed
    return same_words(with_references(_said(base), dict(renamed)), _said(node))


def stale(now: str, then: str | None, translation: str) -> str:
    """A kept translation behind its stale mark."""
    return holding(MarkKind.STALE, now, then) + "\n" + translation
