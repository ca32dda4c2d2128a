"""Where book code runs: a mirror of the language's folder under ``build/``, never the sources.

A chapter's code reads files by paths relative to its own folder (``../img/cat.jpg``,
``../data``) and writes files there too (``net.export('my_mlp')``, d2l's
``os.makedirs(os.path.join('..', 'data'))``). Run in ``chapters/<lang>/chapter_x/``, it would
leave those files in the user's book. So each language and framework gets
``build/run/<lang>/<framework>/``: the same folders as ``chapters/<lang>/`` (real folders, so
whatever the code creates stays in ``build/``), each file of the book a symbolic link to it
(readable as the chapter sees it), and -- as for figures -- the source language's files where
the translation has none. A program runs in its document's folder of that mirror. One mirror
per framework, as d2l builds each framework on a machine of its own: what one framework's code
writes (PyTorch's ``net.save('my_mlp')`` file) is never in the way of another's
(TensorFlow's ``my_mlp`` folder), and downloads land in each framework's own ``data/``.

Symbolic links rather than copies: a book is hundreds of megabytes of figures and data,
and the mirror is brought up to date (links added and removed) before every evaluation.
"""

from __future__ import annotations

import os
from pathlib import Path

from polybook.config import BookConfig
from polybook.files import resolved

RUN_DIR = "run"


def run_root(config: BookConfig, lang: str, framework: str) -> Path:
    return config.build_dir / RUN_DIR / lang / framework


def run_folder(config: BookConfig, lang: str, framework: str, document: str) -> Path:
    """The folder a program of ``document`` (``chapter_x/section``) runs in."""
    return run_root(config, lang, framework) / Path(document).parent


def mirror(config: BookConfig, lang: str, framework: str, overrides: dict[str, Path] | None = None) -> Path:
    """Bring ``build/run/<language>/<framework>/`` up to date with the book; returns it. ``overrides`` maps
    paths (relative to the language folder) to the files linked there instead of the book's:
    the library modules built from the chapters (:mod:`.library`).

    Links to files that are gone are removed; whatever the code wrote there is kept (a
    dataset downloaded once serves every later run).
    """
    root = run_root(config, lang, framework)
    wanted: dict[Path, Path] = {}
    folders = [config.chapters_dir / lang]
    if lang != config.source_language:
        folders.append(config.chapters_dir / config.source_language)  # the translation's fallback
    for base in reversed(folders):  # the language's own files win
        for path in _files(base):
            wanted[path.relative_to(base)] = resolved(path)  # a link loop: as far as it goes, never raised
    wanted.update({Path(relative): resolved(target) for relative, target in (overrides or {}).items()})
    for relative, target in wanted.items():
        link = root / relative
        try:
            if link.is_symlink() and Path(os.readlink(link)) == target:
                continue
            if link.exists() and not link.is_symlink():
                continue  # the code made a file of that name: it stays theirs
            link.parent.mkdir(parents=True, exist_ok=True)
            link.unlink(missing_ok=True)
            link.symlink_to(target)
        except OSError:
            continue  # a folder the code made where the book has a file: leave it
    _drop_stale_links(root, set(wanted))
    return root


def _files(base: Path) -> list[Path]:
    """Every file below ``base``, hidden folders and the book's build folders left out."""
    out = []
    for folder, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_build"))]
        out.extend(Path(folder) / name for name in files if not name.startswith("."))
    return out


def _drop_stale_links(root: Path, wanted: set[Path]) -> None:
    if not root.is_dir():
        return
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if path.is_symlink() and path.relative_to(root) not in wanted:
                path.unlink()
