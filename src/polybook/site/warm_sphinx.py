"""One language's live Sphinx, in a process of its own, for ``polybook serve``'s warm path.

Sphinx keeps process-wide state (docutils registries, the translator of the first language it
loaded), so each language's application lives in a worker process of its own -- as every build's
does (:mod:`polybook.stage.sphinx_run`) -- but this one stays: the application is created once
(its environment unpickled once, its extensions and theme set up once) and each change asks it
for ``build(filenames=...)``, so Sphinx re-reads the documents whose staged file is newer and
writes only the pages named. The worker answers with the same :class:`SphinxRun` a build's
worker does, so its warnings are merged into the language's record the same way.
"""

from __future__ import annotations

import io
import multiprocessing
import signal
import time
import traceback
from collections.abc import Callable
from contextlib import ExitStack, suppress
from multiprocessing.connection import Connection
from typing import Any

from polybook.stage import sphinx_run, sphinx_speed
from polybook.stage.sphinx_run import PhasedWarnings, SphinxJob, SphinxRun

#: Seconds to wait for a worker to start and set its application up, or to answer one build.
ANSWER_TIMEOUT = 600.0


class WarmSphinx:
    """A worker process holding ``job``'s Sphinx application, built on demand."""

    def __init__(self, job: SphinxJob) -> None:
        self.job = job
        context = multiprocessing.get_context("spawn")  # nothing of the serving process's threads
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, job), name=f"polybook-warm-{job.language}")
        self.process.daemon = True
        self.process.start()
        theirs.close()
        self.ready: str | None = None  # "" once the application is set up, else why it is not

    def wait_ready(self) -> bool:
        """Whether the application was set up (waits for it the first time)."""
        if self.ready is None:
            self.ready = self._answer() if self.process.is_alive() else "the worker stopped"
        return self.ready == ""

    def build(self, filenames: list[str]) -> SphinxRun | None:
        """Sphinx's incremental build of ``filenames`` (staged files); None when the worker is
        not usable (then the caller builds the usual way)."""
        if not self.wait_ready():
            return None
        try:
            self.conn.send(filenames)
            run = self._answer()
        except (OSError, EOFError):
            return None
        return run if isinstance(run, SphinxRun) else None

    def _answer(self) -> Any:
        if not self.conn.poll(ANSWER_TIMEOUT):
            return "no answer"
        try:
            return self.conn.recv()
        except (OSError, EOFError):
            return "the worker stopped"

    def close(self) -> None:
        with suppress(OSError):
            self.conn.send(None)
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
        self.conn.close()


def _serve(conn: Connection, job: SphinxJob) -> None:
    """The worker: set the application up, say so, then build what each message names until None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the serving process's: it closes its workers
    if job.language.startswith("zh"):
        sphinx_speed.quiet_jieba()
    log = PhasedWarnings()
    with ExitStack() as scope:
        try:
            app = _application(scope, job, log)
        except Exception:  # a broken extension, theme or config: the caller builds the usual way
            conn.send(traceback.format_exc())
            return
        conn.send("")
        setup = [chunk for chunk in log.chunks if chunk[0] == "setup"]  # said once, when it was set up
        after = _After()
        with suppress(EOFError, OSError, KeyboardInterrupt):  # the serving process stopped: so does its worker
            while (filenames := conn.recv()) is not None:
                if after.failure:  # the last build's finishing failed: the caller builds the usual way
                    conn.send(SphinxRun(job.language, 2, [], failure=after.failure))
                    return
                _build(app, job, log, filenames, [*setup, *after.take()], conn.send, after)
                _static_copied(app.builder)


def _application(scope: ExitStack, job: SphinxJob, log: PhasedWarnings) -> Any:
    from pathlib import Path

    from sphinx.application import Sphinx
    from sphinx.util.console import nocolor
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    nocolor()
    scope.enter_context(patch_docutils(Path(job.confdir)))
    scope.enter_context(docutils_namespace())
    scope.enter_context(sphinx_speed.build_scope())
    sphinx_run.ACTIVE = log
    app = Sphinx(
        job.srcdir, job.confdir, job.outdir, job.doctreedir, "html",
        confoverrides=job.overrides, status=io.StringIO(), warning=log, freshenv=False, verbosity=0,
    )  # fmt: skip
    return app


def _static_copied(builder: Any) -> None:
    """The theme's and the book's static files, and conf.py's extra files, are in the output
    since the first build: the next ones copy them no more (a tenth of a d2l page's rebuild).
    What would change them -- conf.py, the book's static folder, a polybook upgrade -- is not a
    prose edit: the full build runs, with a new worker after it. Downloads a page names are
    still copied."""
    builder.copy_static_files = builder.copy_extra_files = lambda: None


class _After:
    """What a build did after it answered (:func:`_build`): its finishing's warnings, said with
    the next answer, or the traceback that stopped it, the next answer's."""

    def __init__(self) -> None:
        self.warnings: list[tuple[str, str]] = []
        self.failure = ""

    def take(self) -> list[tuple[str, str]]:
        taken, self.warnings = self.warnings, []
        return taken


def _since(chunks: list[tuple[str, str]], count: int, length: int) -> list[tuple[str, str]]:
    """What the log got since it held ``count`` chunks, the last ``length`` characters long (a
    warning in the same phase is added to the last chunk)."""
    late = chunks[count:]
    if count and len(chunks[count - 1][1]) > length:
        phase, text = chunks[count - 1]
        late.insert(0, (phase, text[length:]))
    return late


def _build(
    app: Any,
    job: SphinxJob,
    log: PhasedWarnings,
    filenames: list[str],
    said: list[tuple[str, str]],
    answer: Callable[[SphinxRun], None],
    after: _After,
) -> None:
    """One build of the live application, answered as soon as its pages are written: what
    Sphinx does after -- the search index, the object inventory, polybook's search ranking and
    sidebar record (``finish``, ``build-finished``) -- goes on while the served page reloads
    (each file it writes is replaced whole: a page loading meanwhile reads the last one). The
    next build waits for it; what it warned of comes with that build's answer (``after``), and a
    failure of it answers that build with the failure (the caller then builds the usual way).

    The warning log starts afresh (the same stream: Sphinx holds it), and the speed-ups the last
    build took out on finishing are put back. ``said``: warnings reported with this answer
    besides the build's own (the set-up's, as a build in a new process says them, and the last
    build's finishing's)."""
    started = time.monotonic()
    log.seek(0)
    log.truncate(0)
    log.phase, log.chunks, log.read, log.written, log.consistency, log.current = "setup", [], [], [], False, None
    sphinx_run.ACTIVE = log
    sphinx_speed.reinstall(app)
    answered: list[tuple[int, int]] = []  # the warning log's chunks and its last one's length, when answered

    def run(code: int, failure: str = "") -> SphinxRun:
        return SphinxRun(
            job.language, code, [*said, *log.chunks], log.read, log.written, log.consistency, failure, [],
            round(time.monotonic() - started, 3), "",
        )  # fmt: skip

    builder = app.builder
    finish = builder.finish

    def answer_then_finish() -> None:
        answer(run(0))
        answered.append((len(log.chunks), len(log.chunks[-1][1]) if log.chunks else 0))
        finish()

    builder.finish = answer_then_finish
    try:
        app.build(False, filenames)
        code, failure = app.statuscode, ""
    except Exception:
        code, failure = 2, traceback.format_exc()
    finally:
        del builder.finish  # the instance's: the class's method again
    if not answered:
        return answer(run(code, failure))
    after.warnings = _since(log.chunks, *answered[0])
    after.failure = failure or (f"Sphinx ended with status {code}" if code else "")
