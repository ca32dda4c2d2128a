"""What of a translated block comes from the source when ``polybook port`` carries it forward.

The words are the translator's; what no translation changes is the source's as it is now: a
figure's image, size and label, the label lines after a paragraph or table, and the names of
labels the source renamed wherever the translated text refers to them (d2l 1.0 renamed 0.17's
``lstm_1`` to ``fig_lstm_1``: a translation keeping the old name would refer to nothing).
"""

from __future__ import annotations

import re

from polybook.dialect.markdown import ATTRIBUTE_DIRECTIVES, match_directive
from polybook.dialect.nodes import Document, Figure, Node


def in_source_figure(node: Figure, mine: Figure, source_text: str, mine_text: str) -> str:
    """The translated caption in the source's figure (``source_text``, the figure ``node`` as
    written): its image, size and label lines (an image or a label the source renamed are the
    source's); the translation's figure as it is (``mine_text``) when either first line is not
    the plain ``![caption](...)`` the parser read."""
    head, *rest = source_text.split("\n")
    own = mine_text.split("\n", 1)[0]
    theirs, ours = f"![{node.caption}](", f"![{mine.caption}]("
    if not (head.lstrip().startswith(theirs) and own.lstrip().startswith(ours)):
        return mine_text
    indent = head[: len(head) - len(head.lstrip())]
    after = "\n".join(rest)
    return indent + ours + head.lstrip()[len(theirs) :] + ("\n" + after if after.strip() else "")


def with_source_attributes(mine_text: str, source_text: str) -> str:
    """A translated paragraph, list or table with the source's attribute lines (``:label:``...)
    in place of its own."""
    return _attributes_apart(mine_text)[0] + _attributes_apart(source_text)[1]


def _attributes_apart(text: str) -> tuple[str, str]:
    """A block's text without the attribute lines after it (``:label:``, ``:width:``...), and
    those lines (with the blank lines before them, as written)."""
    lines = text.split("\n")
    end = len(lines)
    while end > 0 and (not lines[end - 1].strip() or _is_attribute(lines[end - 1])):
        end -= 1
    tail = lines[end:]
    if not any(line.strip() for line in tail):
        return text, ""
    return "\n".join(lines[:end]), "\n" + "\n".join(tail)


def _is_attribute(line: str) -> bool:
    found = match_directive(line)
    return found is not None and found["name"] in ATTRIBUTE_DIRECTIVES


#: A reference role and its target, in a translation's text.
_REFERENCE = re.compile(r"(:(?:numref|eqref|ref):`)([^`<>]+)(`)")


def renamed_labels(bases: dict[int, tuple[Node, bool]], source: Document) -> dict[str, str]:
    """``old label -> new label`` for the blocks the source relabelled since the base (d2l 1.0's
    ``fig_lstm_1`` for 0.17's ``lstm_1``): a figure, heading or equation paired with its base."""
    out: dict[str, str] = {}
    for node in source.walk():
        base_node, _ = bases.get(id(node), (None, False))
        old, new = getattr(base_node, "label", None), getattr(node, "label", None)
        if old and new and old != new and old not in source.labels:
            out[old] = new
    return out


def with_references(text: str, renamed: dict[str, str]) -> str:
    """A translated block's references to labels the source renamed, written with the new names
    (a translation keeps the base's labels in its references; the port gives it the source's)."""
    if not renamed:
        return text
    return _REFERENCE.sub(lambda m: m.group(1) + renamed.get(m.group(2), m.group(2)) + m.group(3), text)
