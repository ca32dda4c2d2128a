"""The HTML of every language: evaluate (cached), stage, run Sphinx per language.

1. parse the languages to build and the source (its headings give the anchors); the other
   languages are parsed while Sphinx runs, for the translation-status pages;
2. the selected languages' outputs (:mod:`polybook.execute.site_outputs`): evaluated again
   only when their code or environments changed -- a prose edit runs no kernel;
3. stage each language's MyST (:mod:`polybook.stage.documents`) and skip Sphinx when the
   staged digest, the Sphinx settings and polybook's renderer are all unchanged;
4. run the other languages' Sphinx builds in parallel worker processes, then fill the
   translation-status page's tables in (:mod:`polybook.render.status_page`: they change
   with every edit, so they stay out of the digest).

The site drives this (:mod:`polybook.site.build`): it gives the status pages' tables and the
PDFs the header links, and assembles the one site after.

State is written after the work it describes: a language's stamp once its Sphinx run ended, the
run marked meanwhile (:mod:`polybook.stage.interrupted`: one stopped halfway is built whole by the
next build), with its inputs' fingerprints as they were when the book was read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from polybook.book import Book, complete_book, load_book
from polybook.config import BookConfig
from polybook.config.digest import sphinx_settings
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect.nodes import Heading
from polybook.execute.site_outputs import SiteOutputs, site_outputs
from polybook.execute.site_outputs import environment as site_environment
from polybook.files import atomic_write, display_path, hash_files, read_json
from polybook.forked import Forked
from polybook.render import kept_stage, settings, status_page
from polybook.render.counterparts import LanguagePages, language_switch, switch_targets
from polybook.render.inputs import SiteInputs, file_stats, tree_stats
from polybook.render.site_info import NotebookPlace, PdfLink, SiteInfo
from polybook.stage import interrupted, sphinx_state, workers
from polybook.stage import settings as stage_settings
from polybook.stage.documents import Stage, headings
from polybook.stage.sphinx_run import SphinxJob, SphinxRun, located_warnings, run_sphinx
from polybook.toc import ROOT

STAMP = ".polybook-build.json"
SWITCH_PAGES, SWITCH = "switch_pages", "switch"  # the stamp's record of the language switch
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
    pdfs: dict[str, tuple[PdfLink, ...]] = field(default_factory=dict)
    # the notebooks' zips each header links, and where each framework's notebooks are (its tabs link them)
    notebooks: dict[str, tuple[PdfLink, ...]] = field(default_factory=dict)
    notebook_places: dict[str, tuple[NotebookPlace, ...]] = field(default_factory=dict)


class SphinxStatus(StrEnum):
    """What became of a language's Sphinx build (the html report says it as written here)."""

    BUILT = "built"
    UP_TO_DATE = "up to date"  # nothing it depends on changed: not run
    FAILED = "failed"  # Sphinx crashed: the language's last good pages stay, nothing is stamped

    @property
    def fatal(self) -> bool:
        return self is SphinxStatus.FAILED


@dataclass(slots=True)
class LanguageBuild:
    language: str
    pages: int
    sphinx: SphinxStatus
    seconds: float
    written: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    staged: int = 0  # the documents transpiled (the others' staging was kept: :mod:`polybook.render.kept_stage`)


@dataclass(slots=True)
class HtmlResult:
    outdir: Path
    languages: list[LanguageBuild]
    diagnostics: list[Diagnostic]  # parse, execution and render problems (Sphinx's are per language)
    kernel_runs: int = 0
    cache_hits: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    site: SiteInfo | None = None  # what every page knows of the others, for assembling

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
                    "sphinx": str(b.sphinx),
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


def switch_pages(
    config: BookConfig, book: Book | None, languages: list[str], stamp: Callable[[str], dict[str, Any]]
) -> dict[str, LanguagePages]:
    """Each language's pages as its language switch needs them (their labels and toc parents):
    as parsed for the languages ``book`` has, as the language's ``stamp`` kept them for the
    others, parsed now for a language with neither."""
    pages, missing = {}, []
    for lang in languages:
        if book is not None and lang in book.tocs:
            pages[lang] = LanguagePages.of(book.chapters[lang], book.tocs[lang])
        elif (kept := LanguagePages.from_json(stamp(lang).get(SWITCH_PAGES))) is not None:
            pages[lang] = kept
        else:
            missing.append(lang)
    if missing:
        more = load_book(config, missing, cached=True)
        pages.update({lang: LanguagePages.of(more.chapters[lang], more.tocs[lang]) for lang in missing})
    return pages


def language_overrides(config: BookConfig, lang: str, site: SiteInfo, stage: Stage, version: str) -> dict[str, Any]:
    """``lang``'s Sphinx settings beside conf.py's, the renderer ``version`` among them: what a
    build gives its Sphinx, and ``polybook serve``'s live Sphinx the same (a setting that
    differs has Sphinx read or write every page again)."""
    overrides = settings.overrides(config, lang, site, stage_settings.bibfiles(config, lang), stage)
    overrides[settings.RENDERER] = version
    return overrides


def render_html(config: BookConfig, options: HtmlOptions, on_status: Any = None) -> HtmlResult:
    """Every selected language's pages, as the module's docstring says (the caller holds the
    build folder's lock: :func:`polybook.site.build.build_html`)."""
    build = _Build(config, options, on_status or (lambda message: None))
    book = build.plan()
    if book is not None:
        build.start_status(book)
    outputs = site_outputs(config, book, build.stale, options.evaluate, options.jobs, build.say) if book else None
    build.timings["evaluate"] = build.lap()
    if outputs is not None:
        build.refingerprint()  # the evaluation may have written new results
    pool = workers.SphinxWorkers(len(build.stale), options.jobs) if build.stale else None
    try:
        running = build.stage(book, outputs, pool) if book is not None else {}
        build.timings["stage"] = build.lap()
        build.collect(running)
    finally:
        if pool is not None:
            pool.shutdown()
    build.fill_status()
    build.timings["sphinx"] = build.lap()
    ordered = [build.builds[lang] for lang in build.selected]
    kernel_runs, cache_hits = (outputs.kernel_runs, outputs.cache_hits) if outputs else (0, 0)
    return HtmlResult(build.outdir, ordered, build.diagnostics, kernel_runs, cache_hits, build.timings, build.site)


class _Build:
    """One ``render_html``: its steps, and what they hand each other."""

    def __init__(self, config: BookConfig, options: HtmlOptions, say: Callable[[str], None]) -> None:
        self.config, self.options, self.say = config, options, say
        self.started = self.last = time.monotonic()
        self.timings: dict[str, float] = {}
        self.outdir = config.build_dir / "html"
        self.work = config.build_dir / ".sphinx"
        self.selected = options.languages or list(config.languages)
        # Link only languages with a site: built before, or being built now (--lang ja on a clean
        # build/ must not link to en/ that does not exist).
        built = {lang for lang in config.languages if (self.outdir / lang / "index.html").is_file()}
        self.linked = [lang for lang in config.languages if lang in self.selected or lang in built]
        self.version = renderer_version()
        self.sphinx = sphinx_settings(config, "html")  # what Sphinx reads of conf.py besides polybook's overrides
        self.status = options.status_pages if options.status else None
        self.site = settings.site_info(config, options.pdfs, options.notebooks, options.notebook_places)
        self.site = self.site.with_languages(self.linked)
        if self.status is not None:  # on every build: a no-op one too assembles the sitemap from it
            self.site = self.site.with_status(self.status.DOCNAME)
        self.builds: dict[str, LanguageBuild] = {}
        self.diagnostics: list[Diagnostic] = []
        self.stages: dict[str, Stage] = {}
        self.digests: dict[str, str] = {}
        self.own: dict[str, list[Diagnostic]] = {}
        self.status_tables: dict[str, str] = {}  # language -> the status page's tables, filled in after Sphinx
        self.status_job: Forked[dict[str, str]] | None = None  # the tables being made
        self.texts: dict[str, dict[str, str]] = {}  # language -> its documents' texts, as digests
        self.staging_inputs: SiteInputs | None = None
        self.transpiled: dict[str, int] = {}  # language -> the documents staging transpiled

    def lap(self) -> float:
        """The seconds since the last lap (or the start)."""
        now = time.monotonic()
        seconds, self.last = now - self.last, now
        return seconds

    def _inputs(self) -> SiteInputs:
        environment = site_environment(self.config) if self.options.evaluate else None
        return SiteInputs(self.config, self.options.evaluate, self.version, self.linked, environment)

    def plan(self) -> Book | None:
        """Which languages changed since their last build (the others are as their stamps say),
        and the book as far as staging and the status pages need it, parsed."""
        config = self.config
        for lang in config.languages:
            if self._restart(lang):
                self.say(f"{lang}: its last build stopped halfway; building it whole")
        inputs = self._inputs()
        self.fingerprints = {lang: inputs.of(lang) for lang in config.languages}
        self.stamps = {lang: read_json(self.outdir / lang / STAMP) for lang in self.selected}
        self.stale = [
            lang
            for lang in self.selected
            if self.stamps[lang].get("inputs") != self.fingerprints[lang]
            or not (self.outdir / lang / "index.html").is_file()
        ]
        self.builds = {lang: _unchanged(lang, self.stamps[lang]) for lang in self.selected if lang not in self.stale}
        self.diagnostics = [Diagnostic.from_dict(d) for lang in self.builds for d in self.stamps[lang].get("own", [])]
        self.status_key = _status_key(config, self.fingerprints) if self.status is not None else ""
        status_fresh = not self.stale and read_json(self.work / STATUS_STAMP).get("key") == self.status_key
        doctrees = {lang: self.work / lang / "doctrees" for lang in self.stale}
        fresh = workers.fresh(self.stale, doctrees)
        if self.stale:  # the Sphinx workers' fork server imports Sphinx (and what their environments
            # hold, when they have one) while the book is parsed: it needs nothing of the book
            workers.start(
                [*settings.SITE_MODULES, *settings.search_preload(self.stale)], [] if fresh else doctrees.values()
            )
        self.timings["inputs"] = self.lap()
        book = None
        self.read = _book_files(config) if self.stale else []  # before the book is read
        self.texts = {lang: kept_stage.texts(config, lang) for lang in self.stale}  # before it is read, too
        if self.stale:  # what staging needs first; the other languages once Sphinx runs (the status pages)
            book = load_book(config, list(dict.fromkeys([config.source_language, *self.stale])), cached=True)
        elif self.status is not None and not status_fresh:
            book = load_book(config, cached=True)
        book = self.language_switch(book)
        self.timings["parse"] = self.lap()
        return book

    def _restart(self, lang: str) -> bool:
        """When ``lang``'s last Sphinx run was stopped halfway (:mod:`polybook.stage.interrupted`),
        forget what it kept -- its stamp, Sphinx's environment and doctrees (the navigation state and
        templates with them), the warnings of the documents it read -- so it is built whole."""
        work = self.work / lang
        return interrupted.restart(work, [self.outdir / lang / STAMP, work / "doctrees", work / WARNINGS])

    def language_switch(self, book: Book | None) -> Book | None:
        """Where each page's language switch goes (:mod:`polybook.render.counterparts`), from the
        labels and tocs of every linked language: as parsed for the languages loaded, as its stamp
        keeps them for the others. A language whose switch changed (another language's labels or
        toc did) is built again too; the book returned has what staging it needs."""
        config = self.config
        self.switch_pages = pages = switch_pages(config, book, self.linked, self._stamp)
        self.site = self.site.with_switch(switch_targets(pages, config.source_language))
        moved = [
            lang
            for lang in self.selected
            if lang not in self.stale and self.stamps[lang].get(SWITCH) != language_switch(self.site.switch, lang)
        ]
        if not moved:
            return book
        self.stale += moved
        for lang in moved:
            del self.builds[lang]
        self.diagnostics = [Diagnostic.from_dict(d) for lang in self.builds for d in self.stamps[lang].get("own", [])]
        wanted = [lang for lang in [config.source_language, *moved] if book is None or lang not in book.chapters]
        if not wanted:
            return book
        more = load_book(config, wanted, cached=True)
        if book is None:
            return more
        chapters, tocs = {**book.chapters, **more.chapters}, {**book.tocs, **more.tocs}
        return Book(config, chapters, tocs, {**book.names, **more.names})

    def _stamp(self, lang: str) -> dict[str, Any]:
        return self.stamps[lang] if lang in self.stamps else read_json(self.outdir / lang / STAMP)

    def switch_stamp(self, lang: str) -> dict[str, Any]:
        """What a language's stamp keeps of the language switch: its pages' labels and parents,
        and where they switch to."""
        return {SWITCH_PAGES: self.switch_pages[lang].to_json(), SWITCH: language_switch(self.site.switch, lang)}

    def refingerprint(self) -> None:
        """The stale languages' fingerprints again after the evaluation, which may have written
        new results -- unless the book's files changed since the fingerprints were taken (a chapter
        saved while a kernel ran: the pages show it or not). Then they stay as they were before the
        book was read, and the next build, finding the files changed, builds them again."""
        inputs = self._inputs()
        after = {lang: inputs.of(lang) for lang in self.stale}
        if _book_files(self.config) == self.read:  # after the fingerprints: an edit in between is seen
            self.fingerprints.update(after)

    def start_status(self, book: Book) -> None:
        """The status pages' tables (filled in after Sphinx), made in a forked child
        (:mod:`polybook.forked`) from the book as parsed: they read every language and check the
        whole book, the longest step of an edit in one language, and use the core that staging
        and Sphinx leave free. They need nothing of the evaluation, so they start before it."""
        status = self.status
        if status is not None:
            selected, linked = self.selected, set(self.linked)
            self.say("translation status")
            self.status_job = Forked(lambda: status.pages(complete_book(book), selected, linked=linked))

    def stage(
        self, book: Book, outputs: SiteOutputs | None, pool: workers.SphinxWorkers | None
    ) -> dict[str, Future[SphinxRun]]:
        """Stage the languages one by one, each one's Sphinx started as soon as it is staged."""
        config, status = self.config, self.status
        executed = outputs.diagnostics if outputs is not None else []
        generated: dict[str, dict[str, str]] = {}  # language -> docname -> MyST of pages polybook writes
        if status is not None:
            source_name = config.languages[config.source_language].name
            generated = {lang: {status.DOCNAME: status_page.frame(lang, source_name)} for lang in self.selected}
        source_headings = {name: headings(doc) for name, doc in book.chapters[config.source_language].items()}
        running: dict[str, Future[SphinxRun]] = {}
        for lang in self.stale:
            self.say(f"staging {lang}")
            self.own[lang] = config.refused_links(lang)  # links in its chapters not followed
            self.own[lang] += [d for doc in book.chapters[lang].values() for d in doc.diagnostics]
            self.own[lang] += [d for d in executed if _in_language(config, d, lang)]
            results = outputs.results if outputs is not None else {}
            chapter_results = {name: doc for (of, name), doc in results.items() if of == lang}
            job = self._stage_language(book, lang, source_headings, chapter_results, generated.get(lang))
            if job is not None:
                assert pool is not None
                # Sphinx may rewrite every page now: the status pages' tables and the pages are done no more
                (self.work / STATUS_STAMP).unlink(missing_ok=True)
                interrupted.begin(self.work / lang)
                running[lang] = pool.submit(run_sphinx, job)
        self.diagnostics += [d for lang in self.stale for d in self.own[lang]]
        self.diagnostics += [d for d in executed if config.language_of(Path(d.path)) not in self.stale]
        return running

    def _stage_language(
        self,
        book: Book,
        lang: str,
        source_headings: dict[str, list[Heading]],
        results: dict[str, dict[str, Any]],
        generated: dict[str, str] | None,
    ) -> SphinxJob | None:
        """Stage one language; its Sphinx job, None when its staged pages and settings are those
        of its last build (then it is up to date as built)."""
        config, work = self.config, self.work
        if ROOT not in book.chapters[lang]:  # Sphinx starts from it: without it, every page fails
            self.builds[lang] = LanguageBuild(lang, 0, SphinxStatus.FAILED, 0.0, 0, [_no_root(config, lang)])
            return None
        bibfiles = stage_settings.bibfiles(config, lang)
        srcdir = work / lang / "src"
        inputs = kept_stage.StagingInputs(
            lang, book.chapters[lang], source_headings, results, srcdir, bibfiles, generated,
            stored=not self.options.evaluate, notebooks=self.site.notebook_places.get(lang, ()),
        )  # fmt: skip
        if self.staging_inputs is None:  # after the evaluation, which may have written results
            self.staging_inputs = self._inputs()
        fingerprint = self.staging_inputs.of(lang, chapters=False)
        stage, self.transpiled[lang] = kept_stage.stage_kept(config, inputs, fingerprint, self.texts.get(lang))
        self.stages[lang] = stage
        self.own[lang] += stage.diagnostics
        overrides = language_overrides(config, lang, self.site, stage, self.version)
        blob = f"{stage.digest}\n{json.dumps(overrides, sort_keys=True, default=str)}\n{self.sphinx}\n{self.version}"
        digest = hashlib.sha256(blob.encode()).hexdigest()
        lang_out = self.outdir / lang
        if self.stamps[lang].get("digest") == digest and (lang_out / "index.html").is_file():
            kept = [Diagnostic.from_dict(d) for d in self.stamps[lang].get("diagnostics", [])]
            self.builds[lang] = LanguageBuild(
                lang, len(stage.docs), SphinxStatus.UP_TO_DATE, 0.0, 0, kept, self.transpiled[lang]
            )
            _write_stamp(
                lang_out / STAMP, digest, kept, self.fingerprints[lang], self.own[lang], len(stage.docs),
                self.switch_stamp(lang),
            )  # fmt: skip
            return None
        doctrees = work / lang / "doctrees"
        locales = sphinx_state.locale_dirs(config.root, overrides, config.sphinx)
        repaired = sphinx_state.repair(lang_out, doctrees, locales, work / lang)
        (lang_out / STAMP).unlink(missing_ok=True)
        self.builds[lang] = LanguageBuild(lang, len(stage.docs), SphinxStatus.BUILT, 0.0, staged=self.transpiled[lang])
        self.digests[lang] = digest
        return SphinxJob(
            lang,
            str(stage.srcdir),
            str(config.root.resolve()),  # the worker's folder is the fork server's
            str(lang_out),
            str(doctrees),
            overrides,
            # no record of the documents it would not read, or Sphinx's state of them is not to be trusted
            fresh=repaired.fresh or _read_warnings(work / lang / WARNINGS) is None,
        )

    def collect(self, running: dict[str, Future[SphinxRun]]) -> None:
        """Each Sphinx run's outcome: its diagnostics, and its stamp when it succeeded."""
        if running:
            self.say(f"sphinx: {', '.join(running)}")
        for lang, future in running.items():
            done = future.result()
            build = self.builds[lang]
            warnings = self.work / lang / WARNINGS
            found = sphinx_diagnostics(self.config, done, self.stages[lang], warnings, self.site)
            build.diagnostics, build.seconds, build.written = found, done.seconds, done.written
            if done.succeeded:
                stamp = self.outdir / lang / STAMP
                _write_stamp(
                    stamp, self.digests[lang], found, self.fingerprints[lang], self.own[lang], build.pages,
                    self.switch_stamp(lang),
                )  # fmt: skip
                interrupted.end(self.work / lang)
            else:  # it may have stopped halfway through the pages: the next build builds it whole
                build.sphinx = SphinxStatus.FAILED

    def fill_status(self) -> None:
        """The status pages' tables into the pages Sphinx wrote (not into a failed language's)."""
        if self.status_job is not None:
            self.status_tables, self.status_job = self.status_job.result(), None
        filled = [
            status_page.fill(self.outdir / lang / f"{self.site.status}.html", content)
            for lang, content in self.status_tables.items()
            if not self.builds[lang].sphinx.fatal
        ]
        if self.status_tables and all(filled) and set(self.status_tables) >= set(self.linked):
            _write_json(self.work / STATUS_STAMP, {"key": self.status_key})  # every site's page is current


def _no_root(config: BookConfig, lang: str) -> Diagnostic:
    """The error of a language that has chapters but no ``index.md``, its first page."""
    path = display_path(config.chapters_dir / lang / f"{ROOT}.md")
    source = display_path(config.chapters_dir / config.source_language / f"{ROOT}.md")
    message = (
        f"{lang} has no {ROOT}.md, the page its site starts from: write one with a toc block listing its "
        f"chapters (as {source} does), or the language has no pages"
    )
    return Diagnostic.make(path, 1, Code.TOC_MISSING, message)


def _book_files(config: BookConfig) -> list[Any]:
    """The book's files a build reads, as sizes and modification times: the chapters folder,
    conf.py and the bibliography."""
    bibliography = [Path(p) for p in config.sphinx.get("bibtex_bibfiles") or []]
    return [tree_stats(config.chapters_dir), file_stats([config.path, *bibliography])]


def _status_key(config: BookConfig, fingerprints: dict[str, str]) -> str:
    """What the translation-status pages show depends on: every language's inputs and git's HEAD
    (the source commits since each sync)."""
    from polybook.check.staleness import head_commit

    blob = json.dumps([fingerprints, head_commit(config.root)], sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _unchanged(lang: str, stamp: dict[str, Any]) -> LanguageBuild:
    """A language whose inputs did not change: its last build, as its stamp tells it."""
    kept = [Diagnostic.from_dict(d) for d in stamp.get("diagnostics", [])]
    return LanguageBuild(lang, int(stamp.get("pages", 0)), SphinxStatus.UP_TO_DATE, 0.0, 0, kept)


def _in_language(config: BookConfig, diagnostic: Diagnostic, lang: str) -> bool:
    return config.language_of(Path(diagnostic.path)) == lang


def sphinx_diagnostics(
    config: BookConfig, done: SphinxRun, stage: Stage, warnings: Path, site: SiteInfo
) -> list[Diagnostic]:
    """A language's Sphinx run -> its diagnostics: this run's warnings merged into the stored
    ones (:func:`merge_warnings`), chapters left out after a crash, a failure."""
    index_path = stage.paths.get("index", display_path(config.path))
    fresh = [
        {"phase": phase, "doc": doc, **diagnostic.to_dict()}
        for phase, text in done.phases
        for doc, diagnostic in located_warnings(text, stage.srcdir, stage.docs, stage.paths, index_path)
    ]
    docnames = {*stage.docs, *([site.status] if site.status else [])}
    entries = merge_warnings(_read_warnings(warnings) or [], fresh, done, docnames)
    _write_json(warnings, entries)
    found = [Diagnostic.from_dict(entry) for entry in entries]
    for crash in done.left_out:  # the rest of the language was built without it
        path = stage.paths.get(crash.doc, index_path)
        message = f"Sphinx crashed reading this chapter; it is left out of the site:\n{crash.failure}"
        found.append(Diagnostic.make(path, 1, Code.HTML_SPHINX, message, Level.ERROR))
    if done.failure:
        found.append(Diagnostic.make(index_path, 1, Code.HTML_SPHINX, f"Sphinx failed:\n{done.failure}"))
    return found


def merge_warnings(
    stored: list[dict[str, Any]], fresh: list[dict[str, Any]], done: SphinxRun, docnames: set[str]
) -> list[dict[str, Any]]:
    """The language's warnings after an incremental Sphinx run.

    Sphinx re-emits only the warnings of what it did again: the documents it read, those it
    wrote, the consistency check when it ran, its set-up. Those replace their stored
    counterparts; the others -- a warning on a page that did not change -- are kept, so
    ``--strict`` fails for as long as its source is there. Documents gone drop theirs.
    """
    read, written = set(done.read), set(done.docs_written)

    def replaced(entry: dict[str, Any]) -> bool:
        phase, doc = entry["phase"], entry["doc"]
        if doc and doc not in docnames:
            return True
        if phase == "read":
            return doc in read if doc else bool(read)
        if phase == "write":
            return doc in written if doc else bool(written)
        if phase == "consistency":
            return done.consistency
        return True  # set-up: said again on every run

    kept = [entry for entry in stored if not replaced(entry)]
    return kept + [entry for entry in fresh if entry not in kept]


def _write_stamp(
    path: Path,
    digest: str,
    found: list[Diagnostic],
    inputs: str,
    own: list[Diagnostic],
    pages: int,
    switch: dict[str, Any],
) -> None:
    """What a language's site was built from (``inputs``: :class:`SiteInputs`; ``digest``: the
    staged files), Sphinx's diagnostics (``found``) and the language's own (parse, staging,
    execution) -- reported again when the next build finds nothing changed -- and what it knows
    of the language switch (:meth:`_Build.switch_stamp`)."""
    stamp = {
        **switch,
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
    """One line of JSON: with ``indent`` the json module encodes in Python, not C -- for a stamp
    holding a language's thousands of diagnostics, a tenth of a second each build."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
