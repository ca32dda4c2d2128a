"""What a translation already took from the source as it is today, though its base is older.

A document's base is chosen whole (:mod:`.bases`): d2l-zh kept the ``X_origin.md`` it was
translated from and later took many cells, formulas and labels from newer sources. Against
the older base those read as drift -- ``nn.CrossEntropyLoss(reduction='none')`` "differs from"
the origin's ``nn.CrossEntropyLoss()`` -- though they are exactly the source's today. A finding
about something the translation has as the source has it today (or lacks as the source lacks
it today: a cell the source has changed since, not one it has removed, must still be there) is
left out: the translation follows the source there, and what the source changed
since its base is the staleness report's business. Only where the source changed it, though: a
cell or formula the source still has as the base had it must be the translation's too, though
the translation's equals another of today's (zh's ``train(num_gpus=2, ...)`` for the base's
``num_gpus=1``: the next cell's code, not this one's).
"""

from __future__ import annotations

from dataclasses import dataclass

from polybook.check.code import cell_key, without_strings
from polybook.check.documents import cells_of
from polybook.check.findings import Finding
from polybook.check.segments import by_identity, inlines_of, walked
from polybook.check.strings import differing_strings
from polybook.check.tex import normalize_tex
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, DisplayMath, Document, Figure

_CODE = (Code.CODE_CHANGED, Code.CODE_SAVED, Code.CODE_STRINGS, Code.CODE_EXTRA, Code.CODE_TABS, Code.CODE_MARKERS)


@dataclass(frozen=True, slots=True)
class _Today:
    """What the source today has, as the findings' subjects name it."""

    cells: frozenset[tuple[str, str]]  # (framework, code as compared)
    marked: frozenset[tuple[str, str, tuple[str, ...], tuple[str, ...]]]  # and its frameworks and marks
    formulas: frozenset[str]
    labels: frozenset[str]
    refs: frozenset[str]  # "numref:sec_x"
    links: frozenset[str]
    figures: frozenset[str]
    frameworks: frozenset[str]


@by_identity  # the source today is asked once for every language
def _today(doc: Document) -> _Today:
    cells = [(f, cell_key(c.code_for(f)), c) for c in cells_of(doc) for f in c.frameworks]
    inlines = [i for i, _ in inlines_of(doc)]
    formulas = [n.tex for n in walked(doc) if isinstance(n, DisplayMath)]
    formulas += [i.value for i in inlines if i.kind == "math"]
    figures = [f for f in walked(doc) if isinstance(f, Figure)]
    return _Today(
        frozenset((f, key) for f, key, _ in cells),
        frozenset((f, key, c.frameworks, tuple(sorted(m.name for m in c.markers))) for f, key, c in cells),
        frozenset(normalize_tex(tex) for tex in formulas),
        frozenset(doc.labels),
        frozenset(f"{i.name}:{i.value}" for i in inlines if i.kind == "role"),
        frozenset(i.value for i in inlines if i.kind == "link"),
        frozenset(key for f in figures for key in (f.label, f.src) if key),
        frozenset(doc.frameworks),
    )


@by_identity
def _blanked(doc: Document) -> dict[tuple[str, tuple[str, ...]], list[str]]:
    """The source's cells today by framework and code with string literals blanked: asked only
    for a cell whose code is not the source's to the character (a translated label, an
    f-string's expression spaced another way)."""
    out: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for cell in cells_of(doc):
        for f in cell.frameworks:
            code = cell.code_for(f)
            out.setdefault((f, tuple(without_strings(code))), []).append(code)
    return out


def _same_as_today(framework: str, code: str, current: Document) -> bool:
    """Whether a cell's code is a cell's of the source today but for strings that do not matter
    (:func:`~polybook.check.strings.differing_strings`: labels translated, written another way)."""
    found = _blanked(current).get((framework, tuple(without_strings(code))), ())
    return any(not differing_strings(code, theirs) for theirs in found)


def _cell_at(doc: Document, line: int) -> CodeCell | None:
    return next((c for c in cells_of(doc) if c.line <= line <= c.end_line), None)


def followed_since(
    findings: list[Finding], base: Document, current: Document | None, translation: Document
) -> list[Finding]:
    """``findings`` (of ``translation`` against an older ``base``) without those about what the
    translation has as ``current`` -- the source today -- has it (see the module's text)."""
    if current is None or current is base:
        return findings
    today = _today(current)
    return [f for f in findings if not _follows(f, today, translation, current)]


def _follows(finding: Finding, today: _Today, translation: Document, current: Document) -> bool:
    mine, theirs = finding.subject
    code = finding.code
    if code in _CODE and finding.framework and finding.location is not None:
        cell = _cell_at(translation, finding.location.line)
        if cell is None:
            return False
        key = cell_key(cell.code_for(finding.framework))
        if code in (Code.CODE_TABS, Code.CODE_MARKERS):  # the same code, run and marked as today
            marks = tuple(sorted(m.name for m in cell.markers))
            runs = tuple(f for f in cell.frameworks if f in today.frameworks)  # zh's paddle aside
            return (finding.framework, key, runs, marks) in today.marked
        if theirs and (finding.framework, theirs) in today.cells:
            return False  # the source still has its cell as the base had it: the translation's drifted from it
        code_here = cell.code_for(finding.framework)
        return (finding.framework, key) in today.cells or _same_as_today(finding.framework, code_here, current)
    if code is Code.CODE_MISSING:  # lacked as the source lacks it today: no more cells of it than today's
        framework = finding.framework
        if not framework or (framework, theirs) in today.cells:
            return False
        return len(cells_of(translation, framework)) >= len(cells_of(current, framework))
    if code is Code.MATH_CHANGED:  # as today's source, where today's source changed the base's formula
        return bool(mine) and mine in today.formulas and theirs not in today.formulas
    if code is Code.MATH_EXTRA:
        return bool(mine) and mine in today.formulas
    if code is Code.MATH_MISSING:
        return mine != "$" and bool(theirs) and theirs not in today.formulas  # "$": a paragraph's `$` do not pair
    if code is Code.REF_LABEL:
        return mine in today.labels if mine else theirs not in today.labels
    if code is Code.REF_TARGET and theirs:
        role = theirs.partition(":")[0]
        written = mine.split("`")[1] if mine.count("`") >= 2 else None
        if written is None:
            return theirs not in today.refs
        return f"{role}:{written}" in today.refs and theirs not in today.refs  # where the source changed it
    if code is Code.REF_LINK:
        return mine in today.links if mine else theirs not in today.links and "*" not in theirs
    if code is Code.REF_FIGURE and mine.startswith("src="):  # a figure's file as the source's today
        return mine.removeprefix("src=") in today.figures
    if code is Code.REF_FIGURE and not theirs.startswith(("src=", "width=", "height=")):
        return mine in today.figures if mine else theirs not in today.figures
    return False
