"""The PDF books: one per language and framework, built in parallel, skipped when unchanged.

For each (language, framework) the book is staged (:mod:`polybook.pdf.stage`) in the
parent process -- cheap, and it yields a digest of everything the PDF depends on: the
MyST text (chapters, outputs from the execution results), figures, conf.py and the LaTeX
settings. When the digest matches the one stored beside the PDF, nothing runs. The others
are built in parallel (``-j``), each in a fresh process and its own folder
``<build>/.pdf/<lang>-<framework>/``, and their logs turned into diagnostics.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from concurrent.futures import as_completed
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from polybook import __version__
from polybook.book import load_book
from polybook.config import BookConfig
from polybook.config.digest import sphinx_settings
from polybook.diagnostics import Code, Diagnostic, Level, has_errors
from polybook.execute.outputs import read_outputs
from polybook.files import atomic_copy, atomic_write, disk_full, display_path, file_sha256, stage_lock
from polybook.pdf.cover import cover, tex_text
from polybook.pdf.fonts import plan_fonts
from polybook.pdf.languages import Typesetting, latex_elements, main_fonts, numfig_format, typesetting
from polybook.pdf.latex import LatexJob, LatexRun, LatexStep, missing_tools, run_latex, tex_installation, worker_failure
from polybook.pdf.log import diagnose, read_log, source_of
from polybook.pdf.scripts import main_script
from polybook.pdf.stage import stage_framework
from polybook.stage import interrupted, sphinx_state, workers
from polybook.stage.documents import Stage
from polybook.stage.i18n import SPHINX_LANGUAGE
from polybook.stage.names import book_name, library_version
from polybook.stage.settings import bibfiles, bibtex_settings, guard_settings, myst_extensions
from polybook.stage.sphinx_run import map_warnings


@dataclass(frozen=True, slots=True)
class PdfTarget:
    language: str
    framework: str
    pdf: Path  # build/pdf/<lang>/<book>-<framework>.pdf
    workdir: Path  # build/.pdf/<lang>-<framework>

    @property
    def name(self) -> str:
        return f"{self.language}/{self.framework}"

    @property
    def stamp(self) -> Path:
        """What the PDF was built from (the digest of its inputs) and its page count, beside it."""
        return self.pdf.with_name(f".{self.pdf.name}.digest")

    @property
    def log(self) -> Path:
        return self.workdir / "latex" / self.pdf.with_suffix(".log").name


class PdfStatus(StrEnum):
    """What became of one PDF in a ``build pdf``."""

    BUILT = "built"
    WITH_ERRORS = "built with errors"  # a formula set as its text...: readable, not publishable
    UNCHANGED = "unchanged"  # nothing it depends on changed: not built again
    FAILED = "failed"  # the PDF in build/pdf, if any, is an older build; its stamp is removed

    @property
    def fatal(self) -> bool:
        return self in (PdfStatus.FAILED, PdfStatus.WITH_ERRORS)


@dataclass(slots=True)
class PdfOutcome:
    target: PdfTarget
    status: PdfStatus
    seconds: float = 0.0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    pages: int | None = None


@dataclass(slots=True)
class PdfReport:
    outcomes: list[PdfOutcome]
    seconds: float

    @property
    def failed(self) -> list[PdfOutcome]:
        """The PDFs not built, or built with errors (now or, unchanged, when they were)."""
        return [o for o in self.outcomes if o.status.fatal or has_errors(o.diagnostics)]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for o in self.outcomes for d in o.diagnostics]


def pdf_targets(
    config: BookConfig, languages: list[str] | None = None, frameworks: list[str] | None = None
) -> list[PdfTarget]:
    """Every (language, framework) PDF of the book, in config order, filtered."""
    stem = book_name(config)
    return [
        PdfTarget(
            lang,
            fw,
            config.build_dir / "pdf" / lang / f"{stem}-{fw}.pdf",
            config.build_dir / ".pdf" / f"{lang}-{fw}",
        )
        for lang, settings in config.languages.items()
        if not languages or lang in languages
        for fw in settings.frameworks
        if not frameworks or fw in frameworks
    ]


def site_pdfs(config: BookConfig, lang: str, built_only: bool = False) -> list[dict[str, str]]:
    """The PDFs of ``language`` for the site header (``polybook_site["pdfs"]``).

    ``path`` is relative to the site root, where :func:`polybook.site.assemble.copy_pdfs`
    puts ``build/pdf/<lang>/*.pdf``: ``ja/pdf/dive-into-deep-learning-pytorch.pdf``.
    ``built_only`` leaves out the PDFs not built (yet): the header never links a 404.
    """
    return [
        {"name": f"PDF ({config.label_of(t.framework)})", "path": f"{lang}/pdf/{t.pdf.name}"}
        for t in pdf_targets(config, [lang])
        if t.pdf.is_file() or not built_only
    ]


def sphinx_overrides(config: BookConfig, target: PdfTarget, stage: Stage | None = None) -> dict[str, Any]:
    """Sphinx settings of one PDF; the book's own ``latex_elements`` win over ours.
    ``stage``: the staged book, whose characters choose the fallback fonts."""
    lang = config.languages[target.language]
    spec = stage_typesetting(stage) if stage else typesetting(target.language)
    fonts = plan_fonts((doc.text for doc in stage.docs.values()), *main_fonts(spec)) if stage else None
    cover_page = {"maketitle": cover(config.label_of(target.framework))}
    elements = {
        **latex_elements(target.language, spec, fonts),
        **cover_page,
        **config.sphinx.get("latex_elements", {}),
    }
    overrides: dict[str, Any] = {
        "language": SPHINX_LANGUAGE.get(target.language, target.language),
        "extensions": ["myst_parser", "polybook.stage.math_labels", "polybook.pdf.sphinx_ext"],
        "myst_enable_extensions": myst_extensions(config),
        "root_doc": "index",
        "exclude_patterns": ["_book", "_outputs"],
        "suppress_warnings": ["toc.not_included"],  # reported by polybook's toc (toc.unreached)
        "numfig": True,
        "numfig_secnum_depth": 1,
        "release": library_version(config, target.language, target.framework),  # the cover names the framework
        "version": "",
        "latex_engine": "xelatex",
        "latex_docclass": {"manual": "report", "howto": "article"},
        "latex_documents": [
            (
                "index",
                target.pdf.with_suffix(".tex").name,
                tex_text(lang.title),
                tex_text(str(config.sphinx.get("author", ""))),
                "manual",
                True,
            )
        ],
        "latex_elements": elements,
        "latex_use_xindy": False,
        "latex_domain_indices": False,
        "latex_show_urls": "footnote",
    }
    if (formats := numfig_format(spec)) is not None:
        overrides["numfig_format"] = formats
    overrides.update(bibtex_settings(config, bibfiles(config, target.language), overrides["extensions"]))
    overrides.update(guard_settings(config, overrides["extensions"]))
    return overrides


def stage_typesetting(stage: Stage) -> Typesetting:
    """How the staged book is set: fonts by the script its prose is written in (code aside)."""
    return typesetting(stage.language, main_script(_prose(doc.text) for doc in stage.docs.values()))


#: Sphinx's warning for a language docutils has no babel name for (Korean, Hindi): said on every
#: build although polybook then sets the language without babel (:func:`.languages.babel_name`).
_NO_BABEL = "no Babel option known for language"
_FENCE_RE = re.compile(r"^(`{3,}|~{3,}|:{3,}).*?^\1\s*$", re.M | re.S)


def _prose(myst: str) -> str:
    """A staged page without its fenced blocks (code, outputs: their words are Latin anywhere)."""
    return _FENCE_RE.sub("", myst)


def input_digest(stage: Stage, overrides: dict[str, Any], sphinx: str, tex: str = "") -> str:
    """Everything a PDF depends on: staged files, what Sphinx reads of conf.py (``sphinx``:
    :func:`~polybook.config.digest.sphinx_settings`), polybook's overrides (its own settings reach
    the PDF through them and the staged files), polybook, the TeX installation (``tex``,
    :func:`tex_installation`)."""
    h = hashlib.sha256(tex.encode())
    h.update(stage.digest.encode())
    h.update(sphinx.encode())
    h.update(json.dumps(overrides, sort_keys=True, ensure_ascii=False, default=str).encode())
    h.update(repr(stage_typesetting(stage)).encode())
    h.update(__version__.encode())
    return h.hexdigest()


def build_pdfs(
    config: BookConfig,
    languages: list[str] | None = None,
    frameworks: list[str] | None = None,
    *,
    jobs: int | None = None,
    force: bool = False,
    on_done: Callable[[PdfOutcome], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> PdfReport:
    """Build the PDFs of ``languages`` x ``frameworks`` (default: all) into ``build/pdf``.

    One build at a time per book: a second one waits, then finds the PDFs up to date.
    """
    lock = config.build_dir / ".pdf" / "build.lock"
    with stage_lock(lock, f"the PDF build in {display_path(config.build_dir)}/", say):
        return _build(config, languages, frameworks, jobs=jobs, force=force, on_done=on_done)


def _build(
    config: BookConfig,
    languages: list[str] | None,
    frameworks: list[str] | None,
    *,
    jobs: int | None,
    force: bool,
    on_done: Callable[[PdfOutcome], None] | None,
) -> PdfReport:
    started = time.monotonic()
    targets = pdf_targets(config, languages, frameworks)
    for target in targets:  # a build stopped halfway: its LaTeX files and Sphinx environment are no start
        interrupted.restart(target.workdir, [target.workdir / "latex", target.workdir / "doctrees"])
    book = load_book(config, sorted({t.language for t in targets}), cached=True)
    outcomes: dict[PdfTarget, PdfOutcome] = {}
    pending: dict[PdfTarget, tuple[LatexJob, Stage, str]] = {}
    figure_cache = config.build_dir / ".pdf" / "figures"
    damaged: dict[str, list[Diagnostic]] = {lang: [] for lang in book.chapters}
    results = {lang: read_outputs(config.build_dir, lang, damaged[lang]) for lang in book.chapters}
    tex = tex_installation()
    sphinx = sphinx_settings(config, "latex")

    def done(outcome: PdfOutcome) -> None:
        outcomes[outcome.target] = outcome
        if on_done:
            on_done(outcome)

    for target in targets:
        srcdir = target.workdir / "src"
        stage = stage_framework(
            config,
            target.language,
            target.framework,
            book.chapters[target.language],
            results[target.language],
            srcdir,
            figure_cache,
            book.tocs.get(target.language),
        )
        stage.diagnostics[:0] = damaged[target.language]
        overrides = sphinx_overrides(config, target, stage)
        digest = input_digest(stage, overrides, sphinx, tex)
        # a staging error (a figure not found, an API entry not resolved) costs its element: the
        # PDF is built without it, and is not publishable
        if not force and target.pdf.is_file() and (stamp := read_stamp(target)) and stamp.digest == digest:
            formulas = [e for e in stamp.errors if e.code is Code.PDF_FORMULA]  # the staging's are said again
            done(PdfOutcome(target, PdfStatus.UNCHANGED, 0.0, [*stage.diagnostics, *formulas], stamp.pages))
        else:
            sphinx_state.repair_catalogs(sphinx_state.locale_dirs(config.root, overrides, config.sphinx))
            job = LatexJob(
                target.language,
                target.framework,
                str(srcdir),
                str(config.root),
                str(target.workdir / "latex"),
                str(target.workdir / "doctrees"),
                target.pdf.with_suffix(".tex").name,
                overrides,
            )
            pending[target] = (job, stage, digest)
    if pending and (tools := missing_tools()):
        message = f"{', '.join(tools)} not found: run scripts/setup-pdf.sh (TeX Live, fonts, librsvg2-bin)"
        problem = Diagnostic.make(str(config.path), 1, Code.PDF_TOOLS, message)
        for target in pending:
            done(PdfOutcome(target, PdfStatus.FAILED, 0.0, [problem]))
        pending.clear()
    if pending:
        _run_pool(config, pending, jobs, done)
    return PdfReport([outcomes[t] for t in targets], round(time.monotonic() - started, 3))


#: What the PDF's Sphinx workers import ahead, in the fork server (:mod:`polybook.stage.workers`).
PDF_MODULES = ("sphinx.builders.latex", "polybook.pdf.sphinx_ext")


def _run_pool(
    config: BookConfig,
    pending: dict[PdfTarget, tuple[LatexJob, Stage, str]],
    jobs: int | None,
    done: Callable[[PdfOutcome], None],
) -> None:
    """Each PDF in a Sphinx worker of its own, as many at once as ``jobs`` (the cores)."""
    # CJK books take longest: start them first so the pool ends evenly.
    order = sorted(pending, key=lambda t: stage_typesetting(pending[t][1]).cjk is None)
    workers.start(PDF_MODULES)
    pool = workers.SphinxWorkers(len(pending), jobs)
    for target in order:
        interrupted.begin(target.workdir)
    try:
        futures = {pool.submit(run_latex, pending[t][0]): t for t in order}
        for future in as_completed(futures):
            target = futures[future]
            _, stage, digest = pending[target]
            try:
                result = future.result()
            except Exception as exc:  # the worker died: this PDF's failure, the others go on
                if (full := disk_full(exc)) is not None:
                    raise full from None  # the command stops, saying what to do
                result = worker_failure(exc)
            done(_finish(config, target, stage, digest, result))
    finally:
        pool.shutdown()


def _finish(config: BookConfig, target: PdfTarget, stage: Stage, digest: str, result: LatexRun) -> PdfOutcome:
    """The worker's result -> diagnostics; when LaTeX made a PDF, it lands in place -- with a
    stamp that lists the errors of the formulas it set as text, if any (``publish`` refuses it).
    A failed build's work folder stays marked: the next starts it from nothing."""
    found = _latex_diagnostics(config, target, stage, result)
    unset = _unset_diagnostics(target, stage, result.unset)
    unset += _set_aside_diagnostics(target, stage, result.set_aside)
    seconds = result.seconds
    if result.step is not LatexStep.OK or has_errors(found):
        target.stamp.unlink(missing_ok=True)
        return PdfOutcome(target, PdfStatus.FAILED, seconds, [*stage.diagnostics, *found, *unset])
    built = target.log.with_suffix(".pdf")
    made = (built.stat().st_size, file_sha256(built))
    target.stamp.unlink(missing_ok=True)  # it tells of the PDF about to be replaced
    atomic_copy(built, target.pdf, made)  # checked as copied, by the bytes the stamp records
    log_text = target.log.read_text(encoding="utf-8", errors="replace") if target.log.is_file() else ""
    pages = re.findall(r"Output written on .*?\((\d+) pages?", log_text)
    costs = [*(d for d in stage.diagnostics if d.level is Level.ERROR), *unset]  # each cost only its element
    status = PdfStatus.WITH_ERRORS if costs else PdfStatus.BUILT
    found = [*stage.diagnostics, *found, *unset]
    outcome = PdfOutcome(target, status, seconds, found, int(pages[-1]) if pages else None)
    PdfStamp(digest, outcome.pages, seconds, costs, *made).write(target.stamp)  # last: the PDF is in place
    interrupted.end(target.workdir)
    return outcome


def _latex_diagnostics(config: BookConfig, target: PdfTarget, stage: Stage, result: LatexRun) -> list[Diagnostic]:
    """Sphinx's and LaTeX's diagnostics of one PDF."""
    index = stage.paths.get("index", str(config.path))
    found: list[Diagnostic] = []
    sphinx = map_warnings(result.warnings, stage.srcdir, stage.docs, stage.paths, index)
    if not stage_typesetting(stage).babel:  # babel is told nothing of a language it lacks, on purpose
        sphinx = [d for d in sphinx if not d.message.startswith(_NO_BABEL)]
    found += [replace(d, code=Code.PDF_SPHINX) for d in sphinx]  # type: ignore[arg-type]
    if result.failure:
        message = f"{target.name}: Sphinx failed:\n{result.failure}"
        found.append(Diagnostic.make(index, 1, Code.PDF_LATEX, message))
    log_text = target.log.read_text(encoding="utf-8", errors="replace") if target.log.is_file() else ""
    if result.step is not LatexStep.SPHINX:
        tex = target.log.with_suffix(".tex")
        tex_lines = tex.read_text(encoding="utf-8", errors="replace").splitlines() if tex.is_file() else []
        found += diagnose(
            read_log(log_text),
            lang=target.language,
            tex=tex_lines,
            log_path=target.log,
            docs=stage.docs,
            paths=stage.paths,
        )
    if result.step is LatexStep.LATEX and not has_errors(found):
        tail = result.latexmk_output.strip().splitlines()[-5:]
        message = f"{target.name}: latexmk failed (log {display_path(target.log)}):\n  " + "\n  ".join(tail)
        found.append(Diagnostic.make(index, 1, Code.PDF_LATEX, message))
    return found


def _unset_diagnostics(target: PdfTarget, stage: Stage, unset: list[dict[str, Any]]) -> list[Diagnostic]:
    """An error per formula LaTeX could not set, at its chapter's line."""
    batch = display_path(target.workdir / "latex" / "polybook-formulas.log")
    where = _chapter_line(target, stage)
    out = []
    for item in unset:
        shown = " ".join(str(item["text"]).split())
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        message = (
            f"{target.language}: LaTeX cannot set the formula {shown} ({item['message']}; log {batch}): the PDF "
            "shows it as its text in a box; fix the formula"
        )
        out.append(Diagnostic.make(*where(int(item["line"])), Code.PDF_FORMULA, message))
    return out


def _set_aside_diagnostics(target: PdfTarget, stage: Stage, blocks: list[dict[str, Any]]) -> list[Diagnostic]:
    """An error per block of a chapter LaTeX stopped on, set aside so that the rest was built."""
    where = _chapter_line(target, stage)
    out = []
    for block in blocks:
        near = f' near "{block["context"].split(" ", 1)[-1][-40:]}"' if block.get("context") else ""
        message = (
            f"{target.language}: LaTeX error: {block['message']}{near}; this part of the chapter is left out of "
            f"the PDF, a notice in its place: fix it (log {display_path(target.log)})"
        )
        out.append(Diagnostic.make(*where(int(block["line"])), Code.PDF_LATEX, message))
    return out


def _chapter_line(target: PdfTarget, stage: Stage) -> Callable[[int], tuple[str, int]]:
    """A line of the book's ``.tex`` -> its chapter's ``(path, line)``, through the source markers
    (which setting a formula or block aside keeps in place); the ``.tex`` line when none."""
    tex = target.log.with_suffix(".tex")
    tex_lines = tex.read_text(encoding="utf-8", errors="replace").splitlines() if tex.is_file() else []

    def where(line: int) -> tuple[str, int]:
        source = source_of(tex_lines, line)
        if source and source[0] in stage.docs:
            return stage.paths[source[0]], stage.docs[source[0]].source_line(source[1])
        return display_path(tex), line

    return where


@dataclass(frozen=True, slots=True)
class PdfStamp:
    """``build/pdf/<lang>/.<name>.pdf.digest``: what the PDF beside it was built from, and the
    errors it was built with (formulas set as text). Written only when LaTeX made the PDF;
    :func:`polybook.site.publish.problems` reads it through :func:`read_stamp`."""

    digest: str
    pages: int | None = None
    seconds: float = 0.0
    errors: list[Diagnostic] = field(default_factory=list)
    size: int | None = None  # the PDF's bytes and their SHA-256: what a copy of it must hold
    sha256: str = ""

    def write(self, path: Path) -> None:
        data: dict[str, Any] = {"digest": self.digest, "pages": self.pages, "seconds": self.seconds}
        if self.size is not None:
            data.update(size=self.size, sha256=self.sha256)
        if self.errors:
            data["errors"] = [d.to_dict() for d in self.errors]
        atomic_write(path, json.dumps(data, ensure_ascii=False) + "\n")


def read_stamp(target: PdfTarget) -> PdfStamp | None:
    """The stamp of a built PDF; None when there is none (never built, or its last build failed)."""
    try:
        data = json.loads(target.stamp.read_text(encoding="utf-8"))
        errors = [Diagnostic.from_dict(d) for d in data.get("errors", [])]
        size = data.get("size")
        return PdfStamp(
            str(data["digest"]),
            data.get("pages"),
            float(data.get("seconds", 0.0)),
            errors,
            int(size) if size is not None else None,
            str(data.get("sha256") or ""),
        )
    except (OSError, ValueError, TypeError, KeyError):
        return None
