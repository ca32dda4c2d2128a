"""d2lbook's slide marks: ``[**…**]``/``(**…**)`` (book and slides), ``[~~…~~]``/``(~~…~~)`` (slides only).

d2lbook's slides builder takes the marked text out of the chapter; the book keeps the text
of ``**`` marks without the marks, and drops ``~~`` marks with their text. The document
model keeps the prose as written (the checker compares what the author wrote); the marks
are found here, by the parser (an unclosed or overlapping mark is a warning) and by the
renderer (:func:`strip_slide_marks`). Code spans are never searched, and ``[**a**](url)``
is a link with bold text, not a mark -- as in d2lbook.

As in d2lbook, a mark may run over several blocks of prose (a paragraph, display math, the
next paragraph) as long as no code cell comes between: :func:`run_marks` pairs the marks of
such a run of nodes and says what to take out of each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from polybook.dialect.nodes import Block, CodeCell, Figure, Heading, Node, Paragraph, TextTab

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


def has_marks(text: str) -> bool:
    """Whether ``text`` holds an opening or closing mark: without one there is nothing to find
    (most prose holds no ``**``, and bold text ``**a**`` is no mark)."""
    # the pairs written out: this runs on every block of prose, where a generator costs more
    if "**" in text and ("[**" in text or "**]" in text or "(**" in text or "**)" in text):
        return True
    return "~~" in text and ("[~~" in text or "~~]" in text or "(~~" in text or "~~)" in text)


def _masked(text: str) -> str:
    """``text`` with code spans blanked out (same length), so marks inside them are not seen."""
    if "`" not in text:
        return text
    return _CODE_RE.sub(lambda m: " " * len(m[0]), text)


def _positions(text: str, needle: str) -> list[int]:
    """Where ``needle`` is in ``text``, occurrences not overlapping."""
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def find_slide_marks(text: str, masked: str | None = None) -> tuple[list[SlideMark], list[MarkProblem]]:
    """The slide marks of a piece of prose, in order, and what is wrong with them;
    ``masked``: the text with its code spans blanked, when the caller has it."""
    masked = _masked(text) if masked is None else masked
    marks: list[SlideMark] = []
    problems: list[MarkProblem] = []
    for opening, closing in PAIRS:
        starts, ends = _positions(masked, opening), _positions(masked, closing)
        if opening.startswith("["):  # a link whose text is bold, [**a**](url), is no mark
            links = [e for e in ends if masked.startswith(closing + "(", e)]
            ends = [e for e in ends if e not in links]
            starts = [s for s in starts if not _opens_link(s, links, starts)]
        if len(starts) > len(ends):
            problems.append(
                MarkProblem(
                    starts[len(ends)], f"slide mark {opening} is never closed with {closing}: close it, or remove it"
                )
            )
            continue
        if len(ends) > len(starts):
            problems.append(
                MarkProblem(ends[len(starts)], f"slide mark {closing} closes no {opening}: open it, or remove it")
            )
            continue
        for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
            inner = s + len(opening)
            if inner > e or (i + 1 < len(starts) and e > starts[i + 1]):
                problems.append(
                    MarkProblem(s, f"slide marks {opening}…{closing} overlap: close each before the next opens")
                )
                break
            marks.append(SlideMark(opening, closing, inner, e))
    marks.sort(key=lambda m: m.start)
    kept: list[SlideMark] = []
    for mark in marks:
        if kept and mark.start - len(mark.opening) < kept[-1].end + len(kept[-1].closing):
            other = kept[-1]
            message = (
                f"slide marks {other.opening}…{other.closing} and {mark.opening}…{mark.closing} overlap: close the "
            )
            message += f"{other.closing} before the {mark.opening}"
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


@dataclass(frozen=True, slots=True)
class RunMarks:
    """The marks of a run of prose nodes: per node, the (start, end) ranges of its text the
    book does not show; the problems as (node index, offset in its text, message)."""

    cuts: list[list[tuple[int, int]]]
    problems: list[tuple[int, int, str]]


def run_marks(texts: list[str]) -> RunMarks:
    """Pair the marks of consecutive prose ``texts`` (blocks between two code cells)."""
    starts = _starts(texts)
    marks, problems = _run_found(texts)
    cuts: list[list[tuple[int, int]]] = [[] for _ in texts]
    for mark in marks:
        outer = (mark.start - len(mark.opening), mark.end + len(mark.closing))
        ranges = [outer] if mark.slides_only else [(outer[0], mark.start), (mark.end, outer[1])]
        for low, high in ranges:
            for index, start in enumerate(starts):
                end = start + len(texts[index])
                if low < end and high > start:
                    cuts[index].append((max(low, start) - start, min(high, end) - start))
    return RunMarks(cuts, _located(problems, starts))


def run_mark_problems(texts: list[str]) -> list[tuple[int, int, str]]:
    """:func:`run_marks`' problems, without working out what each text loses (the parser
    reports the problems; the renderer cuts): the 1.0 book's 3,031 runs with a mark were
    checked in 0.058 CPU-s, 0.035 so."""
    return _located(_run_found(texts)[1], _starts(texts))


def _starts(texts: list[str]) -> list[int]:
    """Where each text begins in the texts joined by a blank line."""
    starts, offset = [], 0
    for text in texts:
        starts.append(offset)
        offset += len(text) + 2
    return starts


def _run_found(texts: list[str]) -> tuple[list[SlideMark], list[MarkProblem]]:
    """The marks and problems of the texts joined by a blank line, code spans masked in each."""
    return find_slide_marks("\n\n".join(texts), "\n\n".join(_masked(text) for text in texts))


def _located(problems: list[MarkProblem], starts: list[int]) -> list[tuple[int, int, str]]:
    """Each problem as (the index of its text, its offset in that text, its message)."""
    located = []
    for problem in problems:
        index = max(i for i, start in enumerate(starts) if start <= problem.offset)
        located.append((index, problem.offset - starts[index], problem.message))
    return located


def cut(text: str, ranges: list[tuple[int, int]]) -> str:
    """``text`` without the character ranges ``ranges``."""
    out, pos = [], 0
    for start, end in sorted(ranges):
        out.append(text[pos:start])
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


def strip_slide_marks(text: str) -> str:
    """The text as the book shows it: ``**`` marks removed, ``~~`` marks removed with their
    text (its line breaks too: a blank line left there would end the paragraph or list
    item). Malformed marks are left as written (the parser reported them)."""
    if "**" not in text and "~~" not in text:  # no mark can be there (most prose): nothing to find
        return text
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


def prose_of(node: Node) -> str:
    """The prose of a node as written ("" for math, code and the like)."""
    if isinstance(node, Paragraph) or (isinstance(node, Block) and node.kind != "html"):
        return node.source
    if isinstance(node, Heading):
        return node.text
    if isinstance(node, Figure):
        return node.caption
    return ""


def prose_runs(nodes: list[Node]) -> Iterator[list[Node]]:
    """The nodes between two code cells, text tabs opened: d2lbook's markdown cells."""
    run: list[Node] = []
    for node in nodes:
        if isinstance(node, CodeCell):
            if run:
                yield run
            run = []
        elif isinstance(node, TextTab):
            for child in node.children:
                if isinstance(child, CodeCell):
                    if run:
                        yield run
                    run = []
                else:
                    run.append(child)
        else:
            run.append(node)
    if run:
        yield run


def shown_prose(nodes: list[Node]) -> dict[int, str]:
    """``id(node)`` -> the prose the book shows, for the nodes slide marks change."""
    out: dict[int, str] = {}
    for run in prose_runs(nodes):
        texts = [prose_of(node) for node in run]
        if not any("**" in text or "~~" in text for text in texts):
            continue
        marks = run_marks(texts)
        for node, text, ranges in zip(run, texts, marks.cuts, strict=True):
            if ranges:
                out[id(node)] = cut(text, ranges)
    return out
