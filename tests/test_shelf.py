"""A shelf keeps a group's entries in one entry of a store: one result per slot, the last
computed; a corrupt or missing entry is a miss. Files written one by one: temporary files are
named per process and made in folders that do not exist yet."""

from __future__ import annotations

from pathlib import Path

from polybook.database import Shelf, Store, shelf
from polybook.files import store_bytes


def test_a_shelf_keeps_one_entry_per_slot_and_reads_it_back(tmp_path: Path) -> None:
    path = tmp_path / "documents.sqlite"
    calls: list[str] = []

    def compute(value: str) -> list[str]:
        calls.append(value)
        return [value]

    first = Store(path)
    with shelf(Shelf(first, "doc")) as kept:
        assert kept is not None
        assert kept.get(("findings", "ja"), "k1", list, lambda: compute("a")) == ["a"]
        assert kept.get(("findings", "zh"), "k2", list, lambda: compute("b")) == ["b"]
        assert first.get("doc") is None  # put back when the block ends
    first.flush()
    second = Store(path)  # another process's
    with shelf(Shelf(second, "doc")) as kept:
        assert kept is not None
        assert kept.get(("findings", "ja"), "k1", list, lambda: compute("x")) == ["a"]  # kept
        assert kept.get(("findings", "zh"), "k3", list, lambda: compute("c")) == ["c"]  # an edit: computed again
    second.flush()
    with shelf(Shelf(Store(path), "doc")) as kept:
        assert kept is not None
        assert kept.get(("findings", "zh"), "k3", list, lambda: compute("y")) == ["c"]
        assert kept.get(("findings", "zh"), "k2", list, lambda: compute("b2")) == ["b2"]  # replaced, not kept too
    assert calls == ["a", "b", "c", "b2"]


def test_a_corrupt_shelf_is_a_miss_and_is_written_again(tmp_path: Path) -> None:
    store = Store(tmp_path / "documents.sqlite")
    store.put("doc", b"not a pickle")
    with shelf(Shelf(store, "doc")) as kept:
        assert kept is not None
        assert kept.get("slot", "k", int, lambda: 3) == 3
    with shelf(Shelf(store, "doc")) as kept:
        assert kept is not None
        assert kept.get("slot", "k", int, lambda: 4) == 3
    with shelf(None) as nothing:
        assert nothing is None


def test_store_bytes_makes_the_folder_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    entry = tmp_path / "a" / "b" / "entry.pickle"
    assert store_bytes(entry, b"one")
    assert store_bytes(entry, b"two")
    assert entry.read_bytes() == b"two"
    assert [p.name for p in entry.parent.iterdir()] == ["entry.pickle"]
    blocked = tmp_path / "file"
    blocked.write_bytes(b"")
    assert not store_bytes(blocked / "entry.pickle", b"x")  # its folder cannot be made: not kept
