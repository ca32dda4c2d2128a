"""Math and numbers of a chapter, paired by content over the whole chapter.

Translators join and split paragraphs, and the segments between anchors can pair badly; a
formula compared segment by segment was then "missing" in one place and "extra" in the next.
Here every formula of the source chapter is paired with the translation's: first the equal
ones in order (a longest matching), then equal ones out of order (a sentence a translation
reorders), then, between the ordered pairs, similar ones (a formula really changed). What is
left is really absent or really added. Numbers are paired the same way, by value.

Math inside a text tab for frameworks the translation does not offer (zh's paddle text) is
not compared, and math that is only a number (``$10.000$``) is compared as a number.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from polybook.check.align import align
from polybook.check.findings import Finding, Location
from polybook.check.segments import Item, by_identity
from polybook.check.tex import SMALL, as_plain, normalize_tex, numbers_of, plain_text, pure_number
from polybook.diagnostics import Code
from polybook.dialect.nodes import Block, DisplayMath, Document, Figure, Heading, Paragraph

_RATIO = 0.6  # a formula at least this similar (by characters) to the source's is the same one, changed
_PIECES = 4  # a formula the translation splits into up to this many (``$c_i, u_i$`` -> ``$c_i$, $u_i$``)


@dataclass(frozen=True, slots=True)
class Formula:
    key: str  # as compared (:func:`normalize_tex`)
    tex: str  # as written
    line: int
    node: int  # the first line of the paragraph (or other node) holding it


@dataclass(frozen=True, slots=True)
class Number:
    values: tuple[str, ...]  # as written, and scaled (``110 million``)
    line: int
    node: int


class Places:
    """Where something of a source paragraph belongs in the translation: the paragraph holding
    the counterparts of its other formulas and numbers, else what the segments say."""

    def __init__(self, place: Callable[[int], int]) -> None:
        self.place = place
        self.nodes: dict[int, int] = {}  # source node line -> translation node line

    def pair(self, source_node: int, target_node: int) -> None:
        self.nodes.setdefault(source_node, target_node)

    def __call__(self, source_node: int, source_line: int) -> int:
        return self.nodes.get(source_node) or self.place(source_line)


def prose_text(item: Item) -> str:
    """The prose of a node whose numbers count (paragraphs, lists, headings, captions)."""
    node = item.node
    if isinstance(node, Paragraph) or (isinstance(node, Block) and node.kind != "html"):
        return node.source
    if isinstance(node, Heading):
        return node.text
    if isinstance(node, Figure):
        return node.caption
    return ""


def shown(item: Item, common: frozenset[str]) -> bool:
    """Whether a node is shown for a framework both chapters offer (not in a paddle-only tab)."""
    return item.tab is None or not common or bool(common.intersection(item.tab))


@by_identity
def contents(items: list[Item], common: frozenset[str]) -> tuple[list[Formula], list[Number]]:
    """The formulas (inline and unlabelled display math) and the numbers of the prose, in order."""
    formulas: list[Formula] = []
    numbers: list[Number] = []
    for item in items:
        if not shown(item, common):
            continue
        node = item.node
        found = []
        if isinstance(node, DisplayMath) and not node.label:
            found.append((node.tex, node.line))
        found += [(i.value, i.line or node.line) for i in getattr(node, "inlines", ()) if i.kind == "math"]
        for tex, line in found:
            key = normalize_tex(tex)
            value = pure_number(key)
            if value is not None:
                numbers.append(Number((value,), line, node.line))
            elif key:
                formulas.append(Formula(key, tex, line, node.line))
        numbers += [Number(v, node.line + offset, node.line) for v, offset in numbers_of(prose_text(item))]
    return formulas, numbers


def pair_by_content(
    source: Sequence[str], target: Sequence[str]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Index pairs of equal keys: those in order (a longest matching), then the rest of each key
    paired in document order (moved). So a key is unpaired only on the side that has it more often."""
    matcher = SequenceMatcher(None, source, target, autojunk=False)
    ordered = [(a + k, b + k) for a, b, size in matcher.get_matching_blocks() for k in range(size)]
    s_used, t_used = {a for a, _ in ordered}, {b for _, b in ordered}
    waiting: dict[str, list[int]] = {}
    for j, key in enumerate(target):
        if j not in t_used:
            waiting.setdefault(key, []).append(j)
    moved = []
    for i, key in enumerate(source):
        if i not in s_used and waiting.get(key):
            moved.append((i, waiting[key].pop(0)))
    return ordered, moved


@functools.lru_cache(maxsize=65536)
def tex_ratio(a: str, b: str) -> float:
    """Similarity of two formulas by their characters (quick bounds first: most pairs differ)."""
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < _RATIO or matcher.quick_ratio() < _RATIO:
        return 0.0
    return matcher.ratio()


def as_text_elsewhere(
    pairs: list[tuple[Formula | None, Formula | None]], src_items: list[Item], tgt_items: list[Item]
) -> list[tuple[Formula | None, Formula | None]]:
    """``pairs`` without the simple formulas the other side writes as plain text (the source's
    "the x and y axes" for a translation's ``$x$`` and ``$y$``), as many times as it does so."""
    items = {"source": src_items, "translation": tgt_items}
    plain: dict[str, str] = {}
    left: dict[tuple[str, str], int] = {}  # (side, pattern) -> plain occurrences not used yet
    out = []
    for s, t in pairs:
        lone, side = (s, "translation") if t is None else (t, "source") if s is None else (None, "")
        pattern = as_plain(lone.tex) if lone is not None else None
        if pattern is not None:
            if side not in plain:
                plain[side] = "\n".join(plain_text(prose_text(item)) for item in items[side])
            key = (side, pattern.pattern)
            left.setdefault(key, len(pattern.findall(plain[side])))
            if left[key] > 0:
                left[key] -= 1
                continue
        out.append((s, t))
    return out


def pair_formulas(
    source: list[Formula], target: list[Formula], places: Places
) -> list[tuple[Formula | None, Formula | None]]:
    """Every formula of both sides once: ``(s, t)`` changed, ``(s, None)`` missing,
    ``(None, t)`` extra. Equal formulas, in order or moved, are not listed (but tell
    ``places`` where their paragraphs went)."""
    ordered, moved = pair_by_content([f.key for f in source], [f.key for f in target])
    for a, b in ordered + moved:
        places.pair(source[a].node, target[b].node)
    s_left = sorted(set(range(len(source))) - {a for a, _ in ordered} - {a for a, _ in moved})
    t_left = sorted(set(range(len(target))) - {b for _, b in ordered} - {b for _, b in moved})
    s_kept, t_kept = _without_splits(source, target, s_left, t_left, places)
    s_left, t_left = set(s_kept), set(t_kept)
    out: list[tuple[Formula | None, Formula | None]] = []
    bounds = [(-1, -1), *ordered, (len(source), len(target))]
    for (s0, t0), (s1, t1) in itertools.pairwise(bounds):
        s_gap = [i for i in range(s0 + 1, s1) if i in s_left]
        t_gap = [j for j in range(t0 + 1, t1) if j in t_left]
        if not s_gap or not t_gap:
            out += [(source[i], None) for i in s_gap] + [(None, target[j]) for j in t_gap]
            continue
        for pair in align([source[i].key for i in s_gap], [target[j].key for j in t_gap], tex_ratio, _RATIO):
            s = source[s_gap[pair.source]] if pair.source is not None else None
            t = target[t_gap[pair.target]] if pair.target is not None else None
            if s is not None and t is not None:
                places.pair(s.node, t.node)
            out.append((s, t))
    return out


def _pieces(key: str, formulas: list[Formula], gap: list[int]) -> tuple[int, int] | None:
    """``(start, end)`` of a run of ``gap`` (2 to :data:`_PIECES` formulas) that joined by
    commas is ``key``."""
    for start in range(len(gap)):
        joined = formulas[gap[start]].key
        for end in range(start + 1, min(len(gap), start + _PIECES)):
            joined += "," + formulas[gap[end]].key
            if joined == key:
                return start, end + 1
            if len(joined) >= len(key):
                break
    return None


def _without_splits(
    source: list[Formula], target: list[Formula], s_gap: list[int], t_gap: list[int], places: Places
) -> tuple[list[int], list[int]]:
    """The unpaired formulas without those one side splits and the other joins: ``$c_i, u_i$``
    is ``$c_i$`` and ``$u_i$`` when the pieces follow each other (in either direction)."""
    for i in list(s_gap):
        found = _pieces(source[i].key, target, t_gap)
        if found:
            places.pair(source[i].node, target[t_gap[found[0]]].node)
            s_gap.remove(i)
            del t_gap[found[0] : found[1]]
    for j in list(t_gap):
        found = _pieces(target[j].key, source, s_gap)
        if found:
            places.pair(source[s_gap[found[0]]].node, target[j].node)
            t_gap.remove(j)
            del s_gap[found[0] : found[1]]
    return s_gap, t_gap


def check_math(
    lang: str,
    chapter: str,
    source: Document,
    target: Document,
    pairs: list[tuple[Formula | None, Formula | None]],
    places: Places,
) -> list[Finding]:
    """math.changed, math.missing and math.extra of the paired formulas."""
    out = []
    for s, t in pairs:
        if s is not None and t is not None:
            out.append(Finding.make(
                Code.MATH_CHANGED, f"math ${t.tex}$ differs from the source's ${s.tex}$", lang, chapter,
                Location(target.path, t.line), source=Location(source.path, s.line), diff=((t.tex, s.tex),),
                subject=(t.key, s.key),
            ))  # fmt: skip
        elif s is not None:
            out.append(Finding.make(
                Code.MATH_MISSING, f"math ${s.tex}$ of the source is missing here", lang, chapter,
                Location(target.path, places(s.node, s.line)), source=Location(source.path, s.line),
                diff=(("", s.tex),), subject=("", s.key),
            ))  # fmt: skip
        elif t is not None:
            out.append(Finding.make(
                Code.MATH_EXTRA, f"math ${t.tex}$ is not in the source", lang, chapter,
                Location(target.path, t.line), diff=((t.tex, ""),), subject=(t.key, ""),
            ))  # fmt: skip
    return out


def check_numbers(
    lang: str,
    chapter: str,
    source: Document,
    target: Document,
    s_numbers: list[Number],
    t_numbers: list[Number],
    places: Places,
) -> list[Finding]:
    """numbers.missing: a number of the source's text (above :data:`SMALL`) that the translation's
    text or math has fewer times. Each occurrence is paired with the nearest unpaired one of the
    same value, so a sentence moved to another paragraph keeps its numbers."""
    wanted = [n for n in s_numbers if any(float(v) > SMALL for v in n.values)]
    waiting: dict[str, list[int]] = {}
    for j, number in enumerate(t_numbers):
        for value in number.values:
            waiting.setdefault(value, []).append(j)
    used: set[int] = set()
    s_end, t_end = max([n.line for n in s_numbers] or [1]), max([n.line for n in t_numbers] or [1])
    missing = []
    for number in wanted:
        at = number.line / s_end
        options = [j for v in number.values for j in waiting.get(v, ()) if j not in used]
        if options:
            best = min(options, key=lambda j: abs(t_numbers[j].line / t_end - at))
            used.add(best)
            places.pair(number.node, t_numbers[best].node)
        else:
            missing.append(number)
    out: list[Finding] = []
    reported: set[tuple[str, int]] = set()  # a number missing twice from one paragraph is one finding
    for number in missing:
        value, where = number.values[0], places(number.node, number.line)
        if (value, where) in reported:
            continue
        reported.add((value, where))
        out.append(Finding.make(
            Code.NUMBERS_MISSING, f"the number {value} of the source's text is missing here", lang, chapter,
            Location(target.path, where), source=Location(source.path, number.line),
            diff=(("", value),), subject=("", f"{value}#{sum(v == value for v, _ in reported)}"),
        ))  # fmt: skip
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


def check_math_numbers(
    lang: str,
    chapter: str,
    source: Document,
    target: Document,
    src_items: list[Item],
    tgt_items: list[Item],
    common: frozenset[str],
    place: Callable[[int], int],
) -> list[Finding]:
    """Every math and number finding of one chapter."""
    s_formulas, s_numbers = contents(src_items, common)
    t_formulas, t_numbers = contents(tgt_items, common)
    places = Places(place)
    pairs = as_text_elsewhere(pair_formulas(s_formulas, t_formulas, places), src_items, tgt_items)
    numbers = check_numbers(lang, chapter, source, target, s_numbers, t_numbers, places)
    out = check_math(lang, chapter, source, target, pairs, places)
    out += numbers
    out += check_labelled_math(lang, chapter, source, target)
    return out
