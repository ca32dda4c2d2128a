"""The processes a Sphinx build runs in -- a language's site, a PDF -- one way for both.

Every language builds in a process of its own (:mod:`polybook.stage.sphinx_run` says why).
Spawning one is a new interpreter that imports Sphinx and its extensions (half a second).
The workers are forked instead from multiprocessing's fork server, which imports all that once
per polybook process (a ``serve`` session keeps it): it is started as soon as a build knows a
language is out of date, so its imports overlap parsing and staging. Where there is no fork
server (Windows), workers are spawned as before. Nothing of the book is imported there: API
pages are written from the library's source (:mod:`polybook.stage.api_source`), so the
frameworks it imports are not needed either. A zh build's search dictionary is loaded there
(:func:`polybook.stage.sphinx_speed.load_chinese_dictionary`). What the server
imports is named in :data:`PRELOAD_VARIABLE` for :mod:`polybook.stage.preload`, which imports
each module on its own and lets a failing one fail later, in the worker, where Sphinx reports
it.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import forkserver
from pathlib import Path
from typing import TypeVar

from polybook.files import atomic_write

T = TypeVar("T")
R = TypeVar("R")
_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
#: The fork server's environment variable: what to import besides Sphinx (commas).
PRELOAD_VARIABLE = "POLYBOOK_SPHINX_PRELOAD"
#: ... what the last builds' Sphinx set-up imported besides (commas), imported after the above.
SETUP_VARIABLE = "POLYBOOK_SPHINX_SETUP_MODULES"
#: ... the Sphinx environments to unpickle ahead (``os.pathsep``).
ENVIRONMENTS_VARIABLE = "POLYBOOK_SPHINX_ENVIRONMENTS"
#: ... the process that started it: it ends when that one does (:func:`end_with_parent`).
PARENT_VARIABLE = "POLYBOOK_SPHINX_PARENT"
#: In a doctree folder: the modules its last build's Sphinx set-up imported (extensions, builder,
#: theme, the book's conf.py) beyond what the fork server imports anyway.
SETUP_MODULES = "polybook-setup-modules.json"
#: In the fork server and its workers: the modules it had before those of :data:`SETUP_MODULES`.
SERVER_BASE: frozenset[str] = frozenset()


def fresh(languages: list[str], doctrees: dict[str, Path]) -> list[str]:
    """The languages whose Sphinx builds from nothing (no environment in its ``doctrees``)."""
    return [lang for lang in languages if not (doctrees[lang] / "environment.pickle").is_file()]


def start(modules: Iterable[str] = (), doctrees: Iterable[Path] = ()) -> None:
    """Start the fork server the Sphinx workers will come from, importing Sphinx and
    ``modules`` (``module`` or ``module:function`` to call) -- unless one runs in this process
    already (it keeps what it imported). For the builds that will use ``doctrees`` (their Sphinx
    environment is there), it also imports what their last set-up imported and unpickles their
    environments (:func:`polybook.stage.sphinx_speed.load_environments_ahead`)."""
    if _METHOD != "forkserver":
        return
    folders = list(doctrees)
    setup = sorted({name for folder in folders for name in setup_modules(folder)})
    environments = [str(folder / "environment.pickle") for folder in folders]
    context = multiprocessing.get_context(_METHOD)
    context.set_forkserver_preload(["polybook.stage.preload"])
    with (
        _variable(PRELOAD_VARIABLE, ",".join(sorted(modules))),
        _variable(SETUP_VARIABLE, ",".join(setup)),
        _variable(ENVIRONMENTS_VARIABLE, os.pathsep.join(environments)),
        _variable(PARENT_VARIABLE, str(os.getpid())),
    ):
        forkserver.ensure_running()


def setup_modules(doctrees: Path) -> list[str]:
    """The modules recorded in ``doctrees`` by :func:`record_setup_modules` (none: unreadable)."""
    try:
        names = json.loads((doctrees / SETUP_MODULES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def record_setup_modules(doctrees: Path, before: set[str]) -> None:
    """Record in ``doctrees`` the modules this process imported since ``before`` (a Sphinx
    application's set-up) beyond those its fork server had anyway: the next build of that
    folder has its fork server import them ahead. Written only when they changed."""
    base = SERVER_BASE or before
    names = sorted(name for name in sys.modules if name not in base and not name.startswith("__"))
    if names != setup_modules(doctrees):
        with contextlib.suppress(OSError):
            atomic_write(doctrees / SETUP_MODULES, json.dumps(names))


class SphinxWorkers:
    """Up to ``workers`` processes (the cores), each used for one build -- Sphinx's translator
    state must not leak from one language into the next -- and each job handed to them from a
    thread of its own: starting a worker waits for the fork server to finish its imports, and
    the build stages the next language meanwhile. A worker that dies is its job's failure; a
    worker whose build died (an out-of-memory kill of the build alone) dies with it, as the fork
    server does (:func:`end_with_parent`)."""

    def __init__(self, languages: int, workers: int | None) -> None:
        count = max(1, min(languages, workers or default_workers(languages, multiprocessing.cpu_count())))
        context = multiprocessing.get_context(_METHOD)
        self.pool = ProcessPoolExecutor(
            max_workers=count, mp_context=context, max_tasks_per_child=1, initializer=_worker_started
        )
        self.threads = ThreadPoolExecutor(max_workers=max(1, languages), thread_name_prefix="polybook-sphinx")

    def submit(self, function: Callable[[T], R], job: T) -> Future[R]:
        return self.threads.submit(_in_worker, self.pool, function, job)

    def shutdown(self) -> None:
        self.threads.shutdown()
        self.pool.shutdown()


def default_workers(languages: int, cores: int) -> int:
    """How many languages build at once when ``--jobs`` does not say: the cores, and one more
    when the languages do not fill the cores evenly. The builds of a book's languages take about
    as long each: five on two cores, two at a time, leave the last one alone on a core for a
    third of the build; three at a time, then two, keep both cores busy to the end (d2l's five
    languages cold: 73 s -> 63 s). The Sphinx builds share highlighted code through a store,
    which languages built later read: all five at once would highlight it five times."""
    if languages <= cores or languages % cores == 0:
        return cores
    return cores + 1


def _in_worker(pool: ProcessPoolExecutor, function: Callable[[T], R], job: T) -> R:
    return pool.submit(function, job).result()  # a dead worker raises BrokenProcessPool here


def end_with_parent(parent: int | None) -> None:
    """Have this process killed as soon as its parent ends (Linux; elsewhere nothing): the fork
    server, started by a build, and each worker, forked by the server. A build killed alone (an
    out-of-memory kill) would otherwise leave its Sphinx writing pages and environments beside
    the next build, and idle workers holding their imports for good. ``parent``: the pid it
    must have, when known (it may have ended before this is set)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def _worker_started() -> None:
    end_with_parent(None)  # forked by the fork server, whose pid only it knows
    build = multiprocessing.parent_process()
    if build is not None and not build.is_alive():  # the build ended before: so does this worker
        os._exit(1)


_PR_SET_PDEATHSIG = 1


@contextlib.contextmanager
def _variable(name: str, value: str) -> Iterator[None]:
    """``name=value`` in this process's environment while the server is started (it copies
    the environment), as it was afterwards."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before
