"""numbers.missing: the numbers of a chapter's text against its translation's, paired over the
whole chapter (:func:`check_numbers`); :mod:`polybook.check.math_numbers` reads them out of
the documents with their formulas and calls it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple

from polybook.check.findings import Finding, Location
from polybook.check.formulas import Places
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document

_REPEAT = 5  # lines: the same number said again this close may be said once in a translation
_ORDER = 10  # a number the translation says instead of the source's is within this factor of it
_YEAR = re.compile(r"1[89]\d\d|20\d\d")
_NEXT = 8  # lines from where a number belongs to another paragraph that may say one instead of it


class Number(NamedTuple):
    """A number of a chapter's text or math (a named tuple, as :class:`~polybook.check.formulas.Formula`)."""

    values: tuple[str, ...]  # as written, and scaled (``110 million``)
    line: int
    node: int
    in_math: bool = False  # a formula's (``$t_1 + 1000 t_2$``): never missing, but it may be the one found
    tab: frozenset[str] | None = None


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
    owner, t_used = _paired(s_numbers, t_numbers, holding, at, everything, places)
    _reassign(s_numbers, t_numbers, holding, owner, t_used, everything)
    for i, j in owner.items():
        places.pair(s_numbers[i].node, t_numbers[j].node)
    left = _left_out(s_numbers, t_numbers, owner, t_used, places, at)
    return _told(lang, name, source, translation, left)


def _paired(
    s_numbers: list[Number],
    t_numbers: list[Number],
    holding: dict[str, list[int]],
    at: Callable[[int], float],
    everything: frozenset[str],
    places: Places,
) -> tuple[dict[int, int], dict[int, frozenset[str]]]:
    """Each source number's counterpart (source number -> the translation's it pairs with), the
    best pairs first (:func:`check_numbers` says which are), and the frameworks each of the
    translation's numbers serves: once per framework, as text tabs repeat a number. A number
    where the source's belongs pairs before one further away, tabs or not: the source's "256" of
    the prose would otherwise take the pytorch tab's, 8 lines up, when the prose's says 258."""
    options = []
    for i, number in enumerate(s_numbers):
        where: tuple[int, float] | None = None  # (its paragraph's place, where its line falls): asked once
        for rank, value in enumerate(number.values):
            for j in holding.get(value, ()):
                other = t_numbers[j]
                if (number.in_math and not other.in_math) or not _tabs_meet(number, other):
                    continue
                if where is None:
                    where = (places(number.node, number.line), at(number.line))
                apart = abs(other.line - where[1])
                options.append((
                    number.in_math != other.in_math,
                    other.in_math,
                    # where the source's belongs: in the paragraph holding its counterpart, or close by
                    not (other.node == where[0] or apart <= _REPEAT),
                    number.tab is not None,  # a number said in every framework's tab may share one said once
                    rank,
                    apart,
                    i,
                    j,
                ))  # fmt: skip
    options.sort()
    owner: dict[int, int] = {}  # source number -> the translation's it pairs with
    t_used: dict[int, frozenset[str]] = {}  # the frameworks a translation's number served so far
    for *_, i, j in options:
        serves = s_numbers[i].tab or everything
        if i not in owner and not (t_used.get(j, frozenset()) & serves):
            owner[i] = j
            t_used[j] = t_used.get(j, frozenset()) | serves  # once per framework: text tabs repeat
    return owner, t_used


def _tabs_meet(number: Number, other: Number) -> bool:
    """Whether two numbers may be one: not when each stands in text tabs of other frameworks
    (the pytorch tab's "256" is not the mxnet tab's)."""
    return number.tab is None or other.tab is None or bool(number.tab & other.tab)


def _left_out(
    s_numbers: list[Number],
    t_numbers: list[Number],
    owner: dict[int, int],
    t_used: dict[int, frozenset[str]],
    places: Places,
    at: Callable[[int], float],
) -> list[_Left]:
    """The source's numbers of the text that pair with none of the translation's, once a
    paragraph (a number missing twice from one paragraph is one finding), each with the number
    its paragraph says instead, if one is left free."""
    unpaired = [n for j, n in enumerate(t_numbers) if j not in t_used and not n.in_math]
    missing = [  # (a number said once for two is none, unless another is said where it belongs: 301 for 300)
        number
        for i, number in enumerate(s_numbers)
        if i not in owner
        and not number.in_math
        and (
            not _said_once(number, [s_numbers[k] for k in owner])
            or _instead(number, places(number.node, number.line), unpaired, at) is not None
        )
    ]
    reported: set[tuple[str, int]] = set()
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
    return found


def _told(lang: str, name: str, source: Document, translation: Document, found: list[_Left]) -> list[Finding]:
    """The findings of the numbers left out: each alone, or with the number said instead.

    A paragraph that says other numbers instead of some of the source's was rewritten with
    other figures (zh's alexnet: Ampere's 312 TFlops for Volta's 120 and 24): its numbers that
    have no counterpart are told with those, not as left untranslated."""
    out: list[Finding] = []
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
        out.append(Finding.make(
            Code.NUMBERS_MISSING,
            f"the source's text says {said} where this says {other.values[0]}: write the source's "
            f"number{'s' * (len(values) > 1)}, unless the translation changes {'them' if len(values) > 1 else 'it'} "
            "on purpose", lang, name,
            Location(translation.path, other.line), source=Location(source.path, number.line),
            diff=((other.values[0], ", ".join(values)),), subject=subject,
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
    alike = [other for other in free if (theirs := _size(other)) and size / _ORDER <= theirs <= size * _ORDER]
    near = [other for other in alike if other.node == where]
    if not near:  # the paragraph's counterpart read a few lines off (a translation splits paragraphs)
        near = [other for other in alike if abs(other.node - where) <= _NEXT and _one_digit_apart(number, other)]
    return min(near, key=lambda other: abs(other.line - at(number.line)), default=None)


def _one_digit_apart(number: Number, other: Number) -> bool:
    """Whether two numbers written in digits differ by one digit changed, added or dropped
    (256 and 257, 32 and 132): one written for the other, not another figure."""
    a, b = number.values[0], other.values[0]
    if _YEAR.fullmatch(a) or _YEAR.fullmatch(b):
        return False  # a year near another is most often another event (2010's big data, 2012's AlexNet)
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return len(long) == len(short) + 1 and any(long[:k] + long[k + 1 :] == short for k in range(len(long)))


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
