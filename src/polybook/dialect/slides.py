"""d2lbook's slide marks: ``[**…**]``/``(**…**)`` (book and slides), ``[~~…~~]``/``(~~…~~)`` (slides only).

d2lbook's slides builder takes the marked text out of the chapter; the book keeps the text
of ``**`` marks without the marks, and drops ``~~`` marks with their text. The document
model keeps the prose as written (the checker compares what the author wrote); the marks
are found here, by the parser (an unclosed or overlapping mark is a warning) and by the
renderer (:func:`strip_slide_marks`). Code spans are never searched, and ``[**a**](url)``
is a link with bold text, not a mark -- as in d2lbook.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: (opening, closing) of each kind of mark, in d2lbook's order.
PAIRS = (("[**", "**]"), ("(**", "**)"), ("[~~", "~~]"), ("(~~", "~~)"))
_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SlideMark:
    """One pair of marks: ``start``/``end`` are the offsets of its text (marks excluded)."""

    opening: str
    closing: str
    start: int
    end: int

    @property
    def slides_only(self) -> bool:
        return self.opening.endswith("~~")


@dataclass(frozen=True, slots=True)
class MarkProblem:
    offset: int  # where in the text the problem is
    message: str


def _masked(text: str) -> str:
    """``text`` with code spans blanked out (same length), so marks inside them are not seen."""
    return _CODE_RE.sub(lambda m: " " * len(m[0]), text)


def _positions(text: str, needle: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(needle), text)]


def find_slide_marks(text: str) -> tuple[list[SlideMark], list[MarkProblem]]:
    """The slide marks of a piece of prose, in order, and what is wrong with them."""
    masked = _masked(text)
    marks: list[SlideMark] = []
    problems: list[MarkProblem] = []
    for opening, closing in PAIRS:
        starts, ends = _positions(masked, opening), _positions(masked, closing)
        if opening.startswith("["):  # a link whose text is bold, [**a**](url), is no mark
            links = [e for e in ends if masked.startswith(closing + "(", e)]
            ends = [e for e in ends if e not in links]
            starts = [s for s in starts if not _opens_link(s, links, starts)]
        if len(starts) > len(ends):
            problems.append(MarkProblem(starts[len(ends)], f"slide mark {opening} is never closed with {closing}"))
            continue
        if len(ends) > len(starts):
            problems.append(MarkProblem(ends[len(starts)], f"slide mark {closing} closes no {opening}"))
            continue
        for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
            inner = s + len(opening)
            if inner > e or (i + 1 < len(starts) and e > starts[i + 1]):
                problems.append(MarkProblem(s, f"slide marks {opening}…{closing} overlap"))
                break
            marks.append(SlideMark(opening, closing, inner, e))
    marks.sort(key=lambda m: m.start)
    kept: list[SlideMark] = []
    for mark in marks:
        if kept and mark.start - len(mark.opening) < kept[-1].end + len(kept[-1].closing):
            other = kept[-1]
            message = f"slide marks {other.opening}…{other.closing} and {mark.opening}…{mark.closing} overlap"
            problems.append(MarkProblem(mark.start - len(mark.opening), message))
            continue
        kept.append(mark)
    return kept, problems


def _opens_link(start: int, link_ends: list[int], starts: list[int]) -> bool:
    """Whether the ``[**`` at ``start`` is the one a link's ``**](`` closes: the last opening
    before that closing."""
    for end in link_ends:
        before = [s for s in starts if s < end]
        if before and before[-1] == start:
            return True
    return False


def strip_slide_marks(text: str) -> str:
    """The text as the book shows it: ``**`` marks removed, ``~~`` marks removed with their
    text (its line breaks too: a blank line left there would end the paragraph or list
    item). Malformed marks are left as written (the parser reported them)."""
    marks, _ = find_slide_marks(text)
    if not marks:
        return text
    out: list[str] = []
    pos = 0
    for mark in marks:
        out.append(text[pos : mark.start - len(mark.opening)])
        inner = text[mark.start : mark.end]
        out.append("" if mark.slides_only else inner)
        pos = mark.end + len(mark.closing)
    out.append(text[pos:])
    return "".join(out)
