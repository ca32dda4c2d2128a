"""Work done in a forked child process while this one goes on, its result read when it is needed.

A build has two cores' work where one process would do it in turn: an edit in one language
stages that language and runs its Sphinx, and the translation-status tables read the whole book
(the other languages' documents, the check of every chapter). The child is forked, not spawned:
it starts with what this process has loaded (the book parsed so far), and nothing is pickled on
the way in; only the result comes back, through a pipe.

The child is a copy for one task: it sends its result (or that it failed) and leaves without
tearing down (``os._exit``), after keeping what it parsed (:func:`polybook.database.flush_stores`;
the stores' inherited connections are the parent's: :mod:`polybook.database` forgets them at the
fork). Whatever goes wrong on the child's side -- no ``fork`` on this system, a child that died or
could not send its result -- :meth:`Forked.result` does the work here instead: the result is the
same, only later. An exception the work raises in the child is raised here as it would be.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Forked(Generic[T]):
    """``work()`` run in a forked child from now on; :meth:`result` waits for it. ``nice``: the
    child's priority lowered by that much (``os.nice``), for work done in the background of
    what someone waits for."""

    def __init__(self, work: Callable[[], T], nice: int = 0) -> None:
        self.work = work
        self.process: multiprocessing.process.BaseProcess | None = None
        if "fork" not in multiprocessing.get_all_start_methods():
            return
        context = multiprocessing.get_context("fork")
        self.reader, writer = context.Pipe(duplex=False)
        self.process = context.Process(target=_child, args=(work, writer, nice), name="polybook-forked", daemon=True)
        self.process.start()
        writer.close()  # the child's end: the parent reads EOF when the child is gone

    def result(self) -> T:
        """The work's result: the child's, or worked out here when the child gave none."""
        if self.process is None:
            return self.work()
        try:
            ok, payload = pickle.loads(self.reader.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError):  # it died before sending: do the work here
            ok, payload = None, None
        finally:
            self.reader.close()
            self.process.join()
        if ok is None:
            return self.work()
        if not ok:
            raise payload
        return payload


def _child(work: Callable[[], T], writer: multiprocessing.connection.Connection, nice: int = 0) -> None:
    from polybook.database import flush_stores

    if nice:
        with contextlib.suppress(OSError):  # a system that refuses it: the same work, at the same priority
            os.nice(nice)
    try:
        value = work()
        try:
            message = pickle.dumps((True, value), pickle.HIGHEST_PROTOCOL)
        except Exception:  # a result that does not pickle: the parent works it out itself
            message = b""
    except BaseException as exc:  # raised in the parent, as the work would raise it there
        try:
            message = pickle.dumps((False, exc), pickle.HIGHEST_PROTOCOL)
        except Exception:
            message = b""
    if message:
        with contextlib.suppress(OSError):  # the parent stopped listening
            writer.send_bytes(message)
    writer.close()
    flush_stores()
    os._exit(0)
