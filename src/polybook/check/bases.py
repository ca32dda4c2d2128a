"""What each translated document was made from: its base.

A translation answers two questions apart. *Is it faithful to what it translates?* -- checked
against its base, and what CI fails on. *How far behind the source is it?* -- the base against
the source today (:mod:`.staleness`): a migration plan, never an error. The base of a document
is the first of:

1. its sync record (``polybook port``; a ``polybook sync --write`` record only when none of the
   older bases of 2. exists, for sync makes code, math and labels equal and leaves the prose): the
   source as it is when the recorded file is today's, else the source at the recorded commit;
2. of its ``X_origin.md`` (d2lbook translations keep the English they were made from), the
   edition of the source its language follows (conf.py's ``languages.X.base``, one of
   ``editions``, a folder ``polybook import d2lbook --as-base`` fills) and the source today, the
   one the translation's code, formulas and labels match most, in that order when they match as
   much: an ``X_origin.md`` is not always what the translation now translates (d2l-zh synced
   its code with later sources and kept older origin files);
3. none known: the source as it is today.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from polybook.check.code_keys import cell_key, uncommented_key, without_comments
from polybook.check.documents import cells_of
from polybook.check.findings import Finding, Location
from polybook.check.keys import checker_version, file_digest, key_of
from polybook.check.regroup import CellMatch
from polybook.check.segments import by_identity
from polybook.check.staleness import SyncRecord, display_formulas, origin_file, source_at, source_changes
from polybook.config import BookConfig
from polybook.database import Shelf
from polybook.diagnostics import Code
from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.nodes import Document
from polybook.files import file_sha256, kept, read_file, swept
from polybook.models import parse_cached


class BaseKind(StrEnum):
    SYNC = "sync"  # the source at a recorded sync
    ORIGIN = "origin"  # the translation's X_origin.md
    EDITION = "edition"  # a held edition of the source
    SOURCE_MATCHED = "source-matched"  # the source today, which the translation's code matches best
    SOURCE = "source"  # none known: the source today


@dataclass(frozen=True, slots=True)
class Base:
    """A translated document's base; ``document`` is None when it is not at hand (a sync whose
    commit git cannot show, an edition without the document)."""

    kind: BaseKind
    document: Document | None
    label: str  # how messages name it: "v0.17.6", "chapter_x/y_origin.md", "the sync at 1a2b3c4d5e"
    file: Path | None = None  # the file it was read from (origin, edition), for the key of kept findings
    # an X_origin.md's: the document in the edition the language follows, newer than the origin
    # file (d2l-zh took 0.17.6's code and kept older origin files), when the book holds it
    held: Document | None = None

    @property
    def known(self) -> bool:
        return self.kind is not BaseKind.SOURCE

    def since(self) -> str:
        """How a change of the source since the base is said."""
        if self.kind is BaseKind.SYNC:
            return f"since {self.label}"
        if self.kind is BaseKind.ORIGIN:
            return f"since the translation was made from {self.label}"
        return f"since {self.label}, the edition the translation follows"


def base_of(
    config: BookConfig,
    lang: str,
    name: str,
    current: Document | None,
    record: SyncRecord | None,
    store: Path | None = None,
    translation: Document | None = None,
    kept_in: Shelf | None = None,
) -> Base:
    """The base of ``lang``'s document ``chapter`` (``current``: the source's, None when the source
    has no such document; ``translation``: the translation, whose code chooses among the candidates);
    ``store``: kept parsed documents (:mod:`polybook.models`); ``kept_in``: the document's shelf,
    where the choice is kept (else in a file of its own beside ``store``)."""
    settings = config.languages[config.source_language].settings
    shown = current.path if current is not None else str(config.document_path(config.source_language, name))
    # X_origin.md is written in the dialect the translation was (its untagged cells are its default tab's)
    own = config.languages[lang].settings
    source_file = config.document_path(config.source_language, name)
    if record is not None and record.prose:
        return _synced(record, current, source_file, shown, settings)
    candidates: list[Base] = []
    edition = config.languages[lang].base
    held: Document | None = None
    if edition is not None:
        path = config.edition_path(edition, name)
        dialect = config.editions[edition].settings
        held = parse_cached(path, dialect, _shown(path), store) if path.is_file() else None
    origin = origin_file(config.document_path(lang, name))
    if origin.is_file():
        # most of ja's and tr's are the source's file (or the held edition's) byte for byte
        document = _same_as(current, source_file, origin, _same_dialect(own, settings))
        if edition is not None:
            document = document or _same_as(held, path, origin, _same_dialect(own, dialect))
        document = document or parse_cached(origin, own, _shown(origin), store)
        candidates.append(Base(BaseKind.ORIGIN, document, origin.name, origin))
    if edition is not None and (held is not None or not candidates):
        candidates.append(Base(BaseKind.EDITION, held, edition, path))
    if not candidates:
        if record is not None:
            return _synced(record, current, source_file, shown, settings)
        return Base(BaseKind.SOURCE, current, "the source")
    if translation is None or len(candidates) + (current is not None and record is None) == 1:
        return candidates[0]
    scored = candidates
    if current is not None and record is None:  # (synced, the prose still follows one of the older bases)
        scored = [*candidates, Base(BaseKind.SOURCE, current, "the source", source_file)]
    dialects = (own, settings, config.editions[edition].settings if edition is not None else None)
    target_file = config.document_path(lang, name)
    best = scored[_closest(scored, translation, store, target_file, dialects, kept_in)]
    if best.kind is BaseKind.SOURCE and best.document is current:
        # the translation's code is today's source's: translated from it (or synced without a record)
        return Base(BaseKind.SOURCE_MATCHED, current, "the source")
    if best.kind is BaseKind.ORIGIN and held is not None and held is not best.document:
        return replace(best, held=held)
    return best


def _synced(record: SyncRecord, current: Document | None, source_file: Path, shown: str, settings: object) -> Base:
    """The source as the sync record says the translation follows it: today's, when the recorded
    file is today's, else the source at the recorded commit (git)."""
    if current is not None and record.sha256 == file_sha256(source_file):
        return Base(BaseKind.SYNC, current, "the last sync")
    since = f"the sync at {record.commit[:10]}" if record.commit else "the last sync"
    old = source_at(source_file.parent, record.commit, source_file) if record.commit else None
    return Base(BaseKind.SYNC, parse_text(old, shown, settings) if old is not None else None, since)  # type: ignore[arg-type]


def _closest(
    scored: list[Base],
    translation: Document,
    store: Path | None,
    target_file: Path,
    dialects: tuple[object, ...],
    kept_in: Shelf | None = None,
) -> int:
    """The index of the candidate whose code, formulas and labels ``translation`` shares most (the
    first when they tie); kept in ``kept_in`` (the document's shelf), else beside the findings
    when ``store`` is given, keyed by the files."""

    def compute() -> int:
        mine = _marks(translation)
        last = scored[-1].document
        if last is not None and scored[-1].kind is BaseKind.SOURCE and all(b.document is not last for b in scored[:-1]):
            # the source today comes last: when even its most it could share is not more than
            # what an earlier candidate shares, that one wins, and the source's code is not normalised
            earlier = [len(mine & _marks(b.document)) if b.document is not None else -1 for b in scored[:-1]]
            if max(earlier) >= _most_shared(translation, mine, last):
                return earlier.index(max(earlier))
        shared = {id(b.document): len(mine & _marks(b.document)) for b in scored if b.document is not None}
        counts = [shared[id(b.document)] if b.document is not None else -1 for b in scored]
        best = counts.index(max(counts))
        if best == len(scored) - 1 and last is not None and scored[-1].kind is BaseKind.SOURCE and best:
            # the source today is chosen for "the translation's code is today's": not when its
            # code is no more today's than an earlier candidate's (zh's why-conv has no code and
            # took one formula from the newer source; its text follows its edition)
            earlier = counts[:-1].index(max(counts[:-1]))
            code = frozenset(m for m in mine if m[0].startswith("code:"))
            earlier_document = scored[earlier].document
            if earlier_document is not None and len(code & _marks(last)) <= len(code & _marks(earlier_document)):
                return earlier
        return best

    documents = list({id(b.document): b.document for b in scored if b.document is not None}.values())
    first = next((k for k, b in enumerate(scored) if b.document is not None), 0)
    if len(documents) <= 1 or len({_uncommented_marks(document) for document in documents}) == 1:
        # one document read for every candidate (an X_origin.md that is the source's file byte for
        # byte), or documents whose marks are alike before their code is normalised (their marks
        # are then alike too): they all share as much, and the first one at hand wins uncounted
        return first
    if _uncommented_marks(translation) <= _uncommented_marks(scored[first].document):
        # the translation's marks before normalising are all the first candidate's, so all its
        # marks are (a cell's key is a function of its code without comments): the first shares
        # every one of them, as much as any candidate can, and wins the tie -- nothing normalised
        return first
    if store is None and kept_in is None:
        return compute()
    parts: list[str | bytes] = [checker_version(), repr(dialects), file_digest(target_file)]
    for base in scored:
        held = file_digest(base.file) if base.file is not None else b""
        parts += [base.kind, str(base.file or ""), held, str(base.document is None)]
    key = key_of(parts)
    if kept_in is not None:
        return kept_in.get(("base", str(target_file)), key, int, compute)
    assert store is not None
    return kept(swept(store.parent / "bases") / key[:2] / f"{key}.pickle", int, compute)


def _same_dialect(a: DialectSettings, b: DialectSettings) -> bool:
    """Whether two languages' files read alike (the language itself is only a name on the document)."""
    return a == replace(b, language=a.language)


def _same_as(document: Document | None, file: Path, origin: Path, same_dialect: bool) -> Document | None:
    """``document``, read from ``file``, for an ``X_origin.md`` that is ``file`` byte for byte and
    reads in the same dialect: one parse less; its places name ``file``."""
    if document is None or not same_dialect:
        return None
    try:
        return document if read_file(origin) == read_file(file) else None
    except OSError:
        return None


@by_identity
def _marks(doc: Document) -> frozenset[tuple[str, str]]:
    """What a translation keeps of the text it translates, for telling which text that is: every
    code cell (per framework, normalised), display formula and label. Memoised for the last
    documents: the source's serves every language."""
    marks = {("code:" + fw, cell_key(cell.code_for(fw))) for cell in cells_of(doc) for fw in cell.frameworks}
    marks |= {("math", tex) for tex in display_formulas(doc)}
    return frozenset(marks | {("label", name) for name in doc.labels})


def _most_shared(translation: Document, mine: frozenset[tuple[str, str]], doc: Document) -> int:
    """At least ``len(mine & _marks(doc))`` -- ``mine``: the translation's :func:`_marks` -- with
    none of ``doc``'s code normalised but what the translation has too. A mark of ``doc`` whose code
    without comments the translation has is the translation's mark (its key is a function of that
    code); any other can only be one of ``mine`` whose every piece is in its code, for a key is
    the code's tokens, each as written, between spaces and newlines (formulas and labels are
    compared as they are, so only those the translation has count)."""
    theirs, ours = _uncommented_marks(doc), _uncommented_marks(translation)
    known = {_keyed(mark) for mark in theirs & ours}
    left: dict[str, list[str]] = {}  # the code of doc's cells the translation lacks, per framework
    for kind, code in theirs - ours:
        if kind.startswith("code:"):
            left.setdefault(kind, []).append(code)
    more = 0
    for kind, key in mine - known:
        if kind in left:
            pieces = key.split()
            more += any(all(piece in code for piece in pieces) for code in left[kind])
    return len(known) + more


def _keyed(mark: tuple[str, str]) -> tuple[str, str]:
    """The :func:`_marks` mark of an :func:`_uncommented_marks` mark."""
    kind, text = mark
    return (kind, uncommented_key(text)) if kind.startswith("code:") else mark


@by_identity
def _uncommented_marks(doc: Document) -> frozenset[tuple[str, str]]:
    """:func:`_marks` with each cell's code only :func:`without_comments` (its key is a function
    of that): equal for two documents, their marks are equal, at a fraction of the cost."""
    marks = {("code:" + fw, without_comments(cell.code_for(fw))) for cell in cells_of(doc) for fw in cell.frameworks}
    marks |= {("math", tex) for tex in display_formulas(doc)}
    return frozenset(marks | {("label", name) for name in doc.labels})


def _shown(path: Path) -> str:
    from polybook.files import display_path

    return display_path(path)


def changes_since(
    lang: str,
    name: str,
    base: Base,
    current: Document | None,
    translation: Document,
    match: CellMatch,
    place: Callable[[int], int],
) -> list[Finding]:
    """How far behind the source the translation is: what changed from its base
    (:mod:`.bases`) to the source today, each at the translation's matching place. ``match`` and
    ``place`` pair the base with the translation (its consistency check's)."""
    top = Location(translation.path, 1)
    if base.kind is BaseKind.SOURCE:
        return [
            Finding.make(
                Code.STALE_UNKNOWN,
                "no record of the source commit this translation was synced with; `polybook sync --write` records it",
                lang, name, top, source=Location(current.path if current else translation.path, 1),
            )
        ]  # fmt: skip
    if current is None:
        return []  # the migration plan's row says it (gone, or renamed)
    if base.document is None:
        if base.kind is BaseKind.EDITION:
            message = f"{base.label} has no {name}: the translation is checked against the source as it is"
            return [Finding.make(Code.STALE_UNKNOWN, message, lang, name, top, source=Location(current.path, 1))]
        return [
            Finding.make(
                Code.STALE_SOURCE, f"the source changed {base.since()}; no git history at hand to say where",
                lang, name, top, source=Location(current.path, 1), subject=(base.label, ""),
            )
        ]  # fmt: skip
    if base.document is current:
        return []
    return source_changes(lang, name, base.document, current, translation, base.since(), base.label, match, place)
