"""The chunks' results merged into the book's: references resolved over every label, tocs, renames
in the migration plan, suppressions applied, what is said once per language."""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from polybook.check.chunk import ChunkResult
from polybook.check.findings import CheckResult, Finding, Location
from polybook.check.keys import checker_version, file_digest, key_of
from polybook.check.labels import LABELS_NOTHING
from polybook.check.migration import (
    document_changes,
    missing_bases,
    resolve_renames,
)
from polybook.check.plan import Changes
from polybook.check.references import (
    not_yet_here,
    unresolved_ref,
)
from polybook.check.staleness import ORIGIN_SUFFIX
from polybook.check.suppress import Suppression, apply, unused
from polybook.check.terms import terms_once
from polybook.config import BookConfig
from polybook.diagnostics import Code
from polybook.dialect import DialectSettings
from polybook.dialect.nodes import Document
from polybook.files import display_path, kept, resolved
from polybook.models import MODELS_DIR, parse_cached
from polybook.toc import build_toc, unreached

Baseline = dict[tuple[str, str, str, str], str]


def merge(
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
    notes: bool = True,
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
    renames worked out already, by their two files; the others are worked out here). Without
    ``notes`` (the chunks did not work out the ``stale.source`` notes of the documents the source
    changed), a suppression of those notes is not told as matching nothing.
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
    worked_out = functools.cache(functools.partial(rename_changes, config, kept_in))
    findings = resolve_renames(findings, lambda base, source: _known(renamed, base, source, worked_out))
    documents: Counter[str] = Counter()
    for chunk in chunks:
        documents.update({lang: len(names) for lang, names in chunk.paths.items()})
    findings = missing_bases(findings, documents, source_lang)
    findings = terms_once(_said_once(findings))
    findings = apply(findings, suppressions, baseline)
    told = [s for s in suppressions if (every_language or s.lang != source_lang) and (notes or not s.covers_notes)]
    findings += unused(findings, told)
    findings.sort(key=lambda f: f.order)
    bases = sum((chunk.bases for chunk in chunks), Counter())
    follows = {
        lang: _follows(config, lang, {kind: n for (code, kind), n in bases.items() if code == lang}) for lang in langs
    }
    return CheckResult(source_lang, langs, n_names, findings, time.perf_counter() - started, follows, notes)


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


def rename_changes(config: BookConfig, store: Path | None, base_file: Path, source_file: Path) -> Changes | None:
    """What changed from a renamed document's base to its source under the new name, kept in
    ``store`` (the folder of kept findings) by both files' bytes: the merge runs every time."""
    if not (base_file.is_file() and source_file.is_file()):
        return None

    def compute() -> Changes:
        old, now = _read(config, base_file), _read(config, source_file)
        return document_changes(old, now) if old is not None and now is not None else Changes()

    if store is None:
        return compute()
    key = rename_key(config, base_file, source_file)
    return kept(store / "renames" / key[:2] / f"{key}.pickle", Changes, compute)


def rename_key(config: BookConfig, base_file: Path, source_file: Path) -> str:
    """The key of a rename's changes: both files' bytes and how they read, not where they are nor
    which language reads them -- the language is only a name on the document, which the changes
    never read -- (languages renaming a document from one base text share it: bookmix, 80 renames, 38 texts)."""
    parts = [checker_version(), file_digest(config.path)]
    for path in (base_file, source_file):
        parts.append(repr(replace(_settings_of(config, path), language=None)))
    return key_of([*parts, file_digest(base_file), file_digest(source_file)])


def rename_keys(config: BookConfig, pairs: list[tuple[Path, Path]]) -> dict[tuple[Path, Path], str]:
    """The :func:`rename_key` of each of ``pairs`` of files that both exist (those that share one
    are worked out once)."""
    found = [(base, source) for base, source in pairs if base.is_file() and source.is_file()]
    return {(base, source): rename_key(config, base, source) for base, source in found}


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
