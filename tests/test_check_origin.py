"""A d2lbook translation's ``X_origin.md`` -- the source text it was made from -- is the
staleness base until a sync record replaces it: what changed in the source since, per cell
and paragraph, with the diff."""

from __future__ import annotations

from pathlib import Path

from polybook import sync
from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config

from minibook import cell, make_book

THEN = "# Loops\n\nWe loop ten times.\n\n" + cell("for i in range(10):\n    print(i)") + "\nThe end.\n"
NOW = THEN.replace("range(10)", "range(100)").replace("We loop ten times.", "We loop a hundred times.")
JA = "# ループ\n\n十回ループします。\n\n" + cell("for i in range(10):\n    print(i)") + "\n終わり。\n"


def stale(conf: Path) -> list[tuple[str, str, tuple]]:
    result = check_book(load_book(load_config(conf)))
    return [(str(f.code), f.message, f.diff) for f in result.active if str(f.code).startswith("stale")]


def test_the_origin_file_says_what_changed_in_the_source_since_the_translation(tmp_path: Path) -> None:
    conf = make_book(tmp_path, NOW, JA, name="loops")
    assert [code for code, *_ in stale(conf)] == ["stale.unknown"]  # no record, no base: unknown
    (tmp_path / "chapters" / "ja" / "loops_origin.md").write_text(THEN, encoding="utf-8")
    found = stale(conf)
    assert [code for code, *_ in found] == ["stale.plan", "stale.source", "stale.source"]  # the plan's row first
    assert found[0][1].startswith("the source changed since the translation was made from loops_origin.md: ")
    cell_change = next(f for f in found if f[0] == "stale.source" and "cell" in f[1])
    assert "since the translation was made from loops_origin.md" in cell_change[1]
    assert ("range(10)", "range(100)") in cell_change[2]  # then -> now
    prose = next(f for f in found if f[0] == "stale.source" and "text" in f[1])
    assert ("ten", "a hundred") in prose[2]


def test_a_sync_record_covers_code_math_and_labels_and_the_origin_file_stays_the_prose_base(tmp_path: Path) -> None:
    """sync makes code, math and labels equal and leaves the prose: its staleness still counts
    from the origin file afterwards (it did not vanish with a record that said "synced")."""
    conf = make_book(tmp_path, NOW, JA, name="loops")
    origin = tmp_path / "chapters" / "ja" / "loops_origin.md"
    origin.write_text(THEN, encoding="utf-8")
    before = stale(conf)
    book = load_book(load_config(conf))
    results = sync.sync_book(book)
    assert any("loops_origin.md stays the base of the prose" in why for r in results for why in r.kept)
    sync.write(book, results)
    assert origin.is_file()  # nothing the user wrote is removed
    assert '"covers": [' in (tmp_path / "chapters" / "ja" / "polybook-sync.json").read_text(encoding="utf-8")
    after = stale(conf)
    assert after and after == before
