"""The keys of what the checker keeps between runs: digests of what a result read, and the
versions of the code that made it (a change of either is a miss)."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from polybook.files import hash_files
from polybook.models import parser_version


@functools.cache
def checker_version() -> str:
    digest = hashlib.sha256(parser_version().encode())
    hash_files(digest, sorted(Path(__file__).parent.rglob("*.py")))
    return digest.hexdigest()


def file_bytes(path: Path) -> bytes:
    """The file's bytes, none when it cannot be read (a file that is not there is a key too);
    inside :func:`read_once`, each file read once."""
    if _read is not None:
        name = os.fspath(path)
        found = _read.get(name)
        if found is None:
            found = _read[name] = _bytes(path)
        return found
    return _bytes(path)


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


_read: dict[str, bytes] | None = None  # inside read_once: path -> its bytes


@contextmanager
def read_once() -> Iterator[None]:
    """Inside the block (a check of the book, the workers it forks), :func:`file_bytes` reads
    each file once: the keys of kept results read each document several times over (its
    chunk's, its findings', its base's), and a check takes the book as it was when it started."""
    global _read
    if _read is not None:
        yield
        return
    _read = {}
    try:
        yield
    finally:
        _read = None


@functools.cache
def package_version() -> str:
    """polybook's own code, all of it: what a chunk of chapters reads goes beyond the checker
    (the toc, the config, the book's loading)."""
    digest = hashlib.sha256(parser_version().encode())
    hash_files(digest, sorted(Path(__file__).parents[1].rglob("*.py")))
    return digest.hexdigest()


def key_of(parts: Iterable[str | bytes]) -> str:
    """The key of kept findings: a digest of what they read, each part closed by a NUL."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()
