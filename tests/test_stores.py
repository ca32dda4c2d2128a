"""The stores of kept entries under ``build/.polybook`` are swept as the execution cache is: the
temporary file of a writer that was killed goes, and so does an entry no run has used for a
month. What a run reads is marked used and stays; a store is swept once a day at most."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from polybook import files
from polybook.files import SWEPT, kept, sweep_store, swept

from conftest import FIXTURES

LONG_AGO = time.time() - 40 * 24 * 3600  # longer than files.UNUSED_FOR
AN_HOUR_AGO = time.time() - 3600  # longer than files.STALE_TEMPORARY


@pytest.fixture(autouse=True)
def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test is a process that has swept no store yet."""
    monkeypatch.setattr(files, "_swept_here", set())


def aged(path: Path, when: float, data: bytes = b"kept") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (when, when))
    return path


def plant(folder: Path) -> dict[str, Path]:
    """In ``folder``'s fan-out: an entry no run used for long, a temporary file a killed writer
    left, a temporary file being written now, an entry used lately."""
    return {
        "unused": aged(folder / "ab" / "ab12", LONG_AGO),
        "orphan": aged(folder / "ab" / ".ab34.x7q2", AN_HOUR_AGO),
        "writing": aged(folder / "ab" / ".ab56.k3z9", time.time()),
        "used": aged(folder / "cd" / "cd78", time.time() - 24 * 3600),
    }


def assert_swept(planted: dict[str, Path]) -> None:
    assert {name for name, path in planted.items() if path.exists()} == {"writing", "used"}


def test_a_store_loses_orphans_and_what_no_run_used_and_keeps_what_one_read(tmp_path: Path) -> None:
    planted = plant(tmp_path)
    read = aged(tmp_path / "ef" / "ef90.pickle", LONG_AGO, b"not a pickle")
    assert kept(read, int, lambda: 7) == 7  # a miss, written again: used now
    import pickle

    again = aged(tmp_path / "ef" / "ef91.pickle", LONG_AGO, pickle.dumps(8))
    assert kept(again, int, lambda: 0) == 8  # a hit: marked used
    assert sweep_store(tmp_path) == 2
    assert_swept(planted)
    assert read.exists() and again.exists()


def test_a_store_is_swept_once_a_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "store"
    assert swept(store) == store and not store.exists()  # nothing kept yet: no folder made
    planted = plant(store)
    aged(store / SWEPT, time.time() - 3600, b"")  # another process swept it an hour ago
    monkeypatch.setattr(files, "_swept_here", set())
    swept(store)
    assert all(path.exists() for path in planted.values())
    aged(store / SWEPT, time.time() - 25 * 3600, b"")  # yesterday
    monkeypatch.setattr(files, "_swept_here", set())
    swept(store)
    assert_swept(planted)
    planted = plant(store)
    swept(store)  # this process has swept it already
    assert all(path.exists() for path in planted.values())


def test_the_parsed_documents_are_swept(tmp_path: Path) -> None:
    """They are kept in one database (:mod:`polybook.database`), swept by the same rules."""
    import sqlite3
    from contextlib import closing

    from polybook.database import entries, flush_stores
    from polybook.dialect import DialectSettings
    from polybook.models import DATABASE, parse_cached

    store = tmp_path / "build" / ".polybook" / "models"
    planted = {"unused": LONG_AGO, "used": time.time() - 24 * 3600}
    store.mkdir(parents=True)
    with closing(sqlite3.connect(store / DATABASE)) as connection, connection:
        connection.execute("CREATE TABLE entries (key TEXT PRIMARY KEY, data BLOB NOT NULL, used REAL NOT NULL)")
        connection.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value REAL NOT NULL)")
        connection.execute("INSERT INTO meta VALUES ('swept', ?)", (LONG_AGO,))
        connection.executemany("INSERT INTO entries VALUES (?, ?, ?)", [(k, b"kept", t) for k, t in planted.items()])
    chapter = tmp_path / "ch.md"
    chapter.write_text("# Title\n\n```{.python .input}\nx = 1\n```\n", encoding="utf-8")
    doc = parse_cached(chapter, DialectSettings("en", ("pytorch",), "pytorch"), "ch.md", store)
    assert doc.cells()[0].code == "x = 1"
    flush_stores()
    with closing(sqlite3.connect(store / DATABASE)) as connection:
        keys = {key for (key,) in connection.execute("SELECT key FROM entries")}
    assert "used" in keys and "unused" not in keys
    assert entries(store / DATABASE) == 2  # and what this run parsed


def test_the_kept_findings_are_swept(tmp_path: Path) -> None:
    """Each chapter's, each chunk's, the renames' and the library's."""
    from polybook.check import check_config
    from polybook.config import load_config

    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    config = load_config(tmp_path / "book" / "conf.py")
    findings = config.build_dir / ".polybook" / "findings"
    planted = {
        f"{name} {folder}": path
        for folder in ("", "chunks", "renames", "library")
        for name, path in plant(findings / folder).items()
    }
    check_config(config, jobs=1)
    assert {name for name, path in planted.items() if path.exists()} == {
        f"{name} {folder}" for folder in ("", "chunks", "renames", "library") for name in ("writing", "used")
    }
    assert len(list(findings.glob("chunks/*/*.pickle"))) == 2  # this run's


def test_the_kept_bases_are_swept(tmp_path: Path) -> None:
    from polybook.check.bases import Base, BaseKind, _closest
    from polybook.dialect import DialectSettings, parse_text

    settings = DialectSettings("en", ("pytorch",), "pytorch")
    store = tmp_path / "build" / ".polybook" / "models"
    planted = plant(store.parent / "bases")
    target = parse_text("```{.python .input}\nx = 2\n```\n", "zh/ch.md", settings)
    scored = [
        Base(BaseKind.ORIGIN, parse_text("```{.python .input}\nx = 1\n```\n", "zh/ch_origin.md", settings), "origin"),
        Base(
            BaseKind.SOURCE_MATCHED, parse_text("```{.python .input}\nx = 2\n```\n", "en/ch.md", settings), "the source"
        ),
    ]
    assert _closest(scored, target, store, tmp_path / "zh" / "ch.md", (settings,)) == 1
    assert_swept(planted)


@pytest.mark.parametrize("store", ["highlight", "bibtex"])
def test_the_highlighted_code_and_formatted_entries_are_swept(tmp_path: Path, store: str) -> None:
    """When a build installs the speed-ups that keep them."""
    from polybook.stage import sphinx_speed

    planted = plant(tmp_path / "build" / ".polybook" / store)
    app = SimpleNamespace(
        doctreedir=tmp_path / "build" / "html" / "en" / "doctrees",
        config=SimpleNamespace(language="en"),
        connect=lambda *args, **kwargs: None,
    )
    with sphinx_speed.build_scope():
        sphinx_speed.install(app)
    assert_swept(planted)


def test_a_database_in_a_folder_store_is_left_to_sweep_its_own_entries(tmp_path: Path) -> None:
    planted = plant(tmp_path)
    databases = [aged(tmp_path / f"documents{suffix}", LONG_AGO) for suffix in files.DATABASE_SUFFIXES]
    sweep_store(tmp_path)
    assert_swept(planted)
    assert all(path.exists() for path in databases)
