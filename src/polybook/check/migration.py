"""The migration plan's rows (:mod:`.plan`): what the source changed since each translated
document's base, found while the document is checked, and the renames the book-wide merge finds.

A document the translation has and the source has no more, and one the source has and the
translation lacks, are one document renamed when they share ``:label:``s (labels survive a
move: d2l 1.0 moved ``chapter_deep-learning-computation/parameters`` to
``chapter_builders-guide/init-param`` and kept its labels); the most shared labels win, each
document taken once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from polybook.check.align import Pair, align, char_ratio, one_to_one
from polybook.check.bases import Base
from polybook.check.code_match import align_code
from polybook.check.documents import cells_of
from polybook.check.findings import Finding, Location
from polybook.check.plan import Changes, Counts, DocumentPlan, DocumentState
from polybook.check.staleness import by_documents, display_formulas, prose_blocks, prose_pairs, prose_texts
from polybook.check.word_diff import changed_words
from polybook.diagnostics import Code, Level
from polybook.dialect.nodes import Document


def _counts(pairs: list[Pair]) -> Counts:
    kinds = [pair.kind for pair in pairs]
    return Counts(kinds.count("equal"), kinds.count("similar"), kinds.count("extra"), kinds.count("missing"))


def _prose_changes(old: Document, new: Document) -> tuple[Counts, int]:
    """The prose blocks kept, changed, added and removed, and the words to translate: all of an
    added block, those of a changed one's word diff (:func:`changed_words`). A block whose words
    stayed -- white space, typography or markup changed -- is kept: its translation still holds."""
    then, now = prose_texts(old), prose_texts(new)
    pairs, words = [], 0
    for pair in prose_pairs(old, new):
        if pair.kind == "similar" and pair.source is not None and pair.target is not None:
            changed = changed_words(then[pair.source], now[pair.target])
            pair = pair if changed else Pair(pair.source, pair.target, "equal")
            words += changed
        elif pair.kind == "extra" and pair.target is not None:
            words += len(now[pair.target].split())
        pairs.append(pair)
    return _counts(pairs), words


@by_documents
def document_changes(old: Document, new: Document) -> Changes:
    """What changed from ``old`` (a base) to ``new`` (the source today). Memoised on both
    documents: the languages that share a base ask for the same."""
    paragraphs, words = _prose_changes(old, new)
    cells = align_code([c.code for c in cells_of(old)], [c.code for c in cells_of(new)])
    formulas = align(display_formulas(old), display_formulas(new), char_ratio, 0.6)
    return Changes(paragraphs, _counts(cells), _counts(formulas), words)


def document_words(doc: Document) -> int:
    """The words of a document's prose: all left to translate in a document new to a language."""
    return sum(len(text.split()) for text in prose_texts(doc))


def changed_row(name: str, base: Base, current: Document | None, translation: Document) -> DocumentPlan:
    """The row of a translated document: GONE when the source has it no more, else CHANGED or
    UNCHANGED since its base (UNCHANGED too when the base is the source itself or is not at hand:
    the check's ``stale.unknown`` note says so)."""
    base_file = base.file.as_posix() if base.file is not None else None
    common = {"base": base.label, "base_kind": str(base.kind), "base_file": base_file}
    if current is None:
        return DocumentPlan(DocumentState.GONE, name, None, labels=frozenset(translation.labels), **common)
    if base.document is None or base.document is current:
        return DocumentPlan(DocumentState.UNCHANGED, name, name, **common)
    changes = document_changes(base.document, current)
    state = DocumentState.CHANGED if changes.any else DocumentState.UNCHANGED
    return DocumentPlan(state, name, name, changes=changes, **common)


def new_row(name: str, source: Document, follows: str) -> DocumentPlan:
    words = document_words(source)
    blocks = len(prose_blocks(source))
    cells, formulas = len(cells_of(source)), len(display_formulas(source))
    changes = Changes(Counts(added=blocks), Counts(added=cells), Counts(added=formulas), words)
    return DocumentPlan(DocumentState.NEW, name, name, follows, changes=changes, labels=frozenset(source.labels))


def plan_finding(lang: str, row: DocumentPlan, where: Location | None, source: Location | None) -> Finding:
    """The row as a ``stale.plan`` note: where the translator starts and what awaits there."""
    return Finding.make(
        Code.STALE_PLAN, _message(lang, row), lang, row.name, where, source=source,
        subject=(str(row.state), row.source_name or ""), plan=row,
    )  # fmt: skip


def _since(row: DocumentPlan) -> str:
    """Since when, as :meth:`Base.since` says it."""
    if row.base_kind == "origin":
        return f"since the translation was made from {row.base}"
    return f"since {row.base}"


def _message(lang: str, row: DocumentPlan) -> str:
    since = _since(row)
    words = f"{row.changes.words:,} words to translate"
    port = f"`polybook port {lang}` carries it forward"
    changed = row.changes.said()
    if row.state is DocumentState.GONE:
        return f"the source dropped this document {since}; {port} (the translation is kept aside, not lost)"
    if row.state is DocumentState.NEW:
        return f"new in the source {since}, not in {lang}: {words}; {port} (as source text, untranslated)"
    if row.state is DocumentState.RENAMED:
        shared = ", ".join(row.shared[:3]) + (" ..." if len(row.shared) > 3 else "")
        why = f"both have {shared}" if shared else "the same file name"
        what = f"; {changed}" if changed else ""
        return f"the source moved this document to {row.source_name} {since} ({why}){what}; {words}; {port}"
    return f"the source changed {since}: {changed}; {words}; {port}"


#: ``changes(base file, source file)``: what changed between two files (None: one is missing).
ChangesOf = Callable[[Path, Path], Changes | None]


def resolve_renames(findings: list[Finding], changes: ChangesOf) -> list[Finding]:
    """Pair each language's GONE and NEW rows that share labels into one RENAMED row (its changes:
    the GONE document's base against the NEW one's source)."""
    out = [f for f in findings if f.plan is None or f.plan.state not in (DocumentState.GONE, DocumentState.NEW)]
    for lang, gone, new, renames in _renames(findings):
        out += [_renamed(lang, gone[old], new[moved], changes) for old, moved in renames.items()]
        out += [f for name, f in gone.items() if name not in renames]
        out += [f for name, f in new.items() if name not in set(renames.values())]
    return out


def rename_files(findings: list[Finding]) -> list[tuple[Path, Path]]:
    """``(base file, source file)`` of every rename :func:`resolve_renames` will find: what its
    ``changes`` will be asked for (so that a caller can work them out beforehand, in parallel)."""
    out = []
    for _, gone, new, renames in _renames(findings):
        for old, moved in renames.items():
            plan, source = gone[old].plan, new[moved].source
            if plan is not None and plan.base_file and source is not None:
                out.append((Path(plan.base_file), Path(source.path)))
    return out


def _renames(findings: list[Finding]) -> Iterator[tuple[str, dict[str, Finding], dict[str, Finding], dict[str, str]]]:
    """Per language: its GONE rows, its NEW rows (by document name) and the renames they pair into."""
    rows = [f for f in findings if f.plan is not None and f.plan.state in (DocumentState.GONE, DocumentState.NEW)]
    for lang in dict.fromkeys(f.lang for f in rows):
        gone = {f.name: f for f in rows if f.lang == lang and f.plan.state is DocumentState.GONE}
        new = {f.name: f for f in rows if f.lang == lang and f.plan.state is DocumentState.NEW}
        labels = {k: f.plan.labels for k, f in gone.items()}, {k: f.plan.labels for k, f in new.items()}
        yield lang, gone, new, pair_renames(*labels)


def pair_renames(gone: dict[str, frozenset[str]], new: dict[str, frozenset[str]]) -> dict[str, str]:
    """``old name -> new name``: documents gone from the source paired with documents new in it
    by the labels they share, the most shared first, each document taken once; then those left by
    their file name when one document of each has it (d2l 0.17's unlabelled
    ``chapter_deep-learning-computation/parameters`` is 1.0's ``chapter_builders-guide/parameters``)."""
    candidates = sorted(
        ((len(g & n), old, moved) for old, g in gone.items() for moved, n in new.items() if g & n),
        key=lambda c: (-c[0], c[1], c[2]),
    )
    out = one_to_one(candidates)
    taken = set(out.values())
    stems: dict[str, list[str]] = {}
    for moved in new:
        if moved not in taken:
            stems.setdefault(moved.rsplit("/", 1)[-1], []).append(moved)
    left = [old for old in gone if old not in out]
    for old in left:
        stem = old.rsplit("/", 1)[-1]
        if len(stems.get(stem, [])) == 1 and sum(o.rsplit("/", 1)[-1] == stem for o in left) == 1:
            out[old] = stems[stem][0]
    return out


def _renamed(lang: str, gone: Finding, new: Finding, changes_of: ChangesOf) -> Finding:
    assert gone.plan is not None and new.plan is not None
    shared = tuple(sorted(gone.plan.labels & new.plan.labels))
    found = None
    if gone.plan.base_file and new.source is not None:
        found = changes_of(Path(gone.plan.base_file), Path(new.source.path))
    changes = found or new.plan.changes
    moved = new.plan.name
    row = replace(gone.plan, state=DocumentState.RENAMED, source_name=moved, changes=changes, shared=shared)
    return plan_finding(lang, row, gone.location, new.source)


#: Findings that compare a translation with the source (not its own damage: parse, library...).
_COMPARED = ("code.", "math.", "numbers.", "ref.", "structure.", "label.kind")


def missing_bases(findings: list[Finding], documents: dict[str, int], source_lang: str) -> list[Finding]:
    """A language with documents the source does not have and no base to check them against
    (no edition, origin file or sync record) was made from an edition the book does not hold:
    one warning that says how to give it, and its comparisons with today's source -- every
    difference between two editions -- become notes, not thousands of errors."""
    gone: dict[str, list[Finding]] = {}
    for f in findings:
        if f.code is Code.STRUCTURE_CHAPTER and f.location is not None and f.source is None and f.level is Level.ERROR:
            gone.setdefault(f.lang, []).append(f)
    behind = {lang for lang, names in gone.items() if len(names) >= 3 and len(names) >= 0.05 * documents.get(lang, 0)}
    if not behind:
        return findings
    out = []
    for f in findings:
        compared = f.source is not None or str(f.code).startswith(_COMPARED)
        if f.lang in behind and compared and f.level in (Level.ERROR, Level.WARNING):
            f = replace(f, level=Level.INFO)
        out.append(f)
    for lang in sorted(behind):
        first = min(gone[lang], key=lambda f: f.order)
        names = sorted(f.name for f in gone[lang])
        shown = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
        message = (
            f"{len(names)} of {lang}'s {documents.get(lang, 0)} documents are not in the source ({shown}): {lang} was "
            f"made from another edition of it. Hold that edition -- `polybook import d2lbook OLD --lang "
            f"{source_lang} --as-base` -- and {lang} is checked against it; until then its differences from the "
            "source as it is are notes"
        )
        out.append(Finding.make(Code.STALE_BASE, message, lang, first.name, first.location, subject=(lang, "")))
    return out
