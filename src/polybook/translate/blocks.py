"""The blocks of a translated document a machine may draft, and the document with drafts in place.

A block to draft stands behind an ``untranslated`` mark (its text is the source's), or -- with
``--stale`` -- behind a ``stale`` mark (the mark holds the source's new text; the block, the old
translation, is context). A document marked ``untranslated document`` is the source's text as a
whole: each of its prose blocks is one to draft, and once drafted the document mark gives way to
a mark per block (a draft's, or ``untranslated`` for a block left so).

:func:`with_drafts` writes only the lines of the drafted blocks and their marks: nothing else of
the file changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from polybook.dialect.marks import MarkKind, document_mark, marked, read_mark, untranslated
from polybook.dialect.nodes import Block, Document, Figure, Heading, Node, Paragraph, TextTab

_PROSE = (Paragraph, Heading, Figure)


@dataclass(frozen=True, slots=True)
class Todo:
    """One block to draft: the lines it and its mark take (``first``..``last``, 1-based), the
    source text to translate, and for a stale block its old translation."""

    line: int  # the block's own first line: where a draft or a refusal is said
    first: int
    last: int
    text: str
    kind: MarkKind  # untranslated or stale
    old: str = ""

    @property
    def id(self) -> str:
        return str(self.line)


def is_prose(node: Node) -> bool:
    """A block that is text to translate: a paragraph, heading, figure, list, table, or a
    text tab of such blocks (not code, math, HTML, the toc)."""
    if isinstance(node, TextTab):
        return bool(node.children) and all(is_prose(child) for child in node.children)
    return isinstance(node, _PROSE) or (isinstance(node, Block) and node.kind not in ("html", "hr"))


def todos(doc: Document, text: str, stale: bool = False) -> list[Todo]:
    """The blocks of ``doc`` (``text`` its file) to draft, in order."""
    lines = text.split("\n")

    def of(first: int, last: int) -> str:
        return "\n".join(lines[first - 1 : last])

    whole = document_mark(doc)
    out: list[Todo] = []
    if whole is not None:
        for node in doc.nodes[1:]:
            if is_prose(node):
                out.append(
                    Todo(node.line, node.line, node.end_line, of(node.line, node.end_line), MarkKind.UNTRANSLATED)
                )
        return out
    marks = marked(doc)
    for node in doc.nodes:
        mark = marks.get(id(node))
        if mark is None or not is_prose(node):
            continue
        if mark.kind is MarkKind.UNTRANSLATED:
            out.append(Todo(node.line, mark.line, node.end_line, of(node.line, node.end_line), mark.kind))
        elif mark.kind is MarkKind.STALE and stale:
            out.append(Todo(node.line, mark.line, node.end_line, mark.text, mark.kind, of(node.line, node.end_line)))
    return out


def with_drafts(
    doc: Document, text: str, todo: list[Todo], drafts: Mapping[str, tuple[str, str]]
) -> tuple[str, dict[str, tuple[int, int]]]:
    """``text`` with each drafted block (``drafts``: a todo's id -> (its mark, its text)) in
    place of the block and its mark; and the lines (first, last) each draft takes in the new text.
    In a document marked untranslated as a whole, the document mark goes and every block not
    drafted gets an ``untranslated`` mark of its own."""
    lines = text.split("\n")
    whole = document_mark(doc)
    replaced: list[tuple[int, int, list[str], str | None]] = []  # first, last, new lines, id
    for item in todo:
        if item.id in drafts:
            mark, draft = drafts[item.id]
            replaced.append((item.first, item.last, [mark, *draft.split("\n")], item.id))
        elif whole is not None:
            replaced.append((item.first, item.last, [untranslated(), *lines[item.first - 1 : item.last]], None))
    if whole is not None and drafts:
        mark_node = doc.nodes[0]
        replaced.append((mark_node.line, mark_node.end_line, [], None))
    elif whole is not None:
        return text, {}
    replaced.sort()
    out: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    at = 1
    for first, last, new, key in replaced:
        out += lines[at - 1 : first - 1]
        if key is not None:
            spans[key] = (len(out) + 1, len(out) + len(new))
        out += new
        at = last + 1
    out += lines[at - 1 :]
    if whole is not None and drafts:  # the document mark's line left a blank line at the top
        while out and not out[0].strip():
            out.pop(0)
            spans = {key: (a - 1, b - 1) for key, (a, b) in spans.items()}
    return "\n".join(out), spans


def neighbours(doc: Document, text: str, line: int, count: int = 2) -> list[str]:
    """Up to ``count`` translated prose blocks before and after ``line``, as context."""
    if document_mark(doc) is not None:
        return []
    lines = text.split("\n")
    marks = marked(doc)
    translated = [node for node in doc.nodes if is_prose(node) and read_mark(node) is None and id(node) not in marks]
    before = [n for n in translated if n.end_line < line][-count:]
    after = [n for n in translated if n.line > line][:count]
    return ["\n".join(lines[n.line - 1 : n.end_line]) for n in [*before, *after]]
