"""The keys of kept results hold digests of the files they name; inside one check, each file
is read and hashed once."""

from __future__ import annotations

import hashlib
from pathlib import Path

from polybook.check.keys import file_bytes, file_digest, read_once


def digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def test_a_missing_file_is_a_key_too(tmp_path: Path) -> None:
    assert file_bytes(tmp_path / "missing.md") == b""
    assert file_digest(tmp_path / "missing.md") == digest(b"")


def test_inside_a_check_a_file_is_read_once_and_outside_as_it_is(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_bytes(b"one")
    with read_once():
        assert file_digest(doc) == digest(b"one")
        doc.write_bytes(b"two")
        assert file_digest(doc) == digest(b"one")  # the book as it was when the check started
        with read_once():  # a check inside a check: the same
            assert file_digest(doc) == digest(b"one")
    assert file_digest(doc) == digest(b"two")
    with read_once():
        assert file_digest(doc) == digest(b"two")
