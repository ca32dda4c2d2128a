"""What ``polybook port`` shows a reviewer, in the order they need it.

First a summary: per chapter (a document's folder), what became of its blocks -- moved (found
elsewhere in the source), kept, stale, new (untranslated), aside, to review -- then the
documents renamed, new and gone, the references to labels the source dropped (``file:line``,
to fix by hand), and the files in two groups: the translation's own documents, and the copies
the port rewrites from the source (``X_origin.md``, the library, conf.py), which are no
translator's work. Then, as git does, a list of the files with their lines added and removed
(``--stat``) or the diff: of the translation's documents by default, of every file with
``--rewrites``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.sync.port_document import PortCounts
from polybook.sync.port_files import FileKind, PortedFile

if TYPE_CHECKING:
    from polybook.sync.port import Port

#: The summary's columns: what became of a chapter's blocks (:class:`PortCounts` fields).
COLUMNS = (("moved", "moved"), ("kept", "kept"), ("stale", "stale"), ("new", "untranslated"), ("aside", "aside"))
COLUMNS += (("review", "review"),)
_BOOK = "(book)"  # the chapter of the book's own files: conf.py, the library


@dataclass(frozen=True, slots=True)
class FileDiff:
    """A file's diff, worked out once for the list and the patch."""

    file: PortedFile
    text: str
    added: int
    removed: int


def file_diffs(files: list[PortedFile], root: Path) -> list[FileDiff]:
    out = []
    for f in files:
        if not f.changed:
            continue
        text = f.diff(root)
        lines = text.splitlines()
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        out.append(FileDiff(f, text, added, removed))
    return out


def chapter_of(name: str) -> str:
    """A document's chapter: its folder (``chapter_x`` of ``chapter_x/section``), or itself."""
    return name.split("/", 1)[0] if name else _BOOK


def summary_table(files: list[PortedFile]) -> list[str]:
    """Per chapter: its documents and what became of their blocks, and the whole port's."""
    rows: dict[str, tuple[int, PortCounts]] = {}
    total = PortCounts()
    for f in files:
        if not f.kind.translation or f.kind is FileKind.REFERENCES:
            continue
        chapter = chapter_of(f.name)
        documents, counts = rows.get(chapter, (0, PortCounts()))
        counts.add(f.counts)
        total.add(f.counts)
        rows[chapter] = (documents + 1, counts)
    width = max([len("chapter"), *(len(c) for c in rows)]) + 2
    head = "  " + "chapter".ljust(width) + f"{'documents':>9}" + "".join(f"{title:>8}" for title, _ in COLUMNS)
    lines = [head]
    for chapter, (documents, counts) in sorted(rows.items()):
        lines.append(_row(chapter, documents, counts, width))
    lines.append(_row("all", sum(d for d, _ in rows.values()), total, width))
    return lines


def _row(chapter: str, documents: int, counts: PortCounts, width: int) -> str:
    cells = "".join(f"{getattr(counts, field):>8,}" for _, field in COLUMNS)
    return "  " + chapter.ljust(width) + f"{documents:>9,}" + cells


def files_line(diffs: list[FileDiff], rewrites_shown: bool, patch: bool) -> list[str]:
    """The groups of files: the translation's documents, the documents not ported whose references
    (or toc) follow the port, what the port rewrites from the source."""
    own = [d for d in diffs if d.file.kind.translation and d.file.kind is not FileKind.REFERENCES]
    followed = [d for d in diffs if d.file.kind is FileKind.REFERENCES]
    rest = [d for d in diffs if not d.file.kind.translation]
    below = " (below)" if patch else ""
    lines = [f"  the translation's documents: {len(own)} files, {_lines(own)}{below}"]
    if followed:
        lines.append(
            f"  documents not ported whose references or toc follow it: {len(followed)} files, "
            f"{_lines(followed)}{below}"
        )
    if rest:
        kinds: dict[str, int] = {}
        for d in rest:
            kinds[d.file.kind.value] = kinds.get(d.file.kind.value, 0) + 1
        named = ", ".join(f"{count} {_KIND_NAMES[kind]}" for kind, count in sorted(kinds.items()))
        how = "below" if rewrites_shown and patch else "--rewrites shows them"
        lines.append(f"  rewritten from the source, no translator's work: {named}, {_lines(rest)} ({how})")
    return lines


_KIND_NAMES = {"origin": "X_origin.md", "library": "library/bibliography copies", "settings": "conf.py"}


def _lines(diffs: list[FileDiff]) -> str:
    return f"+{sum(d.added for d in diffs):,} -{sum(d.removed for d in diffs):,} lines"


def stat_lines(diffs: list[FileDiff], root: Path, rewrites: bool) -> list[str]:
    """One line a file, as ``git diff --stat`` lists them: the translation's first."""
    shown = [d for d in diffs if d.file.kind.translation]
    if rewrites:
        shown += [d for d in diffs if not d.file.kind.translation]
    if not shown:
        return []
    kind = max(len(d.file.kind.value) for d in shown)
    names = [f"{d.file.kind.value:{kind}} {d.file.shown(root)}" for d in shown]
    width = max(len(n) for n in names)
    return [f" {n.ljust(width)} | +{d.added} -{d.removed}" for n, d in zip(names, shown, strict=True)]


def patch(diffs: list[FileDiff], rewrites: bool) -> str:
    """The unified diff: of the translation's documents, then (``rewrites``) of the rest."""
    own = "".join(d.text for d in diffs if d.file.kind.translation)
    return own + ("".join(d.text for d in diffs if not d.file.kind.translation) if rewrites else "")


def report_lines(port: Port, root: Path, *, written: bool, stat: bool, rewrites: bool) -> Iterator[str]:
    """What ``polybook port`` prints, each string ending with a newline: the summary, then the
    list of files (``stat``) or -- before the port is written -- the diff."""
    diffs = file_diffs(port.files, root)
    show_patch = not written and not stat
    yield ("ported " if written else "would port ") + port.summary() + "\n\n"
    yield from (line + "\n" for line in summary_table(port.files))
    yield "\n"
    yield from (line + "\n" for line in files_line(diffs, rewrites, show_patch))
    if not port.complete:
        yield (
            f"  a half port: the documents of {port.lang} not ported keep their base (conf.py keeps their "
            "default tab; a ported document's untagged cells are written with theirs)\n"
        )
    if port.dangling:
        yield f"references to labels the source dropped ({len(port.dangling)}), for a translator to mend:\n"
        yield from (f"  {line}\n" for line in port.dangling)
    yield from (f"  {note}\n" for note in port.notes)
    if stat:
        yield "\n"
        yield from (line + "\n" for line in stat_lines(diffs, root, rewrites))
    elif show_patch:
        yield "\n"
        yield patch(diffs, rewrites)
