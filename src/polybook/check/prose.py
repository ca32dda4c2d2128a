"""Prose checks: text tabs per segment, headings and whole sections.

Math and numbers are paired over the whole chapter (:mod:`polybook.check.math_numbers`).
"""

from __future__ import annotations

import re
from collections import Counter
from fnmatch import fnmatchcase

from polybook.check.code import CellMatch
from polybook.check.findings import Finding, Location
from polybook.check.segments import Alignment, Item, Segment, prose_text
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, Document, Heading, Paragraph, TextTab

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]*)\)")


def _first_line(segment: Segment) -> int:
    return segment.items[0].node.line if segment.items else segment.line


def check_texttabs(
    lang: str,
    chapter: str,
    src: Segment,
    tgt: Segment,
    source: Document,
    target: Document,
    common: frozenset[str],
    localised: tuple[str, ...] = (),
) -> list[Finding]:
    """The text tabs of a segment pair, for the frameworks both chapters offer: a tab for
    zh's paddle, or for a framework a translation does not offer, is coverage, not drift; a tab
    holding only links each language has its own of (``localised``) is the links' business."""
    s_tabs = [(i.node, _within(i.node, common)) for i in src.items if _compared(i.node, localised)]
    t_tabs = [(i.node, _within(i.node, common)) for i in tgt.items if _compared(i.node, localised)]
    s_count = Counter(frameworks for _, frameworks in s_tabs if frameworks)
    t_count = Counter(frameworks for _, frameworks in t_tabs if frameworks)
    untabbed = [i.node for i in tgt.items if i.tab is None and prose_text(i) and not isinstance(i.node, Heading)]
    out = []
    for frameworks, n in (s_count - t_count).items():
        first = next(t for t, f in s_tabs if f == frameworks)
        names = ", ".join(frameworks)
        where = untabbed[0].line if untabbed else _first_line(tgt)
        shown = "; this translation shows its text here for every framework" if untabbed else ""
        out.append(Finding.make(
            Code.STRUCTURE_TEXTTAB,
            f"the source has {n} text tab(s) for [{names}] here (`:begin_tab:`{first.spec}``){shown}",
            lang, chapter, Location(target.path, where), source=Location(source.path, first.line),
            diff=(("untabbed" if untabbed else "", f":begin_tab:`{first.spec}`"),),
            subject=(" ".join(prose_text(Item(u, None)) for u in untabbed), names),
        ))  # fmt: skip
    for frameworks, n in (t_count - s_count).items():
        extra = next(t for t, f in t_tabs if f == frameworks)
        out.append(Finding.make(
            Code.STRUCTURE_TEXTTAB, f"{n} text tab(s) for [{', '.join(frameworks)}] here are not in the source",
            lang, chapter, Location(target.path, extra.line), source=Location(source.path, _first_line(src)),
            diff=((f":begin_tab:`{extra.spec}`", ""),), subject=(", ".join(frameworks), ""),
        ))  # fmt: skip
    return out


def _compared(node: object, localised: tuple[str, ...]) -> bool:
    """A text tab, but one whose paragraphs are only localised links (d2l's discussion links)."""
    if not isinstance(node, TextTab):
        return False
    if not localised or not node.children:
        return True
    return not all(isinstance(child, Paragraph) and not _LINK.sub(
        lambda m: "" if any(fnmatchcase(m[1], p) for p in localised) else m[0], child.source
    ).strip() for child in node.children)  # fmt: skip


def _within(tab: TextTab, common: frozenset[str]) -> tuple[str, ...]:
    """A tab's frameworks that both chapters offer (all of them when nothing is known)."""
    return tuple(f for f in tab.frameworks if not common or f in common)


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
