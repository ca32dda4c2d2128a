"""Writing files so that readers (and a second build) never see half of one; the stores of kept
entries (:func:`kept`, :func:`store_bytes`) and how they are swept (:func:`swept`)."""

from __future__ import annotations

import copyreg
import ctypes
import ctypes.util
import dataclasses
import errno
import functools
import hashlib
import itertools
import json
import operator
import os
import pickle
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) via a temporary file in the same folder and rename: readers never
    see half a file (:func:`write_through`)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """:func:`atomic_write` of bytes.

    The file keeps its mode; a new one gets what ``open()`` would give it (0666 less the
    umask), not the temporary file's 0600.
    """

    def fill(tmp: Path) -> None:
        with tmp.open("wb") as handle:
            handle.write(data)
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask())

    write_through(path, fill)


def write_through(path: Path, fill: Callable[[Path], None]) -> None:
    """Make ``path`` by having ``fill`` write a new temporary file beside it (a unique name: two
    builds may write at once), then renaming that over ``path``: a reader -- or the next build --
    sees the old file or the new one, never half of one. On any failure (a full disk) ``path`` is
    as it was and no temporary file is left. ``path``'s folder is made when it is missing."""
    fd, name = _temporary(path)
    os.close(fd)
    tmp = Path(name)
    try:
        fill(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class DamagedCopy(OSError):
    """A copy that does not hold what it was copied from (its size or its hash)."""


def atomic_copy(
    source: str | os.PathLike[str], target: str | os.PathLike[str], expect: tuple[int, str] | None = None
) -> str:
    """Copy ``source`` to ``target`` with its mode and times (as :func:`shutil.copy2`), through a
    temporary file and a rename (:func:`write_through`); usable as :func:`shutil.copytree`'s
    ``copy_function``. The copy's size is checked against the source's; with ``expect`` --
    (size, SHA-256) the source is known by, a PDF's stamp -- its size and hash are checked
    against those: a copy that differs raises :class:`DamagedCopy` and is not put in place."""
    target_path = Path(target)

    def fill(tmp: Path) -> None:
        shutil.copy2(source, tmp)
        size = tmp.stat().st_size
        wanted = expect[0] if expect is not None else os.stat(source).st_size
        if size != wanted or (expect is not None and file_sha256(tmp) != expect[1]):
            shown = f"{wanted} bytes" + (f", SHA-256 {expect[1][:12]}" if expect is not None else "")
            raise DamagedCopy(f"the copy of {display_path(Path(source))} does not match it ({shown} expected)")

    write_through(target_path, fill)
    return str(target)


def link_or_copy(source: Path, target: Path) -> None:
    """Put ``source`` at ``target`` as a hard link when they share a file system (a book's
    figures are hundreds of megabytes, staged once per language, PDF and notebook folder), else
    as a copy with its times; either way through a temporary file and a rename."""

    def fill(tmp: Path) -> None:
        tmp.unlink()
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copy2(source, tmp)

    write_through(target, fill)


#: errno's "no space left on device" (and a quota exceeded, which says the same to a user).
_FULL = {errno.ENOSPC, errno.EDQUOT}


def disk_full(exc: BaseException | None) -> OSError | None:
    """The "no space left on device" error that caused ``exc`` (itself, or one it was raised
    from or while handling: Sphinx and the process pools wrap errors), else None."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _FULL:
            return exc
        exc = exc.__cause__ or exc.__context__ or getattr(exc, "orig_exc", None)
    return None


def store_bytes(path: Path, data: bytes) -> bool:
    """Write a cache entry atomically (a temporary file of its own, then a rename), creating its
    folder; False, and nothing left behind, when it cannot be written: a cache is only faster."""
    try:
        fd, tmp = _temporary(path)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        with suppress(OSError):
            os.unlink(tmp)
        return False
    return True


_written = itertools.count()  # this process's temporary files (:func:`_temporary`)


def _temporary(path: Path) -> tuple[int, str]:
    """A new file beside ``path`` to write it through, opened, and its name; its folder is made
    when it is missing. Named by the process and a counter rather than by :func:`tempfile.mkstemp`'s
    random names, and the folder made only when the open says it is missing: a cold check writes
    some 2,000 entries, and mkstemp's and mkdir's work was a tenth of its CPU time. Dot-named, so
    that :func:`sweep_store` knows one a killed writer left, and ending ``.tmp``, so that one left
    in the site is never published."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.getpid()}.{next(_written)}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            continue  # a killed process with the same id left it: another name
    raise FileExistsError(f"no free temporary name beside {path}")


def hash_files(digest: Any, paths: Iterable[Path]) -> None:
    """Feed each file's name and bytes to ``digest`` (a hashlib object), in the order given: how
    polybook versions its own code in a cache key (a change misses every entry keyed by it)."""
    for path in paths:
        digest.update(path.name.encode() + path.read_bytes())


def kept(entry: Path, kind: type[T], compute: Callable[[], T]) -> T:
    """The ``kind`` object pickled at ``entry`` (a cache's entry), else ``compute()``'s result,
    kept there for the next time. A missing, corrupt or foreign entry is a miss."""
    found = read_pickled(entry, kind)
    if found is not None:
        return found
    made = compute()
    store_bytes(entry, pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
    return made


def kept_pickle(entry: Path, kind: type[T], compute: Callable[[], T]) -> bytes:
    """:func:`kept`'s object as its pickle: for a worker process, whose result is sent back
    pickled, to send the pickle it keeps rather than make a second one."""
    try:
        data = read_kept(entry)
        if isinstance(pickle.loads(data), kind):
            return data
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError, ImportError):
        pass
    data = pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL)
    store_bytes(entry, data)
    return data


def read_pickled(entry: Path, kind: type[T]) -> T | None:
    """The ``kind`` object pickled at ``entry``; None when it is missing, corrupt or of another
    kind (a cache's entry from another release): for a store, only a miss."""
    try:
        found = pickle.loads(read_kept(entry))
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError, ImportError):
        return None
    return found if isinstance(found, kind) else None


def pickled_by_fields(*classes: type) -> None:
    """Pickle these dataclasses (of :mod:`dataclasses`, with slots) as a call of the class
    with their fields' values. What dataclasses gives such a class instead runs
    ``dataclasses.fields`` for every object loaded and dumped: two thirds of the time a check
    with kept findings took to read its findings, and a third of a parsed document's. Only for
    a class whose every field is an argument of its ``__init__`` and that has no
    ``__post_init__`` (the call then makes the object that was pickled)."""
    for cls in classes:
        fields = dataclasses.fields(cls)
        if not all(f.init for f in fields) or hasattr(cls, "__post_init__"):
            raise TypeError(f"{cls.__qualname__} cannot be pickled as a call with its fields")
        values = operator.attrgetter(*(f.name for f in fields))
        if len(fields) == 1:
            copyreg.pickle(cls, lambda obj, cls=cls, values=values: (cls, (values(obj),)))
        else:
            copyreg.pickle(cls, lambda obj, cls=cls, values=values: (cls, values(obj)))


#: An entry no run has read or written for this long is swept: every store of kept entries is
#: a cache of what polybook computes again in seconds, and each edit adds entries under new keys.
UNUSED_FOR = 30 * 24 * 3600
#: A temporary file older than this was left by a writer that was killed (the execution cache's rule).
STALE_TEMPORARY = 600
#: A read entry's time is moved to now (it is used) once it is older than this: a day's precision
#: is enough for :data:`UNUSED_FOR`, and spares a write of the file's metadata on every hit.
USED_MARK = 24 * 3600
#: A store is swept at most this often; its :data:`SWEPT` file's time says when it last was.
SWEEP_EVERY = 24 * 3600
SWEPT = ".swept"
DATABASE_SUFFIXES = (".sqlite", ".sqlite-wal", ".sqlite-shm")  # a store in one file: not swept as files
_swept_here: set[Path] = set()  # the stores this process has looked at (:func:`swept`)


def read_kept(entry: Path) -> bytes:
    """A store entry's bytes (``OSError`` when it cannot be read), marked used for
    :func:`sweep_store`: its time is moved to now when it is older than :data:`USED_MARK`."""
    with entry.open("rb") as handle:
        data = handle.read()
        changed = os.fstat(handle.fileno()).st_mtime
    if time.time() - changed > USED_MARK:
        with suppress(OSError):  # a store we may not write: it is only not swept
            os.utime(entry)
    return data


def sweep_store(root: Path, unused_for: float = UNUSED_FOR, stale: float = STALE_TEMPORARY) -> int:
    """Remove from the store at ``root`` (entries at any depth, written by :func:`store_bytes`)
    the temporary files of writers that were killed (dot-named, older than ``stale`` seconds)
    and the entries no run has read or written for ``unused_for`` seconds; returns how many.

    Safe beside a build using the store: an entry removed under it is a miss, not an error."""
    now, removed = time.time(), 0
    for folder, _, names in os.walk(root):
        for name in names:
            if name == SWEPT or name.endswith(DATABASE_SUFFIXES):
                continue  # a database sweeps its own entries (polybook.database)
            path = os.path.join(folder, name)
            with suppress(OSError):  # gone already: another process swept it
                if now - os.stat(path).st_mtime > (stale if name.startswith(".") else unused_for):
                    os.unlink(path)
                    removed += 1
    return removed


def swept(root: Path) -> Path:
    """``root``, a store of kept entries, swept (:func:`sweep_store`) when this process first uses
    it and no process has swept it for :data:`SWEEP_EVERY`: how the module that owns a store
    names its folder, so every store is swept as the execution cache is, at the start of a run."""
    if root in _swept_here:
        return root
    _swept_here.add(root)
    marker = root / SWEPT
    try:
        if time.time() - marker.stat().st_mtime < SWEEP_EVERY:
            return root
    except FileNotFoundError:
        pass
    except OSError:
        return root
    if root.is_dir():  # nothing kept yet: no folder is made for nothing
        try:
            marker.touch()  # first: the other processes starting now leave it to this one
        except OSError:  # a store we may not write: nothing could be removed either
            return root
        sweep_store(root)
    return root


def _umask() -> int:
    """The process's umask (read by setting it, so set it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_contents: dict[str, bytes] | None = None  # inside reading_once: path -> its bytes
_cwd: str | None = None  # inside reading_once: the working directory, as it was when the block began


def read_file(path: Path) -> bytes:
    """``path.read_bytes()``; inside :func:`reading_once`, each file is read once (an error is
    raised each time it is asked, never kept)."""
    if _contents is None:
        return path.read_bytes()
    name = os.fspath(path)
    found = _contents.get(name)
    if found is None:
        found = _contents[name] = path.read_bytes()
    return found


@contextmanager
def reading_once() -> Iterator[None]:
    """Inside the block, :func:`read_file` reads each file once: a check reads a document for
    its keys, to parse it and to compare it with its ``X_origin.md``, and an edition's document
    once for every language that follows the edition (bookmix: 5,800 opens of 1,900 files, each
    open some nine system calls). The working directory is asked once too (paths are shown from
    it: 3,900 asks)."""
    global _contents, _cwd
    if _contents is not None:
        yield
        return
    _contents, _cwd = {}, os.getcwd()
    try:
        yield
    finally:
        _contents = _cwd = None


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def replace_folder(fresh: Path, dest: Path) -> Path | None:
    """Put ``fresh`` at ``dest`` so that readers of ``dest`` see the old site or the new one;
    the old folder when it could not be removed afterwards (it is in place, renamed), else None.

    Python has no way to swap two folders: ``os.replace`` cannot replace a non-empty
    folder. Linux's ``renameat2(RENAME_EXCHANGE)`` swaps them in one step; elsewhere the
    old folder is renamed away first (a reader may then briefly find no folder, never half a site).
    """
    if not dest.exists():
        os.rename(fresh, dest)
        return None
    old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
    if _exchange(fresh, dest):
        os.rename(fresh, old)  # fresh now holds the old site
    else:
        os.rename(dest, old)
        os.rename(fresh, dest)
    try:
        shutil.rmtree(old)
    except OSError:
        return old
    return None


def _exchange(a: Path, b: Path) -> bool:
    name = ctypes.util.find_library("c")
    if not name:
        return False
    libc = ctypes.CDLL(name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


@contextmanager
def stage_lock(lock: Path, what: str, say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``lock`` for a stage that must not run twice at once in one build folder (two
    ``build html``, ``serve`` beside a ``build html``): a second one waits, saying for whom --
    ``what`` is e.g. "the html build in build/" -- and then runs."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    from filelock import FileLock, Timeout  # here: most commands take no stage lock

    holder = lock.with_name(lock.name + ".pid")
    guard = FileLock(str(lock))
    try:
        guard.acquire(timeout=0)
    except Timeout:
        (say or print)(f"waiting for {what} started by pid {_holder_pid(holder)}")
        guard.acquire()
    try:
        atomic_write(holder, str(os.getpid()))
        yield
    finally:
        holder.unlink(missing_ok=True)  # a later waiter must not name this process
        guard.release()


def _holder_pid(holder: Path) -> str:
    """The pid the lock's holder wrote; it writes it just after taking the lock, so a waiter
    that comes in between waits for it a moment ("?" if it never comes)."""
    for _ in range(40):
        try:
            pid = holder.read_text(encoding="utf-8").strip()
        except OSError:
            pid = ""
        if pid.isdigit():
            return pid
        time.sleep(0.025)
    return "?"


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    return _shown(os.fspath(path), _cwd or os.getcwd())


@functools.lru_cache(maxsize=65536)
def _shown(path: str, cwd: str) -> str:
    """:func:`display_path` of a path from a working directory, memoised: a check shows every
    document's path from several places (each resolve asks the file system for every folder)."""
    try:
        return os.path.relpath(path, cwd) if _resolved(os.path.join(cwd, path)).is_relative_to(cwd) else path
    except ValueError:
        return path


def resolved(path: Path) -> Path:
    """``path.resolve()``, each folder resolved once per process (see :func:`_resolved`): for the
    paths a check resolves again and again (bookmix: 1,000 resolves of 300 files)."""
    return _resolved(os.path.join(_cwd or os.getcwd(), path))


def _resolved(path: str) -> Path:
    """``Path(path).resolve()`` of an absolute ``path``, its folder resolved once per process: a
    file that is no link resolves to its resolved folder and its name (bookmix: 2,500 documents in
    some 300 folders, each full resolve a look at every folder above it)."""
    folder, name = os.path.split(path)
    if name in ("", ".", "..") or os.path.islink(path):
        try:
            return Path(path).resolve()
        except RuntimeError:  # a symbolic link loop (Python < 3.13 raises): as far as it resolves
            return Path(os.path.realpath(path))
    return _resolved_folder(folder) / name


@functools.lru_cache(maxsize=4096)
def _resolved_folder(folder: str) -> Path:
    try:
        return Path(folder).resolve()
    except RuntimeError:  # a symbolic link loop (Python < 3.13 raises): as far as it resolves
        return Path(os.path.realpath(folder))


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; empty when the file is missing, unreadable or no object (a
    stamp or report not written yet, or by an older polybook, is one not written)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
