"""One translated chapter checked against its base and the source (every chapter-local check,
in the order their findings are reported)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from functools import partial
from pathlib import Path

from polybook.book import Book
from polybook.check.bases import Base, base_of, changes_since
from polybook.check.code import check_code, check_coverage
from polybook.check.code_match import match_cells
from polybook.check.current import followed_since
from polybook.check.findings import Finding, Location
from polybook.check.library import saved_drift
from polybook.check.math_numbers import check_math_numbers
from polybook.check.migration import (
    changed_row,
    plan_finding,
)
from polybook.check.number_context import in_context
from polybook.check.plan import DocumentState
from polybook.check.prose import check_sections, check_texttabs, extra_section_lines
from polybook.check.raw_html import check_raw_html
from polybook.check.references import (
    check_references,
    resource_fallbacks,
)
from polybook.check.segments import cell_place, flatten, pair_segments
from polybook.check.staleness import SyncRecord, lock_problem, read_lock
from polybook.check.terms import check_terms
from polybook.check.trust import added_directives
from polybook.config.glossary import Glossary
from polybook.diagnostics import Code, Level
from polybook.dialect import parse_text
from polybook.dialect.marks import MarkKind, as_checked, document_mark, stale_lines
from polybook.dialect.nodes import Document, Heading

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
    notes: bool = True,
) -> list[Finding]:
    """Every chapter-local check of one translated chapter: its consistency with its base (what it
    was made from, :mod:`.bases`), then what the source changed since (``current``: the source's
    document today, None when the source has it no more). Without ``notes``, a document the source
    changed has its migration plan's row alone, not a ``stale.source`` note for each change: the
    text report sums them up in the plan (worked out, they were a tenth of a cold check of a
    translation an edition behind).

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
    placed = partial(cell_place, source=source, translation=translation, match=match, alignment=alignment)
    findings += saved_drift(lang, source, check_code(lang, name, source, translation, match, placed), translation)
    findings += check_coverage(
        lang, name, source, translation, match.common, placed, config.languages[lang].frameworks, match.retabbed
    )
    offered = config.languages[config.source_language].frameworks
    findings += check_texttabs(
        lang, name, alignment, source, translation, match.common, config.localised_links, offered
    )
    findings += check_math_numbers(lang, name, source, translation, src_items, tgt_items, match.common, alignment)
    findings += check_sections(lang, name, alignment, source, translation, match, src_items, tgt_items)
    findings += check_references(
        lang, name, source, translation, alignment.place, config.localised_links, match.common, alignment.at
    )
    if glossary is not None:
        findings += check_terms(lang, name, alignment, translation.path, glossary, source.path)
    findings = _within_extra_sections(findings, extra_section_lines(tgt_items, match), translation.path)
    findings = followed_since(findings, source, current, translation)
    if base.held is not None:  # an older X_origin.md: what the translation has as the edition has it is no drift
        findings = followed_since(findings, source, base.held, translation)
    findings = _headings_of_today(findings, source, current, translation)
    if stale:  # a stale or review block is read as the source's text: what is found at it is said by its mark
        findings = [f for f in findings if id(f) in own or not _at(f, translation.path, stale)]
    findings += check_raw_html(lang, name, source, written)  # what the page shows: the text as written
    findings += resource_fallbacks(config, lang, name, translation)
    findings += added_directives(lang, name, written, source, current, config.library.packages)  # as written
    findings += lock_problem(lang, name, translation, record)
    row = changed_row(name, base, current, translation)
    if notes or row.state is not DocumentState.CHANGED:
        findings += changes_since(lang, name, base, current, translation, match, alignment.place)
    if row.state is not DocumentState.UNCHANGED:
        where = Location(current.path, 1) if current is not None else None
        findings.append(plan_finding(lang, row, Location(translation.path, 1), where))
    return in_context([contradicting(f) for f in findings], source, translation)


#: Codes told as warnings when the translation lacks the source's number, reference or link, and
#: as errors when it writes another in its place: the text then says something the source does not.
_CONTRADICTS = (Code.NUMBERS_MISSING, Code.REF_TARGET, Code.REF_LINK)


def contradicting(finding: Finding) -> Finding:
    """``finding`` as an error when it is one of :data:`_CONTRADICTS` whose translation writes
    something other than the source's (1654 for 1655, :numref:`sec_a` for :numref:`sec_b`, another
    address): CI fails on what is wrong, not on what is only left untranslated."""
    if finding.code in _CONTRADICTS and finding.diff and all(finding.diff[0]) and finding.level is Level.WARNING:
        return replace(finding, level=Level.ERROR)
    return finding


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


def _headings_of_today(
    findings: list[Finding], base: Document, current: Document | None, translation: Document
) -> list[Finding]:
    """``findings`` without "more headings here than the source has" where the translation's
    extra heading carries a label the source has today and its older base has not (zh's
    "Parameterization Cost of Fully-Connected Layers", which its ``_origin.md`` predates): the
    translation follows the source there, and removing it would break today's references."""
    if current is None or current is base:
        return findings
    out = []
    for f in findings:
        if f.code is Code.STRUCTURE_HEADING and f.diff:
            here, there = ([t for t in side.split(" | ") if t] for side in f.diff[0])
            if len(here) > len(there):
                labels = {n.label for n in translation.walk() if isinstance(n, Heading) and n.text in here and n.label}
                if any(label in current.labels and label not in base.labels for label in labels):
                    continue
        out.append(f)
    return out
