"""How a book is checked: in this process (:func:`check_book`) or split into chunks of chapters over
worker processes, each chunk's result kept by its files' bytes (:func:`check_config`)."""

from __future__ import annotations

import functools
import os
import pickle
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import TypeVar

from polybook.book import Book, load_book
from polybook.check.chunk import ChunkResult, check_chunk, misspelt
from polybook.check.findings import CheckResult, Finding
from polybook.check.keys import read_once
from polybook.check.library import kept_library_findings, library_findings
from polybook.check.memo import chunk_key, findings_dir
from polybook.check.merge import Baseline, merge, rename_changes, rename_keys
from polybook.check.migration import (
    rename_files,
)
from polybook.check.trust import added_modules
from polybook.config import BookConfig
from polybook.database import flush_stores
from polybook.diagnostics import Diagnostic
from polybook.dialect.shortcuts import cycle_collection_paused
from polybook.files import kept, kept_pickle
from polybook.models import MODELS_DIR, shared_documents

R = TypeVar("R")  # what a chunk's result is kept and handed back as (:func:`_chunk_kept`)


def _scope(config: BookConfig, languages: list[str] | None, chapters: list[str] | None, present: dict) -> tuple:
    """The languages and chapters to check, whether those are all the chapters of the source and
    of the languages checked (``--lang ja`` checks ja's whole book: a reference to a label no
    chapter of it nor the source's defines is still told; a chapter only zh has is not ja's), and
    whether every language is checked."""
    langs = [lang for lang in config.translations if not languages or lang in languages]
    names = sorted({n for lang in [config.source_language, *langs] for n in present.get(lang, ())})
    chosen = [n for n in names if not chapters or n in chapters]
    return langs, chosen, len(chosen) == len(names), langs == list(config.translations)


# The cycle collector is off while a book is checked (and in the workers it forks): a check makes
# millions of small objects (nodes, tokens, findings) that live until its end and hold almost no
# cycles, and each collection walks them again. With its threshold raised to 50,000 instead,
# bookmix's cold check still spent 0.45 CPU-s in it; off, its largest process grew 120 -> 121-125 MB.
@cycle_collection_paused()
@read_once()  # the book as it was when the check started
def check_book(
    book: Book,
    languages: list[str] | None = None,
    chapters: list[str] | None = None,
    baseline: Baseline | None = None,
    *,
    cached: bool = False,
) -> CheckResult:
    """Check an already parsed book, in this process; ``cached``: with the findings (and the
    parsed sources translations were made from) kept in the build folder, as the commands do."""
    started = time.perf_counter()
    langs, names, *whole = _scope(book.config, languages, chapters, book.chapters)
    if cached:
        chunks = _kept_chunks(book, names, langs)
    else:
        with shared_documents():  # the bases two languages share are one document, as in a chunk's worker
            chunks = [check_chunk(book, names, langs, None)]
    memo = findings_dir(book.config) if cached else None
    modules = _modules(book.config, whole[0])
    extra = [found for framework in modules for found in library_findings(book, langs, memo, framework)]
    extra += added_modules(book.config, langs)
    return merge(book.config, langs, len(names), chunks, baseline or {}, started, *whole, extra=extra, kept_in=memo)


#: How many chunks :func:`check_book` cuts a book into when it keeps their results: an edited
#: chapter has its chunk's other chapters checked again with it (each from its own kept findings).
_KEPT_CHUNKS = 32


def _kept_chunks(book: Book, names: list[str], langs: list[str]) -> list[ChunkResult]:
    """``names`` checked in chunks, each chunk's whole result kept by the bytes of every file it
    reads (:func:`chunk_key`), in a folder of its own: the status pages of a site build after an
    edit check the edited chapter's chunk alone (a d2l book's whole check, even with every
    chapter's findings kept, takes most of a second: its bases are chosen again)."""
    config, store = book.config, book.config.build_dir / MODELS_DIR
    present = {lang: sorted(config.document_sizes(lang)) for lang in config.languages}
    chunks = []
    for group in _groups(names, _KEPT_CHUNKS):

        def compute(group: list[str] = group) -> ChunkResult:
            with shared_documents():  # the bases two languages share are one document
                return check_chunk(book, group, langs, store)

        chunks.append(kept(_chunk_entry(config, group, langs, present, "book-chunks"), ChunkResult, compute))
    return chunks


def _groups(names: list[str], count: int) -> list[list[str]]:
    """``names`` cut in order into at most ``count`` chunks of one size (the last may be smaller)."""
    size = max(1, -(-len(names) // count))
    return [names[i : i + size] for i in range(0, len(names), size)]


def _chunk_kept(
    keep: Callable[[Path, type[ChunkResult], Callable[[], ChunkResult]], R],
    config: BookConfig,
    names: list[str],
    langs: list[str],
    present: dict[str, list[str]],
    entry: Path | None,
    notes: bool = True,
) -> R:
    """One chunk's result, kept whole at ``entry`` (:func:`_chunk_entry`; None: worked out here):
    a book unchanged since the last run is not even loaded (each chapter's findings are kept
    too, for a chunk with one change). ``keep``: :func:`kept` in this process, :func:`kept_pickle`
    in a worker process, whose result is sent back as the pickle it keeps (one pickle of some
    thousand findings less). ``notes``: as :func:`check_chapter` has it."""
    entry = entry or _chunk_entry(config, names, langs, present, _folder(notes))
    found = keep(entry, ChunkResult, _chunk(config, names, langs, present, notes))
    flush_stores()  # the documents it parsed, for the tasks after it (the library's read the source's)
    return found


def _chunk(
    config: BookConfig, names: list[str], langs: list[str], present: dict[str, list[str]], notes: bool = True
) -> Callable[[], ChunkResult]:
    """How a chunk's result is worked out: its chapters loaded (through the kept documents), checked."""

    def compute() -> ChunkResult:
        with shared_documents():  # a base two languages share is one document (what is memoised of it serves both)
            book = load_book(config, [config.source_language, *langs], set(names), cached=True, present=present)
            return check_chunk(book, names, langs, config.build_dir / MODELS_DIR, notes)

    return compute


def _folder(notes: bool) -> str:
    """Where the workers' chunks are kept: with every ``stale.source`` note, or without the notes
    of the documents the source changed (:func:`check_chapter`'s ``notes``)."""
    return "chunks" if notes else "chunks-folded"


def _chunk_entry(
    config: BookConfig, names: list[str], langs: list[str], present: dict[str, list[str]], folder: str
) -> Path:
    """Where a chunk's whole result is kept, by :func:`chunk_key` (``folder``: the workers' chunks,
    or :func:`check_book`'s, worked out from a book parsed whole)."""
    source = present.get(config.source_language, [])
    close = {near for n in names if n not in source for near in misspelt(n, source)}
    key = chunk_key(config, names, langs, present, [config.document_path(config.source_language, n) for n in close])
    return findings_dir(config) / folder / key[:2] / f"{key}.pickle"


def _weight(sizes: dict[str, dict[str, int]], names: list[str], langs: list[str]) -> int:
    """How much checking a chunk's chapters costs, roughly: the bytes of their documents
    (``sizes``: each language's, as :meth:`BookConfig.document_sizes` gives them)."""
    return sum(sizes.get(lang, {}).get(name, 0) for lang in langs for name in names)


def _modules(config: BookConfig, whole_book: bool) -> list[tuple[str, ...]]:
    """The library's modules, when the whole book is checked and it has a library: all of them,
    checked (and kept) by one task. A task pays some things once, whatever its modules: importing
    isort, which sorts the modules' imports as d2lbook does (0.03 s in each process that does it),
    and reading its languages' documents with #@save cells (0.03 CPU-s for d2l-en's); the 1.0
    book's five modules are then some 0.02 CPU-s each to collect. Two modules a task, both workers
    paid them, for a tail the other worker's renames fill anyway."""
    if not (whole_book and config.library.enabled):
        return []
    return [tuple(config.library.frameworks)]


def _library(
    config: BookConfig,
    langs: list[str],
    frameworks: tuple[str, ...] | None = None,
    load: Callable[[], Book] | None = None,
) -> list[Finding]:
    """The book's library against its committed modules and the translations' copies (only for
    a book that has one: the languages the modules come from are then loaded whole, for their
    tocs, unless the findings are kept); ``frameworks``: only these modules; ``load``: how the
    book is loaded (the caller's, to load it once for several calls)."""
    if not config.library.enabled:
        return []
    return kept_library_findings(config, langs, findings_dir(config), load, frameworks)


@cycle_collection_paused()
@read_once()
def check_config(
    config: BookConfig,
    languages: list[str] | None = None,
    chapters: list[str] | None = None,
    baseline: Baseline | None = None,
    jobs: int | None = None,
    notes: bool = True,
) -> tuple[CheckResult, list[Diagnostic]]:
    """Parse and check the book in ``jobs`` processes; also return unreadable-input problems.
    Without ``notes``, the ``stale.source`` notes of the documents the source changed are not
    worked out (their plan rows are; :attr:`CheckResult.notes` says so): for a report that sums
    them up in the plans, as the text report does."""
    started = time.perf_counter()
    sizes = {lang: config.document_sizes(lang) for lang in config.languages}
    present = {lang: sorted(found) for lang, found in sizes.items()}
    langs, names, *whole = _scope(config, languages, chapters, present)
    jobs = max(1, jobs or os.cpu_count() or 1)
    groups = _groups(names, jobs * 4)
    source = config.source_language
    # a book checked before: the chunks' keys (every file's bytes) here, to know whether all are kept;
    # else (a fresh clone) each worker works out its own, in parallel
    folder = _folder(notes)
    checked = (findings_dir(config) / folder).is_dir()
    entries = [_chunk_entry(config, group, langs, present, folder) if checked else None for group in groups]
    # every chunk kept (an unchanged book): read here, no worker processes to start and feed
    renamed = None  # the renames' changes, when the workers worked them out
    if jobs == 1 or len(groups) <= 1 or all(entry is not None and entry.is_file() for entry in entries):
        chunks = [
            _chunk_kept(kept, config, group, langs, present, entry, notes)
            for group, entry in zip(groups, entries, strict=True)
        ]
        once = functools.cache(functools.partial(load_book, config, [config.source_language], cached=True))
        extra = [found for modules in _modules(config, whole[0]) for found in _library(config, langs, modules, once)]
        extra += added_modules(config, langs)
    else:
        with ProcessPoolExecutor(jobs, mp_context=get_context("fork")) as pool:
            # the heaviest chunks first, so that the last ones to end are small (the cores end together)
            futures = {
                i: pool.submit(_chunk_kept, kept_pickle, config, groups[i], langs, present, entries[i], notes)
                for i in sorted(range(len(groups)), key=lambda i: -_weight(sizes, groups[i], [source, *langs]))
            }
            # the library last, in a worker: it then reads most of the source's models the chunks kept
            # instead of parsing the source again beside them (a third process on two cores), while
            # the other worker ends its last chunk and works out the renames' changes
            library = [pool.submit(_library, config, langs, modules) for modules in _modules(config, whole[0])]
            # what this process reads itself while the workers work, not after them (some hundredths
            # of a second at the end of the run, when the cores have nothing else to do)
            added = added_modules(config, langs)
            chunks = [pickle.loads(futures[i].result()) for i in range(len(groups))]
            # the renames' changes, kept for the merge, worked out in parallel (bookmix: 80 pairs, 1.4 s)
            # on the cores the library leaves free, not after it
            keys = rename_keys(config, rename_files([f for chunk in chunks for f in chunk.findings]))
            distinct = {key: pair for pair, key in keys.items()}
            work_out = functools.partial(rename_changes, config, findings_dir(config))
            # a few to a task: each is some hundredths of a second, as much as sending it (the 1.0 book: 39)
            per_task = max(1, -(-len(distinct) // (jobs * 2)))
            done = pool.map(work_out, *zip(*distinct.values(), strict=True), chunksize=per_task)
            found = dict(zip(distinct, done, strict=True))
            renamed = {pair: found[key] for pair, key in keys.items()}  # for the merge: no key to work out again
            extra = [finding for task in library for finding in task.result()] + added
    memo = findings_dir(config)
    result = merge(
        config, langs, len(names), chunks, baseline or {}, started, *whole, True, extra, memo, renamed, notes
    )
    return result, [d for chunk in chunks for d in chunk.unreadable]
