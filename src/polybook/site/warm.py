"""``polybook serve``'s warm path: a prose edit re-staged and re-read alone, by a live Sphinx.

The serving process keeps what the incremental build (:func:`polybook.site.build.build_html`)
finds again on every run: the parsed book and each language's site settings, and a live Sphinx
application per language (:class:`polybook.site.warm_sphinx.WarmSphinx`). A saved chapter
whose *shape* -- headings, toc, code cells (unless serving ``--no-eval``), labels, citations,
front matter -- did not change is parsed alone, staged alone (its MyST file is rewritten only when its bytes change;
the language's other documents are as staged before), and Sphinx asked to re-read that document
and write only its page. Anything else -- conf.py, a bibliography, a figure, a new or removed
chapter, a title or toc change, a code edit that needs running -- is :data:`FALLBACK`:
the caller runs the full incremental build, which rebuilds what it must, and the warm state is
dropped (its Sphinx environment is the one on disk now).

The translation-status pages' tables are filled in again after the page reloaded
(:meth:`WarmSite.refresh_status`, in the background: the check of the edited document, then the
tables), and a served status page that changed reloads again. What the warm path leaves for the
next full build, and says so by removing the stamps that would let it skip: the language's stamp
(``build/html/<lang>/.polybook-build.json``) and the status pages' (``build/.sphinx/status.json``),
before its Sphinx writes; its run is marked as a build's is (:mod:`polybook.stage.interrupted`).

The kept book is parsed after the full build it follows; a chapter saved in between -- while
that build ran, or before the warm-up parsed it -- may be on the kept book and not on the site.
Serve says which chapters the build read (:attr:`WarmSite.built_from`); a change to one saved
since goes to the full build.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.book import Book, complete_book, load_book
from polybook.config import BookConfig
from polybook.diagnostics import Diagnostic, Level
from polybook.dialect.nodes import Document
from polybook.execute.outputs import read_output
from polybook.execute.site_outputs import stored_results
from polybook.files import display_path, read_json
from polybook.forked import Forked
from polybook.models import MODELS_DIR, parse_cached
from polybook.render import settings, status_page
from polybook.render.build import (
    STAMP,
    STATUS_STAMP,
    WARNINGS,
    language_overrides,
    renderer_version,
    sphinx_diagnostics,
    switch_pages,
)
from polybook.render.counterparts import switch_targets
from polybook.render.kept_stage import KEPT
from polybook.render.site_info import SiteInfo
from polybook.render.stage import stage_language
from polybook.site import status
from polybook.site.build import html_lock, site_links
from polybook.site.serve import Snapshot, changed_files, snapshot
from polybook.site.warm_sphinx import WarmSphinx
from polybook.stage import interrupted
from polybook.stage import settings as stage_settings
from polybook.stage.documents import Stage, headings
from polybook.stage.shape import shape
from polybook.stage.sphinx_run import SphinxJob

#: What :meth:`WarmSite.rebuild` answers when the change needs the full incremental build.
FALLBACK = None
#: How much lower the status tables' process runs than serve's (``os.nice``).
STATUS_NICE = 10
#: Said once a warm-up ended: from now on a prose edit is rebuilt warm (one saved before may not be).
WARM_READY = "prose edits are rebuilt warm from now on"


@dataclass(slots=True)
class WarmResult:
    """A warm rebuild: the pages Sphinx wrote again and what it said."""

    languages: list[str]
    written: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def errors(self) -> int:
        return sum(d.level is Level.ERROR for d in self.diagnostics)


class WarmSite:
    """The book kept warm for ``languages`` (all of the book's when empty)."""

    def __init__(self, config: BookConfig, languages: list[str], evaluate: bool) -> None:
        self.config = config
        self.languages = languages or list(config.languages)
        self.evaluate = evaluate
        self.lock = threading.Lock()
        self.book: Book | None = None
        self.full: Book | None = None  # the book with every language (the status pages), loaded when needed
        self.linked: set[str] = set()
        self.site: SiteInfo | None = None
        self.workers: dict[str, WarmSphinx] = {}
        self.stages: dict[str, Stage] = {}  # each language's staged documents, kept up to date
        self.built_from: Snapshot | None = None  # the chapters as the last full build read them (serve's)
        self.unsure: set[str] = set()  # the chapters saved since: the kept book may not be the site's
        self.rebuilds = 0  # warm rebuilds so far
        self.drops = 0  # full builds so far (each drops the warm state)
        self.tables_of = -1  # the rebuild the status pages' tables were last filled in after

    def warm_up(self) -> None:
        """Parse the book and start every language's Sphinx (call it in a thread of its own)."""
        with self.lock, self._build_lock():
            if self.book is None:
                self._load()
            for lang in self.languages:
                if lang not in self.workers:
                    self._worker(lang)
            if self.full is None:  # the status pages' book and the check's findings, read once now
                self.full = complete_book(self.book)
                status.pages(self.full, self.languages[:1], linked=self.linked)

    def refresh_status(self) -> bool:
        """The translation-status pages' tables filled in again from the kept book (the check's
        findings are cached per document: only the edited ones are checked again); whether a
        served status page changed. Run after a warm rebuild, in the background: the tables are
        made from a copy of the book taken under the lock, outside it and in a forked child -- a
        chapter saved meanwhile is rebuilt at once, not after them (they take a second of a d2l
        book) -- and written unless tables of a later rebuild were written first."""
        with self.lock:
            if self.book is None:
                return False
            if self.full is None:  # every language: the status pages show them all
                self.full = complete_book(self.book)
            full, after, drops = self.full, self.rebuilds, self.drops
            book = Book(full.config, {lang: dict(docs) for lang, docs in full.chapters.items()}, full.tocs, full.names)
            languages, linked = list(self.languages), set(self.linked)
        # in a forked child: an interpreter of their own, so serving the reloading page and the
        # next edit's rebuild never wait for them (they hold this one's for most of a second);
        # at a lower priority, so that they take no core from that rebuild's Sphinx or the browser
        tables = Forked(lambda: status.pages(book, languages, linked=linked), nice=STATUS_NICE).result()
        with self.lock:
            if after < self.tables_of or drops != self.drops:  # later tables are on the pages, or a full build's
                return False
            self.tables_of = after
            changed = False
            for lang, content in tables.items():
                page = self.config.build_dir / "html" / lang / f"{status.DOCNAME}.html"
                before = page.read_bytes() if page.is_file() else b""
                status_page.fill(page, content)
                changed |= page.is_file() and page.read_bytes() != before
            return changed

    def drop(self) -> None:
        """Forget everything: a full build ran, or the server stops."""
        with self.lock:
            self.book, self.full, self.site, self.stages = None, None, None, {}
            self.drops += 1
            workers, self.workers = self.workers, {}
        for worker in workers.values():
            worker.close()

    def rebuild(self, changed: list[str]) -> WarmResult | None:
        """The warm rebuild of ``changed`` files, or :data:`FALLBACK`."""
        with self.lock:
            if self.book is None:
                self._load()
            docs = self._changed_docs(changed)
            if docs is None:
                return FALLBACK
            with self._build_lock():
                return self._rebuild(docs)

    def _build_lock(self) -> AbstractContextManager[None]:
        """The build folder's lock, as :func:`polybook.site.build.build_html` takes it (its wait
        said on stderr: stdout is the served URL's)."""
        return html_lock(self.config, lambda message: print(message, file=sys.stderr))

    def _load(self) -> None:
        config = self.config
        wanted = list(dict.fromkeys([config.source_language, *self.languages]))
        read = snapshot([config.chapters_dir])  # before the book is parsed
        self.book = load_book(config, wanted, cached=True)
        self.unsure = set(changed_files(self.built_from, read)) if self.built_from is not None else set()
        outdir = config.build_dir / "html"
        built = {lang for lang in config.languages if (outdir / lang / "index.html").is_file()}
        linked = [lang for lang in config.languages if lang in self.languages or lang in built]
        site = settings.site_info(config, *site_links(config)).with_languages(linked)
        self.linked = set(linked)

        # where each page's language switch goes, as the full build worked it out (each language
        # not kept here as its last build's stamp keeps it)
        def stamp(lang: str) -> dict[str, Any]:
            return read_json(outdir / lang / STAMP)

        switch = switch_targets(switch_pages(config, self.book, linked, stamp), config.source_language)
        self.site = site.with_status(status.DOCNAME).with_switch(switch)

    def _changed_docs(self, changed: list[str]) -> dict[str, dict[str, Document]] | None:
        """language -> name -> the document parsed again, when every changed file is a chapter
        of a kept language whose shape did not change; else None."""
        config, book = self.config, self.book
        assert book is not None
        found: dict[str, dict[str, Document]] = {}
        for file in changed:
            path = Path(file)
            lang, name = config.language_of(path), config.document_name(path)
            if lang not in self.languages or name is None or path.suffix != ".md" or not path.is_file():
                return None
            if file in self.unsure:  # saved since the full build read it: its page may be older than the kept book
                return None
            before = book.chapters[lang].get(name)
            if before is None:
                return None
            store = config.build_dir / MODELS_DIR
            doc = parse_cached(path, config.languages[lang].settings, display_path(path), store)
            if shape(doc, code=self.evaluate) != shape(before, code=self.evaluate):
                return None
            found.setdefault(lang, {})[name] = doc
        return found or None

    def _rebuild(self, docs: dict[str, dict[str, Document]]) -> WarmResult | None:
        started = time.monotonic()
        book = self.book
        assert book is not None
        result = WarmResult(list(docs))
        self.rebuilds += 1
        for lang, changed in docs.items():
            book.chapters[lang].update(changed)
            worker = self.workers.get(lang) or self._worker(lang)
            stage = self._restage(lang, set(changed))
            srcdir = stage.srcdir
            work = self.config.build_dir / ".sphinx" / lang
            if worker.wait_ready():  # before it writes: the next full build checks lang, whole if stopped
                self._forget_stamps(lang)
                interrupted.begin(work)
            run = worker.build([str(srcdir / f"{name}.md") for name in changed])
            if run is None or not run.succeeded:  # the full build follows (whole, if Sphinx had begun)
                self.workers.pop(lang).close()
                return FALLBACK
            interrupted.end(work)
            assert self.site is not None
            warnings = self.config.build_dir / ".sphinx" / lang / WARNINGS
            found = sphinx_diagnostics(self.config, run, stage, warnings, self.site)
            paths = {stage.paths[name] for name in changed}
            result.diagnostics += [d for d in [*found, *stage.diagnostics] if d.path in paths]
            result.written += [f"{lang}/{doc}" for doc in run.docs_written]
        result.seconds = round(time.monotonic() - started, 3)
        return result

    def _restage(self, lang: str, names: set[str]) -> Stage:
        """The documents ``names`` staged again; ``lang``'s kept stage with them."""
        kept, fresh = self.stages[lang], self._stage(lang, names)
        paths = {kept.paths[name] for name in names}
        kept.diagnostics = [d for d in kept.diagnostics if d.path not in paths] + fresh.diagnostics
        kept.docs.update(fresh.docs)
        kept.paths.update(fresh.paths)
        return kept

    def _stage(self, lang: str, only: set[str] | None = None) -> Stage:
        """Stage ``lang`` (``only`` these documents) again from the kept book: only files whose
        bytes changed are written."""
        config, book = self.config, self.book
        assert book is not None and self.site is not None
        source = config.source_language
        source_headings = {name: headings(doc) for name, doc in book.chapters[source].items()}
        if only is None:
            results = stored_results(config, [lang])
            chapter_results = {name: doc for (of, name), doc in results.items() if of == lang}
        else:  # the documents' own results files: a prose edit leaves them as the last build wrote them
            chapter_results = {name: doc for name in only if (doc := read_output(config.build_dir, lang, name))}
        source_name = config.languages[source].name
        generated = {status.DOCNAME: status_page.frame(lang, source_name)}
        return stage_language(
            config, lang, book.chapters[lang], source_headings, chapter_results,
            config.build_dir / ".sphinx" / lang / "src", stage_settings.bibfiles(config, lang), generated,
            stored=not self.evaluate, notebooks=self.site.notebook_places.get(lang, ()), only=only,
        )  # fmt: skip

    def _worker(self, lang: str) -> WarmSphinx:
        """``lang``'s live Sphinx, with the settings the full build gives it (and its stage kept)."""
        assert self.site is not None
        config = self.config
        stage = self.stages[lang] = self._stage(lang)
        overrides = self._worker_overrides(lang)
        job = SphinxJob(
            lang, str(stage.srcdir), str(config.root.resolve()), str(config.build_dir / "html" / lang),
            str(config.build_dir / ".sphinx" / lang / "doctrees"), overrides,
        )  # fmt: skip
        worker = self.workers[lang] = WarmSphinx(job)
        return worker

    def _worker_overrides(self, lang: str) -> dict[str, Any]:
        """``lang``'s Sphinx settings, as the full build gives them (its stage kept first)."""
        assert self.site is not None
        stage = self.stages.get(lang) or self._stage(lang)
        return language_overrides(self.config, lang, self.site, stage, renderer_version())

    def _forget_stamps(self, lang: str) -> None:
        """The next full build checks ``lang`` and the status pages again (what the warm path left)."""
        (self.config.build_dir / "html" / lang / STAMP).unlink(missing_ok=True)
        (self.config.build_dir / ".sphinx" / STATUS_STAMP).unlink(missing_ok=True)
        # the staged page is rewritten: the kept stage no longer says what is staged (the chapter
        # saved back as it was would otherwise keep the warm edit's page)
        (self.config.build_dir / ".sphinx" / lang / KEPT).unlink(missing_ok=True)


def start_warming(site: WarmSite, say: Callable[[str], None]) -> threading.Thread:
    """Warm ``site`` up in the background; problems are said, the full build stays the fallback."""

    def run() -> None:
        try:
            site.warm_up()
        except Exception as exc:  # the warm path is a speed-up: the full build still works
            say(f"serve: the warm rebuild is off ({exc}); every change runs the incremental build")
            return
        say(f"serve: {WARM_READY}")

    thread = threading.Thread(target=run, name="polybook-warm-up", daemon=True)
    thread.start()
    return thread
