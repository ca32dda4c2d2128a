"""Math and numbers of a chapter against its translation's: math.changed, math.missing,
math.extra (paired as :mod:`polybook.check.formulas` says) and numbers.missing.

Math inside a text tab for frameworks the translation does not offer (zh's paddle text) is
not compared, and math that is only a number (``$10.000$``) is compared as a number.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

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
from polybook.check.math_places import anchored, arguments_left_out, broken_dollars, pair_nearby, said_once
from polybook.check.segments import Alignment, Item, by_identity, walked
from polybook.check.tex import looks_like_prose, normalize_tex, numbers_in_math, numbers_of, pure_number
from polybook.diagnostics import Code, Level
from polybook.dialect.nodes import CodeCell, DisplayMath, Document, TextTab
from polybook.dialect.slides import prose_of

_REPEAT = 5  # lines: the same number said again this close may be said once in a translation
_ORDER = 10  # a number the translation says instead of the source's is within this factor of it
#: A formula that differs may be the sign of a sentence translated from an older text of the source.
_OLDER = "; if the sentence around it says what an older text of the source said, translate it anew"
_A_NUMBER = re.compile(r"\s*(?:\\%\s*)?\d[\d.,]*\s*(?:\\%)?\s*")
# math that is no formula: words only (``$\\textrm{"<where>"}$``, or a set of them,
# ``$\\{\\text{yes}, \\text{no}\\}$``, which a language may say in its words), numbers only
# (``$(-1, 1)$``) (and arithmetic on numbers, ``$7-2+1=6$``, or an operator alone, ``$\times$``)
_ARITHMETIC = r"(?:[\d.,()\[\]+\-=/]|\\[$%]|\\(?:times|cdot|div|approx)(?![A-Za-z]))"
_SET = r"(?:\\[{}]|[()\[\],\s]|\\text\{\})*"  # braces, brackets and commas around words
_WORDS = rf"(?:\\text\{{\}}|[\s.,;:'\"-])+|{_SET}\\text\{{\}}{_SET}"
_NOT_FORMULA = re.compile(rf"{_WORDS}|{_ARITHMETIC}*\d{_ARITHMETIC}*|\\(?:times|cdot|pm|sim|approx|rightarrow)")


@dataclass(frozen=True, slots=True)
class Number:
    values: tuple[str, ...]  # as written, and scaled (``110 million``)
    line: int
    node: int
    in_math: bool = False  # a formula's (``$t_1 + 1000 t_2$``): never missing, but it may be the one found
    tab: frozenset[str] | None = None


@dataclass(slots=True)
class Contents:
    """What a chapter's text holds for these checks, in document order."""

    formulas: list[Formula]
    numbers: list[Number]
    broken: list[int]  # the lines of paragraphs whose math is broken (a ``$`` missing or stray)


@functools.lru_cache(maxsize=65536)
def _math_of(tex: str, translation: bool) -> tuple[bool, tuple[str, ...], str | None]:
    """What one piece of math (memoised: the same formula stands in many chapters and
    languages) says: whether it is the source's broken math (prose between two ``$``), the
    numbers it holds (found, never missing), and its key when it is a formula."""
    if not translation and looks_like_prose(tex):
        return True, (), None  # the source's own broken math: nothing for a translator to do
    # a formula's numbers, and a tuple's (``$(13, 17)$``); ``$52$`` is prose's number (:func:`numbers_of`)
    values = () if _A_NUMBER.fullmatch(tex) else numbers_in_math(tex)
    key = normalize_tex(tex)
    return False, values, key if key and pure_number(key) is None and not _NOT_FORMULA.fullmatch(key) else None


def _tabs(common: frozenset[str]) -> Callable[[tuple[str, ...]], frozenset[str]]:
    """The frameworks a text tab's node stands for (the ones both chapters offer; an empty
    set: none of them, the node is not compared), worked out once per tab."""

    @functools.cache
    def tab(frameworks: tuple[str, ...]) -> frozenset[str]:
        return frozenset(frameworks) & common if common else frozenset(frameworks)

    return tab


_NO_PROSE = (CodeCell, DisplayMath, TextTab)  # nodes without prose of their own (:func:`prose_of`)


@by_identity
def contents(items: list[Item], common: frozenset[str], translation: bool = False, numbers: bool = True) -> Contents:
    """The formulas (inline and unlabelled display math; not numbers, words or tuples of numbers
    written as math) and the numbers of the prose (``translation``: see :func:`numbers_of`;
    without ``numbers``, no number: a source chapter with none asks for none of its translation's)."""
    out = Contents([], [], [])
    said = out.numbers if numbers else []  # (thrown away)
    tab_of = _tabs(common)
    for item in items:
        node = item.node
        tab = None if item.tab is None else tab_of(item.tab)
        if tab is not None and not tab and common:
            continue  # a text tab for frameworks only one of the chapters offers (zh's paddle)
        if isinstance(node, DisplayMath):
            if not node.label:
                _read_math(node.tex, node.line, node.line, tab, translation, out, said)
            continue  # (no prose)
        inlines = getattr(node, "inlines", None)
        if inlines:
            for i in inlines:
                if i.kind == "math":
                    _read_math(i.value, i.line or node.line, node.line, tab, translation, out, said)
        prose = prose_of(node) if numbers and not isinstance(node, _NO_PROSE) else ""
        found = numbers_of(prose, translation) if prose else ()
        if found:
            said += [Number(values, node.line + offset, node.line, False, tab) for values, offset in found]
    return out


def _read_math(
    tex: str, line: int, node: int, tab: frozenset[str] | None, translation: bool, out: Contents, said: list[Number]
) -> None:
    """One piece of math of :func:`contents`: a formula, its numbers, or the source's broken math."""
    prose_like, values, key = _math_of(tex, translation)
    if prose_like:
        out.broken.append(node)
        return
    if values:
        said += [Number((v,), line, node, True, tab) for v in values]
    if key is not None:
        out.formulas.append(Formula(key, tex, line, node, tab))


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
                Location(translation.path, t.line), source=Location(source.path, s.line), diff=((t.tex, s.tex),),
                subject=(t.key, s.key),
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


def check_numbers(
    lang: str,
    name: str,
    source: Document,
    translation: Document,
    s_numbers: list[Number],
    t_numbers: list[Number],
    places: Places,
    at: Callable[[int], float],
) -> list[Finding]:
    """numbers.missing: a number of the source's text (above :data:`~polybook.check.tex.SMALL`)
    that the translation has fewer times. Each occurrence pairs with the nearest one of the same
    value to where it belongs (``at``), over the whole chapter: the formulas' numbers with each
    other first, then the text's with the text's, written the same way before another way
    (``6万``), and last with a number left in a formula (``$1/32$`` for the source's "1/32")."""
    everything = frozenset(source.frameworks)
    at = functools.cache(at)  # asked once for every number the source's may pair with
    holding: dict[str, list[int]] = {}
    for j, number in enumerate(t_numbers):
        for value in number.values:
            holding.setdefault(value, []).append(j)
    options = sorted(
        (
            number.in_math != t_numbers[j].in_math,
            t_numbers[j].in_math,
            number.tab is not None,  # a number said in every framework's tab may share one said once
            rank,
            abs(t_numbers[j].line - at(number.line)),
            i,
            j,
        )
        for i, number in enumerate(s_numbers)
        for rank, value in enumerate(number.values)
        for j in holding.get(value, ())
        if not (number.in_math and not t_numbers[j].in_math)
    )
    owner: dict[int, int] = {}  # source number -> the translation's it pairs with
    t_used: dict[int, frozenset[str]] = {}  # the frameworks a translation's number served so far
    for *_, i, j in options:
        serves = s_numbers[i].tab or everything
        if i not in owner and not (t_used.get(j, frozenset()) & serves):
            owner[i] = j
            t_used[j] = t_used.get(j, frozenset()) | serves  # once per framework: text tabs repeat
    _reassign(s_numbers, t_numbers, holding, owner, t_used, everything)
    for i, j in owner.items():
        places.pair(s_numbers[i].node, t_numbers[j].node)
    s_used = set(owner)
    unpaired = [n for j, n in enumerate(t_numbers) if j not in t_used and not n.in_math]
    missing = [  # (a number said once for two is none, unless another is said where it belongs: 301 for 300)
        number
        for i, number in enumerate(s_numbers)
        if i not in s_used
        and not number.in_math
        and (
            not _said_once(number, [s_numbers[k] for k in owner])
            or _instead(number, places(number.node, number.line), unpaired, at) is not None
        )
    ]
    out: list[Finding] = []
    reported: set[tuple[str, int]] = set()  # a number missing twice from one paragraph is one finding
    free = [j for j, n in enumerate(t_numbers) if j not in t_used and not n.in_math]
    found: list[_Left] = []
    for number in missing:
        value, where = number.values[0], places(number.node, number.line)
        if (value, where) in reported:
            continue
        reported.add((value, where))
        other = _instead(number, where, [t_numbers[j] for j in free], at)
        if other is not None:
            free = [j for j in free if t_numbers[j] is not other]
        found.append(_Left(number, where, ("", f"{value}#{sum(v == value for v, _ in reported)}"), other))
    # a paragraph that says other numbers instead of some of the source's was rewritten with
    # other figures (zh's alexnet: Ampere's 312 TFlops for Volta's 120 and 24): its numbers that
    # have no counterpart are told with those, not as left untranslated
    rewritten = {left.where for left in found if left.instead is not None}
    lone = {where: [left for left in found if left.where == where and left.instead is None] for where in rewritten}
    for number, where, subject, other in found:
        value = number.values[0]
        if other is None and where in rewritten:
            continue  # (told with the paragraph's numbers said instead)
        if other is None:
            out.append(Finding.make(
                Code.NUMBERS_MISSING,
                f"the number {value} of the source's text is missing here: translate what the source says with it",
                lang, name,
                Location(translation.path, where), source=Location(source.path, number.line),
                diff=(("", value),), subject=subject,
            ))  # fmt: skip
            continue
        values = [value, *(left.number.values[0] for left in lone.pop(where, []))]
        said = " and ".join(values)
        # a number that contradicts the source's is an error (CI fails on it), a missing one a warning
        out.append(Finding.make(
            Code.NUMBERS_MISSING,
            f"the source's text says {said} where this says {other.values[0]}: write the source's "
            f"number{'s' * (len(values) > 1)}, unless the translation changes {'them' if len(values) > 1 else 'it'} "
            "on purpose", lang, name,
            Location(translation.path, other.line), source=Location(source.path, number.line),
            diff=((other.values[0], ", ".join(values)),), subject=subject, level=Level.ERROR,
        ))  # fmt: skip
    return out


class _Left(NamedTuple):
    """A number of the source's text the translation does not have: where it belongs, its
    finding's subject, and the number the translation says there instead, if any."""

    number: Number
    where: int
    subject: tuple[str, str]
    instead: Number | None


def _size(number: Number) -> float | None:
    """The number as written, when it is written in digits (not ``百`` of zh's ``维基百科``)."""
    try:
        return abs(float(number.values[0]))
    except ValueError:
        return None


def _instead(number: Number, where: int, free: list[Number], at: Callable[[int], float]) -> Number | None:
    """The number the translation's paragraph says instead of a missing one: of the numbers it
    pairs with none of the source's, the nearest to where the missing one belongs, when it is of
    the same order (a year written 1654 for 1655, "150 por 225" from an older "300 by 450")."""
    size = _size(number)
    if not size:
        return None
    near = [
        other
        for other in free
        if other.node == where and (theirs := _size(other)) and size / _ORDER <= theirs <= size * _ORDER
    ]
    return min(near, key=lambda other: abs(other.line - at(number.line)), default=None)


def _said_once(number: Number, found: list[Number]) -> bool:
    """Whether a number the source repeats close by (the same paragraph, or within
    :data:`_REPEAT` lines) is one the translation has for the other occurrence: two sentences
    that say the same year, joined into one, say it once."""
    return any(
        other.values[0] == number.values[0] and (other.node == number.node or abs(other.line - number.line) <= _REPEAT)
        for other in found
        if not other.in_math
    )


def _reassign(
    s_numbers: list[Number],
    t_numbers: list[Number],
    holding: dict[str, list[int]],
    owner: dict[int, int],
    t_used: dict[int, frozenset[str]],
    everything: frozenset[str],
) -> None:
    """Give a number left alone the translation's number another one took when that one can
    take another (the source's "10 million" and "1000 objects" for ja's "1000 万" and "1000 個")."""
    for i, number in enumerate(s_numbers):
        if i in owner or number.in_math:
            continue
        for j in (j for v in number.values for j in holding.get(v, ())):
            other = next((k for k, taken in owner.items() if taken == j and not s_numbers[k].tab), None)
            free = [
                f for v in s_numbers[other].values for f in holding.get(v, ()) if f not in t_used
            ] if other is not None else []  # fmt: skip
            if other is not None and free and not number.tab:
                owner[other], owner[i] = free[0], j
                t_used[free[0]] = everything
                break


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
    pairs = pair_formulas(mine.formulas, theirs.formulas, places)
    pairs = as_text_elsewhere(pairs, src_items, tgt_items)
    pairs = within_others(pairs, mine.formulas, theirs.formulas, places, mine.broken, _labelled_keys(source))
    pairs = pair_nearby(pairs, places)
    pairs, damaged = broken_dollars(lang, name, source, translation, pairs, places)
    pairs = shapes_said(pairs, theirs.formulas, places)
    pairs = said_once(arguments_left_out(pairs), mine.formulas, places)
    numbers = check_numbers(lang, name, source, translation, mine.numbers, theirs.numbers, places, alignment.at)
    line_of = anchored(pairs, mine.formulas, places)
    out = damaged + check_math(lang, name, source, translation, pairs, places, line_of, _lost(pairs, mine))
    out += numbers
    out += check_labelled_math(lang, name, source, translation)
    return out
