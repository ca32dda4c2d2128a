"""Build one PDF in a worker process: Sphinx's LaTeX builder, then latexmk with xelatex.

Sphinx keeps process-wide state (docutils registries, the first language's translator),
so every PDF is built in a process of its own, one of the Sphinx workers the site's builds
use too (:class:`polybook.stage.workers.SphinxWorkers`, forked from a server that imported
Sphinx once). :func:`run_latex` never raises: it returns what happened (:class:`LatexRun`), and the
parent turns the log into diagnostics with the staged line maps it holds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from polybook.files import atomic_write

#: -g: we only call latexmk when an input changed, so never trust its "up to date" (after a failure)
#: -file-line-error: errors as ``file:line: message``, which polybook.pdf.log reads.
LATEXMK = ["latexmk", "-g", "-pdfxe", "-dvi-", "-ps-", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]


@dataclass(slots=True)
class LatexJob:
    language: str
    framework: str
    srcdir: str
    confdir: str
    outdir: str  # Sphinx's LaTeX output; latexmk runs here
    doctreedir: str
    texname: str  # the .tex file, e.g. "dive-into-deep-learning-pytorch.tex"
    overrides: dict[str, Any]


class LatexStep(StrEnum):
    """How far a PDF's build got: made, or stopped in Sphinx or in LaTeX."""

    OK = "ok"
    SPHINX = "sphinx"
    LATEX = "latex"


@dataclass(slots=True)
class LatexRun:
    """What one PDF's worker did, handed back to the parent (which holds the line maps)."""

    step: LatexStep = LatexStep.SPHINX
    failure: str = ""  # Sphinx's exception, if it failed
    warnings: str = ""  # Sphinx's warning stream
    unset: list[dict[str, Any]] = field(default_factory=list)  # formulas set as text: pdf.formulas' records
    set_aside: list[dict[str, Any]] = field(default_factory=list)  # blocks set aside: {line, message}
    latexmk_output: str = ""  # its last 4,000 characters
    sphinx_seconds: float = 0.0
    formula_seconds: float = 0.0
    latex_seconds: float = 0.0

    @property
    def seconds(self) -> float:
        return round(self.sphinx_seconds + self.formula_seconds + self.latex_seconds, 3)


def run_latex(job: LatexJob) -> LatexRun:
    """Sphinx -> .tex -> latexmk -> .pdf for one (language, framework); never raises."""
    result = LatexRun()
    started = time.monotonic()
    from polybook.stage.sphinx_run import sphinx_build

    sphinx_status, result.failure, _, result.warnings = sphinx_build(
        job.srcdir, job.confdir, job.outdir, job.doctreedir, "latex", job.overrides
    )
    result.sphinx_seconds = round(time.monotonic() - started, 3)
    if sphinx_status != 0:
        return result
    started = time.monotonic()
    result.unset = _set_aside_formulas(Path(job.outdir), job.texname)
    result.formula_seconds = round(time.monotonic() - started, 3)
    started = time.monotonic()
    run, result.set_aside = _latexmk(Path(job.outdir), job.texname)
    result.latex_seconds = round(time.monotonic() - started, 3)
    result.latexmk_output = (run.stdout + run.stderr)[-4000:]
    pdf = Path(job.outdir) / Path(job.texname).with_suffix(".pdf")
    result.step = LatexStep.OK if run.returncode == 0 and pdf.is_file() else LatexStep.LATEX
    if result.step is not LatexStep.OK:
        _clean(Path(job.outdir), job.texname)
    return result


#: LaTeX errors tied to one block of a chapter that a PDF sets aside, one LaTeX run each, before
#: it gives up: a reader gets the rest of the book, the author every such place at its line.
MAX_SET_ASIDE = 3


def _latexmk(outdir: Path, texname: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """latexmk on the book; when it stops on an error inside a block of a chapter (between two
    source markers), that block is replaced by a notice and LaTeX runs again, up to
    :data:`MAX_SET_ASIDE` times. The blocks set aside: ``{line, message}`` each."""
    from polybook.pdf.formulas import set_aside_block
    from polybook.pdf.log import read_log

    env = {**os.environ, "max_print_line": "100000", "LATEXOPTS": ""}  # long log lines unwrapped, read whole
    book, log = outdir / texname, (outdir / texname).with_suffix(".log")
    blocks: list[dict[str, Any]] = []
    while True:
        run = subprocess.run(
            [*LATEXMK, texname], cwd=outdir, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, errors="replace", check=False,
        )  # fmt: skip
        if (run.returncode == 0 and book.with_suffix(".pdf").is_file()) or len(blocks) >= MAX_SET_ASIDE:
            return run, blocks
        text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
        error = next((e for e in read_log(text).errors if e.tex_line), None)
        tex = book.read_text(encoding="utf-8")
        fixed = set_aside_block(tex, error.tex_line, error.message) if error and error.tex_line else None
        if fixed is None or error is None:
            return run, blocks
        blocks.append({"line": error.tex_line, "message": error.message, "context": error.context})
        atomic_write(book, fixed)
        _clean(outdir, texname)


def _clean(outdir: Path, texname: str) -> None:
    """A half-written .aux can break the next run before it reaches the fixed input."""
    for leftover in outdir.glob(f"{Path(texname).stem}.*"):
        if leftover.suffix in (".aux", ".toc", ".out", ".fdb_latexmk", ".xdv"):
            leftover.unlink()


def _set_aside_formulas(outdir: Path, texname: str) -> list[dict[str, Any]]:
    """Set every formula of the book once (:mod:`polybook.pdf.formulas`); those LaTeX cannot set
    are replaced in the ``.tex`` by their text in a marked box: ``{line, message, text}`` each."""
    from polybook.pdf.formulas import failing_formulas, formulas, set_aside

    book = outdir / texname
    tex = book.read_text(encoding="utf-8")
    unset = failing_formulas(tex, formulas(tex), outdir, outdir.parent.parent / "formulas")  # build/.pdf/formulas
    if unset:
        atomic_write(book, set_aside(tex, unset))
    return [{"line": u.formula.line, "message": u.message, "text": u.formula.text} for u in unset]


def missing_tools() -> list[str]:
    """The programs a PDF build needs that are not on PATH."""
    return [tool for tool in ("xelatex", "latexmk", "xdvipdfmx", "rsvg-convert") if shutil.which(tool) is None]


def worker_failure(error: BaseException) -> LatexRun:
    """The result of a PDF whose worker process died (a segfault, memory): a Sphinx failure."""
    return LatexRun(LatexStep.SPHINX, f"the worker building it died: {type(error).__name__}: {error}")


def tex_installation() -> str:
    """A fingerprint of the TeX installation (its ls-R databases change with every package
    installed), so that installing a missing language package rebuilds the PDFs."""
    try:
        run = subprocess.run(["kpsewhich", "--all", "ls-R"], capture_output=True, text=True, check=False)
    except OSError:
        return "no TeX"
    stats = []
    for name in run.stdout.split():
        try:
            info = Path(name).resolve().stat()
        except OSError:
            continue
        stats.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
    return ";".join(stats)
