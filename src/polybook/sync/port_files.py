"""The files a port changes, and how they are changed: all of them or none.

A port rewrites a few hundred files. :func:`apply` stages every new text beside its place first
(nothing is touched while one can still fail to be written: a full disk), then renames them in
and removes what moved; when anything fails or the run is interrupted on the way (Ctrl-C), what
was already changed is put back from the texts the port read -- they are all in memory -- and
the staged files are removed. The files are then as they were, and the error is raised.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from polybook.sync.port_document import PortCounts


class FileKind(StrEnum):
    """What a file of a port is: the translation's own documents, or a copy the port rewrites
    from the source (not the translators' work: listed apart, shown on request)."""

    PORTED = "ported"  # a document carried to the source
    RENAMED = "renamed"  # ... under the source's new name for it
    NEW = "new"  # a document new in the source, marked untranslated
    GONE = "gone"  # a document the source dropped, moved out to the archive
    ARCHIVE = "archive"  # a carried document's cells of the language's own frameworks whose group the source dropped
    REFERENCES = "references"  # a document not ported (another language's): its references follow renames
    ORIGIN = "origin"  # an ``X_origin.md``: the source text the translation follows now
    LIBRARY = "library"  # the language's copy of the book's library or bibliography (or the archive's)
    SETTINGS = "settings"  # conf.py: the language's frameworks and default tab

    @property
    def translation(self) -> bool:
        return self in _TRANSLATION


_TRANSLATION = (
    FileKind.PORTED,
    FileKind.RENAMED,
    FileKind.NEW,
    FileKind.GONE,
    FileKind.ARCHIVE,
    FileKind.REFERENCES,
)


@dataclass(slots=True)
class PortedFile:
    """One file's change: ``old`` -> ``new`` (None: created / removed), ``text`` its new content;
    ``name``: the document it belongs to, by the source's name for it (a gone one by its own;
    empty for the book's files: conf.py, the library)."""

    kind: FileKind
    old: Path | None
    new: Path | None
    before: str
    text: str
    counts: PortCounts = field(default_factory=PortCounts)
    name: str = ""

    def __post_init__(self) -> None:
        self.kind = FileKind(self.kind)  # a kind given by its name ("ported") is the enum's

    @property
    def changed(self) -> bool:
        return self.old != self.new or self.before != self.text

    def diff(self, root: Path) -> str:
        a = f"a/{rel(self.old, root)}" if self.old else "/dev/null"
        b = f"b/{rel(self.new, root)}" if self.new else "/dev/null"
        head = f"diff --polybook {a} {b}\n"
        if self.old and self.new and self.old != self.new:
            head += f"rename from {rel(self.old, root)}\nrename to {rel(self.new, root)}\n"
        lines = difflib.unified_diff(self.before.splitlines(True), self.text.splitlines(True), a, b)
        return head + "".join(lines)

    def shown(self, root: Path) -> str:
        """The file as a listing names it: its new path (``old -> new`` when it moves)."""
        if self.old is not None and self.new is not None and self.old != self.new:
            return f"{rel(self.old, root)} -> {rel(self.new, root)}"
        return rel(self.new or self.old, root)  # type: ignore[arg-type]


def rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def apply(files: list[PortedFile]) -> None:
    """Write the changed ``files``: all of them, or -- on any error or interruption -- none."""
    changed = [f for f in files if f.changed]
    staged: list[tuple[Path, PortedFile]] = []
    done: list[PortedFile] = []  # files replaced or removed, in order, to put back on failure
    made: list[Path] = []  # folders made for new files
    replaced: dict[Path, str] = {}  # what a file's new place held (an archive written by an earlier port)
    try:
        for f in changed:
            if f.new is not None:
                if f.new != f.old and f.new.is_file():
                    replaced[f.new] = f.new.read_text(encoding="utf-8")
                made += _make_folder(f.new.parent)
                temp = f.new.with_name(f".{f.new.name}.{os.getpid()}.port")
                staged.append((temp, f))  # first: a write the disk stops is removed too
                temp.write_text(f.text, encoding="utf-8")
        for temp, f in staged:
            done.append(f)
            os.replace(temp, f.new)  # type: ignore[arg-type]
        for f in changed:
            if f.old is not None and f.new != f.old:
                done.append(f)
                f.old.unlink(missing_ok=True)
    except BaseException:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
        _put_back(done, made, replaced)
        raise


def _make_folder(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; the folders made, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(exist_ok=True)
    return missing


def _put_back(done: list[PortedFile], made: list[Path], replaced: dict[Path, str]) -> None:
    """Undo what :func:`apply` did before it failed: each file's text as the port read it, a
    file it created removed (or what it replaced written back), a folder it made removed when empty."""
    for f in reversed(done):
        if f.old is not None:
            f.old.write_text(f.before, encoding="utf-8")
        if f.new is not None and f.new != f.old:
            if f.new in replaced:
                f.new.write_text(replaced[f.new], encoding="utf-8")
            else:
                f.new.unlink(missing_ok=True)
    for folder in made:
        with contextlib.suppress(OSError):  # not empty: something else is in it
            folder.rmdir()
