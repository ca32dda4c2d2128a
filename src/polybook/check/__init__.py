"""``polybook check``: every translation compared with the source, statically.

Nothing here imports or runs book code: chapters are parsed, cells are tokenised.
"""

from __future__ import annotations

import time
from pathlib import Path

from polybook.book import Book
from polybook.check.code import check_code
from polybook.check.findings import CheckResult, Finding, Location
from polybook.check.prose import check_sections, check_segment
from polybook.check.references import check_references
from polybook.check.segments import flatten, pair_segments
from polybook.check.staleness import check_staleness, read_lock
from polybook.check.suppress import Suppression, apply, inline_suppressions
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect.nodes import Document

__all__ = ["CheckResult", "Finding", "check_book", "check_chapter"]


def parse_findings(lang: str, chapter: str, doc: Document) -> list[Finding]:
    """The parser's diagnostics of a chapter, as findings (damaged directives, tabs...)."""
    return [_from_diagnostic(lang, chapter, d) for d in doc.diagnostics]


def _from_diagnostic(lang: str, chapter: str, d: Diagnostic) -> Finding:
    return Finding(d.code, d.message, lang, chapter, Location(d.path, d.line), level=d.level, subject=(d.message, ""))


def check_chapter(
    book: Book, lang: str, chapter: str, source: Document, target: Document, labels: dict[str, set[str]]
) -> list[Finding]:
    config = book.config
    findings = parse_findings(lang, chapter, target)
    code_findings, match = check_code(lang, chapter, source, target)
    findings += code_findings
    pairs = pair_segments(source, target, match)
    for src, tgt in pairs:
        findings += check_segment(lang, chapter, src, tgt, source, target)
    findings += check_sections(lang, chapter, pairs, source, target, match, flatten(source), flatten(target))
    findings += check_references(lang, chapter, source, target, labels[lang], labels[config.source_language])
    record = read_lock(config.chapters_dir / lang).get(chapter)
    source_file = config.chapters_dir / config.source_language / f"{chapter}.md"
    settings = config.languages[config.source_language].settings
    findings += check_staleness(lang, chapter, source, target, record, source_file, settings, match)
    return findings


def check_book(
    book: Book,
    languages: list[str] | None = None,
    chapters: list[str] | None = None,
    baseline: dict[tuple[str, str, str, str], str] | None = None,
) -> CheckResult:
    started = time.perf_counter()
    config = book.config
    source_lang = config.source_language
    langs = [lang for lang in config.translations if not languages or lang in languages]
    sources = book.chapters[source_lang]
    labels = {lang: {name for doc in docs.values() for name in doc.labels} for lang, docs in book.chapters.items()}
    findings: list[Finding] = []
    suppressions: list[Suppression] = []
    names = sorted(set(sources) | {c for lang in langs for c in book.chapters[lang]})
    names = [n for n in names if not chapters or n in chapters]
    for name in names:
        if name in sources:
            findings += parse_findings(source_lang, name, sources[name])
            found, problems = inline_suppressions(sources[name], source_lang, name)
            suppressions += found
            findings += problems
    for lang in langs:
        docs = book.chapters[lang]
        for name in names:
            source, target = sources.get(name), docs.get(name)
            if target is None and source is not None:
                findings.append(Finding.make(
                    Code.STRUCTURE_CHAPTER, f"chapter {name!r} is not translated into {lang} yet", lang, name,
                    None, source=Location(source.path, 1), level=Level.WARNING,
                ))  # fmt: skip
            elif source is None and target is not None:
                findings.append(Finding.make(
                    Code.STRUCTURE_CHAPTER, f"chapter {name!r} has no source chapter", lang, name,
                    Location(target.path, 1),
                ))  # fmt: skip
            elif source is not None and target is not None:
                found, problems = inline_suppressions(target, lang, name)
                suppressions += found
                findings += problems
                findings += check_chapter(book, lang, name, source, target, labels)
    findings = apply(findings, suppressions, baseline or {})
    findings.sort(key=lambda f: (f.primary.path, f.primary.line, f.code))
    return CheckResult(source_lang, langs, len(names), findings, time.perf_counter() - started)


def _missing_chapter_level():
    from polybook.diagnostics import Level

    return Level.WARNING


def unreadable(book: Book) -> list[Diagnostic]:
    """Problems that make the input unreadable (exit 2): unreadable files, bad encoding."""
    return [d for doc in book.documents() for d in doc.diagnostics if d.code in (Code.READ, Code.ENCODING)]


def chapter_path(book: Book, lang: str, chapter: str) -> Path:
    return book.config.chapters_dir / lang / f"{chapter}.md"
