"""A language's folder of chapters, walked: its Markdown files, and the symbolic links refused.

Links are followed -- a translation may share a folder of the source's by a link -- but never
round a loop (a link to a folder it is inside of, or to itself), and never out of the book: a
path that leaves the book is refused as a figure's or a link's is (:mod:`polybook.render.stage`),
here at the link's own path, and it is not followed. Without this, ``chapters/en/x -> .`` made
a book of 7 pages one of 128 (the walk went 40 levels down before the system said no).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from polybook.files import display_path


@dataclass(slots=True)
class ChapterTree:
    """``files``: (path relative to the language folder, size) of each Markdown file below it, hidden
    ones left out; ``refused``: (path, why) of each link not followed."""

    files: list[tuple[str, int]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def walk_chapters(folder: str, book: Iterable[str]) -> ChapterTree:
    """Walk ``folder`` (a language's) following its links but those that loop or leave ``book``
    (the real paths that hold the book: its root, its chapters' folder). ``os.scandir`` says which
    entry is a link for free; only links cost a look of their own."""
    tree = ChapterTree()
    inside = tuple(dict.fromkeys(os.path.realpath(path) for path in book))
    pending = [(folder, "", os.path.realpath(folder))]
    while pending:
        path, prefix, real = pending.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue  # not there, or not readable: no documents (as os.walk had it)
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            target = None
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                why = refused_link(entry.path, target, real, inside)
                if why:
                    tree.refused.append((entry.path, why))
                    continue
            try:
                if entry.is_dir():
                    pending.append((entry.path, f"{prefix}{name}/", target or os.path.join(real, name)))
                elif name.endswith(".md") and stat.S_ISREG((info := entry.stat()).st_mode):
                    tree.files.append((prefix + name, info.st_size))
            except OSError:
                continue  # a link to nothing
    return tree


def refused_link(path: str, target: str, here: str, book: tuple[str, ...]) -> str:
    """Why the link at ``path`` (to ``target``, its real path) in the folder whose real path is
    ``here`` is not followed; "" when it is."""
    try:
        info = os.stat(path)
    except OSError as exc:
        return "a symbolic link loop" if exc.errno == errno.ELOOP else ""  # to nothing: no document
    if not any(_within(target, folder) for folder in book):
        return f"a link to {target}, outside the book {book[0]}"
    if stat.S_ISDIR(info.st_mode) and _within(here, target):
        return f"a link to {display_path(Path(target))}, a folder it is inside of: a loop"
    return ""


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
