"""Run one language's Sphinx build in a fresh process, and map its warnings back.

Sphinx keeps process-wide state (docutils registries, the translator of the first
language it loaded), so every language builds in a process of its own; several run at
once with ``-j``. Warnings come back as text and are turned into diagnostics at the
chapter's ``path:line`` with the line map of the staged MyST file.
"""

from __future__ import annotations

import io
import re
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook.diagnostics import Code, Diagnostic, Level
from polybook.execute.runner import strip_ansi
from polybook.render.myst import Transpiled

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


def sphinx_build(
    srcdir: str, confdir: str, outdir: str, doctreedir: str, builder: str, overrides: dict[str, Any]
) -> tuple[int, str, str, str]:
    """One Sphinx build in this process (HTML pages or LaTeX sources); never raises.

    Returns (status code, traceback of a crash or "", Sphinx's status log, its warnings).
    """
    status, warning = io.StringIO(), io.StringIO()
    try:
        from sphinx.application import Sphinx
        from sphinx.util.console import nocolor
        from sphinx.util.docutils import docutils_namespace, patch_docutils

        nocolor()
        with patch_docutils(Path(confdir)), docutils_namespace():
            app = Sphinx(
                srcdir,
                confdir,
                outdir,
                doctreedir,
                builder,
                confoverrides=overrides,
                status=status,
                warning=warning,
                freshenv=False,
                verbosity=0,
            )
            app.build()
        code, failure = app.statuscode, ""
    except Exception:  # a broken extension, theme or config: report it, do not stop the other builds
        code, failure = 2, traceback.format_exc()
    return code, failure, status.getvalue(), warning.getvalue()


def run_sphinx(job: SphinxJob) -> dict[str, Any]:
    """Build HTML for one language (in a worker process); never raises."""
    started = time.monotonic()
    if job.language.startswith("zh"):
        _quiet_jieba()
    code, failure, status, warnings = sphinx_build(
        job.srcdir, job.confdir, job.outdir, job.doctreedir, "html", job.overrides
    )
    written = len(re.findall(r"^writing output\.\.\. ", status, re.MULTILINE))
    return {
        "language": job.language,
        "status": code,
        "warnings": warnings,
        "failure": failure,
        "seconds": round(time.monotonic() - started, 3),
        "log": status[-4000:],
        "written": written,
    }


def _quiet_jieba() -> None:
    """jieba logs its dictionary loading at DEBUG level to stderr; it sets that level on import."""
    import logging

    try:
        import jieba
    except ImportError:
        return
    jieba.setLogLevel(logging.WARNING)


def map_warnings(
    text: str, srcdir: Path, docs: dict[str, Transpiled], paths: dict[str, str], fallback: str
) -> list[Diagnostic]:
    """Sphinx's warning lines -> diagnostics at the chapter's path:line.

    A warning on a staged MyST file is moved to the line of the chapter it came from;
    one without a location is reported against ``fallback`` (the language's index).
    """
    out: list[Diagnostic] = []
    srcdir = srcdir.resolve()
    for raw in strip_ansi(text).splitlines():
        m = _WARNING_RE.match(raw.strip())
        if not m:
            if out and raw.strip():  # continuation of a multi-line warning
                last = out[-1]
                out[-1] = Diagnostic(last.path, last.line, last.code, f"{last.message}\n  {raw.strip()}", last.level)
            continue
        location, line = m["location"] or "", int(m["line"] or 0)
        path, source_line = fallback, 1
        if location:
            file = Path(location.split(":")[0])
            try:
                docname = file.resolve().relative_to(srcdir).with_suffix("").as_posix()
            except ValueError:
                docname = ""
            if docname in docs:
                path, source_line = paths[docname], docs[docname].source_line(line) if line else 1
            elif not location.startswith("<"):
                path, source_line = location, line or 1
        level = Level.ERROR if m["level"] in ("ERROR", "CRITICAL", "SEVERE") else Level.WARNING
        out.append(Diagnostic.make(path, source_line, Code.HTML_SPHINX, m["message"].strip(), level))
    return out
