"""The keys of kept results read the files they name; inside one check, each file once."""

from __future__ import annotations

from pathlib import Path

from polybook.check.keys import file_bytes, read_once


def test_inside_a_check_a_file_is_read_once_and_outside_as_it_is(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_bytes(b"one")
    assert file_bytes(tmp_path / "missing.md") == b""
    with read_once():
        assert file_bytes(doc) == b"one"
        doc.write_bytes(b"two")
        assert file_bytes(doc) == b"one"  # the book as it was when the check started
        with read_once():  # a check inside a check: the same
            assert file_bytes(doc) == b"one"
    assert file_bytes(doc) == b"two"
    with read_once():
        assert file_bytes(doc) == b"two"
