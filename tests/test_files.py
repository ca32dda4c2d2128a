"""A stage's lock names its holder to a waiter, even one that asks just after the holder took
the lock and before it wrote its pid, and never names a process that has let go; a shown path
resolves as Path.resolve does."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from filelock import FileLock

from polybook.files import stage_lock


def test_a_waiter_names_the_holder_that_had_not_written_its_pid_yet(tmp_path: Path) -> None:
    lock = tmp_path / "build.lock"
    holder = tmp_path / "build.lock.pid"
    said: list[str] = []
    guard = FileLock(str(lock))
    guard.acquire()  # another build took the lock and has not written its pid yet

    def wait() -> None:
        with stage_lock(lock, "the html build in build/", said.append):
            pass

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.2)
    holder.write_text("4242", encoding="utf-8")  # now it has
    time.sleep(0.2)
    guard.release()
    waiter.join(timeout=10)
    assert said == ["waiting for the html build in build/ started by pid 4242"]
    assert not holder.exists()  # let go: no later waiter names the waiter's pid


def test_the_holder_writes_its_pid_while_it_holds_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "build.lock"
    with stage_lock(lock, "the pdf build"):
        assert (tmp_path / "build.lock.pid").read_text(encoding="utf-8") == str(os.getpid())
    assert not (tmp_path / "build.lock.pid").exists()


def test_a_shown_path_resolves_links_as_path_resolve_does(tmp_path: Path) -> None:
    """display_path resolves a file through its folder, resolved once: the same as Path.resolve
    for files, links to files, files in linked folders, and paths with ``..``."""
    from polybook.files import _resolved

    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.md").write_text("x", encoding="utf-8")
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "b.md").symlink_to(tmp_path / "real" / "a.md")
    (tmp_path / "elsewhere.md").write_text("y", encoding="utf-8")
    (tmp_path / "real" / "c.md").symlink_to(tmp_path / "elsewhere.md")
    paths = ["real/a.md", "linked/a.md", "linked/b.md", "real/c.md", "linked/../real/a.md", "real/none.md", "real/.."]
    for path in paths:
        assert _resolved(str(tmp_path / path)) == (tmp_path / path).resolve(), path


def test_inside_reading_once_a_file_is_read_once(tmp_path: Path) -> None:
    """A check reads each file once (its keys, its parse, its comparison with an origin file):
    what it read is what it checks, even when the file changes under it; an unreadable file is
    tried again, and outside the block every read is the file as it is."""
    from polybook.files import read_file, reading_once

    page, missing = tmp_path / "a.md", tmp_path / "none.md"
    page.write_bytes(b"one")
    with reading_once():
        assert read_file(page) == b"one"
        page.write_bytes(b"two")
        assert read_file(page) == b"one"
        with pytest.raises(FileNotFoundError):
            read_file(missing)
        missing.write_bytes(b"now")
        assert read_file(missing) == b"now"
    assert read_file(page) == b"two"
