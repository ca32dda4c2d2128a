"""Math and numbers of a chapter against its translation's: math.changed, math.missing,
math.extra (paired as :mod:`polybook.check.formulas` says) and numbers.missing
(:mod:`polybook.check.numbers_missing`).

Math inside a text tab for frameworks the translation does not offer (zh's paddle text) is
not compared, and math that is only a number (``$10.000$``) is compared as a number.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from polybook.check.findings import Finding, Location
from polybook.check.formulas import (
    Formula,
    Places,
    as_text_elsewhere,
    matching,
    pair_formulas,
    shapes_said,
    sides,
    within_others,
)
from polybook.check.math_places import (
    anchored,
    arguments_left_out,
    broken_dollars,
    changed_in_place,
    pair_nearby,
    said_once,
)
from polybook.check.numbers_missing import Number, check_numbers
from polybook.check.numeric_math import numbers_changed
from polybook.check.segments import Alignment, Item, by_identity, walked
from polybook.check.tex import looks_like_prose, normalize_tex, numbers_in_math, numbers_of, pure_number
from polybook.diagnostics import Code
from polybook.dialect.nodes import Block, DisplayMath, Document, Figure, Heading, Paragraph
from polybook.dialect.slides import prose_of

#: A formula that differs may be the sign of a sentence translated from an older text of the source.
_OLDER = "; if the sentence around it says what an older text of the source said, translate it anew"
_A_NUMBER = re.compile(r"\s*(?:\\%\s*)?\d[\d.,]*\s*(?:\\%)?\s*")
# math that is no formula: words only (``$\\textrm{"<where>"}$``, or a set of them,
# ``$\\{\\text{yes}, \\text{no}\\}$``, which a language may say in its words), numbers only
# (``$(-1, 1)$``) (and arithmetic on numbers, ``$7-2+1=6$``, or an operator alone, ``$\times$``)
_ARITHMETIC = r"(?:[\d.,()\[\]+\-=/]|\\[$%]|\\(?:times|cdot|div|approx)(?![A-Za-z]))"
_SET = r"(?:\\[{}]|[()\[\],\s]|\\text\{\})*"  # braces, brackets and commas around words
_WORDS = rf"(?:\\text\{{\}}|[\s.,;:'\"-])+|{_SET}\\text\{{\}}{_SET}"
_NUMERIC = re.compile(rf"{_ARITHMETIC}*\d{_ARITHMETIC}*")
_NOT_FORMULA = re.compile(rf"{_WORDS}|{_NUMERIC.pattern}|\\(?:times|cdot|pm|sim|approx|rightarrow)")


@dataclass(slots=True)
class Contents:
    """What a chapter's text holds for these checks, in document order."""

    formulas: list[Formula]
    numbers: list[Number]
    broken: list[int]  # the lines of paragraphs whose math is broken (a ``$`` missing or stray)
    numeric: list[Formula]  # math of numbers only (:mod:`polybook.check.numeric_math`)


@functools.lru_cache(maxsize=65536)
def _math_of(tex: str, translation: bool) -> tuple[bool, tuple[str, ...], str | None, str | None]:
    """What one piece of math (memoised: the same formula stands in many chapters and
    languages) says: whether it is the source's broken math (prose between two ``$``), the
    numbers it holds (found, never missing), its key when it is a formula, and its key when it
    is numbers only (``$28 \\times 28$``, ``$0.01$``)."""
    if not translation and looks_like_prose(tex):
        return True, (), None, None  # the source's own broken math: nothing for a translator to do
    # a formula's numbers, and a tuple's (``$(13, 17)$``); ``$52$`` is prose's number (:func:`numbers_of`)
    values = () if _A_NUMBER.fullmatch(tex) else numbers_in_math(tex)
    key = normalize_tex(tex)
    numeric = bool(key) and (pure_number(key) is not None or bool(_NUMERIC.fullmatch(key)))
    formula = key and not numeric and not _NOT_FORMULA.fullmatch(key)
    return False, values, key if formula else None, key if numeric else None


def _tabs(common: frozenset[str]) -> Callable[[tuple[str, ...]], frozenset[str]]:
    """The frameworks a text tab's node stands for (the ones both chapters offer; an empty
    set: none of them, the node is not compared), worked out once per tab."""

    @functools.cache
    def tab(frameworks: tuple[str, ...]) -> frozenset[str]:
        return frozenset(frameworks) & common if common else frozenset(frameworks)

    return tab


_READ = (Paragraph, Heading, Block, Figure, DisplayMath)  # the nodes that may hold math or prose numbers


@by_identity
def contents(items: list[Item], common: frozenset[str], translation: bool = False, numbers: bool = True) -> Contents:
    """The formulas (inline and unlabelled display math; not numbers, words or tuples of numbers
    written as math) and the numbers of the prose (``translation``: see :func:`numbers_of`;
    without ``numbers``, no number: a source chapter with none asks for none of its translation's)."""
    out = Contents([], [], [], [])
    said = out.numbers if numbers else []  # (thrown away)
    tab_of = _tabs(common)
    for item in items:
        node = item.node
        if not isinstance(node, _READ):
            continue  # (code cells, a text tab itself -- its nodes are items of their own -- and the like)
        tab = None if item.tab is None else tab_of(item.tab)
        if tab is not None and not tab and common:
            continue  # a text tab for frameworks only one of the chapters offers (zh's paddle)
        if isinstance(node, DisplayMath):
            if not node.label:
                # the tex's first line: the next when ``$$`` stands alone (two lines more than its tex)
                body = node.line + (node.end_line - node.line - node.tex.count("\n") >= 2)
                _read_math(node.tex, node.line, node.line, tab, translation, out, said, body)
            continue  # (no prose)
        for i in node.inlines:
            if i.kind == "math":
                _read_math(i.value, i.line or node.line, node.line, tab, translation, out, said)
        prose = prose_of(node) if numbers else ""
        found = numbers_of(prose, translation) if prose else ()
        if found:
            said += [Number(values, node.line + offset, node.line, False, tab) for values, offset in found]
    return out


def _read_math(
    tex: str,
    line: int,
    node: int,
    tab: frozenset[str] | None,
    translation: bool,
    out: Contents,
    said: list[Number],
    body: int = 0,
) -> None:
    """One piece of math of :func:`contents`: a formula, its numbers, or the source's broken math."""
    prose_like, values, key, numeric = _math_of(tex, translation)
    if numeric is not None:
        out.numeric.append(Formula(numeric, tex, line, node, tab, body))
    if prose_like:
        out.broken.append(node)
        return
    if values:
        said += [Number((v,), line, node, True, tab) for v in values]
    if key is not None:
        out.formulas.append(Formula(key, tex, line, node, tab, body))


def check_math(
    lang: str,
    name: str,
    source: Document,
    translation: Document,
    pairs: list[tuple[Formula | None, Formula | None]],
    places: Places,
    line_of: Callable[[Formula], int],
    lost: dict[int, list[Formula]] | None = None,
) -> list[Finding]:
    """math.changed, math.missing and math.extra of the paired formulas; a formula missing twice
    from one paragraph is one finding, at the line where it belongs (``line_of``); a source
    paragraph none of whose formulas is here (``lost``: its line -> its formulas) is one."""
    out = []
    missing: set[tuple[str, int]] = set()
    lost = lost or {}
    told: set[int] = set()  # the lost paragraphs said so far
    for s, t in pairs:
        if s is not None and t is None and s.node in lost:
            if s.node not in told:  # (the paragraph's other formulas: said with the first)
                told.add(s.node)
                formulas = lost[s.node]
                shown = ", ".join(f"${f.tex}$" for f in formulas[:3]) + (", …" if len(formulas) > 3 else "")
                out.append(Finding.make(
                    Code.MATH_MISSING,
                    f"none of the {len(formulas)} formulas of the source's paragraph at line {s.node} ({shown}) is "
                    "here: translate that paragraph (it is missing, or follows an older text of the source)",
                    lang, name, Location(translation.path, places(s.node, s.line)),
                    source=Location(source.path, s.node), diff=(("", " ".join(f.tex for f in formulas)),),
                    subject=("", s.key),
                ))  # fmt: skip
            continue
        if s is not None and t is not None:
            out.append(Finding.make(
                Code.MATH_CHANGED,
                f"math ${t.tex}$ differs from the source's ${s.tex}$: write the source's (polybook sync --write)"
                f"{_OLDER}",
                lang, name,
                Location(translation.path, _changed_line(t, s)), source=Location(source.path, s.line),
                diff=((t.tex, s.tex),), subject=(t.key, s.key),
            ))  # fmt: skip
        elif s is not None and (s.key, places(s.node, s.line)) not in missing:
            missing.add((s.key, places(s.node, s.line)))
            out.append(Finding.make(
                Code.MATH_MISSING,
                f"math ${s.tex}$ of the source is missing here: translate what the source says with it", lang, name,
                Location(translation.path, line_of(s)), source=Location(source.path, s.line),
                diff=(("", s.tex),), subject=("", s.key),
            ))  # fmt: skip
        elif t is not None:
            out.append(Finding.make(
                Code.MATH_EXTRA,
                f"math ${t.tex}$ is not in the source: remove it, unless the translation adds it on purpose{_OLDER}",
                lang, name,
                Location(translation.path, t.line), diff=((t.tex, ""),), subject=(t.key, ""),
            ))  # fmt: skip
    return out


def _changed_line(t: Formula, s: Formula) -> int:
    """The line of a changed formula that differs first: a display of six lines changed in its
    last is told there, not at its first."""
    if "\n" not in t.tex:
        return t.line
    mine, theirs = t.tex.split("\n"), s.tex.split("\n")
    for k, text in enumerate(mine):
        if k >= len(theirs) or text.split() != theirs[k].split():
            return (t.body or t.line) + k if k else t.line  # (the first: at the display, as other findings)
    return t.line


@by_identity  # a source document is compared with every translation
def labelled_math(doc: Document) -> list[DisplayMath]:
    """The document's labelled equations, in order."""
    return [n for n in walked(doc) if isinstance(n, DisplayMath) and n.label]


@by_identity
def _labelled_keys(doc: Document) -> frozenset[str]:
    """The labelled equations' keys, and their parts (:func:`~polybook.check.formulas.sides`)."""
    keys = [normalize_tex(n.tex) for n in labelled_math(doc)]
    return frozenset(side for key in keys for side in [key, *sides(key)])


def _lost(pairs: list[tuple[Formula | None, Formula | None]], mine: Contents) -> dict[int, list[Formula]]:
    """The source's paragraphs (by line) with two formulas or more, none of them here: not
    paired, equal or changed, nor said another way (a paragraph the translation lacks)."""
    missing: dict[int, list[Formula]] = {}
    for s, t in pairs:
        if s is not None and t is None:
            missing.setdefault(s.node, []).append(s)
    if not any(len(found) > 1 for found in missing.values()):
        return {}  # (most chapters)
    held = Counter(f.node for f in mine.formulas)
    return {node: found for node, found in missing.items() if len(found) > 1 and len(found) == held[node]}


def check_labelled_math(lang: str, name: str, source: Document, translation: Document) -> list[Finding]:
    """Labelled equations, paired by label (they are segment anchors, so no segment holds them).

    A label on one side only is ``ref.label``'s business.
    """
    t_math = {n.label: n for n in labelled_math(translation)}
    out = []
    for s in labelled_math(source):
        t = t_math.get(s.label)
        if t is None or matching(normalize_tex(t.tex)) == matching(normalize_tex(s.tex)):
            continue  # the same, or with its words (``\text{…}``) in the language's own order
        out.append(Finding.make(
            Code.MATH_CHANGED,
            f"equation {s.label!r} $${t.tex}$$ differs from the source's $${s.tex}$$: write the source's",
            lang, name, Location(translation.path, t.line), source=Location(source.path, s.line),
            diff=((t.tex, s.tex),),
            subject=(normalize_tex(t.tex), normalize_tex(s.tex)),
        ))  # fmt: skip
    return out


def check_math_numbers(
    lang: str,
    name: str,
    source: Document,
    translation: Document,
    src_items: list[Item],
    tgt_items: list[Item],
    common: frozenset[str],
    alignment: Alignment,
) -> list[Finding]:
    """Every math and number finding of one chapter."""
    mine = contents(src_items, common)
    theirs = contents(tgt_items, common, True, bool(mine.numbers))
    places = Places(alignment.place)
    pairs = unpaired = pair_formulas(mine.formulas, theirs.formulas, places)
    pairs = as_text_elsewhere(pairs, src_items, tgt_items)
    pairs = within_others(pairs, mine.formulas, theirs.formulas, places, mine.broken, _labelled_keys(source))
    pairs = pair_nearby(pairs, places)
    pairs, damaged = broken_dollars(lang, name, source, translation, pairs, places)
    pairs = shapes_said(pairs, theirs.formulas, places)
    pairs = said_once(arguments_left_out(pairs), mine.formulas, places)
    numbers = check_numbers(lang, name, source, translation, mine.numbers, theirs.numbers, places, alignment.at)
    lost = _lost(pairs, mine)
    pairs = changed_in_place(pairs, places, lost)
    line_of = anchored(pairs, mine.formulas, places)
    told = {f for pair in pairs for f in pair if f is not None}
    pairs = pairs + numbers_changed(unpaired, mine.numeric, theirs.numeric, places, told)
    out = damaged + check_math(lang, name, source, translation, pairs, places, line_of, lost)
    out += numbers
    out += check_labelled_math(lang, name, source, translation)
    return out
