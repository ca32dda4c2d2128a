"""Kept findings: a second check of an unchanged book gives the same findings from the build
folder, and an edited chapter is checked again."""

from __future__ import annotations

import pickle
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from polybook.check import check_config
from polybook.check.memo import DOCUMENTS
from polybook.config import load_config
from polybook.database import entries
from polybook.models import DATABASE, MODELS_DIR

from conftest import FIXTURES


def test_kept_findings_are_the_same_and_an_edit_is_checked_again(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    config = load_config(tmp_path / "book" / "conf.py")
    first, _ = check_config(config, jobs=1)
    kept = list((config.build_dir / ".polybook" / "findings").rglob("*.pickle"))
    chunks = [path for path in kept if "chunks" in path.parts]
    assert kept == chunks  # the documents' findings are in the findings' database:
    with closing(sqlite3.connect(config.build_dir / ".polybook" / "findings" / DOCUMENTS)) as connection:
        shelves = [data for (data,) in connection.execute("SELECT data FROM entries")]
    assert len(shelves) == 2  # one entry per document, for every language
    for data in shelves:  # 4 translations' findings
        assert sorted(slot for slot in pickle.loads(data) if slot[0] == "findings") == [
            ("findings", lang) for lang in ("ja", "pt", "tr", "zh")
        ]
    assert len(chunks) == 2  # each chunk's whole result: an unchanged book is not loaded again
    again, _ = check_config(config, jobs=1)
    assert [f.to_dict() for f in again.findings] == [f.to_dict() for f in first.findings]
    pt = tmp_path / "book" / "chapters" / "pt" / "async-computation.md"
    pt.write_text(pt.read_text(encoding="utf-8").replace("range(1000)", "range(10000)"), encoding="utf-8")
    edited, _ = check_config(config, jobs=1)
    assert len([f for f in edited.findings if "range(1000)" in f.message]) < len(
        [f for f in first.findings if "range(1000)" in f.message]
    )


def test_a_kept_book_sees_a_new_origin_file(tmp_path: Path) -> None:
    """The kept result of a chunk of chapters is keyed by every file they read, the
    ``X_origin.md`` beside a translation (its base) among them, not only the documents."""
    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    config = load_config(tmp_path / "book" / "conf.py")
    first, _ = check_config(config, jobs=1)
    assert "today's" not in first.follows["pt"]
    source = tmp_path / "book" / "chapters" / "en" / "async-computation.md"
    origin = tmp_path / "book" / "chapters" / "pt" / "async-computation_origin.md"
    origin.write_text(source.read_text(encoding="utf-8").replace("range(1000)", "range(10)"), encoding="utf-8")
    again, _ = check_config(config, jobs=1)
    # the origin is weighed against the source, which pt's code matches: "their code is today's"
    assert "1 against the source as it is (their code is today's)" in again.follows["pt"]


def test_worker_processes_find_what_one_process_finds_and_keep_it(tmp_path: Path) -> None:
    """``jobs=2``: the chunks (heaviest first), the library and the renames in worker processes."""
    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    config = load_config(tmp_path / "book" / "conf.py")
    found = {}
    for jobs in (1, 2):
        shutil.rmtree(config.build_dir / ".polybook", ignore_errors=True)
        result, _ = check_config(config, jobs=jobs)
        found[jobs] = [f.to_dict() for f in result.findings], result.follows
        assert entries(config.build_dir / MODELS_DIR / DATABASE)  # kept by the workers too
        again, _ = check_config(config, jobs=jobs)  # read back in this process
        assert [f.to_dict() for f in again.findings] == found[jobs][0]
    assert found[1] == found[2]


def test_a_translated_document_without_a_source_has_its_own_problems_said_in_both_ways_of_checking(
    tmp_path: Path,
) -> None:
    """The status page checks the book it loaded whole (toc problems on the documents), the
    command checks chunks and puts the toc together at the end: a document the source lacks and
    no toc reaches is said to have no source, either way, and not to be in no toc as well
    ("add it to a toc" is no fix for a page the source does not have)."""
    from polybook.book import load_book
    from polybook.check import check_book

    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    orphan = tmp_path / "book" / "chapters" / "pt" / "only-here.md"
    orphan.write_text("# Só aqui\n\nUm texto.\n", encoding="utf-8")
    config = load_config(tmp_path / "book" / "conf.py")
    command, _ = check_config(config, jobs=1)
    page = check_book(load_book(config, cached=True), cached=True)
    for result in (command, page):
        codes = {str(f.code) for f in result.findings if f.name == "only-here"}
        assert "structure.chapter" in codes and "toc.unreached" not in codes
    assert sorted(f.order for f in page.findings) == sorted(f.order for f in command.findings)


def test_the_cycle_collector_is_off_while_a_book_is_checked_and_on_again_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    import polybook.check.run as check

    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    seen: list[bool] = []
    real = check.check_chunk

    def chunk(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(check, "check_chunk", chunk)
    assert gc.isenabled()
    check_config(load_config(tmp_path / "book" / "conf.py"), jobs=1)
    assert seen and not any(seen)
    assert gc.isenabled()


def test_the_status_pages_check_keeps_each_chunk_and_checks_again_only_the_edited_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site build after an edit checks, for its status pages, the edited chapter's chunk alone:
    the findings are those of a check that keeps nothing, before and after the edit."""
    from polybook.book import load_book
    from polybook.check import check_book
    from polybook.check import run as check

    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    config = load_config(tmp_path / "book" / "conf.py")
    checked: list[list[str]] = []
    real = check.check_chunk
    monkeypatch.setattr(check, "_KEPT_CHUNKS", 1_000)  # a chunk a chapter

    def counted(book: object, names: list[str], *args: object) -> object:
        checked.append(list(names))
        return real(book, names, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(check, "check_chunk", counted)

    def findings(cached: bool) -> list[tuple[object, ...]]:
        result = check_book(load_book(config, cached=True), cached=cached)
        return sorted((f.lang, f.name, str(f.code), f.order, f.message) for f in result.findings)

    nothing_kept = findings(False)
    checked.clear()
    assert findings(True) == nothing_kept and len(checked) > 1  # every chunk, once
    checked.clear()
    assert findings(True) == nothing_kept and checked == []  # an unchanged book: every chunk kept
    name = config.document_names("ja")[0]
    page = config.document_path("ja", name)
    page.write_text(page.read_text(encoding="utf-8") + "\nもう一文。\n", encoding="utf-8")
    nothing_kept = findings(False)
    checked.clear()
    assert findings(True) == nothing_kept and checked == [[name]]
