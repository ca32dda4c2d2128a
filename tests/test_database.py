"""The store of kept entries in one SQLite file: what one process keeps another reads, a hit is
marked used, a damaged file is made again, and a forked child writes its own entries."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from polybook import database
from polybook.database import BATCH, Store, entries, flush_stores, kept_in, store_at


def test_what_is_put_is_read_back_and_written_in_batches(tmp_path: Path) -> None:
    path = tmp_path / "s" / "kept.sqlite"
    store = Store(path)
    store.put("a", b"1")
    assert store.get("a") == b"1" and not path.exists()  # pending: read back, not written yet
    for n in range(BATCH - 1):
        store.put(f"k{n}", b"x")
    assert entries(path) == BATCH  # a full batch is written at once
    assert Store(path).get("a") == b"1"  # by another reader too


def test_kept_in_computes_once_and_a_damaged_entry_is_a_miss(tmp_path: Path) -> None:
    store = Store(tmp_path / "kept.sqlite")
    calls = []
    assert kept_in(store, "k", int, lambda: calls.append(1) or 7) == 7
    assert kept_in(store, "k", int, lambda: calls.append(1) or 8) == 7 and len(calls) == 1
    store.flush()
    store.put("k", b"not a pickle")
    assert kept_in(store, "k", int, lambda: 9) == 9
    assert kept_in(store, "k", str, lambda: "other kind") == "other kind"  # another release's entry


def test_a_hit_on_an_old_entry_marks_it_used(tmp_path: Path) -> None:
    path = tmp_path / "kept.sqlite"
    writer = Store(path)
    writer.put("k", b"v")
    writer.flush()
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("UPDATE entries SET used = ?", (time.time() - 40 * 24 * 3600,))
    reader = Store(path)
    assert reader.get("k") == b"v"
    reader.flush()
    with closing(sqlite3.connect(path)) as connection:
        (used,) = connection.execute("SELECT used FROM entries WHERE key = 'k'").fetchone()
    assert time.time() - used < 60
    assert reader.sweep() == 0


def test_a_store_that_cannot_be_written_is_only_slower(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the store's folder would be", encoding="utf-8")
    store = Store(blocked / "kept.sqlite")
    assert kept_in(store, "k", int, lambda: 3) == 3
    store.flush()  # nothing raised, nothing kept
    assert store.get("k") is None


def _child(path: str) -> None:
    store_at(Path(path)).put("child", b"c")
    flush_stores()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_forked_child_writes_its_own_entries_and_not_its_parents_pending_ones(tmp_path: Path) -> None:
    path = tmp_path / "kept.sqlite"
    parent = store_at(path)
    parent.put("written", b"w")
    parent.flush()
    parent.put("pending", b"p")  # the parent's, not yet written
    child = multiprocessing.get_context("fork").Process(target=_child, args=(str(path),))
    child.start()
    child.join()
    assert child.exitcode == 0
    with closing(sqlite3.connect(path)) as connection:
        keys = {key for (key,) in connection.execute("SELECT key FROM entries")}
    assert keys == {"written", "child"}
    parent.flush()
    assert entries(path) == 3
    database._stores.pop(path)
