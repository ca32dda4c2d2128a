"""A Sphinx job stopped halfway: marked while it runs, built whole by the next build.

Sphinx pickles a language's environment once it has read the documents, then writes the pages
one by one, each with the whole book's navigation; an incremental build writes again only the
pages whose document changed. Ctrl-C, a CI cancel or an out-of-memory kill in between leaves
pages no later build would write again -- the old titles in their sidebars, a search index
without the new words -- and a page cut off mid-write looks newer than its source. LaTeX's
auxiliary files and latexmk's record are no safer.

So a job's work folder is marked before its Sphinx starts (:func:`begin`) and the mark removed
only once the job's stamp -- what says its outputs are done -- is written (:func:`end`). A build
that finds the mark (:func:`restart`) first throws away what the stopped one kept: the stamp,
Sphinx's environment and doctrees, LaTeX's files. The job then runs as a cold build does. The
mark stays until a build of the job ends: a build stopped while it starts again restarts again.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from polybook.files import atomic_write

#: In a job's work folder (``build/.sphinx/<lang>``, ``build/.pdf/<lang>-<framework>``).
MARK = "building"


def begin(folder: Path) -> None:
    """Mark ``folder``'s job as running: call it before its Sphinx starts."""
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(folder / MARK, f"{os.getpid()}\n")


def end(folder: Path) -> None:
    """The job's stamp is written (or its failure recorded): no longer running."""
    (folder / MARK).unlink(missing_ok=True)


def running(folder: Path) -> bool:
    """Whether a build of ``folder``'s job started and did not end (stopped, or crashed)."""
    return (folder / MARK).is_file()


def restart(folder: Path, kept: Iterable[Path]) -> bool:
    """When ``folder``'s job was stopped halfway, remove what it kept (``kept``: files and
    folders, the stamp first) so that it runs whole; whether it was."""
    if not running(folder):
        return False
    for path in kept:
        with contextlib.suppress(FileNotFoundError):  # an error else: a half-removed environment is no cold start
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    return True
