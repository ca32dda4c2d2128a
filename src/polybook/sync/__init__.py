"""``polybook sync``: repair a translation's code and math from the source.

Drifted cells are rewritten from the source (keeping the translation's comments where
the code around them still matches), math is copied (it is language-neutral, but words
the translator put inside ``\\text{}`` stay), missing cells are inserted where the checker
tells them missing (between what both documents share), and extra cells are removed only
with ``prune``. Prose is never changed. Files with parse errors are refused. A difference that a suppression (inline or
baseline) accepts is kept. Everything sync cannot repair is listed for a human.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from polybook.book import Book
from polybook.check import Baseline, check_chapter
from polybook.check.align import align, token_ratio
from polybook.check.bases import BaseKind, base_of
from polybook.check.code import lost_alone
from polybook.check.code_keys import cell_key, without_strings
from polybook.check.code_match import shared_frameworks
from polybook.check.findings import Finding
from polybook.check.regroup import CellMatch
from polybook.check.segments import Alignment, cell_slot, pair_segments
from polybook.check.staleness import SYNCED, SyncRecord, head_commit, origin_file, read_lock, write_lock
from polybook.check.suppress import apply, inline_suppressions
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect import parse_text
from polybook.dialect.builder import DialectSettings
from polybook.dialect.nodes import Block, CodeCell, Document
from polybook.files import atomic_write, file_sha256
from polybook.sync.math_style import in_translation_style
from polybook.sync.rewrite import rewrite_code, tab_marker


@dataclass(slots=True)
class Edit:
    """Replace lines ``start..end`` (1-based, inclusive; ``end = start - 1`` inserts)."""

    start: int
    end: int
    lines: list[str]
    why: str


@dataclass(slots=True)
class ChapterSync:
    lang: str
    name: str
    path: Path
    display: str
    old: str
    new: str
    repaired: list[str] = field(default_factory=list)
    places: list[int] = field(default_factory=list)  # the translation's lines each repair starts at (as before it)
    left: list[Finding] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # differences a suppression accepts
    refused: list[Diagnostic] = field(default_factory=list)
    record: SyncRecord | None = None

    @property
    def changed(self) -> bool:
        return self.new != self.old

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.old.splitlines(keepends=True),
                self.new.splitlines(keepends=True),
                f"a/{self.display}",
                f"b/{self.display}",
            )
        )


def _order_key(cell: CodeCell, shared: frozenset[str]) -> str:
    return f"{','.join(sorted(shared.intersection(cell.frameworks)))}|{cell_key(cell.code)}"


def _order_ratio(a: str, b: str) -> float:
    a_tabs, a_code = a.split("|", 1)
    b_tabs, b_code = b.split("|", 1)
    ratio = 1.0 if a_code == b_code else token_ratio(a_code, b_code)
    return ratio * (1.0 if a_tabs == b_tabs else 0.9)


def _held(held: list[Finding], codes: set[Code], node: CodeCell) -> bool:
    """Whether a suppressed finding of ``codes`` lies on ``node`` (on either side)."""
    return any(
        f.code in codes and loc is not None and loc.path == node.path and node.line <= loc.line <= node.end_line
        for f in held
        for loc in (f.location, f.source)
    )


def _cell_edits(
    source: Document,
    translation: Document,
    settings: DialectSettings,
    prune: bool,
    lines: list[str],
    held: list[Finding],
) -> list[Edit]:
    """Edits that make the translation's cells, in document order, those of the source.

    Unlike the checker, which compares one stream per framework, sync pairs all cells in
    document order (tab set and code together), so a cell whose tab set changed is one
    cell to re-tag, and a second run finds nothing left to do. A cell that a suppressed
    finding (``held``) is about is left as it is.
    """
    shared = shared_frameworks(source, translation)
    # a cell only for frameworks one side does not offer (zh's paddle cells) is coverage: left alone;
    # a cell only for frameworks of both languages that one chapter does not name (tensorflow, when
    # one of its cells was re-tagged) is paired only to be re-tagged, never inserted or pruned
    other = frozenset(source.frameworks) - shared
    retag = other & frozenset(translation.frameworks)
    src_cells = [c for c in source.cells() if shared.intersection(c.frameworks) or _only(c, retag)]
    tgt_cells = [c for c in translation.cells() if shared.intersection(c.frameworks) or _only(c, other)]
    keys = [_order_key(c, shared) for c in src_cells], [_order_key(c, shared) for c in tgt_cells]
    pairs = align(*keys, _order_ratio, 0.45)
    edits: list[Edit] = []
    pruned: list[CodeCell] = []
    paired = CellMatch(common=shared)
    for pair in pairs:
        if pair.source is not None and pair.target is not None:
            paired.source_to_target[id(src_cells[pair.source])] = tgt_cells[pair.target]
            paired.target_to_source[id(tgt_cells[pair.target])] = src_cells[pair.source]
    slot = _slots(source, translation, paired)
    runs = tuple(dict.fromkeys(f for cell in translation.cells() for f in cell.frameworks))  # the chapter's
    # the one cell of a framework the language offers, which the translation lost: the check tells it
    # missing, not a framework left untranslated, so it is inserted like a cell of a shared framework
    lost = {id(cell) for cell in lost_alone(source, translation, shared, settings.frameworks)}
    for pair in pairs:
        s = src_cells[pair.source] if pair.source is not None else None
        t = tgt_cells[pair.target] if pair.target is not None else None
        if s is not None and t is not None:
            if t.closed:
                code = not _held(held, {Code.CODE_CHANGED, Code.CODE_MARKERS, Code.CODE_EXTRA}, t)
                tabs = not _held(held, {Code.CODE_TABS}, t)
                edits += _repair_cell(s, t, lines, settings, shared, other, code=code, tabs=tabs)
        elif s is not None and (not _only(s, retag) or id(s) in lost):
            if not _held(held, {Code.CODE_MISSING}, s):
                kept = shared | (frozenset(s.frameworks) & frozenset(settings.frameworks)) if id(s) in lost else shared
                edits.append(_insert_cell(s, slot(s), settings, kept, runs))
        elif t is not None and prune and not _only(t, other) and not _held(held, {Code.CODE_EXTRA}, t):
            pruned.append(t)
    for t in pruned:
        edits.append(
            _delete_cell(t, lines, f"extra cell at line {t.line} (--prune)", _neighbours(translation, t, pruned))
        )
    return edits


def _slots(source: Document, translation: Document, paired: CellMatch) -> Callable[[CodeCell], tuple[int, bool]]:
    """Where a source cell the translation lacks goes: where the checker tells it missing
    (:func:`~polybook.check.segments.cell_slot`), between the cells as sync pairs them (``paired``:
    the checker's pairing too, but for cells it pairs otherwise, which sync then rewrites); the
    segments are worked out when first asked for."""
    found: list[Alignment] = []

    def slot(cell: CodeCell) -> tuple[int, bool]:
        if not found:
            found.append(pair_segments(source, translation, paired))
        return cell_slot(cell, source, translation, paired, found[0])

    return slot


def _neighbours(doc: Document, node: CodeCell, removed: list[CodeCell]) -> tuple[object, object]:
    """The nodes that will stand before and after ``node`` once ``removed`` are gone.

    Of a run of removed cells, only the last one reports its neighbours (the others get
    (None, None)), so a run between two lists leaves one marker, not one per cell.
    """
    gone = {id(c) for c in removed}
    nodes = list(doc.walk())
    k = next(i for i, n in enumerate(nodes) if n is node)
    if k + 1 < len(nodes) and id(nodes[k + 1]) in gone:
        return (None, None)
    before = next((n for n in reversed(nodes[:k]) if id(n) not in gone), None)
    after = next((n for n in nodes[k + 1 :] if id(n) not in gone), None)
    return (before, after)


def _only(cell: CodeCell, frameworks: frozenset[str]) -> bool:
    return bool(cell.frameworks) and frameworks.issuperset(cell.frameworks)


def _repair_cell(
    s: CodeCell,
    t: CodeCell,
    lines: list[str],
    settings: DialectSettings,
    shared: frozenset[str],
    other: frozenset[str],
    code: bool,
    tabs: bool,
) -> list[Edit]:
    """The cell's code from the source, and its tab set for the frameworks both chapters offer
    (the translation keeps its own for the others: zh's paddle; not those of ``other``, the
    source's language's, when the cell had only those: its #@tab was changed)."""
    edits = []  # the tab marker first: an insertion at the code's first line goes after it
    if tabs and shared.intersection(t.frameworks) != shared.intersection(s.frameworks):
        own = set(t.frameworks) - (other if _only(t, other) else frozenset()) - shared
        given = set(s.frameworks) if _only(s, other) else shared.intersection(s.frameworks)
        wanted = [f for f in settings.frameworks if f in given | own]
        marker = tab_marker(tuple(wanted), s.tab, settings)
        at, why = t.line + 1, f"tab marker of the cell at line {t.line}"
        if t.tab is not None:
            edits.append(Edit(at, at, [marker] if marker else [], why))
        elif marker:
            edits.append(Edit(at, at - 1, [marker], why))
    if code and cell_key(t.code) != cell_key(s.code) and without_strings(t.code) != without_strings(s.code):
        edits += _code_edits(t, rewrite_code(t.code, s.code).split("\n"), lines)
    return edits


def _code_edits(t: CodeCell, new_code: list[str], lines: list[str]) -> list[Edit]:
    """The cell's code made ``new_code``: one edit per changed run of lines, so each says where the
    check tells its difference (:attr:`ChapterSync.places`)."""
    old_code = lines[t.code_line - 1 : t.end_line - 1]
    matcher = difflib.SequenceMatcher(None, old_code, new_code, autojunk=False)
    why = f"cell at line {t.line} from the source"
    return [
        Edit(t.code_line + i1, t.code_line + i2 - 1, new_code[j1:j2], why)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _insert_cell(
    s: CodeCell, slot: tuple[int, bool], settings: DialectSettings, shared: frozenset[str], offered: tuple[str, ...]
) -> Edit:
    """The source cell, where the checker tells it is missing (``slot``: a line of the translation
    and whether it goes after it, :func:`~polybook.check.segments.cell_slot`), for the frameworks both
    chapters offer (the others are coverage) -- or, written ``#@tab all`` in the source, for all of
    the language's (zh's paddle too, as d2l-zh writes it) when the chapter offers them all already
    (``offered``: what its cells run for; else the cell would add a framework to the chapter, which the next run would
    then take as shared, and re-tag the cells that stand for ``all`` -- not idempotent)."""
    line, after = slot
    everything = s.tab == "all" and set(settings.frameworks) <= set(offered)  # else all would add frameworks
    frameworks = settings.frameworks if everything else tuple(f for f in s.frameworks if f in shared)
    marker = tab_marker(frameworks, s.tab, settings)
    block = [f"```{s.info.strip()}", *([marker] if marker else []), *s.code.split("\n"), "```"]
    block = ["", *block] if after else [*block, ""]
    at = line + 1 if after else line
    return Edit(at, at - 1, block, f"missing cell from {s.path}:{s.line}")


def _delete_cell(cell: CodeCell, lines: list[str], why: str, neighbours: tuple[object, object]) -> Edit:
    """Remove a cell and the blank line after it.

    Between two lists, a marker comment stays: without it Markdown would merge the lists.
    """
    blank_after = cell.end_line < len(lines) and not lines[cell.end_line].strip()
    between_lists = all(isinstance(n, Block) and n.kind == "list" for n in neighbours)
    keep = ["<!-- polybook: a cell was removed here by `polybook sync --prune` -->", ""] if between_lists else []
    return Edit(cell.line, cell.end_line + 1 if blank_after else cell.end_line, keep, why)


def _math_edits(findings: list[Finding], lines: list[str]) -> list[Edit]:
    """The source's formula for each ``math.changed`` finding, written in the translation's style
    (:func:`in_translation_style`): one edit per run of lines that changes.

    A finding stands at the formula's changed line (a display formula's third row, say) or its
    first; display math may keep its ``$$`` on lines of their own (the TeX the parser gives is
    stripped) and the delimiters may have whitespace inside. The formula replaced is the one
    written nearest that line (:func:`_written_at`).
    """
    text = "\n".join(lines)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    spans: list[tuple[int, int, str]] = []
    for f in findings:
        if f.code is not Code.MATH_CHANGED or f.suppressed or f.location is None or not f.diff:
            continue
        old, new = f.diff[0]
        found = _written_at(text, starts, old, f.location.line, [(a, b) for a, b, _ in spans])
        if found:
            spans.append((found.start(), found.end(), found[1] + in_translation_style(old, new, text) + found[2]))
    for a, b, written in sorted(spans, reverse=True):
        text = text[:a] + written + text[b:]
    after = text.split("\n")
    matcher = difflib.SequenceMatcher(None, lines, after, autojunk=False)
    return [
        Edit(i1 + 1, i2, after[j1:j2], f"math at line {i1 + 1}")
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _written_at(
    text: str, starts: list[int], tex: str, line: int, taken: list[tuple[int, int]]
) -> re.Match[str] | None:
    """Where formula ``tex`` is written (its delimiters the match's groups) on the lines about
    ``line``: from as many lines before it as the formula has, and one more (its ``$$``), to as
    many after; one whose lines hold ``line`` first, then the nearest, display math before inline
    math; not where another finding's formula was (``taken``: two findings of one formula on one
    line are its two places)."""
    rows = tex.count("\n")
    low, high = line - rows - 1, line + rows + 1
    found = []
    for rank, pattern in enumerate((rf"(\$\$\s*){re.escape(tex)}(\s*\$\$)", rf"(?<!\$)(\$){re.escape(tex)}(\$)")):
        for match in re.finditer(pattern, text):
            first, last = bisect.bisect_right(starts, match.start()), bisect.bisect_right(starts, match.end() - 1)
            free = all(match.end() <= a or b <= match.start() for a, b in taken)
            if free and last >= low and first <= high:
                found.append((not first <= line <= last, abs(first - line), rank, match.start(), match))
    return min(found, key=lambda f: f[:4])[-1] if found else None


def _suppressed(
    findings: list[Finding], source: Document, translation: Document, lang: str, name: str, baseline: Baseline
) -> list[Finding]:
    """``findings`` with the chapter's inline suppressions (both sides) and the baseline applied."""
    inline = [*inline_suppressions(source, lang, name)[0], *inline_suppressions(translation, lang, name)[0]]
    return apply(findings, inline, baseline)


def _apply(text: str, edits: list[Edit]) -> str:
    lines = text.split("\n")
    # Bottom-up, so earlier line numbers stay valid; edits at one spot keep their order.
    ordered = sorted(enumerate(edits), key=lambda ie: (ie[1].start, ie[1].end, ie[0]), reverse=True)
    for _, edit in ordered:
        lines[edit.start - 1 : edit.end] = edit.lines
    return "\n".join(lines)


#: How many more times sync looks at the cells it repaired: a cell re-tagged for a framework the
#: chapter did not name makes the chapters share it, and the cells standing for it are then
#: compared too (one more look repairs them; a second sync then finds nothing to do).
_AGAIN = 2


def sync_chapter(
    book: Book,
    lang: str,
    name: str,
    prune: bool = False,
    baseline: Baseline | None = None,
    lock: dict[str, SyncRecord] | None = None,
) -> ChapterSync:
    """What sync would make of one chapter (nothing is written); ``lock`` as in :func:`check_chapter`."""
    config = book.config
    source = book.chapters[config.source_language][name]
    target = book.chapters[lang][name]
    path = config.document_path(lang, name)
    old = path.read_text(encoding="utf-8")
    result = ChapterSync(lang, name, path, target.path, old, old)
    errors = [d for d in [*source.diagnostics, *target.diagnostics] if d.level is Level.ERROR]
    if errors:
        result.refused = errors
        return result
    settings = config.languages[lang].settings
    if lock is None:
        lock = read_lock(config.chapters_dir / lang)
    findings = check_chapter(book, lang, name, source, target, lock)
    findings = _suppressed(findings, source, target, lang, name, baseline or {})
    held = [f for f in findings if f.suppressed]
    edits = _cell_edits(source, target, settings, prune, old.split("\n"), held)
    edits += _math_edits(findings, old.split("\n"))
    result.new = _apply(old, edits)
    more = edits if not held else []  # a repair can change which frameworks the chapters share:
    for _ in range(_AGAIN if more else 0):  # the cells as they are now, once more (none changed: no look)
        again = parse_text(result.new, target.path, settings)
        more = _cell_edits(source, again, settings, prune, result.new.split("\n"), held)
        if not more:
            break
        result.new, edits = _apply(result.new, more), edits + more
    result.repaired = list(dict.fromkeys(e.why for e in sorted(edits, key=lambda e: e.start)))
    result.places = sorted(e.start for e in edits)
    new_doc = parse_text(result.new, target.path, settings)
    remaining = check_chapter(book, lang, name, source, new_doc, lock)
    remaining = _suppressed(remaining, source, new_doc, lang, name, baseline or {})
    remaining = sorted(
        (f for f in remaining if f.code is not Code.STALE_UNKNOWN),
        key=lambda f: f.order,
    )
    result.left = [f for f in remaining if not f.suppressed]
    result.kept = [
        f"kept: suppressed ({f.suppressed}): {f.code} at line {f.primary.line}" for f in remaining if f.suppressed
    ]
    source_file = config.document_path(config.source_language, name)
    previous = lock.get(name)
    digest = file_sha256(source_file)
    keep = previous and previous.sha256 == digest and not previous.problem
    # the record says what sync made equal (code, math, labels): the prose still follows its older
    # base (X_origin.md, a held edition), whose staleness the check keeps telling
    result.record = (
        previous if keep else SyncRecord(head_commit(config.root), digest, covers=_covers(book, lang, name, previous))
    )
    origin = origin_file(path)
    if previous is None and origin.is_file():
        result.kept.append(f"{origin.name} stays the base of the prose; the sync record covers code, math and labels")
    return result


def _covers(book: Book, lang: str, name: str, record: SyncRecord | None) -> tuple[str, ...] | None:
    """What a sync record of the chapter covers: all of it when the prose already followed the
    source today (or the last full record), else only what sync makes equal (:data:`SYNCED`)."""
    config = book.config
    if record is not None and record.prose:
        return None
    base = base_of(
        config, lang, name, book.chapters[config.source_language][name], None, None, book.chapters[lang][name]
    )
    return None if base.kind in (BaseKind.SOURCE, BaseKind.SOURCE_MATCHED) else SYNCED


def sync_book(
    book: Book, languages: list[str] | None = None, prune: bool = False, baseline: Baseline | None = None
) -> list[ChapterSync]:
    """Sync every translated chapter; ``baseline`` (from :func:`~polybook.check.suppress.load_baseline`)
    holds accepted findings, which sync keeps like inline suppressions."""
    config = book.config
    out = []
    for lang in config.translations:
        if languages and lang not in languages:
            continue
        lock = read_lock(config.chapters_dir / lang)
        for name in sorted(book.chapters[lang]):
            if name in book.chapters[config.source_language]:
                out.append(sync_chapter(book, lang, name, prune, baseline, lock))
    return out


def write(book: Book, results: list[ChapterSync]) -> None:
    """Write changed chapters atomically, then each language's sync record."""
    config = book.config
    for result in results:
        if result.changed and not result.refused:
            atomic_write(result.path, result.new)
    for lang in {r.lang for r in results}:
        folder = config.chapters_dir / lang
        records = read_lock(folder)
        fresh = {r.name: r.record for r in results if r.lang == lang and r.record and not r.refused}
        if any(records.get(k) != v for k, v in fresh.items()):
            write_lock(folder, config.source_language, {**records, **fresh})


__all__ = ["ChapterSync", "sync_book", "sync_chapter", "write"]
