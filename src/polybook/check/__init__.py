"""``polybook check``: every translation compared with the source, statically.

Nothing here imports or runs book code: chapters are parsed, cells are tokenised.
Every check but one is local to a chapter, so the work splits over chapters
(:func:`check_config` runs the chunks in worker processes); whether a reference resolves
needs every label of the book and is decided when the chunks are merged.
"""

from __future__ import annotations

import functools
import os
import pickle
import re
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from multiprocessing import get_context
from pathlib import Path

from polybook.book import Book, load_book
from polybook.check.bases import Base, base_of, changes_since
from polybook.check.code import check_code, check_coverage, match_cells
from polybook.check.current import followed_since
from polybook.check.findings import CheckResult, Finding, Location
from polybook.check.keys import checker_version, file_digest, key_of, read_once
from polybook.check.labels import LABELS_NOTHING
from polybook.check.library import kept_library_findings, library_findings, saved_drift
from polybook.check.math_numbers import check_math_numbers
from polybook.check.memo import chapter_findings, chunk_key, document_shelf, findings_dir
from polybook.check.migration import (
    changed_row,
    document_changes,
    missing_bases,
    new_row,
    plan_finding,
    rename_files,
    resolve_renames,
)
from polybook.check.plan import Changes, DocumentState
from polybook.check.prose import check_sections, check_texttabs, extra_section_lines
from polybook.check.raw_html import check_raw_html
from polybook.check.references import (
    check_references,
    not_yet_here,
    resolvable_refs,
    resource_fallbacks,
    unresolved_ref,
)
from polybook.check.segments import flatten, pair_segments
from polybook.check.staleness import ORIGIN_SUFFIX, SyncRecord, lock_problem, origin_file, read_lock
from polybook.check.suppress import Suppression, apply, inline_suppressions, unused
from polybook.check.terms import check_terms
from polybook.check.trust import added_directives, added_modules
from polybook.config import BookConfig
from polybook.config.glossary import Glossary, GlossaryError, read_glossary
from polybook.database import flush_stores, shelf
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.marks import MarkKind, as_checked, document_mark, stale_lines
from polybook.dialect.nodes import Document, TocBlock
from polybook.dialect.shortcuts import cycle_collection_paused
from polybook.files import display_path, kept, kept_pickle, resolved
from polybook.models import MODELS_DIR, parse_cached, shared_documents
from polybook.toc import build_toc, toc_blocks, unreached

__all__ = ["CheckResult", "Finding", "check_book", "check_chapter", "check_config"]

Baseline = dict[tuple[str, str, str, str], str]


@dataclass(slots=True)
class ChunkResult:
    """What checking some chapters yields, before the book-wide merge."""

    findings: list[Finding] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    labels: dict[str, set[str]] = field(default_factory=dict)
    # lang, chapter, path, role, target, line, whether the source chapter has the same reference
    refs: list[tuple[str, str, str, str, str, int, bool]] = field(default_factory=list)
    unreadable: list[Diagnostic] = field(default_factory=list)
    # lang -> document -> its toc blocks, and every document's path (for the book's toc)
    tocs: dict[str, dict[str, list[TocBlock]]] = field(default_factory=dict)
    paths: dict[str, dict[str, str]] = field(default_factory=dict)
    bases: Counter[tuple[str, str]] = field(default_factory=Counter)  # (lang, base kind) -> documents


_LINES = re.compile(r"\bline \d+")  # a line a parser's message names


def parse_findings(lang: str, name: str, doc: Document, source: Document | None = None) -> list[Finding]:
    """The parser's diagnostics of a chapter, as findings (damaged directives, tabs...); of a
    translation, not those that copy its ``source``'s own (reported on the source, fixed there; the
    lines a message names are the copy's own: ``line 180 names jax`` in the source is ``line 46`` in
    a translation whose text around it is shorter)."""
    copied = (
        Counter((d.code, _LINES.sub("line", d.message)) for d in source.diagnostics)
        if source is not None
        else Counter()
    )
    out = []
    for d in doc.diagnostics:
        said = (d.code, _LINES.sub("line", d.message))
        if copied[said] > 0:
            copied[said] -= 1
            continue
        out.append(
            Finding(d.code, d.message, lang, name, Location(d.path, d.line), level=d.level, subject=(d.message, ""))
        )
    return out


def check_chapter(
    book: Book,
    lang: str,
    name: str,
    current: Document | None,
    translation: Document,
    lock: dict[str, SyncRecord] | None = None,
    store: Path | None = None,
    base: Base | None = None,
    glossary: Glossary | None = None,
) -> list[Finding]:
    """Every chapter-local check of one translated chapter: its consistency with its base (what it
    was made from, :mod:`.bases`), then what the source changed since (``current``: the source's
    document today, None when the source has it no more).

    ``lock`` is the language's sync records (:func:`read_lock`); callers that check many
    chapters read it once and pass it, else it is read here. ``store``: the parsed documents
    kept in the build folder (:mod:`polybook.models`), for the sources translations were made from.
    ``base``: the chapter's, when the caller knows it already. ``glossary``: the language's
    (``terms.missing``), when the caller has read it.
    """
    config = book.config
    if lock is None:
        lock = read_lock(config.chapters_dir / lang)
    record = lock.get(name)
    base = base or base_of(config, lang, name, current, record, store, translation)
    source = base.document or current
    assert source is not None, "a chapter with neither a base nor a source has nothing to be checked against"
    findings = parse_findings(lang, name, translation, source)
    settings = config.languages[lang].settings
    written = translation
    translation, marks = as_checked(translation, lambda text: parse_text(text, translation.path, settings))
    stale = stale_lines(written) if marks[MarkKind.STALE] or marks[MarkKind.REVIEW] else set()
    findings += marked_findings(lang, name, translation, marks)
    own = {id(finding) for finding in findings} if stale else set()  # of the translation's text as written
    match = match_cells(source, translation)
    alignment = pair_segments(source, translation, match)
    src_items, tgt_items = flatten(source), flatten(translation)
    findings += saved_drift(
        lang, source, check_code(lang, name, source, translation, match, alignment.place), translation
    )
    findings += check_coverage(lang, name, source, translation, match.common)
    offered = config.languages[config.source_language].frameworks
    findings += check_texttabs(
        lang, name, alignment, source, translation, match.common, config.localised_links, offered
    )
    findings += check_math_numbers(lang, name, source, translation, src_items, tgt_items, match.common, alignment)
    findings += check_sections(lang, name, alignment, source, translation, match, src_items, tgt_items)
    findings += check_references(lang, name, source, translation, alignment.place, config.localised_links, match.common)
    if glossary is not None:
        findings += check_terms(lang, name, alignment, translation.path, glossary)
    findings = _within_extra_sections(findings, extra_section_lines(tgt_items, match), translation.path)
    findings = followed_since(findings, source, current, translation)
    if stale:  # a stale or review block is read as the source's text: what is found at it is said by its mark
        findings = [f for f in findings if id(f) in own or not _at(f, translation.path, stale)]
    findings += check_raw_html(lang, name, source, written)  # what the page shows: the text as written
    findings += resource_fallbacks(config, lang, name, translation)
    findings += added_directives(lang, name, written, source, current, config.library.packages)  # as written
    findings += lock_problem(lang, name, translation, record)
    findings += changes_since(lang, name, base, current, translation, match, alignment.place)
    row = changed_row(name, base, current, translation)
    if row.state is not DocumentState.UNCHANGED:
        where = Location(current.path, 1) if current is not None else None
        findings.append(plan_finding(lang, row, Location(translation.path, 1), where))
    return findings


def _at(finding: Finding, path: str, lines: set[int]) -> bool:
    where = finding.location
    return where is not None and where.path == path and where.line in lines


def marked_findings(lang: str, name: str, translation: Document, marks: Counter[MarkKind]) -> list[Finding]:
    """What a port left to translate in a document, and the drafts of ``polybook translate`` not
    reviewed yet, as one note."""
    if document_mark(translation) is not None:
        message = "left by `polybook port`: the whole document is the source's text; translate it and remove its mark"
    elif marks[MarkKind.DRAFT] and sum(marks.values()) == marks[MarkKind.DRAFT]:
        message = f"{marks[MarkKind.DRAFT]} draft blocks of `polybook translate`: review them and remove their marks"
    elif marks:
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(marks.items()) if n)
        message = f"left by `polybook port`: {parts} blocks; translate them and remove their marks"
        if marks[MarkKind.DRAFT]:
            message += " (a draft's once reviewed)"
    else:
        return []
    return [Finding.make(Code.STALE_MARKED, message, lang, name, Location(translation.path, 1), subject=(message, ""))]


def check_chunk(book: Book, names: list[str], langs: list[str], store: Path | None = None) -> ChunkResult:
    out = ChunkResult()
    source_lang = book.config.source_language
    sources = book.chapters[source_lang]
    source_refs = {
        name: {(role, label) for role, label, _ in resolvable_refs(sources[name])} for name in names if name in sources
    }
    for lang in [source_lang, *langs]:
        docs = book.chapters.get(lang, {})
        out.labels[lang] = {label for name in names if name in docs for label in docs[name].labels}
        out.paths[lang] = {name: docs[name].path for name in names if name in docs}
        out.tocs[lang] = {name: blocks for name in out.paths[lang] if (blocks := list(toc_blocks(docs[name])))}
        out.unreadable += [
            d for name in names if name in docs for d in docs[name].diagnostics if d.code in (Code.READ, Code.ENCODING)
        ]
    for name in names:
        if name in sources:
            out.findings += parse_findings(source_lang, name, sources[name])
            found, problems = inline_suppressions(sources[name], source_lang, name)
            out.suppressions += found
            out.findings += problems
    locks = {lang: read_lock(book.config.chapters_dir / lang) for lang in langs}
    glossaries = {lang: _glossary(book.config, lang) for lang in langs}
    source_names = book.names_of(source_lang)
    known = set(source_names)
    orphans = {lang: [n for n in book.names_of(lang) if n not in known] for lang in langs}  # no source document
    for name in names:  # chapter by chapter: what is read from a source chapter serves every language
        # the document's kept bases and findings, every language's in one file
        with shelf(document_shelf(book.config, name) if store else None) as kept_in:
            for lang in langs:
                source, target = sources.get(name), book.chapters[lang].get(name)
                if target is None and source is not None:
                    if not _misspelt(name, orphans[lang]):  # else said at the orphan
                        out.findings.append(_untranslated(book.config, lang, name, source))
                    continue
                if target is None:
                    continue
                renamed = _misspelt(name, source_names) if source is None else []
                if renamed:  # checked against the source's chapter it misspells, as it is today
                    origin = origin_file(book.config.document_path(lang, name))
                    out.findings.append(_orphan(lang, name, target, source_names, origin.is_file()))
                    source = _source_document(book.config, renamed[0], store)
                base = base_of(book.config, lang, name, source, locks[lang].get(name), store, target, kept_in)
                out.bases[lang, str(base.kind)] += 1
                if source is None and base.document is None:  # nothing to check it against but itself
                    out.findings += [_orphan(lang, name, target, source_names), *parse_findings(lang, name, target)]
                    out.findings += added_directives(lang, name, target, None, library=book.config.library.packages)
                    continue
                found, problems = inline_suppressions(target, lang, name)
                out.suppressions += found
                out.findings += problems
                memo = kept_in if not renamed else None  # its key names its own file
                out.findings += chapter_findings(
                    memo, book.config, lang, name, source, target, locks[lang], base,
                    functools.partial(
                        check_chapter, book, lang, name, source, target, locks[lang], store, base, glossaries[lang]
                    ),
                )  # fmt: skip
                shared = source_refs.get(name, set())
                out.refs += [(lang, name, target.path, *ref, ref[:2] in shared) for ref in resolvable_refs(target)]
    return out


def _glossary(config: BookConfig, lang: str) -> Glossary | None:
    """The language's glossary (None when it has none, or one that does not parse: ``polybook
    translate`` says where)."""
    try:
        glossary = read_glossary(config.chapters_dir, lang)
    except (GlossaryError, OSError, UnicodeDecodeError):
        return None
    return glossary if glossary.terms else None


_MISSPELT = 0.8  # a chapter name this similar to one of the source's is that one misspelt


def _misspelt(name: str, names: list[str]) -> list[str]:
    """The name of ``names`` in the same folder whose file name ``name``'s most looks like."""
    folder, _, base = name.rpartition("/")
    near = {n.rpartition("/")[2]: n for n in names if n.rpartition("/")[0] == folder and n != name}
    return [near[found] for found in get_close_matches(base, list(near), n=1, cutoff=_MISSPELT)]


def _source_document(config: BookConfig, name: str, store: Path | None) -> Document:
    """The source language's document ``name``, parsed (or as kept in ``store``)."""
    path = config.document_path(config.source_language, name)
    return parse_cached(path, config.languages[config.source_language].settings, display_path(path), store)


def _orphan(lang: str, name: str, translation: Document, source_names: list[str], origin: bool = False) -> Finding:
    """A translated chapter with no source chapter (and no base): most often the source's name
    misspelt (pt's ``nadaraya-waston`` for ``nadaraya-watson``), which is named -- with its
    ``X_origin.md`` (``origin``), which the same rename keeps its base."""
    close = _misspelt(name, source_names)
    if close:
        stem, new = Path(translation.path).stem, close[0].rsplit("/", 1)[-1]
        message = f"chapter {name!r} has no source chapter: it is the source's {close[0]!r} misspelt; rename "
        message += f"{stem}.md to {new}.md"
        message += f" and {stem}{ORIGIN_SUFFIX}.md to {new}{ORIGIN_SUFFIX}.md" if origin else ""
        message += " (and its toc entries)"
    else:
        message = f"chapter {name!r} has no source chapter: remove it, or add it to the source (and to a toc)"
    return Finding.make(Code.STRUCTURE_CHAPTER, message, lang, name, Location(translation.path, 1))


def _untranslated(config: BookConfig, lang: str, name: str, source: Document) -> Finding:
    """A source chapter the translation lacks: not translated yet (a warning), or -- when the
    edition the language follows has no such chapter -- new in the source since (a row of the
    migration plan: how far behind, not a mistake; it may be a document the translation has
    under its old name, which the merge finds)."""
    edition = config.languages[lang].base
    if edition is not None and not config.edition_path(edition, name).is_file():
        return plan_finding(lang, new_row(name, source, edition), None, Location(source.path, 1))
    return Finding.make(
        Code.STRUCTURE_CHAPTER,
        f"chapter {name!r} is not translated into {lang} yet: translate {source.path} into "
        f"{display_path(config.document_path(lang, name))}", lang, name,
        None, source=Location(source.path, 1), level=Level.WARNING,
    )  # fmt: skip


def _merge(
    config: BookConfig,
    langs: list[str],
    n_names: int,
    chunks: list[ChunkResult],
    baseline: Baseline,
    started: float,
    whole_book: bool,
    every_language: bool,
    with_toc: bool = False,
    extra: list[Finding] | None = None,
    kept_in: Path | None = None,
    renamed: dict[tuple[Path, Path], Changes | None] | None = None,
) -> CheckResult:
    """Resolve references over every chunk's labels, apply suppressions, sort.

    A reference to a label that neither the translation nor the source defines (a typo) is
    reported only when ``whole_book`` was checked: with ``--chapter`` the label may live in a
    chapter that was not read. One the source chapter makes too is the source's problem.
    An inline suppression that matches nothing is reported; one in the source only when
    ``every_language`` was checked (it serves them all). ``with_toc``: the chunks' documents
    were parsed alone, so the book's toc is put together here and its problems reported
    (documents no toc reaches only when ``whole_book``); a book loaded whole has them already.
    A file a translation takes from the source language, and a framework the source language
    does not have, are reported once per language. A document gone from the source and one new
    in it that share labels are one rename in the migration plan (``renamed``: the changes of
    renames worked out already, by their two files; the others are worked out here).
    """
    source_lang = config.source_language
    labels: dict[str, set[str]] = {}
    findings: list[Finding] = []
    suppressions: list[Suppression] = []
    for chunk in chunks:
        for lang, names in chunk.labels.items():
            labels.setdefault(lang, set()).update(names)
        findings += chunk.findings
        suppressions += chunk.suppressions
    source_labels = labels.get(source_lang, set())
    damaged = {(f.primary.path, f.primary.line, f.diff[0][0]) for f in findings if f.code is Code.REF_TARGET and f.diff}
    dangling = {(f.lang, f.subject[1]) for f in findings if f.code is Code.REF_LABEL and LABELS_NOTHING in f.message}
    for chunk in chunks:
        for lang, name, path, role, target, line, in_source in chunk.refs:
            if target in labels.get(lang, set()) or (path, line, f":{role}:`{target}`") in damaged:
                continue  # resolves, or is the damaged copy of one of the source's (said where it is)
            if (lang, target) in dangling:
                continue  # its label is written where it labels nothing: said there, with what to do
            known = labels.get(lang, set()) | source_labels
            if target in source_labels:
                findings.append(unresolved_ref(lang, name, path, role, target, line))
            elif whole_book and not in_source:
                findings.append(unresolved_ref(lang, name, path, role, target, line, source_lang, known))
    if whole_book:
        findings = not_yet_here(findings, labels)
    if with_toc:
        findings += _toc_findings(chunks, whole_book)
    findings = _without_orphans_toc(findings, source_lang, chunks)
    findings += extra or []
    worked_out = functools.cache(functools.partial(_rename_changes, config, kept_in))
    findings = resolve_renames(findings, lambda base, source: _known(renamed, base, source, worked_out))
    documents: Counter[str] = Counter()
    for chunk in chunks:
        documents.update({lang: len(names) for lang, names in chunk.paths.items()})
    findings = missing_bases(findings, documents, source_lang)
    findings = _said_once(findings)
    findings = apply(findings, suppressions, baseline)
    findings += unused(findings, [s for s in suppressions if every_language or s.lang != source_lang])
    findings.sort(key=lambda f: f.order)
    bases = sum((chunk.bases for chunk in chunks), Counter())
    follows = {
        lang: _follows(config, lang, {kind: n for (code, kind), n in bases.items() if code == lang}) for lang in langs
    }
    return CheckResult(source_lang, langs, n_names, findings, time.perf_counter() - started, follows)


def _known(
    renamed: dict[tuple[Path, Path], Changes | None] | None,
    base_file: Path,
    source_file: Path,
    work_out: Callable[[Path, Path], Changes | None],
) -> Changes | None:
    """A rename's changes, from ``renamed`` when they are there, else worked out."""
    if renamed is not None and (base_file, source_file) in renamed:
        return renamed[base_file, source_file]
    return work_out(base_file, source_file)


def _rename_changes(config: BookConfig, store: Path | None, base_file: Path, source_file: Path) -> Changes | None:
    """What changed from a renamed document's base to its source under the new name, kept in
    ``store`` (the folder of kept findings) by both files' bytes: the merge runs every time."""
    if not (base_file.is_file() and source_file.is_file()):
        return None

    def compute() -> Changes:
        old, now = _read(config, base_file), _read(config, source_file)
        return document_changes(old, now) if old is not None and now is not None else Changes()

    if store is None:
        return compute()
    key = _rename_key(config, base_file, source_file)
    return kept(store / "renames" / key[:2] / f"{key}.pickle", Changes, compute)


def _rename_key(config: BookConfig, base_file: Path, source_file: Path) -> str:
    """The key of a rename's changes: both files' bytes and how they read, not where they are nor
    which language reads them -- the language is only a name on the document, which the changes
    never read -- (languages renaming a document from one base text share it: bookmix, 80 renames, 38 texts)."""
    parts = [checker_version(), file_digest(config.path)]
    for path in (base_file, source_file):
        parts.append(repr(replace(_settings_of(config, path), language=None)))
    return key_of([*parts, file_digest(base_file), file_digest(source_file)])


def _rename_keys(config: BookConfig, pairs: list[tuple[Path, Path]]) -> dict[tuple[Path, Path], str]:
    """The :func:`_rename_key` of each of ``pairs`` of files that both exist (those that share one
    are worked out once)."""
    found = [(base, source) for base, source in pairs if base.is_file() and source.is_file()]
    return {(base, source): _rename_key(config, base, source) for base, source in found}


def _settings_of(config: BookConfig, path: Path) -> DialectSettings:
    """How a file the merge reads is parsed: its language's dialect, an edition's for an edition's
    file (the last edition whose folder holds it)."""
    where = resolved(path)
    held = [edition for edition in config.editions.values() if where.is_relative_to(resolved(edition.folder))]
    return held[-1].settings if held else config.settings_for(path)


def _read(config: BookConfig, path: Path) -> Document | None:
    """A document the merge needs (a renamed document's base and source), through the kept ones:
    shown as the chunks show it (:func:`display_path`), so that the model they kept is found
    rather than parsed again (what the merge works out of it names no place)."""
    if not path.is_file():
        return None
    return parse_cached(path, _settings_of(config, path), display_path(path), config.build_dir / MODELS_DIR)


_KINDS = {
    "sync": "the source at its sync",
    "origin": f"its {ORIGIN_SUFFIX}.md",
    "edition": "the edition",
    "source-matched": "the source as it is (their code is today's)",
    "source": "the source as it is (no base known)",
}


def _follows(config: BookConfig, lang: str, kinds: dict[str, int]) -> str:
    """What a language follows, and what its documents are checked against, as the report says."""
    edition = config.languages[lang].base
    what = f"{edition} ({_rel(config, config.editions[edition].folder)})" if edition is not None else "no edition"
    counted = ", ".join(f"{n} against {_KINDS[kind]}" for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
    return f"{what}; documents: {counted}" if counted else what


def _rel(config: BookConfig, path: Path) -> str:
    try:
        return path.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


_HELD = (Code.CODE_EXTRA, Code.MATH_EXTRA, Code.REF_LINK, Code.REF_LABEL, Code.REF_TARGET, Code.REF_FIGURE)


def _within_extra_sections(findings: list[Finding], sections: list[tuple[int, int]], path: str) -> list[Finding]:
    """``findings`` without what a section the source lacks adds (its cells, formulas, links,
    labels: only this translation's, ``subject`` ``(mine, "")``): its ``structure.section``
    says to remove it with all it holds."""
    if not sections:
        return findings
    return [
        f
        for f in findings
        if not (
            f.code in _HELD
            and f.location is not None
            and f.location.path == path
            and len(f.subject) == 2
            and not f.subject[1]
            and any(a < f.location.line <= b for a, b in sections)
        )
    ]


def _without_orphans_toc(findings: list[Finding], source_lang: str, chunks: list[ChunkResult]) -> list[Finding]:
    """``findings`` without ``toc.unreached`` for a translated document the source lacks: it is
    in no toc for the reason its ``structure.chapter`` says (misspelt, or this language's own)."""
    in_source = {name for chunk in chunks for name in chunk.paths.get(source_lang, {})}
    if not in_source:
        return findings  # (the source's documents were not read: nothing to tell)
    return [f for f in findings if f.code is not Code.TOC_UNREACHED or f.lang == source_lang or f.name in in_source]


def _toc_findings(chunks: list[ChunkResult], whole_book: bool) -> list[Finding]:
    """The toc's problems in every language the chunks hold, as findings."""
    out: list[Finding] = []
    for lang in dict.fromkeys(lang for chunk in chunks for lang in chunk.paths):
        paths = {name: path for chunk in chunks for name, path in chunk.paths.get(lang, {}).items()}
        blocks = {name: found for chunk in chunks for name, found in chunk.tocs.get(lang, {}).items()}
        toc = build_toc(lang, blocks, paths, paths)
        problems = [*toc.diagnostics, *(unreached(toc, paths, paths) if whole_book else [])]
        names = {path: name for name, path in paths.items()}
        for d in problems:
            where = Location(d.path, d.line)
            out.append(Finding(d.code, d.message, lang, names[d.path], where, level=d.level, subject=(d.message, "")))
    return out


def _said_once(findings: list[Finding]) -> list[Finding]:
    """One ``ref.fallback`` per language and file: the first place that uses it. One
    ``code.coverage`` per language for a framework the source language does not have (zh's
    paddle), with the cells and chapters counted, instead of one per chapter."""
    seen: set[tuple[str, str]] = set()
    extra: dict[tuple[str, str], list[Finding]] = {}
    dropped: set[int] = set()  # their places in ``findings``
    # only these two codes are sorted here (for the first place of each): the merge sorts them all after
    said = [i for i, f in enumerate(findings) if f.code is Code.REF_FALLBACK or f.code is Code.CODE_COVERAGE]
    for i in sorted(said, key=lambda i: findings[i].order):
        finding = findings[i]
        if finding.code is Code.REF_FALLBACK:
            if (finding.lang, finding.subject[0]) in seen:
                dropped.add(i)
            seen.add((finding.lang, finding.subject[0]))
        elif finding.subject[1].isdigit():
            extra.setdefault((finding.lang, finding.subject[0]), []).append(finding)
            dropped.add(i)
    out = [finding for i, finding in enumerate(findings) if i not in dropped]
    for (lang, framework), found in extra.items():
        cells = sum(int(f.subject[1]) for f in found)
        message = f"{lang} offers {framework}, which the source does not: {cells} cells in {len(found)} chapters; "
        message += "nothing to fix"
        out.append(replace(found[0], message=message, subject=(framework, "")))
    return out


def _scope(config: BookConfig, languages: list[str] | None, chapters: list[str] | None, present: dict) -> tuple:
    """The languages and chapters to check, and whether those are all the book's chapters."""
    langs = [lang for lang in config.translations if not languages or lang in languages]
    names = sorted({n for lang in [config.source_language, *langs] for n in present.get(lang, ())})
    chosen = [n for n in names if not chapters or n in chapters]
    every = {n for docs in present.values() for n in docs}
    return langs, chosen, every <= set(chosen), langs == list(config.translations)


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
    store = book.config.build_dir / MODELS_DIR if cached else None
    with shared_documents():  # the bases two languages share are one document, as in a chunk's worker
        chunks = [check_chunk(book, names, langs, store)]
    memo = findings_dir(book.config) if cached else None
    modules = _modules(book.config, whole[0])
    extra = [found for framework in modules for found in library_findings(book, langs, memo, framework)]
    extra += added_modules(book.config, langs)
    return _merge(book.config, langs, len(names), chunks, baseline or {}, started, *whole, extra=extra, kept_in=memo)


def _check_in_worker(
    config: BookConfig, names: list[str], langs: list[str], present: dict[str, list[str]], entry: Path | None
) -> ChunkResult:
    """One chunk's result, kept whole at ``entry`` (:func:`_chunk_entry`; None: worked out here):
    a book unchanged since the last run is not even loaded (each chapter's findings are kept
    too, for a chunk with one change)."""

    found = kept(
        entry or _chunk_entry(config, names, langs, present), ChunkResult, _chunk(config, names, langs, present)
    )
    flush_stores()  # the documents it parsed, for the tasks after it (the library's read the source's)
    return found


def _chunk_pickled(
    config: BookConfig, names: list[str], langs: list[str], present: dict[str, list[str]], entry: Path | None
) -> bytes:
    """:func:`_check_in_worker` in a worker process: the result as the pickle it keeps, which is
    sent back as it is (one pickle of some thousand findings less)."""
    found = kept_pickle(
        entry or _chunk_entry(config, names, langs, present), ChunkResult, _chunk(config, names, langs, present)
    )
    flush_stores()
    return found


def _chunk(
    config: BookConfig, names: list[str], langs: list[str], present: dict[str, list[str]]
) -> Callable[[], ChunkResult]:
    """How a chunk's result is worked out: its chapters loaded (through the kept documents), checked."""

    def compute() -> ChunkResult:
        with shared_documents():  # a base two languages share is one document (what is memoised of it serves both)
            book = load_book(config, [config.source_language, *langs], set(names), cached=True, present=present)
            return check_chunk(book, names, langs, config.build_dir / MODELS_DIR)

    return compute


def _chunk_entry(config: BookConfig, names: list[str], langs: list[str], present: dict[str, list[str]]) -> Path:
    """Where a chunk's whole result is kept, by :func:`chunk_key`."""
    source = present.get(config.source_language, [])
    misspelt = {near for n in names if n not in source for near in _misspelt(n, source)}
    key = chunk_key(config, names, langs, present, [config.document_path(config.source_language, n) for n in misspelt])
    return findings_dir(config) / "chunks" / key[:2] / f"{key}.pickle"


def _weight(sizes: dict[str, dict[str, int]], names: list[str], langs: list[str]) -> int:
    """How much checking a chunk's chapters costs, roughly: the bytes of their documents
    (``sizes``: each language's, as :meth:`BookConfig.document_sizes` gives them)."""
    return sum(sizes.get(lang, {}).get(name, 0) for lang in langs for name in names)


def _modules(config: BookConfig, whole_book: bool) -> list[tuple[str, ...]]:
    """The library's modules, :data:`_MODULES_TOGETHER` at a time, when the whole book is checked
    and it has a library (each group is checked and kept apart: the workers share them out)."""
    if not (whole_book and config.library.enabled):
        return []
    frameworks = list(config.library.frameworks)
    return [tuple(frameworks[i : i + _MODULES_TOGETHER]) for i in range(0, len(frameworks), _MODULES_TOGETHER)]


#: The library's modules checked by one task: each task loads the source language whole (from the
#: kept documents, some 0.05 s), so a module each cost more than it spread (bookmix: 5 modules).
_MODULES_TOGETHER = 2


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
) -> tuple[CheckResult, list[Diagnostic]]:
    """Parse and check the book in ``jobs`` processes; also return unreadable-input problems."""
    started = time.perf_counter()
    sizes = {lang: config.document_sizes(lang) for lang in config.languages}
    present = {lang: sorted(found) for lang, found in sizes.items()}
    langs, names, *whole = _scope(config, languages, chapters, present)
    jobs = max(1, jobs or os.cpu_count() or 1)
    size = max(1, -(-len(names) // (jobs * 4)))
    groups = [names[i : i + size] for i in range(0, len(names), size)]
    source = config.source_language
    # a book checked before: the chunks' keys (every file's bytes) here, to know whether all are kept;
    # else (a fresh clone) each worker works out its own, in parallel
    checked = (findings_dir(config) / "chunks").is_dir()
    entries = [_chunk_entry(config, group, langs, present) if checked else None for group in groups]
    # every chunk kept (an unchanged book): read here, no worker processes to start and feed
    renamed = None  # the renames' changes, when the workers worked them out
    if jobs == 1 or len(groups) <= 1 or all(entry is not None and entry.is_file() for entry in entries):
        chunks = [
            _check_in_worker(config, group, langs, present, entry) for group, entry in zip(groups, entries, strict=True)
        ]
        once = functools.cache(functools.partial(load_book, config, [config.source_language], cached=True))
        extra = [found for modules in _modules(config, whole[0]) for found in _library(config, langs, modules, once)]
    else:
        with ProcessPoolExecutor(jobs, mp_context=get_context("fork")) as pool:
            # the heaviest chunks first, so that the last ones to end are small (the cores end together)
            futures = {
                i: pool.submit(_chunk_pickled, config, groups[i], langs, present, entries[i])
                for i in sorted(range(len(groups)), key=lambda i: -_weight(sizes, groups[i], [source, *langs]))
            }
            # the library last, in workers, a few modules each: they then read most of the source's
            # models the chunks kept instead of parsing the source again beside them (a third process
            # on two cores), and the cores end together instead of one checking the whole library alone
            library = [pool.submit(_library, config, langs, modules) for modules in _modules(config, whole[0])]
            chunks = [pickle.loads(futures[i].result()) for i in range(len(groups))]
            # the renames' changes, kept for the merge, worked out in parallel (bookmix: 80 pairs, 1.4 s)
            # on the cores the library leaves free, not after it
            keys = _rename_keys(config, rename_files([f for chunk in chunks for f in chunk.findings]))
            distinct = {key: pair for pair, key in keys.items()}
            work_out = functools.partial(_rename_changes, config, findings_dir(config))
            found = dict(zip(distinct, pool.map(work_out, *zip(*distinct.values(), strict=True)), strict=True))
            renamed = {pair: found[key] for pair, key in keys.items()}  # for the merge: no key to work out again
            extra = [finding for task in library for finding in task.result()]
    extra += added_modules(config, langs)
    memo = findings_dir(config)
    result = _merge(config, langs, len(names), chunks, baseline or {}, started, *whole, True, extra, memo, renamed)
    return result, [d for chunk in chunks for d in chunk.unreadable]
