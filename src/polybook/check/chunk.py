"""Some chapters of every language checked together (:func:`check_chunk`): what a worker process
returns before the book-wide merge -- findings, suppressions, labels and references, tocs."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path

from polybook.book import Book
from polybook.check.bases import base_of
from polybook.check.chapter import check_chapter, parse_findings
from polybook.check.findings import Finding, Location
from polybook.check.memo import chapter_findings, document_shelf
from polybook.check.migration import (
    new_row,
    plan_finding,
)
from polybook.check.references import (
    resolvable_refs,
)
from polybook.check.staleness import ORIGIN_SUFFIX, origin_file, read_lock
from polybook.check.suppress import Suppression, inline_suppressions
from polybook.check.trust import added_directives
from polybook.config import BookConfig
from polybook.config.glossary import Glossary, GlossaryError, read_glossary
from polybook.database import shelf
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect.nodes import Document, TocBlock
from polybook.files import display_path
from polybook.models import parse_cached
from polybook.toc import toc_blocks


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


def check_chunk(
    book: Book, names: list[str], langs: list[str], store: Path | None = None, notes: bool = True
) -> ChunkResult:
    """``names`` checked in every language of ``langs`` (``store``: the kept parsed documents;
    ``notes``: as :func:`check_chapter` has it)."""
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
                    if not misspelt(name, orphans[lang]):  # else said at the orphan
                        out.findings.append(_untranslated(book.config, lang, name, source))
                    continue
                if target is None:
                    continue
                renamed = misspelt(name, source_names) if source is None else []
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
                        check_chapter, book, lang, name, source, target, locks[lang], store, base, glossaries[lang],
                        notes,
                    ),
                    notes,
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


def misspelt(name: str, names: list[str]) -> list[str]:
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
    close = misspelt(name, source_names)
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
