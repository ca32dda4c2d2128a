"""The store of parsed documents: a hit is the same model, a changed file or setting a miss."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from polybook.database import entries, flush_stores
from polybook.dialect import DialectSettings, parse_file
from polybook.models import DATABASE, parse_cached, shared_documents

TEXT = "# Title\n:label:`sec_t`\n\n```{.python .input}\n#@tab pytorch\nx = 1\n```\n"


def test_a_hit_is_the_model_parsing_gives_and_an_edit_is_a_miss(tmp_path: Path) -> None:
    chapter, store = tmp_path / "ch.md", tmp_path / "store"
    chapter.write_text(TEXT, encoding="utf-8")
    settings = DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
    first = parse_cached(chapter, settings, "chapters/en/ch.md", store)
    flush_stores()
    assert entries(store / DATABASE) == 1
    again = parse_cached(chapter, settings, "chapters/en/ch.md", store)
    assert (
        again is not first
        and again.to_dict() == first.to_dict() == parse_file(chapter, settings, "chapters/en/ch.md").to_dict()
    )
    chapter.write_text(TEXT.replace("x = 1", "x = 2"), encoding="utf-8")
    assert parse_cached(chapter, settings, "chapters/en/ch.md", store).cells()[0].code == "x = 2"
    other = DialectSettings("ja", ("mxnet", "pytorch"), "pytorch")
    assert parse_cached(chapter, other, "chapters/ja/ch.md", store).cells()[0].frameworks == ("pytorch",)
    flush_stores()
    assert entries(store / DATABASE) == 3


def test_a_corrupt_entry_is_a_miss_and_bad_bytes_are_still_reported(tmp_path: Path) -> None:
    chapter, store = tmp_path / "ch.md", tmp_path / "store"
    chapter.write_bytes(b"# T\n\nbad \xff byte\n")
    settings = DialectSettings("en")
    parse_cached(chapter, settings, "ch.md", store)
    flush_stores()
    with closing(sqlite3.connect(store / DATABASE)) as connection, connection:
        assert connection.execute("UPDATE entries SET data = ?", (b"not a pickle",)).rowcount == 1
    doc = parse_cached(chapter, settings, "ch.md", store)
    assert [d.code for d in doc.diagnostics] == ["encoding"]


def test_a_damaged_database_is_made_again(tmp_path: Path) -> None:
    chapter, store = tmp_path / "ch.md", tmp_path / "store"
    chapter.write_text(TEXT, encoding="utf-8")
    settings = DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
    store.mkdir()
    (store / DATABASE).write_bytes(b"not a database, " * 512)
    assert parse_cached(chapter, settings, "ch.md", store).cells()[0].code == "x = 1"
    flush_stores()
    assert entries(store / DATABASE) == 1


def test_inside_shared_documents_one_file_is_one_document_and_an_edit_another(tmp_path: Path) -> None:
    chapter, store = tmp_path / "ch.md", tmp_path / "store"
    chapter.write_text(TEXT, encoding="utf-8")
    settings = DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
    with shared_documents():
        first = parse_cached(chapter, settings, "chapters/en/ch.md", store)
        assert parse_cached(chapter, settings, "chapters/en/ch.md", store) is first
        assert parse_cached(chapter, settings, "editions/ch.md", store) is not first  # shown elsewhere
        chapter.write_text(TEXT.replace("x = 1", "x = 2"), encoding="utf-8")
        assert parse_cached(chapter, settings, "chapters/en/ch.md", store).cells()[0].code == "x = 2"
    chapter.write_text(TEXT, encoding="utf-8")
    assert parse_cached(chapter, settings, "chapters/en/ch.md", store) is not first  # the block ended
