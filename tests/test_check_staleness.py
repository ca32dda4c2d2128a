"""The sync record (lock file) is data from the pull request: it must never steer git."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

import polybook.check.chapter
import polybook.check.chunk
import polybook.sync
from polybook import sync
from polybook.book import load_book
from polybook.check import check_book
from polybook.check.staleness import LOCK_NAME, SyncRecord, read_lock, source_at, write_lock
from polybook.config import load_config
from polybook.files import atomic_write, file_sha256

from minibook import cell, make_book


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def committed_book(root: Path) -> Path:
    conf = make_book(root, "Intro.\n\n" + cell("x = 1"), "序文。\n\n" + cell("x = 1"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "book")
    return conf


def test_a_lock_commit_that_is_not_a_hash_never_reaches_git(tmp_path: Path) -> None:
    conf = committed_book(tmp_path)
    written = tmp_path / "out"
    (tmp_path / "out:chapters" / "en").mkdir(parents=True)  # where `git show --output=out:chapters/...` writes
    lock = {"source_language": "en", "chapters": {"intro": {"commit": f"--output={written}", "sha256": "0" * 64}}}
    (tmp_path / "chapters" / "ja" / LOCK_NAME).write_text(json.dumps(lock, indent=2), encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    assert not list((tmp_path / "out:chapters" / "en").iterdir())
    (bad,) = [f for f in result.active if f.code == "stale.lock"]
    assert bad.level == "error"
    assert bad.primary.path.endswith(f"chapters/ja/{LOCK_NAME}") and bad.primary.line == 4
    assert "'intro'" in bad.message and "--output=" in bad.message
    assert read_lock(tmp_path / "chapters" / "ja")["intro"].commit is None  # nobody downstream gets it
    book = load_book(load_config(conf))
    sync.write(book, sync.sync_book(book))  # sync replaces the bad entry
    assert read_lock(tmp_path / "chapters" / "ja")["intro"].commit == git(tmp_path, "rev-parse", "HEAD")
    assert check_book(load_book(load_config(conf))).active == []


def test_lock_commits_must_be_hex(tmp_path: Path) -> None:
    conf = committed_book(tmp_path)
    head = git(tmp_path, "rev-parse", "HEAD")
    digest = file_sha256(tmp_path / "chapters" / "en" / "intro.md")
    entries = {"a": head, "b": head[:7], "c": head[:6], "d": "HEAD", "e": head.upper(), "f": 42, "g": None}
    lock = {"chapters": {k: {"commit": v, "sha256": digest} for k, v in entries.items()}}
    (tmp_path / "chapters" / "ja" / LOCK_NAME).write_text(json.dumps(lock), encoding="utf-8")
    records = read_lock(tmp_path / "chapters" / "ja")
    assert {k: r.commit for k, r in records.items()} == {
        "a": head, "b": head[:7], "c": None, "d": None, "e": None, "f": None, "g": None
    }  # fmt: skip
    assert {k for k, r in records.items() if r.problem} == {"c", "d", "e", "f"}
    assert load_config(conf)  # the book itself is fine


def test_source_at_passes_end_of_options(tmp_path: Path) -> None:
    committed_book(tmp_path)
    en = tmp_path / "chapters" / "en" / "intro.md"
    head = git(tmp_path, "rev-parse", "HEAD")
    assert source_at(tmp_path, head, en) == en.read_text(encoding="utf-8")
    (tmp_path / "out:chapters" / "en").mkdir(parents=True)
    assert source_at(tmp_path, f"--output={tmp_path / 'out'}", en) is None
    assert not list((tmp_path / "out:chapters" / "en").iterdir())


def test_each_language_reads_its_lock_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a", "b", "c"):
        conf = make_book(tmp_path, cell(f"{name} = 1"), cell(f"{name} = 1"), name=name)
    calls: list[Path] = []

    def counting(folder: Path) -> dict:
        calls.append(folder)
        return read_lock(folder)

    monkeypatch.setattr(polybook.check.chunk, "read_lock", counting)
    monkeypatch.setattr(polybook.check.chapter, "read_lock", counting)
    monkeypatch.setattr(polybook.sync, "read_lock", counting)
    book = load_book(load_config(conf))
    check_book(book)
    assert calls == [tmp_path / "chapters" / "ja"]
    calls.clear()
    sync.sync_book(book)
    assert calls == [tmp_path / "chapters" / "ja"]


def test_source_changes_point_at_the_translation_counterpart(tmp_path: Path) -> None:
    en = "# A\n:label:`a`\n\nFirst.\n\n" + cell("x = 1") + "\nSecond.\n\n" + cell("y = 2", "pytorch")
    ja = "# A\n:label:`a`\n\n一。\n\n" + cell("x = 1") + "\n二。\n\nもう一つ。\n"
    conf = make_book(tmp_path, en, ja)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "book")
    record = SyncRecord(git(tmp_path, "rev-parse", "HEAD"), file_sha256(tmp_path / "chapters" / "en" / "intro.md"))
    write_lock(tmp_path / "chapters" / "ja", "en", {"intro": record})
    (tmp_path / "chapters" / "en" / "intro.md").write_text(en.replace("Second.", "Second, revised."))
    result = check_book(load_book(load_config(conf)))
    stale = sorted(
        (f.primary.line, f.source.line if f.source else 0) for f in result.active if f.code == "stale.source"
    )
    assert stale == [(10, 10)]
    (tmp_path / "chapters" / "en" / "intro.md").write_text(en.replace("y = 2", "y = 3"))
    result = check_book(load_book(load_config(conf)))
    stale = sorted(
        (f.primary.line, f.source.line if f.source else 0) for f in result.active if f.code == "stale.source"
    )
    assert stale == [(10, 12)]  # the pytorch cell has no counterpart: where it belongs


def test_new_files_get_the_usual_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.json", "{}\n")
        os.umask(0o027)
        atomic_write(tmp_path / "other.json", "{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "other.json").stat().st_mode) == 0o640
    (tmp_path / "new.json").chmod(0o600)
    atomic_write(tmp_path / "new.json", "[]\n")  # an existing file keeps its mode
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o600
