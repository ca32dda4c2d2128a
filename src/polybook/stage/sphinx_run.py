"""Run one language's Sphinx build in a fresh process, and map its warnings back.

Sphinx keeps process-wide state (docutils registries, the translator of the first
language it loaded), so every language builds in a process of its own; several run at
once with ``-j``. Warnings come back as text, cut into the build's phases
(:class:`PhasedWarnings`), and are turned into diagnostics at the chapter's ``path:line``
with the line map of the staged MyST file.
"""

from __future__ import annotations

import io
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.diagnostics import Code, Diagnostic, Level
from polybook.execute.runner import strip_ansi
from polybook.files import disk_full
from polybook.stage import sphinx_speed, workers
from polybook.stage.myst import Transpiled

_WARNING_RE = re.compile(
    r"^(?:(?P<location>.+?):(?:(?P<line>\d+):)? )?(?P<level>WARNING|ERROR|CRITICAL|SEVERE): (?P<message>.*)$"
)


@dataclass(slots=True)
class SphinxJob:
    language: str
    srcdir: str
    confdir: str
    outdir: str
    doctreedir: str
    overrides: dict[str, Any]
    fresh: bool = False  # read every document again (no stored warnings to merge with)


class PhasedWarnings(io.StringIO):
    """Sphinx's warning stream, cut into the phases of an incremental build.

    An incremental build re-emits only some warnings: those of the documents it reads
    again (``read``), of the documents it writes again (``write``), of the consistency
    check when it runs (``consistency``), and of its set-up (``setup``). polybook's
    extension moves the log from phase to phase on Sphinx's events and records which
    documents were read and written, so the build can replace exactly those of the
    stored warnings (:func:`polybook.render.build.merge_warnings`).
    """

    def __init__(self) -> None:
        super().__init__()
        self.phase = "setup"
        self.chunks: list[tuple[str, str]] = []  # (phase, text) in the order Sphinx wrote them
        self.read: list[str] = []
        self.written: list[str] = []
        self.consistency = False  # the consistency check ran (it does when a document was read)
        self.current: str | None = None  # the document being read or written (for a crash's report)

    def write(self, text: str) -> int:
        if self.chunks and self.chunks[-1][0] == self.phase:
            self.chunks[-1] = (self.phase, self.chunks[-1][1] + text)
        else:
            self.chunks.append((self.phase, text))
        return super().write(text)


#: The warning log of the Sphinx build running in this process, for polybook's extension.
ACTIVE: PhasedWarnings | None = None


def sphinx_build(
    srcdir: str,
    confdir: str,
    outdir: str,
    doctreedir: str,
    builder: str,
    overrides: dict[str, Any],
    warning: io.StringIO | None = None,
    fresh: bool = False,
) -> tuple[int, str, str, str]:
    """One Sphinx build in this process (HTML pages or LaTeX sources); never raises.

    Returns (status code, traceback of a crash or "", Sphinx's status log, its warnings).
    A crash's traceback starts with the document being read or written when the warning
    log is a :class:`PhasedWarnings` (which records it).
    """
    global ACTIVE
    status, warning = io.StringIO(), warning or io.StringIO()
    ACTIVE = warning if isinstance(warning, PhasedWarnings) else None
    try:
        from sphinx.application import Sphinx
        from sphinx.util.console import nocolor
        from sphinx.util.docutils import docutils_namespace, patch_docutils

        nocolor()
        before = set(sys.modules)
        # build_scope: the speed-ups polybook's extensions install are this build's only
        with patch_docutils(Path(confdir)), docutils_namespace(), sphinx_speed.build_scope():
            app = Sphinx(
                srcdir,
                confdir,
                outdir,
                doctreedir,
                builder,
                confoverrides=overrides,
                status=status,
                warning=warning,
                freshenv=fresh,
                verbosity=0,
            )
            workers.record_setup_modules(Path(doctreedir), before)
            app.build()
        code, failure = app.statuscode, ""
    except Exception as exc:  # a broken extension, theme or config: report it, do not stop the other builds
        if (full := disk_full(exc)) is not None:
            raise full from None  # not this language's failure: the command stops, saying what to do
        code, failure = 2, traceback.format_exc()
        if isinstance(warning, PhasedWarnings) and warning.current:
            failure = (
                f"while {warning.phase if warning.phase != 'consistency' else 'checking'} {warning.current}:\n{failure}"
            )
    finally:
        ACTIVE = None
    return code, failure, status.getvalue(), warning.getvalue()


#: Documents a crashing Sphinx build may leave out, one at a time, before the language fails.
MAX_LEFT_OUT = 5


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A document a crash of Sphinx left out of the language, with the crash."""

    doc: str
    failure: str


@dataclass(frozen=True, slots=True)
class SphinxRun:
    """One language's Sphinx build, as its worker process reports it."""

    language: str
    status: int  # Sphinx's status code (2: it crashed)
    phases: list[tuple[str, str]]  # its warning log, cut into phases (:class:`PhasedWarnings`)
    read: list[str] = field(default_factory=list)  # the documents it read again
    docs_written: list[str] = field(default_factory=list)  # and wrote again
    consistency: bool = False  # whether its consistency check ran
    failure: str = ""  # the traceback of a crash that stopped the build
    left_out: list[LeftOut] = field(default_factory=list)
    seconds: float = 0.0
    log: str = ""  # the end of its status log

    @property
    def written(self) -> int:
        return len(self.docs_written)

    @property
    def succeeded(self) -> bool:
        return self.status == 0 and not self.failure


def run_sphinx(job: SphinxJob) -> SphinxRun:
    """Build HTML for one language (in a worker process); never raises.

    A crash of Sphinx or an extension while *reading* a document must not take the language
    down: the build is run again without that document (reported in ``left_out`` with the
    crash), up to :data:`MAX_LEFT_OUT` documents, so every other page is still built.
    """
    started = time.monotonic()
    if job.language.startswith("zh"):
        sphinx_speed.quiet_jieba()
    left_out: list[LeftOut] = []
    overrides, fresh = job.overrides, job.fresh
    while True:
        log = PhasedWarnings()
        code, failure, status, _ = sphinx_build(
            job.srcdir, job.confdir, job.outdir, job.doctreedir, "html", overrides, log, fresh
        )
        doc = log.current if failure and log.phase == "read" else None
        if doc is None or len(left_out) >= MAX_LEFT_OUT or any(d.doc == doc for d in left_out):
            break
        left_out.append(LeftOut(doc, failure))
        excluded = [*overrides.get("exclude_patterns", []), f"{doc}.md"]
        overrides, fresh = {**overrides, "exclude_patterns": excluded}, True  # the environment may be half-written
    return SphinxRun(
        job.language, code, log.chunks, log.read, log.written, log.consistency, failure, left_out,
        round(time.monotonic() - started, 3), status[-4000:],
    )  # fmt: skip


def map_warnings(
    text: str, srcdir: Path, docs: dict[str, Transpiled], paths: dict[str, str], fallback: str
) -> list[Diagnostic]:
    """Sphinx's warning lines -> diagnostics at the chapter's path:line.

    A warning on a staged MyST file is moved to the line of the chapter it came from;
    one without a location is reported against ``fallback`` (the language's index).
    """
    return [diagnostic for _, diagnostic in located_warnings(text, srcdir, docs, paths, fallback)]


def located_warnings(
    text: str, srcdir: Path, docs: dict[str, Transpiled], paths: dict[str, str], fallback: str
) -> list[tuple[str, Diagnostic]]:
    """:func:`map_warnings`, each with the docname it is about ("" for none)."""
    out: list[tuple[str, Diagnostic]] = []
    srcdir = srcdir.resolve()
    for raw in strip_ansi(text).splitlines():
        m = _WARNING_RE.match(raw.strip())
        if not m:
            if out and raw.strip():  # continuation of a multi-line warning
                doc, last = out[-1]
                message = f"{last.message}\n  {raw.strip()}"
                out[-1] = (doc, Diagnostic(last.path, last.line, last.code, message, last.level))
            continue
        location, line = m["location"] or "", int(m["line"] or 0)
        path, source_line, about = fallback, 1, ""
        if location:
            file = Path(location.split(":")[0])
            try:
                docname = file.resolve().relative_to(srcdir).with_suffix("").as_posix()
            except ValueError:
                docname = ""
            about = docname if file.suffix == ".md" else ""
            if docname in docs:
                path, source_line = paths[docname], docs[docname].source_line(line) if line else 1
            elif not location.startswith("<"):
                path, source_line = location, line or 1
        level = Level.ERROR if m["level"] in ("ERROR", "CRITICAL", "SEVERE") else Level.WARNING
        out.append((about, Diagnostic.make(path, source_line, Code.HTML_SPHINX, m["message"].strip(), level)))
    return out
