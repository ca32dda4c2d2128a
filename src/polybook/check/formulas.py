"""How the formulas of a chapter and of its translation pair, over the whole chapter.

Translators join and split paragraphs, and the segments between anchors can pair badly; a
formula compared segment by segment was then "missing" in one place and "extra" in the next.
Here every formula of the source chapter is paired with the translation's: first the equal
ones in order (a longest matching), then equal ones out of order (a sentence a translation
reorders), then, between the ordered pairs, similar ones (a formula really changed). What is
left is really absent or really added -- but for what a translation says its own way: a
formula split in two or joined, said once for every framework's text tab, written as plain
text, or said in parts.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from typing import NamedTuple

from cydifflib import SequenceMatcher  # difflib's, compiled: the same results (see pyproject.toml)

from polybook.check.align import align, one_to_one
from polybook.check.segments import Item, by_identity, prose_text
from polybook.check.tex import as_plain, plain_text, without_parens

_RATIO = 0.6  # a formula at least this similar (by characters) to the source's is the same one, changed
_IN = re.compile(r"\\in(?![A-Za-z])")
_TEXT = re.compile(r"\\text\{\}")
_AROUND_TEXT = re.compile(r"[,.;:]?\\text\{\}[,.;:]?")  # words and the punctuation around them
_PIECES = 4  # a formula the translation splits into up to this many (``$c_i, u_i$`` -> ``$c_i$, $u_i$``)
_WINDOW = 6  # lines around a paragraph where what it says may have gone
# a product of single letters: ``c\cdot h``, ``h \times w`` (the same as ``hw``)
_DOT = re.compile(r"(?<![\\A-Za-z])([A-Za-z])\\(?:cdot|times) ?(?=[A-Za-z](?![A-Za-z]))")
_SYMBOL_NEAR = 6  # lines: a symbol said further than this from its paragraph's place does not move it
SYMBOL = re.compile(r"(?:\\[A-Za-z]+ ?)?[A-Za-z](?:_[A-Za-z0-9])?")  # ``$k$``, ``$x_i$``, ``$\mathbf B$``


class Formula(NamedTuple):
    """One piece of math as compared. (A named tuple: made for every formula of every chapter,
    faster than a frozen dataclass, and as immutable and comparable.)"""

    key: str  # as compared (:func:`normalize_tex`)
    tex: str  # as written
    line: int
    node: int  # the first line of the paragraph (or other node) holding it
    tab: frozenset[str] | None = None  # the frameworks of the text tab holding it (None: all)
    body: int = 0  # a display's: the line its tex starts on, when not ``line`` (``$$`` alone above it)


class Places:
    """Where something of a source paragraph belongs in the translation: the paragraph holding
    the counterparts of its other formulas and numbers, else what the segments say."""

    def __init__(self, place: Callable[[int], int]) -> None:
        self.place = place
        self.nodes: dict[int, int] = {}  # source node line -> translation node line
        self.placed: dict[int, int] = {}  # what the segments say, asked once per node
        self.equal: dict[int, Formula] = {}  # source formula (its index) -> the translation's equal one

    def pair(self, source_node: int, target_node: int) -> None:
        self.nodes.setdefault(source_node, target_node)

    def __call__(self, source_node: int, source_line: int = 0) -> int:
        found = self.nodes.get(source_node)
        if found is None:
            found = self.placed.get(source_node) or self.placed.setdefault(source_node, self.place(source_node))
        return found


def pair_by_content(
    source: Sequence[str], target: Sequence[str], apart: Callable[[int, int], float] | None = None
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Index pairs of equal keys: those in order (a longest matching), then the rest of each key
    (moved) by :func:`pair_nearest` (without ``apart``, in document order). So a key is unpaired
    only on the side that has it more often, and where it is had fewer times: ``$i$`` said twice
    in a paragraph and once in the translation's is missing there, not in a paragraph further on
    that the matching skipped."""
    if source == target:  # (most chapters: what the matching would find, at once)
        return [(k, k) for k in range(len(source))], []
    matcher = SequenceMatcher(None, source, target, autojunk=False)
    ordered = [(a + k, b + k) for a, b, size in matcher.get_matching_blocks() for k in range(size)]
    return ordered, pair_nearest(source, target, apart, {a for a, _ in ordered}, {b for _, b in ordered})


def pair_nearest(
    source: Sequence[str],
    target: Sequence[str],
    apart: Callable[[int, int], float] | None,
    s_used: Collection[int] = (),
    t_used: Collection[int] = (),
) -> list[tuple[int, int]]:
    """Index pairs of equal keys (but those ``*_used``), the nearest first by ``apart`` (how far
    the source's ``i`` belongs from the target's ``j``; None: each source's in document order
    takes the first target's left)."""
    waiting: dict[str, list[int]] = {}
    for j, key in enumerate(target):
        if j not in t_used:
            waiting.setdefault(key, []).append(j)
    options = sorted(
        (apart(i, j) if apart is not None else 0.0, i, j)
        for i, key in enumerate(source)
        if i not in s_used
        for j in waiting.get(key, ())
    )
    return sorted(one_to_one(options).items())


@functools.lru_cache(maxsize=65536)
def tex_ratio(a: str, b: str) -> float:
    """Similarity of two formulas by their characters (quick bounds first: most pairs differ).
    Long formulas get a tenth more: sharing half of thirty characters is one formula changed
    (``\\frac{dy}{dx}`` written ``\\frac{\\partial y}{\\partial x}``), of four it is not."""
    bonus = 0.1 if min(len(a), len(b)) >= 20 else 0.0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() + bonus < _RATIO or matcher.quick_ratio() + bonus < _RATIO:
        return 0.0
    return matcher.ratio() + bonus


def _pieces_of(key: str) -> list[str]:
    """The comma-separated parts of a formula (``(x_a,y_a),(x_b,y_b)``: both points)."""
    if "," not in key:
        return [without_parens(key)]  # (most: one part, not read character by character)
    parts, depth, start = [], 0, 0
    for k, char in enumerate(key):
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            parts.append(key[start:k])
            start = k + 1
    return [without_parens(part) for part in (*parts, key[start:])]


@functools.lru_cache(maxsize=65536)
def sides(key: str) -> tuple[str, ...]:
    """The parts of a formula: its comma-separated pieces, the two sides of a membership
    (``\\lambda\\in[0,1]``), what ``\\text{where}`` separates."""
    return tuple(side for piece in _pieces_of(key) for part in _TEXT.split(piece) for side in _IN.split(part) if side)


class _Around:
    """The formulas' keys and parts by paragraph, asked for a paragraph and its neighbours (a
    translator moves a clause to the next sentence, or the next paragraph)."""

    def __init__(self, formulas: Callable[[], list[tuple[int, str]]], window: int = _WINDOW) -> None:
        self.window = window
        self.formulas = formulas  # asked for when first needed: most chapters have nothing left to look for
        self.parts: dict[int, set[str]] = {}
        self.keys: dict[int, list[str]] = {}
        self.nodes: list[int] | None = None
        self._parts_near: dict[int, set[str]] = {}  # (a paragraph's, asked for each of its formulas)

    def _near(self, node: int) -> list[int]:
        if self.nodes is None:
            for at, key in self.formulas():
                self.parts.setdefault(at, set()).update([key, *sides(key)])
                self.keys.setdefault(at, []).append(key)
            self.nodes = sorted(self.parts)
        first = bisect.bisect_left(self.nodes, node - self.window)
        last = bisect.bisect_right(self.nodes, node + self.window)
        return self.nodes[first:last]

    def parts_near(self, node: int) -> set[str]:
        """(shared: never mutate)"""
        found = self._parts_near.get(node)
        if found is None:
            found = self._parts_near[node] = set().union(*(self.parts[n] for n in self._near(node)))
        return found

    def keys_near(self, node: int) -> list[str]:
        return [key for n in self._near(node) for key in self.keys[n]]


def within_others(
    pairs: list[tuple[Formula | None, Formula | None]],
    source: list[Formula],
    target: list[Formula],
    places: Places,
    broken: Sequence[int] = (),
    labelled: frozenset[str] = frozenset(),
) -> list[tuple[Formula | None, Formula | None]]:
    """``pairs`` without what the other side has where it belongs (that paragraph or the next
    few lines), said its own way: as a part of a formula (``$(x_a, y_a), (x_b, y_b)$`` for two,
    ``$[0, 1]$`` 中的 ``$\\lambda$`` for ``$\\lambda \\in [0, 1]$``, ``$X\\mid Y$`` out of
    ``$P(X \\mid Y)$``), or with its arguments (``$\\alpha(x, x_i)$`` for ``$\\alpha$``). No
    extra math either for a formula or symbol the source uses elsewhere (``$k$``), in a
    paragraph whose source has broken math (``broken``: its paragraphs' lines, the source's
    problem), or for an equation the source labels (``labelled``: a missing label is
    ``ref.label``'s business)."""
    if not pairs:
        return pairs
    theirs = _Around(lambda: [(t.node, t.key) for t in target])
    mine = _Around(lambda: [(places(s.node, s.line), s.key) for s in source])
    everywhere = {s.key for s in source} | labelled
    symbols = "\n".join(everywhere)  # a symbol the source's math uses (``x`` of ``f(x)``)
    unsure = {places(node, node) for node in broken}
    unpaired = {s.key for s, t in pairs if s is not None and t is None}
    out = []
    for s, t in pairs:
        if (
            s is not None
            and t is not None
            and not SYMBOL.fullmatch(t.key)
            and t.key not in sides(s.key)
            and t.key in mine.parts_near(t.node)
            and t.key not in mine.keys_near(t.node)  # (a formula of the source swapped in is this one changed)
        ):
            t = None  # a part of another source formula there (``a_i`` of ``a_i \in R^k``), not this one changed
        if s is not None and _said_otherwise(s.key, theirs.parts_near(places(s.node, s.line)), t):
            if t is None or s.key in t.key or _said_otherwise(t.key, mine.parts_near(t.node), None):
                continue  # (a translation's formula holding the source's whole, ``\text{ if } P \neq Q`` added)
            s = None  # the source's said by its parts nearby: the translation's other formula stands alone
        if s is not None and _applied(s.key, [t.key] if t is not None else theirs.keys_near(places(s.node, s.line))):
            continue  # "modeled by $\alpha$" said as "$\alpha(x, x_i)$"
        if t is not None and s is not None and _said_otherwise(t.key, mine.parts_near(t.node), s):
            continue  # the translation joined formulas of the paragraph (``$f^* \\in \\mathcal{F}$``)
        if t is not None and s is None:
            if t.key in everywhere or t.node in unsure or (SYMBOL.fullmatch(t.key) and t.key in symbols):
                continue
            near = mine.parts_near(t.node)
            if _said_otherwise(t.key, near, None) or any(
                t.key in key for key in mine.keys_near(t.node) if len(t.key) >= 3 and key not in unpaired
            ):
                continue  # (a part of a missing formula, ``$O(m)$`` of ``$\mathcal{O}(m)$``, is it changed)
        out.append((s, t))
    return out


def shapes_said(
    pairs: list[tuple[Formula | None, Formula | None]], target: list[Formula], places: Places
) -> list[tuple[Formula | None, Formula | None]]:
    """``pairs`` without the missing shapes of symbols (``$h \\times w$``) the translation says
    by their symbols where they belong ("$h$ and $w$"); after the paragraphs whose ``$`` do not
    pair were read, for there such a shape may be the formula that lost its ``$``."""
    theirs = _Around(lambda: [(t.node, t.key) for t in target])
    return [
        (s, t)
        for s, t in pairs
        if not (s is not None and t is None and _factors_said(s.key, theirs.parts_near(places(s.node, s.line))))
    ]


def _applied(key: str, there: list[str]) -> bool:
    """Whether a symbol (``\\alpha``, ``f``) is said there applied to its arguments
    (``\\alpha(x,x_i)``): the function, named with what it takes."""
    return bool(SYMBOL.fullmatch(key)) and any(k.startswith(key + "(") for k in there)


def _factors_said(key: str, there: set[str]) -> bool:
    """Whether a shape of symbols (``h\\times w``) is said by its symbols there, one by one."""
    factors = [factor.strip() for factor in key.split("\\times")]
    return len(factors) > 1 and all(SYMBOL.fullmatch(f) and f in there for f in factors)


def _said_otherwise(key: str, there: set[str], other: Formula | None) -> bool:
    """Whether ``key`` is in ``there`` (when unpaired), or all its parts are, with the formula
    it was paired with (a formula split or joined differently)."""
    here = there | {other.key} if other is not None else there
    return (other is None and key in here) or (len(parts := sides(key)) > 1 and set(parts) <= here)


@by_identity  # the source's, for every language
def _plain(items: list[Item]) -> str:
    """The plain text (:func:`~polybook.check.tex.plain_text`) of a chapter's nodes."""
    return "\n".join(plain_text(prose_text(item)) for item in items)


def as_text_elsewhere(
    pairs: list[tuple[Formula | None, Formula | None]], src_items: list[Item], tgt_items: list[Item]
) -> list[tuple[Formula | None, Formula | None]]:
    """``pairs`` without the simple formulas the other side writes as plain text (the source's
    "the x and y axes" for a translation's ``$x$`` and ``$y$``), as many times as it does so."""
    items = {"source": src_items, "translation": tgt_items}
    left: dict[tuple[str, str], int] = {}  # (side, pattern) -> plain occurrences not used yet
    out = []
    for s, t in pairs:
        lone, side = (s, "translation") if t is None else (t, "source") if s is None else (None, "")
        pattern = as_plain(lone.tex) if lone is not None else None
        if pattern is not None:
            key = (side, pattern.pattern)
            if key not in left:
                left[key] = len(pattern.findall(_plain(items[side])))
            if left[key] > 0:
                left[key] -= 1
                continue
        out.append((s, t))
    return out


@functools.lru_cache(maxsize=65536)
def matching(key: str) -> str:
    """What pairs formulas as equal: the key, but for a formula with words (``\\text{}``) its
    characters in any order, for a language puts the words and symbols in its own order (tr:
    ``P(x\\text{'ye}\\;\\epsilon\\text{-ebatlı…})`` for ``P(\\text{…}\\;\\epsilon\\text{…}\\;x)``); a product
    of single letters is the same with or without its ``\\cdot`` or ``\\times`` (memoised: a source formula is
    paired with every translation's)."""
    key = _DOT.sub(r"\1", key)  # ``c\cdot h\cdot w`` and ``c \times h \times w`` are ``chw``
    if "\\text{}" not in key:
        return key
    return "\\text{}" + "".join(sorted(_AROUND_TEXT.sub("", key).replace(" ", "")))


@by_identity  # the source's, for every language
def _matchings(formulas: list[Formula]) -> list[str]:
    """The formulas' keys as paired (:func:`matching`)."""
    return [matching(f.key) for f in formulas]


def pair_formulas(
    source: list[Formula], target: list[Formula], places: Places
) -> list[tuple[Formula | None, Formula | None]]:
    """Every formula of both sides once: ``(s, t)`` changed, ``(s, None)`` missing,
    ``(None, t)`` extra. Equal formulas, in order or moved, are not listed (but tell
    ``places`` where their paragraphs went)."""
    ordered, moved = pair_by_content(
        _matchings(source),
        [matching(f.key) for f in target],
        lambda i, j: abs(places(source[i].node, source[i].line) - target[j].node),
    )
    for a, b in ordered + moved:
        places.equal[a] = target[b]
        node = source[a].node
        if node in places.nodes:
            continue  # (its paragraph is placed: pairing it again changes nothing, nor is its place asked)
        if SYMBOL.fullmatch(source[a].key) and abs(places(node) - target[b].node) > _SYMBOL_NEAR:
            continue  # a symbol said far from where the paragraph went (``$n_w$`` again in the summary)
        places.pair(node, target[b].node)
    if len(ordered) + len(moved) == len(source) == len(target):
        return []  # (most chapters: every formula paired, each once)
    s_left = sorted(set(range(len(source))) - {a for a, _ in ordered} - {a for a, _ in moved})
    t_left = sorted(set(range(len(target))) - {b for _, b in ordered} - {b for _, b in moved})
    s_kept, t_kept = _without_splits(source, target, s_left, t_left, places)
    s_left = set(s_kept) - _tab_copies(source, s_kept, [a for a, _ in ordered + moved])
    t_left = set(t_kept) - _tab_copies(target, t_kept, [b for _, b in ordered + moved])
    out: list[tuple[Formula | None, Formula | None]] = []
    if not s_left and not t_left:
        return out  # (most chapters: every formula paired)
    bounds = [(-1, -1), *ordered, (len(source), len(target))]
    for (s0, t0), (s1, t1) in itertools.pairwise(bounds):
        if s1 - s0 == 1 and t1 - t0 == 1:
            continue  # nothing between two formulas paired in order
        s_gap = [i for i in range(s0 + 1, s1) if i in s_left]
        t_gap = [j for j in range(t0 + 1, t1) if j in t_left]
        if not s_gap or not t_gap:
            out += [(source[i], None) for i in s_gap] + [(None, target[j]) for j in t_gap]
            continue
        if len(s_gap) == 1 and len(t_gap) == 1 and places(source[s_gap[0]].node) == target[t_gap[0]].node:
            out.append((source[s_gap[0]], target[t_gap[0]]))  # one formula, changed where it stands
            continue
        for pair in align([source[i].key for i in s_gap], [target[j].key for j in t_gap], tex_ratio, _RATIO):
            s = source[s_gap[pair.source]] if pair.source is not None else None
            t = target[t_gap[pair.target]] if pair.target is not None else None
            if s is not None and t is not None:
                places.pair(s.node, t.node)
            out.append((s, t))
    return out


def _tab_copies(formulas: list[Formula], left: list[int], paired: list[int]) -> set[int]:
    """The unpaired formulas that repeat a paired one in a text tab for other frameworks: the
    source says it for mxnet and for pytorch, the translation once for both (or the reverse)."""
    if not left:
        return set()
    tabs: dict[str, list[frozenset[str]]] = {}
    for i in paired:
        if formulas[i].tab is not None:
            tabs.setdefault(formulas[i].key, []).append(formulas[i].tab)
    return {
        i
        for i in left
        if (tab := formulas[i].tab) is not None and any(not tab & other for other in tabs.get(formulas[i].key, ()))
    }


def _pieces(key: str, formulas: list[Formula], gap: list[int]) -> tuple[int, int] | None:
    """``(start, end)`` of a run of ``gap`` (2 to :data:`_PIECES` formulas) that joined by
    commas is ``key`` (or ``key`` without its parentheses: ``$(x, y)$`` is ``$x$`` and ``$y$``)."""
    if key.startswith("(") and key.endswith(")") and len(_pieces_of(key[1:-1])) > 1 and "(" not in key[1:-1]:
        key = key[1:-1]
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
