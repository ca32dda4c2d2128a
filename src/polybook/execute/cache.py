"""A content-addressed store of program results: one checksummed JSON file per key.

Hand-written rather than jupyter-cache: that library keys whole notebooks and keeps a
SQLite index, while our unit is a program shared by several languages' notebooks, and
the guarantees we need are simple to state and to test:

* writes are atomic: a temporary file in the same folder, fsync, ``os.replace``;
* every entry carries the sha256 of its payload: a corrupt or truncated entry is a miss
  (and is removed from the cache), never an error and never a wrong result;
* a per-key file lock (``filelock``, an OS lock released when its process dies) lets
  two builds share one store: the second waits for the first's run and then hits;
* a build killed with SIGKILL leaves at most a stale temporary file, swept later.

The same class holds the committed ``frozen/`` results (``fanout=False``: flat files;
``discard_corrupt=False``: a corrupt committed file is a miss but stays, for a person to see).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook.files import write_through

FORMAT = 1
_STALE_TMP = 600  # seconds after which an orphaned temporary file is swept


def _canonical(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def checksum(payload: dict[str, Any]) -> str:
    return hashlib.sha256(_canonical(payload)).hexdigest()


@dataclass(slots=True)
class Lookup:
    """What :meth:`Store.get` found: ``payload`` or why not (``missing``/``corrupt``)."""

    payload: dict[str, Any] | None
    reason: str = "hit"


class Store:
    def __init__(self, root: Path, fanout: bool = True, discard_corrupt: bool = True) -> None:
        self.root = root
        self.fanout = fanout
        self.discard_corrupt = discard_corrupt

    # -- layout -------------------------------------------------------------------------
    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json" if self.fanout else self.root / f"{key}.json"

    def lock(self, key: str, timeout: float = -1) -> Any:
        """An exclusive inter-process lock on ``key`` (use as a context manager)."""
        from filelock import FileLock

        folder = self.root / ".locks"
        folder.mkdir(parents=True, exist_ok=True)
        return FileLock(str(folder / f"{key}.lock"), timeout=timeout)

    # -- entries ------------------------------------------------------------------------
    def get(self, key: str) -> Lookup:
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return Lookup(None, "missing")
        except OSError:
            return Lookup(None, "corrupt")
        try:
            entry = json.loads(raw)
            payload = entry["payload"]
            ok = entry.get("format") == FORMAT and entry["key"] == key and entry["sha256"] == checksum(payload)
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            if self.discard_corrupt:
                with contextlib.suppress(OSError):
                    path.unlink()
            return Lookup(None, "corrupt")
        return Lookup(payload)

    def put(self, key: str, payload: dict[str, Any]) -> Path:
        path = self.path(key)
        entry = {"format": FORMAT, "key": key, "sha256": checksum(payload), "payload": payload}
        data = json.dumps(entry, ensure_ascii=False, indent=None, separators=(",", ":")).encode("utf-8")

        def fill(tmp: Path) -> None:
            with tmp.open("wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())

        write_through(path, fill)
        return path

    def keys(self) -> Iterator[str]:
        pattern = "*/*.json" if self.fanout else "*.json"
        for path in sorted(self.root.glob(pattern)):
            if not path.name.startswith("."):
                yield path.stem

    def entries(self) -> Iterator[tuple[str, dict[str, Any] | None, int]]:
        """(key, payload or None when corrupt, size in bytes) for every entry."""
        for key in self.keys():
            path = self.path(key)
            size = path.stat().st_size if path.exists() else 0
            yield key, self.get(key).payload, size

    def sweep(self, older_than: float = _STALE_TMP) -> int:
        """Remove temporary files orphaned by killed writers; returns how many."""
        now, removed = time.time(), 0
        for tmp in self.root.rglob(".*.tmp"):
            with contextlib.suppress(OSError):
                if now - tmp.stat().st_mtime > older_than:
                    tmp.unlink()
                    removed += 1
        return removed

    def clear(self) -> int:
        """Remove every entry and temporary file (locks stay: another build may hold one)."""
        removed = 0
        for key in list(self.keys()):
            with contextlib.suppress(OSError):
                self.path(key).unlink()
                removed += 1
        self.sweep(older_than=0)
        for folder in sorted(self.root.glob("*/"), reverse=True):
            if folder.name != ".locks":
                with contextlib.suppress(OSError):
                    folder.rmdir()
        return removed
