"""Prose checks per segment: math, numbers, text tabs, headings and whole sections."""

from __future__ import annotations

import functools
import re
from collections import Counter

from polybook.check.align import align, char_ratio
from polybook.check.code import CellMatch
from polybook.check.findings import Finding, Location
from polybook.check.segments import Alignment, Item, Segment
from polybook.diagnostics import Code
from polybook.dialect.nodes import Block, CodeCell, DisplayMath, Document, Figure, Heading, Paragraph, TextTab

TEXT_CMD = re.compile(r"(\\(?:text|textrm|textit|textbf|mbox)\s*\{)([^{}]*)\}")  # groups: command, words
_NOT_PROSE = re.compile(
    r"`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|:[\w-]+:`[^`]*`|<[^>]*>|https?://\S+|\[[^\]]*\]\[[^\]]*\]", re.S
)
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.,])(\d{1,3}(?:[.,\u00a0\u202f]\d{3})+|\d+(?:[.,]\d+)?)(?![A-Za-z0-9_])")
_SMALL = 12  # numbers up to this are too common to compare ("two", "3 steps")


def normalize_tex(tex: str) -> str:
    """Math as compared: words inside ``\\text{}`` dropped, all whitespace removed."""
    return "".join(TEXT_CMD.sub(r"\\text{}", tex).split())


def number_value(raw: str) -> str:
    """``60.000``, ``60,000`` and ``60000`` are one number; ``0,5`` is ``0.5``."""
    if re.fullmatch(r"\d{1,3}(?:[.,\u00a0\u202f]\d{3})+", raw):
        return re.sub(r"\D", "", raw)
    return raw.replace(",", ".")


def _prose_text(item: Item) -> str:
    node = item.node
    if isinstance(node, Paragraph) or (isinstance(node, Block) and node.kind != "html"):
        return node.source
    if isinstance(node, Heading):
        return node.text
    if isinstance(node, Figure):
        return node.caption
    return ""


def numbers_in(items: list[Item]) -> dict[str, int]:
    """Numbers of the prose (code, math, links and roles left out) -> the first line with it."""
    found: dict[str, int] = {}
    for item in items:
        for value, offset in _numbers_of(_prose_text(item)):
            if value not in found:
                found[value] = item.node.line + offset
    return found


@functools.lru_cache(maxsize=65536)
def _numbers_of(prose: str) -> tuple[tuple[str, int], ...]:
    """(value, line offset) of the numbers above ``_SMALL`` in a piece of prose (memoised: a
    source paragraph is read once for every translation)."""
    # what is left out keeps its line breaks, so a number's line can be counted
    text = _NOT_PROSE.sub(lambda m: " " + "\n" * m[0].count("\n"), prose)
    out = []
    for m in _NUMBER.finditer(text):
        value = number_value(m.group(1))
        if float(value) > _SMALL:
            out.append((value, text.count("\n", 0, m.start())))
    return tuple(out)


def maths_in(items: list[Item]) -> list[tuple[str, str, int]]:
    """``(normalised, raw, line)`` of inline and unlabelled display math."""
    out = []
    for item in items:
        node = item.node
        if isinstance(node, DisplayMath) and not node.label:
            out.append((normalize_tex(node.tex), node.tex, node.line))
        for inline in getattr(node, "inlines", []):
            if inline.kind == "math":
                out.append((normalize_tex(inline.value), inline.value, inline.line or node.line))
    return out


def check_labelled_math(lang: str, chapter: str, source: Document, target: Document) -> list[Finding]:
    """Labelled equations, paired by label (they are segment anchors, so no segment holds them).

    A label on one side only is ``ref.label``'s business.
    """
    t_math = {n.label: n for n in target.walk() if isinstance(n, DisplayMath) and n.label}
    out = []
    for s in source.walk():
        t = t_math.get(s.label) if isinstance(s, DisplayMath) and s.label else None
        if t is None or normalize_tex(t.tex) == normalize_tex(s.tex):
            continue
        out.append(Finding.make(
            Code.MATH_CHANGED, f"equation {s.label!r} $${t.tex}$$ differs from the source's $${s.tex}$$", lang,
            chapter, Location(target.path, t.line), source=Location(source.path, s.line), diff=((t.tex, s.tex),),
            subject=(normalize_tex(t.tex), normalize_tex(s.tex)),
        ))  # fmt: skip
    return out


def _first_line(segment: Segment) -> int:
    return segment.items[0].node.line if segment.items else segment.line


def check_segment(
    lang: str, chapter: str, src: Segment, tgt: Segment, source: Document, target: Document
) -> list[Finding]:
    out: list[Finding] = []
    here = Location(target.path, _first_line(tgt))
    # math: language-neutral, so compared item by item
    s_math, t_math = maths_in(src.items), maths_in(tgt.items)
    for pair in align([m[0] for m in s_math], [m[0] for m in t_math], char_ratio, 0.5):
        s = s_math[pair.source] if pair.source is not None else None
        t = t_math[pair.target] if pair.target is not None else None
        if pair.kind == "similar" and s and t:
            out.append(Finding.make(
                Code.MATH_CHANGED, f"math ${t[1]}$ differs from the source's ${s[1]}$", lang, chapter,
                Location(target.path, t[2]), source=Location(source.path, s[2]), diff=((t[1], s[1]),),
                subject=(t[0], s[0]),
            ))  # fmt: skip
        elif pair.kind == "missing" and s:
            out.append(Finding.make(
                Code.MATH_MISSING, f"math ${s[1]}$ of the source is missing here", lang, chapter, here,
                source=Location(source.path, s[2]), diff=(("", s[1]),), subject=("", s[0]),
            ))  # fmt: skip
        elif pair.kind == "extra" and t:
            out.append(Finding.make(
                Code.MATH_EXTRA, f"math ${t[1]}$ is not in the source here", lang, chapter,
                Location(target.path, t[2]), diff=((t[1], ""),), subject=(t[0], ""),
            ))  # fmt: skip
    # numbers: those of the source's prose must appear in the translation's segment
    t_numbers = set(numbers_in(tgt.items))
    for value, line in numbers_in(src.items).items():
        if value not in t_numbers:
            t_text = " ".join(_prose_text(i) for i in tgt.items)
            out.append(Finding.make(
                Code.NUMBERS_MISSING, f"the number {value} of the source's text is missing here", lang, chapter,
                here, source=Location(source.path, line), diff=(("", value),), subject=(t_text, value),
            ))  # fmt: skip
    out.extend(_check_tabs(lang, chapter, src, tgt, source, target))
    return out


def _check_tabs(
    lang: str, chapter: str, src: Segment, tgt: Segment, source: Document, target: Document
) -> list[Finding]:
    s_tabs = [i.node for i in src.items if isinstance(i.node, TextTab)]
    t_tabs = [i.node for i in tgt.items if isinstance(i.node, TextTab)]
    s_count, t_count = Counter(t.frameworks for t in s_tabs), Counter(t.frameworks for t in t_tabs)
    untabbed = [i.node for i in tgt.items if i.tab is None and _prose_text(i) and not isinstance(i.node, Heading)]
    out = []
    for frameworks, n in (s_count - t_count).items():
        first = next(t for t in s_tabs if t.frameworks == frameworks)
        names = ", ".join(frameworks)
        where = untabbed[0].line if untabbed else _first_line(tgt)
        shown = "; this translation shows its text here for every framework" if untabbed else ""
        out.append(Finding.make(
            Code.STRUCTURE_TEXTTAB,
            f"the source has {n} text tab(s) for [{names}] here (`:begin_tab:`{first.spec}``){shown}",
            lang, chapter, Location(target.path, where), source=Location(source.path, first.line),
            diff=(("untabbed" if untabbed else "", f":begin_tab:`{first.spec}`"),),
            subject=(" ".join(_prose_text(Item(u, None)) for u in untabbed), names),
        ))  # fmt: skip
    for frameworks, n in (t_count - s_count).items():
        extra = next(t for t in t_tabs if t.frameworks == frameworks)
        out.append(Finding.make(
            Code.STRUCTURE_TEXTTAB, f"{n} text tab(s) for [{', '.join(frameworks)}] here are not in the source",
            lang, chapter, Location(target.path, extra.line), source=Location(source.path, _first_line(src)),
            diff=((f":begin_tab:`{extra.spec}`", ""),), subject=(", ".join(frameworks), ""),
        ))  # fmt: skip
    return out


def section_spans(items: list[Item], cells_kept: set[int]) -> list[tuple[Heading, list[Item]]]:
    """Sections (heading + everything below it) whose code cells all lack a counterpart."""
    out = []
    for k, item in enumerate(items):
        if not isinstance(item.node, Heading):
            continue
        level = item.node.level
        end = next(
            (
                j
                for j in range(k + 1, len(items))
                if isinstance(items[j].node, Heading) and items[j].node.level <= level
            ),
            len(items),
        )
        body = items[k + 1 : end]
        cells = [i.node for i in body if isinstance(i.node, CodeCell)]
        if cells and not any(id(c) in cells_kept for c in cells):
            out.append((item.node, body))
    return out


def check_sections(
    lang: str,
    chapter: str,
    alignment: Alignment,
    source: Document,
    target: Document,
    match: CellMatch,
    src_items: list[Item],
    tgt_items: list[Item],
) -> list[Finding]:
    out = []
    skip: set[int] = set()
    for heading, body in section_spans(tgt_items, set(match.target_to_source)):
        n = sum(isinstance(i.node, CodeCell) for i in body)
        out.append(Finding.make(
            Code.STRUCTURE_SECTION, f"section {heading.text!r} ({n} cell(s)) is not in the source", lang, chapter,
            Location(target.path, heading.line), diff=((heading.text, ""),), subject=(heading.text, ""),
        ))  # fmt: skip
        skip |= {id(heading)} | {id(i.node) for i in body}
    for heading, body in section_spans(src_items, set(match.source_to_target)):
        n = sum(isinstance(i.node, CodeCell) for i in body)
        out.append(Finding.make(
            Code.STRUCTURE_SECTION, f"section {heading.text!r} of the source ({n} cell(s)) is missing here",
            lang, chapter, Location(target.path, alignment.place(heading.line)),
            source=Location(source.path, heading.line),
            diff=(("", heading.text),), subject=("", heading.text),
        ))  # fmt: skip
        skip |= {id(heading)} | {id(i.node) for i in body}
    for src, tgt in alignment.pairs:
        s_heads = [i.node for i in src.items if isinstance(i.node, Heading) and id(i.node) not in skip]
        t_heads = [i.node for i in tgt.items if isinstance(i.node, Heading) and id(i.node) not in skip]
        if len(s_heads) != len(t_heads):
            out.append(Finding.make(
                Code.STRUCTURE_HEADING,
                f"{len(t_heads)} heading(s) here where the source has {len(s_heads)}",
                lang, chapter, Location(target.path, t_heads[0].line if t_heads else _first_line(tgt)),
                source=Location(source.path, s_heads[0].line if s_heads else _first_line(src)),
                diff=((" | ".join(h.text for h in t_heads), " | ".join(h.text for h in s_heads)),),
                subject=(" | ".join(h.text for h in t_heads), " | ".join(h.text for h in s_heads)),
            ))  # fmt: skip
            continue
        for s, t in zip(s_heads, t_heads, strict=True):
            if s.level != t.level:
                out.append(Finding.make(
                    Code.STRUCTURE_HEADING, f"heading level {t.level} here, {s.level} in the source", lang, chapter,
                    Location(target.path, t.line), source=Location(source.path, s.line),
                    diff=(("#" * t.level, "#" * s.level),), subject=(t.text, s.text),
                ))  # fmt: skip
    return out
