"""A store of kept entries in one SQLite file, for a store that a cold run fills with many entries.

A store of one file per entry (:func:`polybook.files.kept`) costs the file system an inode, a
directory entry and a rename per entry: a cold ``polybook check`` of the d2l book keeps some
1,250 parsed documents, and on ext4 that was half a CPU-second of system time and stalls of
the workers on the journal. Here the entries a process computes are written together, in one
transaction per :data:`BATCH` entries (or at :func:`flush_stores`), to one file.

SQLite (the stdlib's ``sqlite3``) because it gives what a hand-made pack file would have to
write again: lookups by key from any process, writers from several processes at once (a
write-ahead log: readers never wait), and a file that is never half written. It is a cache: its
writes are not synced to the disk, a database that cannot be read is removed and made again,
and a write that cannot be made is dropped (the entry is computed again next time).

Entries carry the time they were last used; an entry no run has used for
:data:`polybook.files.UNUSED_FOR` is removed at the first use of the store in a process when
the store was not swept for :data:`polybook.files.SWEEP_EVERY`, as the folder stores are.
"""

from __future__ import annotations

import atexit
import os
import pickle
import sqlite3
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import closing, contextmanager, suppress
from multiprocessing.util import Finalize
from pathlib import Path
from typing import TypeVar

from polybook.files import SWEEP_EVERY, UNUSED_FOR, USED_MARK

T = TypeVar("T")

#: Entries a process writes in one transaction: few enough that what a process computed
#: reaches the file while it works, many enough that the writes cost nothing.
BATCH = 64
_BUSY_MS = 10_000  # how long a writer waits for another process's transaction
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, data BLOB NOT NULL, used REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value REAL NOT NULL)",
)


class Store:
    """The entries kept in the SQLite file at ``path`` (made when first written), for this
    process: :func:`store_at` gives one per file and process."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._pending: dict[str, bytes] = {}
        self._used: set[str] = set()  # hits whose time is to be moved to now
        self._checked = False  # swept, or found recently swept, in this process

    def get(self, key: str) -> bytes | None:
        """The entry's bytes, None when there is none (or the file cannot be read)."""
        if key in self._pending:
            return self._pending[key]
        connection = self._connect(create=False)
        if connection is None:
            return None
        try:
            row = connection.execute("SELECT data, used FROM entries WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        if time.time() - row[1] > USED_MARK:
            self._used.add(key)
        return row[0]

    def put(self, key: str, data: bytes) -> None:
        """Keep ``data`` under ``key``: written with the next :data:`BATCH` (or :meth:`flush`)."""
        self._pending[key] = data
        if len(self._pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Write what was put and mark what was read as used, in one transaction."""
        if not (self._pending or self._used):
            return
        pending, used, now = self._pending, self._used, time.time()
        self._pending, self._used = {}, set()
        connection = self._connect(create=True)
        if connection is None:
            return
        with suppress(sqlite3.Error), connection:  # a cache: what cannot be written is computed again
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(
                "INSERT OR REPLACE INTO entries (key, data, used) VALUES (?, ?, ?)",
                [(key, data, now) for key, data in pending.items()],
            )
            connection.executemany("UPDATE entries SET used = ? WHERE key = ?", [(now, key) for key in used])

    def sweep(self, unused_for: float = UNUSED_FOR) -> int:
        """Remove the entries no run has used for ``unused_for`` seconds; returns how many."""
        connection = self._connect(create=False)
        if connection is None:
            return 0
        with suppress(sqlite3.Error), connection:
            connection.execute("BEGIN IMMEDIATE")
            removed = connection.execute("DELETE FROM entries WHERE used < ?", (time.time() - unused_for,)).rowcount
            connection.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('swept', ?)", (time.time(),))
            return removed
        return 0

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if self._connection is None and (create or self.path.is_file()):
            try:
                self._connection = _open(self.path)
            except sqlite3.DatabaseError:  # not a database (a damaged file): made again
                _remove(self.path)
                with suppress(sqlite3.Error, OSError):
                    self._connection = _open(self.path)
            except (sqlite3.Error, OSError):
                return None
            if self._connection is not None and not self._checked:
                self._checked = True
                self._sweep_when_due()
        return self._connection

    def _sweep_when_due(self) -> None:
        assert self._connection is not None
        with suppress(sqlite3.Error):
            row = self._connection.execute("SELECT value FROM meta WHERE name = 'swept'").fetchone()
            if row is None:
                self._connection.execute("INSERT OR IGNORE INTO meta (name, value) VALUES ('swept', ?)", (time.time(),))
            elif time.time() - row[0] > SWEEP_EVERY:
                self.sweep()


def _open(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    # autocommit mode: transactions are begun by hand (BEGIN IMMEDIATE: a writer waits its turn
    # at the start, never fails half-way through for a lock)
    connection = sqlite3.connect(path, timeout=_BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        # (of a new file only) a parsed document is some 17 kB: on 4 kB pages each is a chain of
        # overflow pages, each page a write; on 16 kB ones, writing the 1.0 book's 1,179 took 0.05
        # CPU-s, not 0.08, and 10 % more room
        connection.execute("PRAGMA page_size = 16384")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = OFF")  # a cache: a power cut loses it, nothing else
        for statement in _SCHEMA:
            connection.execute(statement)
    except BaseException:
        connection.close()
        raise
    return connection


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with suppress(OSError):
            os.unlink(f"{path}{suffix}")


_stores: dict[Path, Store] = {}  # this process's open stores


def store_at(path: Path) -> Store:
    """This process's :class:`Store` of the file at ``path``."""
    found = _stores.get(path)
    if found is None:
        found = _stores[path] = Store(path)
        if _finalizing[0] != os.getpid():
            # a worker process of multiprocessing ends without the exit handlers: its own hook
            _finalizing[0] = os.getpid()
            Finalize(None, flush_stores, exitpriority=10)
    return found


_finalizing = [0]  # the process that registered the flush at a worker's exit


def flush_stores() -> None:
    """Write every store's pending entries: at the end of a task in a worker process (which ends
    without the interpreter's exit handlers), and at exit."""
    for store in list(_stores.values()):
        store.flush()


_inherited: list[Store] = []  # a forked child's copies of its parent's: never used, never closed


def _forget_inherited() -> None:
    """In a forked child: the parent's stores are the parent's (its connections and pending
    entries); the child opens its own. SQLite's connections must not cross a fork: the copies
    are kept unused, and not closed (closing one could act on the parent's file)."""
    _inherited.extend(_stores.values())
    _stores.clear()


os.register_at_fork(after_in_child=_forget_inherited)
atexit.register(flush_stores)


def kept_in(store: Store, key: str, kind: type[T], compute: Callable[[], T]) -> T:
    """The ``kind`` object kept in ``store`` under ``key``, else ``compute()``'s result, kept
    there. A missing, damaged or foreign entry is a miss."""
    found = read_in(store, key, kind)
    if found is not None:
        return found
    made = compute()
    store.put(key, pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
    return made


def read_in(store: Store, key: str, kind: type[T]) -> T | None:
    """The ``kind`` object kept in ``store`` under ``key``; None when there is none, or it is
    damaged or of another kind (another release's)."""
    data = store.get(key)
    if data is None:
        return None
    try:
        found = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError, ImportError):
        return None
    return found if isinstance(found, kind) else None


def entries(path: Path) -> int:
    """How many entries the store at ``path`` holds (0 when it has none or cannot be read)."""
    if not path.is_file():
        return 0
    with suppress(sqlite3.Error), closing(sqlite3.connect(path)) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
    return 0


class Shelf:
    """Kept entries of one group in one entry of a :class:`Store` (a document's, for every
    language): a cold check writes an entry per group instead of one per result. Each ``slot``
    holds one result, the last computed (an edit replaces it: the entry never grows); the entry
    is read at the first :meth:`get`, put back by :meth:`close` when a result was computed. Two
    processes writing one shelf: the last one's is kept, and the other's results are computed
    again next time (a shelf, like every store here, is only faster)."""

    def __init__(self, store: Store, name: str) -> None:
        self.store, self.name = store, name
        self._slots: dict[Hashable, tuple[str, object]] | None = None
        self._changed = False

    def get(self, slot: Hashable, key: str, kind: type[T], compute: Callable[[], T]) -> T:
        """The ``kind`` object kept in ``slot`` under ``key``, else ``compute()``'s, kept there."""
        slots = self._read()
        found = slots.get(slot)
        if found is not None and found[0] == key and isinstance(found[1], kind):
            return found[1]
        made = compute()
        slots[slot] = (key, made)
        self._changed = True
        return made

    def _read(self) -> dict[Hashable, tuple[str, object]]:
        if self._slots is None:
            self._slots = read_in(self.store, self.name, dict) or {}
        return self._slots

    def close(self) -> None:
        if self._changed and self._slots is not None:
            self.store.put(self.name, pickle.dumps(self._slots, protocol=pickle.HIGHEST_PROTOCOL))
            self._changed = False


@contextmanager
def shelf(kept: Shelf | None) -> Iterator[Shelf | None]:
    """``kept`` (None for none), put back into its store when the block ends."""
    try:
        yield kept
    finally:
        if kept is not None:
            kept.close()
