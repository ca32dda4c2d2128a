"""The keys of what the checker keeps between runs: digests of what a result read, and the
versions of the code that made it (a change of either is a miss)."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from polybook.files import hash_files, read_file, reading_once
from polybook.models import parser_version


@functools.cache
def checker_version() -> str:
    digest = hashlib.sha256(parser_version().encode())
    hash_files(digest, sorted(Path(__file__).parent.rglob("*.py")))
    return digest.hexdigest()


def file_bytes(path: Path) -> bytes:
    """The file's bytes, none when it cannot be read (a file that is not there is a key too)."""
    try:
        return read_file(path)
    except OSError:
        return b""


def file_digest(path: Path) -> bytes:
    """The SHA-256 of :func:`file_bytes`: what a key holds of a file. Inside :func:`read_once`,
    the file is read and hashed once: a document is in the keys of its chunk, of its findings
    in every language and of its base choice, and an edition's in those of every language that
    follows it."""
    if _digests is None:
        return hashlib.sha256(file_bytes(path)).digest()
    name = os.fspath(path)
    found = _digests.get(name)
    if found is None:
        found = _digests[name] = hashlib.sha256(file_bytes(path)).digest()
    return found


_digests: dict[str, bytes] | None = None  # inside read_once: path -> its bytes' digest


@contextmanager
def read_once() -> Iterator[None]:
    """Inside the block (a check of the book, the workers it forks), :func:`file_digest` reads
    and hashes each file once, and every file is read once (:func:`~polybook.files.reading_once`):
    a check takes the book as it was when it started."""
    global _digests
    if _digests is not None:
        yield
        return
    _digests = {}
    try:
        with reading_once():
            yield
    finally:
        _digests = None


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
