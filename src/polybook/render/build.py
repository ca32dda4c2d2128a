"""The HTML of every language: evaluate (cached), stage, run Sphinx per language.

1. parse the languages to build and the source (its headings give the anchors); the other
   languages are parsed while Sphinx runs, for the translation-status pages;
2. evaluate the selected languages' programs through :mod:`polybook.execute` -- cached,
   so a prose edit runs no kernel -- and keep ``build/eval`` up to date;
3. stage each language's MyST (:mod:`polybook.stage.documents`) and skip Sphinx when the
   staged digest, the Sphinx settings and polybook's renderer are all unchanged;
4. run the other languages' Sphinx builds in parallel worker processes, then fill the
   translation-status page's tables in (:mod:`polybook.render.status_page`: they change
   with every edit, so they stay out of the digest).

The site drives this (:mod:`polybook.site.build`): it gives the status pages' tables and the
PDFs the header links, and assembles the one site after.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from polybook.book import Book, complete_book, display_path, load_book
from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.files import atomic_write, hash_files
from polybook.render import settings, status_page, workers
from polybook.render.inputs import SiteInputs
from polybook.render.stage import stage_language
from polybook.stage import settings as stage_settings
from polybook.stage.documents import Stage, headings
from polybook.stage.sphinx_run import SphinxJob, located_warnings, run_sphinx

STAMP = ".polybook-build.json"
#: Every Sphinx warning of a language, with its phase and document (``build/.sphinx/<lang>/``).
WARNINGS = "warnings.json"
#: What the translation-status pages were last filled from (``build/.sphinx/``).
STATUS_STAMP = "status.json"
_PACKAGES = ("sphinx", "myst-parser", "sphinx-design", "pydata-sphinx-theme", "sphinx-copybutton", "docutils")


class StatusPages(Protocol):
    """The translation-status page's tables, per language (:mod:`polybook.site.status`)."""

    DOCNAME: str

    def pages(
        self, book: Book, languages: list[str], result: Any = None, linked: set[str] | None = None
    ) -> dict[str, str]: ...


@dataclass(slots=True)
class HtmlOptions:
    languages: list[str] | None = None
    jobs: int | None = None
    evaluate: bool = True
    status: bool = True  # the translation-status page in every language (when the site gives its tables)
    # given by the site (polybook.site.build): the status pages' tables, the PDFs each header links
    status_pages: StatusPages | None = None
    pdfs: dict[str, list[dict[str, str]]] = field(default_factory=dict)


@dataclass(slots=True)
class LanguageBuild:
    language: str
    pages: int
    sphinx: str  # "built", "up to date" or "failed"
    seconds: float
    written: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(slots=True)
class HtmlResult:
    outdir: Path
    languages: list[LanguageBuild]
    diagnostics: list[Diagnostic]  # parse, execution and render problems (Sphinx's are per language)
    kernel_runs: int = 0
    cache_hits: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    site: dict[str, Any] = field(default_factory=dict)  # what every page knows of the others, for assembling

    def all_diagnostics(self) -> list[Diagnostic]:
        return [*self.diagnostics, *(d for lang in self.languages for d in lang.diagnostics)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "outdir": str(self.outdir),
            "kernel_runs": self.kernel_runs,
            "cache_hits": self.cache_hits,
            "timings": self.timings,
            "languages": [
                {
                    "language": b.language,
                    "pages": b.pages,
                    "sphinx": b.sphinx,
                    "seconds": b.seconds,
                    "written": b.written,
                    "diagnostics": [d.to_dict() for d in b.diagnostics],
                }
                for b in self.languages
            ],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def renderer_version() -> str:
    """polybook's renderer -- the site's and the staging it shares with PDFs -- and the Sphinx
    packages: a change rebuilds every language."""
    digest = hashlib.sha256()
    here, shared = Path(__file__).parent, Path(__file__).parents[1] / "stage"
    files = [*here.glob("*.py"), *(here / "assets").rglob("*"), *shared.glob("*.py")]
    hash_files(digest, sorted(p for p in files if p.is_file()))
    for name in _PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{name}={metadata.version(name)}".encode())
    return digest.hexdigest()


def render_html(config: BookConfig, options: HtmlOptions, on_status: Any = None) -> HtmlResult:
    """Every selected language's pages, as the module's docstring says (the caller holds the
    build folder's lock: :func:`polybook.site.build.build_html`)."""
    say = on_status or (lambda message: None)
    timings: dict[str, float] = {}
    t0 = time.monotonic()
    outdir = config.build_dir / "html"
    work = config.build_dir / ".sphinx"
    selected = options.languages or list(config.languages)
    # Link only languages with a site: built before, or being built now (--lang ja on a clean
    # build/ must not link to en/ that does not exist).
    linked = [code for code in config.languages if code in selected or (outdir / code / "index.html").is_file()]
    version = renderer_version()
    inputs = SiteInputs(config, options.evaluate, version, linked, _environment(config) if options.evaluate else None)
    fingerprints = {code: inputs.of(code) for code in config.languages}
    stamps = {code: _read_stamp(outdir / code / STAMP) for code in selected}
    stale = [
        code
        for code in selected
        if stamps[code].get("inputs") != fingerprints[code] or not (outdir / code / "index.html").is_file()
    ]
    builds = {code: _unchanged(code, stamps[code]) for code in selected if code not in stale}
    diagnostics = [Diagnostic(**_diag_args(d)) for code in builds for d in stamps[code].get("own", [])]
    status = options.status_pages if options.status else None
    status_key = _status_key(config, fingerprints) if status is not None else ""
    status_fresh = not stale and _read_stamp(work / STATUS_STAMP).get("key") == status_key
    fresh = workers.fresh(stale, {code: work / code / "doctrees" for code in stale})
    if stale and not fresh:  # the Sphinx workers' fork server imports Sphinx while the book is parsed
        workers.start(workers.search_preload(stale))
    timings["inputs"] = time.monotonic() - t0
    book = None
    if stale:  # what staging needs first; the other languages once Sphinx runs (the status pages)
        book = load_book(config, list(dict.fromkeys([config.source_language, *stale])), cached=True)
    elif status is not None and not status_fresh:
        book = load_book(config, cached=True)
    if fresh and book is not None:  # and, for an API page, the frameworks autodoc will import
        workers.start([*workers.api_imports(config, book, fresh), *workers.search_preload(stale)])
    timings["parse"] = time.monotonic() - t0 - timings["inputs"]

    t1 = time.monotonic()
    results: dict[tuple[str, str], dict[str, Any]] = {}
    kernel_runs = cache_hits = 0
    executed: list[Diagnostic] = []
    evaluate = [code for code in stale if options.evaluate]
    if evaluate and book is not None:  # a language whose code and environment did not change: as stored
        from polybook.execute.evaluate import evaluation_inputs

        environment = _environment(config)
        code_inputs = {code: evaluation_inputs(book, code, environment) for code in evaluate}
        unchanged = [
            code for code in evaluate if _read_stamp(_eval_stamp(config, code)).get("inputs") == code_inputs[code]
        ]
        evaluate = [code for code in evaluate if code not in unchanged]
        results = stored_results(config, unchanged)
        executed = [
            Diagnostic(**_diag_args(d))
            for code in unchanged
            for d in _read_stamp(_eval_stamp(config, code)).get("diagnostics", [])
        ]
    if evaluate and book is not None:
        say("evaluating (cached)")
        evaluation = _evaluate(Book(config, {code: book.chapters[code] for code in evaluate}), options.jobs)
        from polybook.execute.evaluate import CACHE, RUN
        from polybook.execute.outputs import chapter_outputs, write_outputs
        from polybook.execute.report import diagnostics as eval_diagnostics
        from polybook.execute.report import write_report

        write_report(evaluation, merge=True)  # the other languages' programs stay in the report
        write_outputs(evaluation)
        results.update(chapter_outputs(evaluation))
        fresh = eval_diagnostics(evaluation)
        executed += fresh
        environment = _environment(config)  # as the evaluation left it: it makes missing environments
        for code in evaluate:
            said = [d.to_dict() for d in fresh if _in_language(config, d, code)]
            inputs_now = evaluation_inputs(book, code, environment)
            _write_json(_eval_stamp(config, code), {"inputs": inputs_now, "diagnostics": said})
        kernel_runs = sum(o.source == RUN for o in evaluation.outcomes)
        cache_hits = sum(o.source == CACHE for o in evaluation.outcomes)
    elif stale and not options.evaluate:
        results = stored_results(config, stale)
    if stale:  # the evaluation may have written new results: the stamps record the inputs as they are now
        after = SiteInputs(
            config, options.evaluate, version, linked, _environment(config) if options.evaluate else None
        )
        fingerprints.update({code: after.of(code) for code in stale})
    timings["evaluate"] = time.monotonic() - t1

    t2 = time.monotonic()
    site = with_languages(settings.site_info(config, options.pdfs), linked)
    status_tables: dict[str, str] = {}  # language -> the status page's tables, filled in after Sphinx
    stages: dict[str, Stage] = {}
    running: dict[str, Future[dict[str, Any]]] = {}
    digests: dict[str, str] = {}
    own: dict[str, list[Diagnostic]] = {}
    pool = workers.SphinxWorkers(len(stale), options.jobs) if stale else None
    try:
        if book is not None:
            generated: dict[str, dict[str, str]] = {}  # language -> docname -> MyST of pages polybook writes
            if status is not None:
                source_name = config.languages[config.source_language].name
                generated = {code: {status.DOCNAME: status_page.frame(code, source_name)} for code in selected}
                for lang in site["languages"]:
                    if status.DOCNAME not in lang["pages"]:
                        lang["pages"] = [*lang["pages"], status.DOCNAME]
                site["status"] = status.DOCNAME
            source_headings = {name: headings(doc) for name, doc in book.chapters[config.source_language].items()}
            for code in stale:  # staged one by one, each language's Sphinx started as soon as it is staged
                say(f"staging {code}")
                own[code] = [d for doc in book.chapters[code].values() for d in doc.diagnostics]
                own[code] += [d for d in executed if _in_language(config, d, code)]
                chapter_results = {chapter: doc for (lang, chapter), doc in results.items() if lang == code}
                bibfiles = stage_settings.bibfiles(config, code)
                stage = stage_language(
                    config,
                    code,
                    book.chapters[code],
                    source_headings,
                    chapter_results,
                    work / code / "src",
                    bibfiles,
                    generated.get(code),
                    stored=not options.evaluate,
                )
                stages[code] = stage
                own[code] += stage.diagnostics
                overrides = settings.overrides(config, code, site, bibfiles, stage)
                digest = hashlib.sha256(
                    f"{stage.digest}\n{json.dumps(overrides, sort_keys=True, default=str)}\n{version}".encode()
                ).hexdigest()
                lang_out = outdir / code
                stamp = stamps[code]
                if stamp.get("digest") == digest and (lang_out / "index.html").is_file():
                    kept = [Diagnostic(**_diag_args(d)) for d in stamp.get("diagnostics", [])]
                    builds[code] = LanguageBuild(code, len(stage.docs), "up to date", 0.0, 0, kept)
                    _write_stamp(lang_out / STAMP, digest, kept, fingerprints[code], own[code], len(stage.docs))
                    continue
                (lang_out / STAMP).unlink(missing_ok=True)
                builds[code] = LanguageBuild(code, len(stage.docs), "built", 0.0)
                digests[code] = digest
                stored = _read_warnings(work / code / WARNINGS)
                job = SphinxJob(
                    code,
                    str(stage.srcdir),
                    str(config.root.resolve()),  # the worker's folder is the fork server's
                    str(lang_out),
                    str(work / code / "doctrees"),
                    overrides,
                    fresh=stored is None,  # no record of the warnings of the documents it would not read
                )
                assert pool is not None
                running[code] = pool.submit(run_sphinx, job)
            diagnostics += [d for code in stale for d in own[code]]
            diagnostics += [d for d in executed if config.language_of(Path(d.path)) not in stale]
            if status is not None:  # while Sphinx runs: the tables are filled in afterwards
                say("translation status")
                book = complete_book(book)
                status_tables = status.pages(book, selected, linked=set(linked))
        timings["stage"] = time.monotonic() - t2

        t3 = time.monotonic()
        if running:
            say(f"sphinx: {', '.join(running)}")
        for code, future in running.items():
            done = future.result()
            build = builds[code]
            found = _sphinx_diagnostics(config, done, stages[code], work / code / WARNINGS, site)
            build.diagnostics, build.seconds, build.written = found, done["seconds"], done["written"]
            if done["status"] == 0 and not done["failure"]:
                _write_stamp(outdir / code / STAMP, digests[code], found, fingerprints[code], own[code], build.pages)
            else:
                build.sphinx = "failed"
    finally:
        if pool is not None:
            pool.shutdown()
    filled = [
        status_page.fill(outdir / code / f"{site['status']}.html", content)
        for code, content in status_tables.items()
        if builds[code].sphinx != "failed"
    ]
    if status_tables and all(filled) and set(status_tables) >= set(linked):  # every site's page is current
        _write_json(work / STATUS_STAMP, {"key": status_key})
    timings["sphinx"] = time.monotonic() - t3
    ordered = [builds[code] for code in selected]
    return HtmlResult(outdir, ordered, diagnostics, kernel_runs, cache_hits, timings, site)


def _status_key(config: BookConfig, fingerprints: dict[str, str]) -> str:
    """What the translation-status pages show depends on: every language's inputs and git's HEAD
    (the source commits since each sync)."""
    from polybook.check.staleness import head_commit

    blob = json.dumps([fingerprints, head_commit(config.root)], sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _unchanged(code: str, stamp: dict[str, Any]) -> LanguageBuild:
    """A language whose inputs did not change: its last build, as its stamp tells it."""
    kept = [Diagnostic(**_diag_args(d)) for d in stamp.get("diagnostics", [])]
    return LanguageBuild(code, int(stamp.get("pages", 0)), "up to date", 0.0, 0, kept)


def _eval_stamp(config: BookConfig, code: str) -> Path:
    """What a language's stored results were evaluated from (:func:`evaluation_inputs`)."""
    return config.build_dir / "eval" / f".{code}.inputs.json"


def _in_language(config: BookConfig, diagnostic: Diagnostic, code: str) -> bool:
    return config.language_of(Path(diagnostic.path)) == code


def _environment(config: BookConfig) -> Any:
    from polybook.execute.environment import fingerprints

    return fingerprints(config.execution, config.frameworks)


def _sphinx_diagnostics(
    config: BookConfig, done: dict[str, Any], stage: Stage, warnings: Path, site: dict[str, Any]
) -> list[Diagnostic]:
    """A language's Sphinx run -> its diagnostics: this run's warnings merged into the stored
    ones (:func:`merge_warnings`), chapters left out after a crash, a failure."""
    index_path = stage.paths.get("index", display_path(config.path))
    fresh = [
        {"phase": phase, "doc": doc, **diagnostic.to_dict()}
        for phase, text in done["phases"]
        for doc, diagnostic in located_warnings(text, stage.srcdir, stage.docs, stage.paths, index_path)
    ]
    docnames = {*stage.docs, *([site["status"]] if site.get("status") else [])}
    entries = merge_warnings(_read_warnings(warnings) or [], fresh, done, docnames)
    _write_json(warnings, entries)
    found = [Diagnostic(**_diag_args(entry)) for entry in entries]
    for crash in done.get("left_out", []):  # the rest of the language was built without it
        path = stage.paths.get(crash["doc"], index_path)
        message = f"Sphinx crashed reading this chapter; it is left out of the site:\n{crash['failure']}"
        found.append(Diagnostic.make(path, 1, Code.HTML_SPHINX, message, Level.ERROR))
    if done["failure"]:
        found.append(Diagnostic.make(index_path, 1, Code.HTML_SPHINX, f"Sphinx failed:\n{done['failure']}"))
    return found


def with_languages(site: dict[str, Any], codes: list[str]) -> dict[str, Any]:
    """The site data with only the languages ``codes`` (their pages, switcher and sitemap)."""
    return {
        **site,
        "languages": [lang for lang in site["languages"] if lang["code"] in codes],
        "pages": {code: pages for code, pages in site["pages"].items() if code in codes},
    }


def stored_results(config: BookConfig, languages: list[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """The outputs a previous ``polybook build eval`` wrote to ``build/eval`` (``--no-eval``)."""
    from polybook.execute.outputs import read_outputs

    return {(code, name): doc for code in languages for name, doc in read_outputs(config.build_dir, code).items()}


def merge_warnings(
    stored: list[dict[str, Any]], fresh: list[dict[str, Any]], done: dict[str, Any], docnames: set[str]
) -> list[dict[str, Any]]:
    """The language's warnings after an incremental Sphinx run.

    Sphinx re-emits only the warnings of what it did again: the documents it read, those it
    wrote, the consistency check when it ran, its set-up. Those replace their stored
    counterparts; the others -- a warning on a page that did not change -- are kept, so
    ``--strict`` fails for as long as its source is there. Documents gone drop theirs.
    """
    read, written = set(done["read"]), set(done["docs_written"])

    def replaced(entry: dict[str, Any]) -> bool:
        phase, doc = entry["phase"], entry["doc"]
        if doc and doc not in docnames:
            return True
        if phase == "read":
            return doc in read if doc else bool(read)
        if phase == "write":
            return doc in written if doc else bool(written)
        if phase == "consistency":
            return bool(done["consistency"])
        return True  # set-up: said again on every run

    kept = [entry for entry in stored if not replaced(entry)]
    return kept + [entry for entry in fresh if entry not in kept]


def _evaluate(book: Book, jobs: int | None) -> Any:
    from polybook.execute.evaluate import EvalOptions, evaluate

    return evaluate(book, EvalOptions(jobs=jobs))


def _read_stamp(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_stamp(
    path: Path, digest: str, found: list[Diagnostic], inputs: str, own: list[Diagnostic], pages: int
) -> None:
    """What a language's site was built from (``inputs``: :class:`SiteInputs`; ``digest``: the
    staged files), Sphinx's diagnostics (``found``) and the language's own (parse, staging,
    execution) -- reported again when the next build finds nothing changed."""
    stamp = {
        "digest": digest,
        "inputs": inputs,
        "pages": pages,
        "diagnostics": [d.to_dict() for d in found],
        "own": [d.to_dict() for d in own],
    }
    _write_json(path, stamp)


def _read_warnings(path: Path) -> list[dict[str, Any]] | None:
    """The stored warnings of a language; None when there is no (readable) record."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, list) else None


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=1))


def _diag_args(entry: dict[str, Any]) -> dict[str, Any]:
    code = str(entry["code"]).removeprefix("polybook.")
    return {
        "path": entry["path"],
        "line": entry["line"],
        "code": Code(code),
        "message": entry["message"],
        "level": Level(entry["level"]),
    }
