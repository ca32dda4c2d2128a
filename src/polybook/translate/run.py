"""``polybook translate LANG``: drafts of the blocks a port left untranslated (and stale ones),
document by document, in steps:

1. :func:`plan_language` -- each document's blocks to draft, each resolved from the book's own
   translations (the memory), else from the answers kept in ``build/`` (the cache), else to send;
2. :func:`draft_document` -- what is left sent in batches (retried with back-off on a rate
   limit or a server's error, each batch's answers kept at once), the protected pieces put back,
   the document checked with the drafts in place, and every draft that lost a token or that the
   checker finds at odds with its source refused; the document then written whole, atomically.

An interrupted run keeps every document written and every answer kept: the next run continues.
"""

from __future__ import annotations

import functools
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from polybook.book import Book
from polybook.check import check_chapter
from polybook.check.align import token_ratio
from polybook.check.bases import Base, BaseKind
from polybook.check.findings import Finding
from polybook.check.staleness import word_diff
from polybook.config.glossary import Glossary
from polybook.diagnostics import Level
from polybook.dialect import parse_text
from polybook.dialect.marks import draft
from polybook.dialect.nodes import Document
from polybook.dialect.protect import Masked, TokensLost, mask, restore
from polybook.files import atomic_write, display_path
from polybook.translate.blocks import Todo, neighbours, todos, with_drafts
from polybook.translate.engines import Batch, Engine, EngineError, Segment, with_retries
from polybook.translate.memory import AnswerCache, cache_key, document_memory

#: The checker's finding families a draft may not add at its lines (a formula, number,
#: reference or link lost or changed), besides any error.
_GUARDED = ("code.", "math.", "numbers.", "ref.")
_LINE = re.compile(r"\bline \d+|:\d+\b")


@dataclass(frozen=True, slots=True)
class Refusal:
    """A draft not written, where and why (the block stays as it was)."""

    path: str
    line: int
    reason: str

    def format(self) -> str:
        return f"{self.path}:{self.line}: refused: {self.reason}"


@dataclass(slots=True)
class Planned:
    """One block of a document to draft, and where its draft comes from."""

    todo: Todo
    masked: Masked
    key: str  # the cache's
    found: str | None = None  # the draft (memory) or the masked answer (cache), when known already
    origin: str = "send"  # memory, cache or send
    context: str = ""  # a stale block's old translation and what the source changed since

    @property
    def words(self) -> int:
        return len(self.masked.prose.split())


@dataclass(slots=True)
class DocumentPlan:
    name: str
    path: Path
    text: str
    doc: Document
    blocks: list[Planned]

    def to_send(self) -> list[Planned]:
        return [block for block in self.blocks if block.origin == "send"]


@dataclass(slots=True)
class DocumentResult:
    name: str
    path: str
    drafted: int = 0
    words: int = 0
    from_memory: int = 0
    from_cache: int = 0
    sent: int = 0
    refused: list[Refusal] = field(default_factory=list)
    waited: float = 0.0  # seconds spent waiting for the engine's answers


@dataclass(slots=True)
class Options:
    stale: bool = False
    names: set[str] | None = None  # only these documents
    batch: int = 20
    retry_delay: float = 1.0
    date: str = field(default_factory=lambda: datetime.now(UTC).date().isoformat())


def plan_language(
    book: Book, lang: str, glossary: Glossary, cache: AnswerCache, engine: str, model: str, options: Options
) -> list[DocumentPlan]:
    """Every document of ``lang`` with blocks to draft, each block resolved as far as the
    memory and the cache go."""
    config = book.config
    source_lang = config.source_language
    sources, docs = book.chapters.get(source_lang, {}), book.chapters.get(lang, {})
    memory: dict[str, str] = {}
    texts: dict[str, str] = {}
    for name, doc in docs.items():
        texts[name] = config.document_path(lang, name).read_text(encoding="utf-8")
        if name in sources:
            source_text = config.document_path(source_lang, name).read_text(encoding="utf-8")
            for key, value in document_memory(sources[name], source_text, doc, texts[name]).items():
                memory.setdefault(key, value)
    out = []
    for name, doc in docs.items():
        if options.names is not None and name not in options.names:
            continue
        blocks = []
        older = _edition_paragraphs(book, name) if options.stale else []
        for item in todos(doc, texts[name], options.stale):
            masked = mask(item.text)
            context = _context(item, older)
            key = cache_key(engine, model, source_lang, lang, glossary.digest(), masked.text, context)
            planned = Planned(item, masked, key, context=context)
            if item.text.strip() in memory:
                planned.found, planned.origin = memory[item.text.strip()], "memory"
            elif (answer := cache.get(key)) is not None:
                planned.found, planned.origin = answer, "cache"
            blocks.append(planned)
        if blocks:
            out.append(DocumentPlan(name, config.document_path(lang, name), texts[name], doc, blocks))
    return out


def draft_document(
    book: Book,
    lang: str,
    plan: DocumentPlan,
    engine: Callable[[], Engine],
    who: tuple[str, str],
    glossary: Glossary,
    cache: AnswerCache,
    options: Options,
    sent: Callable[[int], None] = lambda n: None,
    said: Callable[[str], None] | None = None,
) -> DocumentResult:
    """The document's drafts: asked for, checked, written (atomically) -- or refused. ``engine``
    makes the engine when there is something to send; ``who`` is its name and model, for the marks."""
    shown = display_path(plan.path)
    result = DocumentResult(plan.name, shown)
    answers, result.sent, result.waited = _ask(book, lang, plan, engine, glossary, cache, options, sent, said)
    drafts: dict[str, tuple[str, str]] = {}
    for block in plan.blocks:
        text = answers.get(block.todo.id, block.found)
        if text is None:
            continue
        if block.origin != "memory":
            try:
                text = restore(text, block.masked)
            except TokensLost as exc:
                result.refused.append(Refusal(shown, block.todo.line, str(exc)))
                continue
        engine_name, model = ("memory", "-") if block.origin == "memory" else who
        drafts[block.todo.id] = (draft(engine=engine_name, model=model or "-", date=options.date), text)
    drafts, refused = _checked(book, lang, plan, drafts)
    result.refused += [Refusal(shown, line, reason) for line, reason in refused]
    if drafts:
        new_text, _ = with_drafts(plan.doc, plan.text, [b.todo for b in plan.blocks], drafts)
        atomic_write(plan.path, new_text)
    by_id = {block.todo.id: block for block in plan.blocks}
    for key in drafts:
        block = by_id[key]
        result.drafted += 1
        result.words += block.words
        result.from_memory += block.origin == "memory"
        result.from_cache += block.origin == "cache"
    result.refused.sort(key=lambda r: r.line)
    return result


def _ask(
    book: Book,
    lang: str,
    plan: DocumentPlan,
    engine: Callable[[], Engine],
    glossary: Glossary,
    cache: AnswerCache,
    options: Options,
    sent: Callable[[int], None],
    said: Callable[[str], None] | None,
) -> tuple[dict[str, str], int, float]:
    """The engine's answers (protected text) for the blocks to send, batch by batch, each
    batch's kept in the cache as soon as it comes; how many blocks were sent, and the seconds
    the engine took to answer (retries and their waits included)."""
    out: dict[str, str] = {}
    to_send = []
    for block in plan.to_send():  # an answer an earlier document of this run paid for already
        answer = cache.get(block.key)
        if answer is None:
            to_send.append(block)
        else:
            out[block.todo.id] = answer
    terms = glossary.mapping()
    waited = 0.0
    for start in range(0, len(to_send), options.batch):
        chunk = to_send[start : start + options.batch]
        segments = tuple(Segment(b.todo.id, b.masked.text, b.context) for b in chunk)
        context = tuple(neighbours(plan.doc, plan.text, chunk[0].todo.line))
        batch = Batch(book.config.source_language, lang, terms, segments, context)
        made = engine()
        started = time.perf_counter()
        try:
            texts = with_retries(functools.partial(made.translate, batch), delay=options.retry_delay, said=said)
        except EngineError as exc:
            raise EngineError(f"{display_path(plan.path)}:{chunk[0].todo.line}: {exc}") from None
        waited += time.perf_counter() - started
        cache.add({b.key: text for b, text in zip(chunk, texts, strict=True)})
        out.update({b.todo.id: text for b, text in zip(chunk, texts, strict=True)})
        sent(len(chunk))
    return out, len(to_send), waited


def _context(todo: Todo, older: list[str]) -> str:
    """A stale block's old translation, for the engine to keep what still holds, and the words
    the source changed since (against the most alike paragraph of the edition the book holds)."""
    if not todo.old:
        return ""
    out = f"earlier translation (of an older source text): {todo.old}"
    ratios = [(token_ratio(paragraph, todo.text), paragraph) for paragraph in older]
    ratio, then = max(ratios, default=(0.0, ""))
    if ratio >= _ALIKE and then != todo.text:
        pairs = word_diff(then, todo.text)
        changes = "; ".join(f"{old or '(nothing)'!r} -> {new or '(nothing)'!r}" for old, new in pairs)
        out += f"\nthe source changed since: {changes}"
    return out


_ALIKE = 0.5  # an edition's paragraph this alike to a stale block's new text is its older version


def _edition_paragraphs(book: Book, name: str) -> list[str]:
    """The paragraphs of document ``name`` in the editions of the source the book holds."""
    out: list[str] = []
    for edition in book.config.editions:
        path = book.config.edition_path(edition, name)
        if path.is_file():
            out += [part.strip() for part in path.read_text(encoding="utf-8").split("\n\n") if part.strip()]
    return out


def _checked(
    book: Book, lang: str, plan: DocumentPlan, drafts: dict[str, tuple[str, str]]
) -> tuple[dict[str, tuple[str, str]], list[tuple[int, str]]]:
    """The drafts the checker finds nothing new at -- with the document as it was, and those
    refused, by their block's line and the finding that refuses them. A second look after the
    refusals (a draft refused can move how the checker pairs the blocks after it)."""
    if not drafts:
        return drafts, []
    todo = [b.todo for b in plan.blocks]
    before = _said(_findings(book, lang, plan.name, plan.doc))
    refused: list[tuple[int, str]] = []
    for _ in range(2):
        text, spans = with_drafts(plan.doc, plan.text, todo, drafts)
        doc = parse_text(text, plan.doc.path, book.config.languages[lang].settings)
        unsaid = before.copy()
        new = [f for f in _findings(book, lang, plan.name, doc) if _is_new(f, unsaid)]
        wrong: dict[str, str] = {}
        for key, (first, last) in spans.items():
            at = [f for f in new if f.location is not None and first <= f.location.line <= last]
            at += [Finding.make(d.code, d.message, lang, plan.name, None) for d in doc.diagnostics
                   if first <= d.line <= last and d.level is Level.ERROR]  # fmt: skip
            if at:
                wrong[key] = at[0].message
        if not wrong:
            break
        refused += [(int(key), f"the check finds: {message}") for key, message in wrong.items()]
        drafts = {key: value for key, value in drafts.items() if key not in wrong}
    return drafts, refused


def _findings(book: Book, lang: str, name: str, doc: Document) -> list[Finding]:
    source = book.chapters[book.config.source_language].get(name)
    if source is None:
        return []
    base = Base(BaseKind.SYNC, source, "the source")
    found = check_chapter(book, lang, name, source, doc, {}, None, base)
    return [f for f in found if f.level is Level.ERROR or str(f.code).startswith(_GUARDED)]


def _said(findings: list[Finding]) -> Counter[tuple[str, str]]:
    return Counter((str(f.code), _LINE.sub("", f.message)) for f in findings)


def _is_new(finding: Finding, before: Counter[tuple[str, str]]) -> bool:
    said = (str(finding.code), _LINE.sub("", finding.message))
    if before[said] > 0:
        before[said] -= 1
        return False
    return True
