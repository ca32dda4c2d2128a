"""A translator accepts a draft by removing its mark: by hand, or ``polybook translate --accept
PATH[:LINE]`` (every draft of the file, or the one whose mark or block holds LINE)."""

from __future__ import annotations

from pathlib import Path

from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.marks import MarkKind, read_mark
from polybook.files import atomic_write, display_path


class NoDraft(ValueError):
    """``PATH:LINE`` where no draft is."""


def accept(path: Path, line: int | None, settings: DialectSettings) -> int:
    """Remove the draft marks of ``path`` (the one at ``line``); how many were removed."""
    text = path.read_text(encoding="utf-8")
    doc = parse_text(text, display_path(path), settings)
    lines = text.split("\n")
    gone: list[tuple[int, int]] = []  # the marks' lines, first and last
    for mark_node, block in zip(doc.nodes, [*doc.nodes[1:], None], strict=True):
        mark = read_mark(mark_node)
        if mark is None or mark.kind is not MarkKind.DRAFT:
            continue
        last = block.end_line if block is not None else mark_node.end_line
        if line is None or mark_node.line <= line <= last:
            gone.append((mark_node.line, mark_node.end_line))
    if line is not None and not gone:
        raise NoDraft(f"{display_path(path)}:{line}: no draft there")
    for first, last in reversed(gone):
        del lines[first - 1 : last]
    if gone:
        atomic_write(path, "\n".join(lines))
    return len(gone)
