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

from collections import Counter
from functools import cached_property

from polybook.check.code_keys import cell_key, without_strings
from polybook.check.documents import cells_of
from polybook.check.findings import Finding
from polybook.check.segments import by_identity, inlines_of, walked
from polybook.check.strings import differing_strings
from polybook.check.tex import normalize_tex
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, DisplayMath, Document, Figure, Inline

_CODE = (Code.CODE_CHANGED, Code.CODE_SAVED, Code.CODE_STRINGS, Code.CODE_EXTRA, Code.CODE_TABS, Code.CODE_MARKERS)


class _Today:
    """What the source today has, as the findings' subjects name it: each part worked out when a
    finding first asks for it (a chapter's findings ask for few: its code's keys, or its
    formulas, or its references)."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc

    @cached_property
    def _cells(self) -> list[tuple[str, str, CodeCell]]:
        return [(f, cell_key(c.code_for(f)), c) for c in cells_of(self.doc) for f in c.frameworks]

    @cached_property
    def _inlines(self) -> list[Inline]:
        return [i for i, _ in inlines_of(self.doc)]

    @cached_property
    def cells(self) -> frozenset[tuple[str, str]]:
        """(framework, code as compared)"""
        return frozenset((f, key) for f, key, _ in self._cells)

    @cached_property
    def said(self) -> Counter[str]:
        """Each formula (as compared): how many times."""
        return _formulas_said(self.doc)

    @cached_property
    def marked(self) -> frozenset[tuple[str, str, tuple[str, ...], tuple[str, ...]]]:
        """Each cell's framework and code, with its frameworks and marks."""
        return frozenset((f, key, c.frameworks, tuple(sorted(m.name for m in c.markers))) for f, key, c in self._cells)

    @cached_property
    def formulas(self) -> frozenset[str]:
        formulas = [n.tex for n in walked(self.doc) if isinstance(n, DisplayMath)]
        formulas += [i.value for i in self._inlines if i.kind == "math"]
        return frozenset(normalize_tex(tex) for tex in formulas)

    @cached_property
    def labels(self) -> frozenset[str]:
        return frozenset(self.doc.labels)

    @cached_property
    def refs(self) -> frozenset[str]:
        """``"numref:sec_x"``"""
        return frozenset(f"{i.name}:{i.value}" for i in self._inlines if i.kind == "role")

    @cached_property
    def links(self) -> frozenset[str]:
        return frozenset(i.value for i in self._inlines if i.kind == "link")

    @cached_property
    def figures(self) -> frozenset[str]:
        figures = [f for f in walked(self.doc) if isinstance(f, Figure)]
        return frozenset(key for f in figures for key in (f.label, f.src) if key)

    @cached_property
    def frameworks(self) -> frozenset[str]:
        return frozenset(self.doc.frameworks)


@by_identity  # the source today is asked once for every language
def _today(doc: Document) -> _Today:
    return _Today(doc)


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
    mine = _Translation(translation, base, today)
    return [f for f in findings if not _follows(f, today, mine, current)]


@by_identity
def _formulas_said(doc: Document) -> Counter[str]:
    """How many times ``doc`` says each formula (as compared)."""
    formulas = [n.tex for n in walked(doc) if isinstance(n, DisplayMath)]
    formulas += [i.value for i, _ in inlines_of(doc) if i.kind == "math"]
    return Counter(normalize_tex(tex) for tex in formulas)


class _Translation:
    """What of the translation tells that it follows its base, not the source today, where a
    finding stands (worked out when first asked: most chapters' findings ask nothing)."""

    def __init__(self, doc: Document, base: Document, today: _Today) -> None:
        self.doc, self.base, self.today = doc, base, today
        self._lines: list[tuple[str, int]] | None = None

    def over_said(self, key: str) -> bool:
        """Whether the translation says a formula of its base once more than the base and the
        source today say it: one of the chapter's formulas written in the place of another (a
        swap), not a formula taken from today's source (nor an older text's notation, said
        throughout: pt's ``$w_i$``)."""
        based = _formulas_said(self.base)[key]
        return based > 0 and _formulas_said(self.doc)[key] == max(based, self.today.said[key]) + 1

    def swapped_at(self, line: int, missing: str) -> bool:
        """Whether the translation's formulas on ``line`` follow the base (none is only today's)
        and one of them is said too often (:meth:`over_said`): the base's ``missing`` formula was
        written over there, not left out as today's source leaves it out -- unless by what it
        defines (``$p_{ij}$`` for ``$p_{ij} \\stackrel{\\mathrm{def}}{=} P(w_j \\mid w_i)$``)."""
        near = [normalize_tex(tex) for tex, at in self._math_lines if at == line]
        based = _formulas_said(self.base)
        if any(based[key] == 0 and self.today.said[key] > 0 for key in near):
            return False  # it takes today's formulas there
        defined = missing.split("=", 1)[0].removesuffix(":") if "=" in missing else None
        return any(self.over_said(key) and key != defined for key in near)

    @property
    def _math_lines(self) -> list[tuple[str, int]]:
        if self._lines is None:
            self._lines = [(n.tex, n.line) for n in walked(self.doc) if isinstance(n, DisplayMath)]
            self._lines += [(i.value, at) for i, at in inlines_of(self.doc) if i.kind == "math"]
        return self._lines

    def follows_base_cells(self, framework: str) -> bool:
        """Whether more of the translation's ``framework`` cells are only the base's than only
        today's: a cell missing is then missing from what it translates, though today's source
        lacks it too (tr's kaggle-house-price, d2l 0.17's code, which 1.0 rewrote)."""
        base = {cell_key(c.code_for(framework)) for c in cells_of(self.base, framework)}
        keys = [cell_key(c.code_for(framework)) for c in cells_of(self.doc, framework)]
        only_base = sum(key in base and (framework, key) not in self.today.cells for key in keys)
        only_today = sum(key not in base and (framework, key) in self.today.cells for key in keys)
        return only_base > only_today


def _follows(finding: Finding, today: _Today, here: _Translation, current: Document) -> bool:
    translation = here.doc
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
        if not framework or (framework, theirs) in today.cells or here.follows_base_cells(framework):
            return False
        return len(cells_of(translation, framework)) >= len(cells_of(current, framework))
    line = finding.location.line if finding.location is not None else 0
    if code is Code.MATH_CHANGED:  # as today's source, where today's source changed the base's formula
        return bool(mine) and mine in today.formulas and theirs not in today.formulas and not here.over_said(mine)
    if code is Code.MATH_EXTRA:
        return bool(mine) and mine in today.formulas and not here.over_said(mine)
    if code is Code.MATH_MISSING:  # "$": a paragraph's `$` do not pair
        return mine != "$" and bool(theirs) and theirs not in today.formulas and not here.swapped_at(line, theirs)
    if code is Code.REF_LABEL:
        return mine in today.labels if mine else theirs not in today.labels
    if code is Code.REF_TARGET and theirs:
        role = theirs.partition(":")[0]
        written = mine.split("`")[1] if mine.count("`") >= 2 else None
        if written is None:
            return theirs not in today.refs
        target = theirs.partition(":")[2]
        if target in translation.labels and target not in today.labels:
            return False  # the translation keeps the base's label: it follows the base there, not today's
        return f"{role}:{written}" in today.refs and theirs not in today.refs  # where the source changed it
    if code is Code.REF_LINK:
        return mine in today.links if mine else theirs not in today.links and "*" not in theirs
    if code is Code.REF_FIGURE and mine.startswith("src="):  # a figure's file as the source's today
        return mine.removeprefix("src=") in today.figures
    if code is Code.REF_FIGURE and not theirs.startswith(("src=", "width=", "height=")):
        return mine in today.figures if mine else theirs not in today.figures
    return False
