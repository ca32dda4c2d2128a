"""Prose checks: text tabs per segment, headings and whole sections.

Math and numbers are paired over the whole chapter (:mod:`polybook.check.math_numbers`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from polybook.check.findings import Finding, Location
from polybook.check.regroup import CellMatch
from polybook.check.segments import Alignment, Item, Segment, by_identity, prose_text
from polybook.diagnostics import Code, Level
from polybook.dialect.builder import HASH_HEADING_RE
from polybook.dialect.nodes import CodeCell, Document, Heading, Paragraph, TextTab

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]*)\)")


def _first_line(segment: Segment) -> int:
    return segment.items[0].node.line if segment.items else segment.line


def check_texttabs(
    lang: str,
    name: str,
    alignment: Alignment,
    source: Document,
    translation: Document,
    common: frozenset[str],
    localised: tuple[str, ...] = (),
    offered: tuple[str, ...] = (),
) -> list[Finding]:
    """The text tabs of the chapter, for the frameworks both chapters offer (and the source
    language has, ``offered``): a tab for zh's paddle, or for a framework a translation does not
    offer, is coverage, not drift; a tab holding only links each language has its own of
    (``localised``) is the links' business.

    Counted over the whole chapter, then told where they differ: a translation that moves a
    section (and its tabs) elsewhere has lost no tab. One finding per place, however many
    frameworks' tabs it lacks, at the untabbed text nearest to where the source's tab belongs.
    """
    common = common or frozenset(source.frameworks) & frozenset(translation.frameworks)  # no cells: the languages'
    common = common & frozenset(offered) if offered else common
    segments = [
        (src, tgt, _tabs(src, common, localised), _tabs(tgt, common, localised)) for src, tgt in alignment.pairs
    ]
    lacking, added = _unmatched([(s_tabs, t_tabs) for _, _, s_tabs, t_tabs in segments])
    out = []
    for k, (src, tgt, s_tabs, t_tabs) in enumerate(segments):
        if k not in lacking and k not in added:
            continue  # (most segments: nothing of theirs to tell)
        missing, extra = _instances(s_tabs, t_tabs, lacking.get(k, []), added.get(k, []), alignment.place)
        if missing:
            out.append(_missing_tabs(lang, name, alignment, source, translation, tgt, missing))
        if extra and _specialised([t for t, _ in t_tabs], src, common):
            continue  # one text for every framework in the source, one for each here: every reader has one
        if extra:
            names = ", ".join(dict.fromkeys(f"[{', '.join(tab.frameworks)}]" for tab in extra))
            out.append(Finding.make(
                Code.STRUCTURE_TEXTTAB,
                f"text tab(s) for {names} here are not in the source: remove them, or keep one text without "
                "`:begin_tab:` and `:end_tab:` where the source has it for every framework",
                lang, name, Location(translation.path, extra[0].line),
                source=Location(source.path, _first_line(src)),
                diff=((" ".join(f":begin_tab:`{t.spec}`" for t in extra), ""),), subject=(names, ""),
            ))  # fmt: skip
    return out


def _specialised(tabs: list[TextTab], src: Segment, common: frozenset[str]) -> bool:
    """Whether the translation's tabs give every framework its own text where the source has one
    for all (zh writes ``arange`` for mxnet and ``range`` for tensorflow)."""
    covered = {f for tab in tabs for f in tab.frameworks}
    untabbed = any(i.tab is None and prose_text(i) and not isinstance(i.node, Heading) for i in src.items)
    return untabbed and bool(common) and common <= covered


def _instances(
    s_tabs: list[tuple[TextTab, tuple]],
    t_tabs: list[tuple[TextTab, tuple]],
    lacking: list[tuple],
    added: list[tuple],
    place: Callable[[int], int],
) -> tuple[list[TextTab], list[TextTab]]:
    """Which of a segment's tabs are the ones the other side lacks: each framework's tabs pair
    with the other side's nearest to where they belong; the farthest are left."""
    missing: list[TextTab] = []
    extra: list[TextTab] = []
    for f in dict.fromkeys([*lacking, *added]):
        mine = [t for t, g in s_tabs if g == f]
        theirs = [t for t, g in t_tabs if g == f]
        options = sorted((abs(place(s.line) - t.line), i, j) for i, s in enumerate(mine) for j, t in enumerate(theirs))
        s_used: set[int] = set()
        t_used: set[int] = set()
        for _, i, j in options:
            if i not in s_used and j not in t_used:
                s_used.add(i)
                t_used.add(j)
        missing += [tab for i, tab in enumerate(mine) if i not in s_used][: lacking.count(f)]
        extra += [tab for j, tab in enumerate(theirs) if j not in t_used][: added.count(f)]
    return _once(missing), _once(extra)


def _once(tabs: list[TextTab]) -> list[TextTab]:
    """Each tab once (one for several frameworks is found once per framework), in line order."""
    return sorted({id(tab): tab for tab in tabs}.values(), key=lambda tab: tab.line)


def _unmatched(segments: list[tuple[list, list]]) -> tuple[dict[int, list[tuple]], dict[int, list[tuple]]]:
    """Per segment, the frameworks of the source's tabs the translation lacks and of the
    translation's the source lacks -- once a segment's surplus has made up for the nearest
    segment's lack (segments a translator rearranged pair one off)."""
    lacks: dict[tuple, list[int]] = {}
    extras: dict[tuple, list[int]] = {}
    for k, (s_tabs, t_tabs) in enumerate(segments):
        if not s_tabs and not t_tabs:
            continue
        s_count, t_count = Counter(f for _, f in s_tabs if f), Counter(f for _, f in t_tabs if f)
        for f, n in (s_count - t_count).items():
            lacks.setdefault(f, []).extend([k] * n)
        for f, n in (t_count - s_count).items():
            extras.setdefault(f, []).extend([k] * n)
    lacking: dict[int, list[tuple]] = {}
    added: dict[int, list[tuple]] = {}
    for f in dict.fromkeys([*lacks, *extras]):
        short, more = list(lacks.get(f, [])), list(extras.get(f, []))
        for k, j in sorted(((k, j) for k in short for j in more), key=lambda kj: abs(kj[0] - kj[1])):
            if k in short and j in more:
                short.remove(k)
                more.remove(j)
        for k in short:
            lacking.setdefault(k, []).append(f)
        for j in more:
            added.setdefault(j, []).append(f)
    return lacking, added


def _tabs(segment: Segment, common: frozenset[str], localised: tuple[str, ...]) -> list[tuple[TextTab, tuple]]:
    """``(tab, (framework,))`` for every framework each tab of the segment is for: what a reader
    of each framework sees is compared (``[mxnet, pytorch]`` is ``[mxnet]`` and ``[pytorch]``)."""
    return [
        (i.node, (f,))
        for i in segment.items
        if isinstance(i.node, TextTab) and _compared(i.node, localised)
        for f in _within(i.node, common)
    ]


def _missing_tabs(
    lang: str,
    name: str,
    alignment: Alignment,
    source: Document,
    translation: Document,
    tgt: Segment,
    missing: list[TextTab],
) -> Finding:
    """One finding for the source's text tabs a segment of the translation lacks: at the
    untabbed text nearest to where the first belongs (that text is shown for every framework)."""
    first = missing[0]
    untabbed = [i.node for i in tgt.items if i.tab is None and prose_text(i) and not isinstance(i.node, Heading)]
    placed = alignment.at(first.line)  # between the anchors around it, in proportion
    where = min((u.line for u in untabbed), key=lambda line: abs(line - placed), default=alignment.place(first.line))
    specs = " and ".join(dict.fromkeys(f"`:begin_tab:`{tab.spec}``" for tab in missing))
    names = ", ".join(dict.fromkeys(f"[{', '.join(tab.frameworks)}]" for tab in missing))
    glued = next((u for u in untabbed if _GLUED_TAB.match(getattr(u, "source", ""))), None)
    if glued is not None:  # ``:begin_tab:`mxnet` Isso é…``: the directive is read as text, with the words after it
        where = glued.line
        todo = "this translation writes `:begin_tab:` with its text on the same line, which reads as text: put the "
        todo += f"directive on a line of its own, as the source's {specs}"
    elif untabbed and len(dict.fromkeys(tab.spec for tab in missing)) > 1:  # one text here for the source's several
        todo = (
            f"this translation shows its text here for every framework: put it in the tab of the framework it speaks "
            f"of, and translate the source's other tabs, each in its {specs}"
        )
    elif untabbed:
        todo = f"this translation shows its text here for every framework: put each framework's text in its {specs}"
    else:
        todo = f"translate it here, in {specs}"
    return Finding.make(
        Code.STRUCTURE_TEXTTAB,
        f"the source has text tab(s) for {names} here; {todo} … `:end_tab:`",
        lang,
        name,
        Location(translation.path, where),
        source=Location(source.path, first.line),
        diff=(("untabbed" if untabbed else "", specs),),
        subject=(" ".join(prose_text(Item(u, None)) for u in untabbed), names),
    )


#: A paragraph that begins with a text tab's directive and goes on on its line (read as text).
_GLUED_TAB = re.compile(r":(?:begin|end)_tab:(?:`[^`\n]*`)?[ \t]*\S")


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


@by_identity  # the source's, for every language
def _outline(items: list[Item]) -> list[tuple[int, Heading | CodeCell]]:
    """The headings and code cells among ``items``, with their index."""
    return [(k, item.node) for k, item in enumerate(items) if isinstance(item.node, (Heading, CodeCell))]


@dataclass(slots=True)
class _Section:
    """A section whose code cells all lack a counterpart: its heading, where what stands below
    it starts and stops among the items, its code cells and the headings of its subsections."""

    heading: Heading
    start: int
    stop: int
    cells: int
    headings: list[Heading]


def _sections_left(items: list[Item], cells_kept: set[int]) -> list[_Section]:
    """:func:`section_spans`, with what check_sections counts in them."""
    marks = _outline(items)
    ends: dict[int, int] = {}  # a heading's place in ``marks`` -> where its section ends (the next heading as high)
    open_: list[tuple[int, int]] = []  # (level, place) of the headings whose sections go on
    cells, kept = [0], [0]  # code cells, and cells with a counterpart, before each place
    for p, (_, node) in enumerate(marks):
        if isinstance(node, Heading):
            while open_ and open_[-1][0] >= node.level:
                ends[open_.pop()[1]] = p
            open_.append((node.level, p))
        is_cell = isinstance(node, CodeCell)
        cells.append(cells[-1] + is_cell)
        kept.append(kept[-1] + (is_cell and id(node) in cells_kept))
    out = []
    for p, (k, node) in enumerate(marks):
        if isinstance(node, Heading):
            end = ends.get(p, len(marks))
            if cells[end] > cells[p + 1] and kept[end] == kept[p + 1]:
                stop = marks[end][0] if end < len(marks) else len(items)
                below = [n for _, n in marks[p + 1 : end] if isinstance(n, Heading)]
                out.append(_Section(node, k + 1, stop, cells[end] - cells[p + 1], below))
    return out


def section_spans(items: list[Item], cells_kept: set[int]) -> list[tuple[Heading, list[Item]]]:
    """Sections (heading + everything below it) whose code cells all lack a counterpart."""
    return [(section.heading, items[section.start : section.stop]) for section in _sections_left(items, cells_kept)]


def _moved_across(heads: list[tuple[list[Heading], list[Heading]]]) -> set[int]:
    """The parts (by place) whose headings are the source's once a neighbour's are counted: a
    cell the translation moved from before a heading to after it (zh's ``mlp``) moves the
    heading into the next part between two cells; the headings are the same, in order."""
    out: set[int] = set()
    for k in range(len(heads) - 1):
        s1, t1 = heads[k]
        if len(s1) == len(t1):
            continue
        m = k + 1  # the next part with headings (parts between two cells in a row have none)
        while m < len(heads) - 1 and not heads[m][0] and not heads[m][1]:
            m += 1
        s2, t2 = heads[m]
        if [h.level for h in s1 + s2] == [h.level for h in t1 + t2]:
            out |= {k, m}
    return out


def _unspaced_heading(items: list[Item]) -> bool:
    """Whether a text line is written as a heading without the space Markdown needs."""
    for item in items:
        if isinstance(item.node, CodeCell):
            continue  # (``#@tab`` is code's)
        text = getattr(item.node, "source", None) or getattr(item.node, "text", None)
        if isinstance(text, str) and "#" in text and HASH_HEADING_RE.search(text):
            return True
    return False


def extra_section_lines(tgt_items: list[Item], match: CellMatch) -> list[tuple[int, int]]:
    """The first and last lines of the translation's sections that are not in the source (what
    ``structure.section`` says is to be removed, with all they hold)."""
    out = []
    for section in _sections_left(tgt_items, set(match.target_to_source)):
        held = tgt_items[section.start : section.stop]
        last = max((getattr(i.node, "end_line", 0) or i.node.line for i in held), default=section.heading.line)
        out.append((section.heading.line, last))
    return out


def check_sections(
    lang: str,
    name: str,
    alignment: Alignment,
    source: Document,
    translation: Document,
    match: CellMatch,
    src_items: list[Item],
    tgt_items: list[Item],
) -> list[Finding]:
    out = []
    skip: set[int] = set()
    for section in _sections_left(tgt_items, set(match.target_to_source)):
        heading, n = section.heading, section.cells
        out.append(Finding.make(
            Code.STRUCTURE_SECTION, f"section {heading.text!r} ({n} cell(s)) is not in the source: remove it, with "
            "all it holds, unless the translation adds it on purpose", lang, name,
            Location(translation.path, heading.line), diff=((heading.text, ""),), subject=(heading.text, ""),
        ))  # fmt: skip
        skip |= {id(heading)} | {id(h) for h in section.headings}  # (only headings are looked up)
    for section in _sections_left(src_items, set(match.source_to_target)):
        heading, n = section.heading, section.cells
        out.append(Finding.make(
            Code.STRUCTURE_SECTION, f"section {heading.text!r} of the source ({n} cell(s)) is missing here: "
            "translate it",
            lang, name, Location(translation.path, alignment.place(heading.line)),
            source=Location(source.path, heading.line),
            diff=(("", heading.text),), subject=("", heading.text),
            level=Level.ERROR if n else Level.WARNING,  # its cells are code readers lack; words, only untranslated
        ))  # fmt: skip
        skip |= {id(heading)} | {id(h) for h in section.headings}
    heads = [
        (
            [i.node for i in src.items if isinstance(i.node, Heading) and id(i.node) not in skip],
            [i.node for i in tgt.items if isinstance(i.node, Heading) and id(i.node) not in skip],
        )
        for src, tgt in alignment.pairs
    ]
    moved = _moved_across(heads)
    for k, (src, tgt) in enumerate(alignment.pairs):
        s_heads, t_heads = heads[k]
        if k in moved:
            continue  # (the same headings as the source's, one across a cell moved)
        if len(s_heads) != len(t_heads):
            if len(t_heads) < len(s_heads) and _unspaced_heading(tgt.items):
                continue  # ``##[**Her Şeyi…**]`` reads as text: heading.damaged says so, at it
            out.append(Finding.make(
                Code.STRUCTURE_HEADING,
                _heading_count_message(t_heads, s_heads),
                lang, name, Location(translation.path, t_heads[0].line if t_heads else _first_line(tgt)),
                source=Location(source.path, s_heads[0].line if s_heads else _first_line(src)),
                diff=((" | ".join(h.text for h in t_heads), " | ".join(h.text for h in s_heads)),),
                subject=(" | ".join(h.text for h in t_heads), " | ".join(h.text for h in s_heads)),
            ))  # fmt: skip
            continue
        for s, t in zip(s_heads, t_heads, strict=True):
            if s.level != t.level:
                out.append(Finding.make(
                    Code.STRUCTURE_HEADING,
                    f"heading level {t.level} here, {s.level} in the source: write it with {'#' * s.level}",
                    lang, name,
                    Location(translation.path, t.line), source=Location(source.path, s.line),
                    diff=(("#" * t.level, "#" * s.level),), subject=(t.text, s.text),
                ))  # fmt: skip
    return out


def _heading_count_message(here: list[Heading], there: list[Heading]) -> str:
    """Headings of a part that the source has more or fewer of: which, and where, so that the
    translator finds the part and writes the source's."""
    lines = f" (line{'s' * (len(here) > 1)} {', '.join(str(h.line) for h in here)})" if here else ""
    shown = "; ".join(f"{'#' * h.level} {h.text}, line {h.line}" for h in there[:_HEADINGS_SHOWN])
    shown = f" ({shown}{'; …' if len(there) > _HEADINGS_SHOWN else ''})" if there else ""
    fewer = len(here) < len(there)
    todo = "translate the source's headings missing here" if fewer else "remove the headings the source does not have"
    return f"{len(here)} heading(s) here{lines} where the source has {len(there)}{shown}: {todo}"


_HEADINGS_SHOWN = 4
