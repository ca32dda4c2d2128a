"""Sequence alignment robust to inserted and removed items: exact, then similar.

A longest common subsequence pairs the most identical keys (cells whose normalised code is
equal); inside the gaps between them a small dynamic programme pairs the most similar
items in order, and what stays unpaired is missing (source only) or extra (translation
only). So one extra cell is one extra cell, never "every later cell changed".

Written by hand because difflib's SequenceMatcher, the stdlib's nearest tool, anchors on
the longest *contiguous* block: source A B C against A x B' C B C pairs the block "B C"
at the end and leaves the earlier A..C unpaired, which made ``polybook sync`` insert a
cell again on every run. The LCS pairs all three.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any, TypeVar

from cydifflib import SequenceMatcher  # difflib's, compiled: the same ratios (see pyproject.toml)

A = TypeVar("A")
B = TypeVar("B")


@dataclass(frozen=True, slots=True)
class Pair:
    source: int | None  # index into the source sequence
    target: int | None  # index into the translation sequence
    kind: str  # "equal", "similar", "missing" (source only) or "extra" (translation only)
    ratio: float = 1.0


_TOKEN_FLOOR = 0.3  # token_ratio's own cut: below it two texts are not alike at all


@lru_cache(maxsize=65536)
def token_ratio(a: str, b: str) -> float:
    """Similarity of two normalised code strings, by their tokens."""
    matcher = SequenceMatcher(None, a.split(), b.split(), autojunk=False)
    if matcher.real_quick_ratio() < _TOKEN_FLOOR or matcher.quick_ratio() < _TOKEN_FLOOR:
        return 0.0
    return matcher.ratio()


def char_ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def never(a: str, b: str) -> float:
    """No two different keys are alike: :func:`align` pairs equal keys only (its longest common
    subsequence), and what lies between them is missing, then extra."""
    return 0.0


@lru_cache(maxsize=16384)
def _tokens(text: str) -> tuple[str, ...]:
    """The text's words, split once for the sizes, the counts and the ratio (a text meets many)."""
    return tuple(text.split())


@lru_cache(maxsize=16384)
def _words(text: str) -> tuple[Counter[str], int]:
    words = _tokens(text)
    return Counter(words), len(words)


@lru_cache(maxsize=16384)
def _chars(text: str) -> tuple[Counter[str], int]:
    return Counter(text), len(text)


def _word_count(text: str) -> int:
    return len(_tokens(text))


def _bound(a: tuple[Counter[str], int], b: tuple[Counter[str], int]) -> float:
    """SequenceMatcher's ``quick_ratio`` -- an upper bound of its ratio -- from the items'
    counts kept per text: over the items both have (a set operation), each the fewer times,
    summed without a Python loop; not a diff."""
    (mine, n), (theirs, m) = a, b
    if n + m == 0:
        return 1.0
    both = mine.keys() & theirs.keys()
    return 2 * sum(map(min, map(mine.__getitem__, both), map(theirs.__getitem__, both))) / (n + m)


def _token_bound(a: str, b: str) -> float:
    return _bound(_words(a), _words(b))


def _char_bound(a: str, b: str) -> float:
    return _bound(_chars(a), _chars(b))


def _token_sizes(a: str, b: str) -> tuple[int, int]:
    return _word_count(a), _word_count(b)


def _char_sizes(a: str, b: str) -> tuple[int, int]:
    return len(a), len(b)


#: How far above the threshold the counts' bound may be and the longest common subsequence still
#: be asked for: it cuts most of the pairs that pass the first bound and are no pair, and is worth
#: its cost (a fifth of a ratio's) only there (bookmix: 1,174 of 1,355 such pairs cut).
_NEAR = 0.2


def _items(similarity: Callable[[str, str], float], text: str) -> Sequence[str]:
    return text.split() if similarity is token_ratio else text


@lru_cache(maxsize=4096)
def _masks(similarity: Callable[[str, str], float], text: str) -> tuple[dict[str, int], int]:
    """For each item of ``text``, the bits of the places it stands at; and the number of items."""
    masks: dict[str, int] = {}
    items = _items(similarity, text)
    for place, item in enumerate(items):
        masks[item] = masks.get(item, 0) | 1 << place
    return masks, len(items)


def _common_length(similarity: Callable[[str, str], float], a: str, b: str) -> int:
    """The length of a longest common subsequence of the two texts' items, a bit per item of
    ``b`` (the bit-parallel method of Allison and Dix, as Hyyrö writes it): ``a``'s length in
    steps of big-integer arithmetic, not the table's ``len(a) * len(b)``. By hand: difflib and
    the ecosystem's diff tools give blocks or edit scripts, not this bound."""
    masks, m = _masks(similarity, b)
    full = (1 << m) - 1
    row = full  # a 0 bit where a subsequence of a so far ends in b, its count is the length
    for item in _items(similarity, a):
        mine = row & masks.get(item, 0)
        row = ((row + mine) | (row - mine)) & full
    return m - row.bit_count()


#: Upper bounds of the similarities: a pair whose bound is below the threshold is no pair, and
#: its ratio -- a hundred times the cost on long paragraphs -- is never asked for.
_BOUNDS: dict[Callable[[str, str], float], Callable[[str, str], float]] = {
    token_ratio: _token_bound,
    char_ratio: _char_bound,
}
#: The sizes the bounds divide by: ``2 * min(n, m) / (n + m)`` bounds the bound itself
#: (``real_quick_ratio``) and costs nothing next to a sum over a text's distinct items.
_SIZES: dict[Callable[[str, str], float], Callable[[str, str], tuple[int, int]]] = {
    token_ratio: _token_sizes,
    char_ratio: _char_sizes,
}


def _score(similarity: Callable[[str, str], float], threshold: float, a: str, b: str) -> float:
    """``similarity(a, b)``, or 0.0 when an upper bound of it is below ``threshold`` (no pair)."""
    if similarity not in _BOUNDS:
        return similarity(a, b)
    return _bounded_score(similarity, threshold, a, b)


@lru_cache(maxsize=262144)
def _bounded_score(similarity: Callable[[str, str], float], threshold: float, a: str, b: str) -> float:
    """:func:`_score` of the similarities with known bounds (pure functions of the two texts),
    memoised: a source paragraph meets the same base paragraph once per translation."""
    bound = _BOUNDS[similarity]
    n, m = _SIZES[similarity](a, b)
    if n + m and 2 * min(n, m) / (n + m) < threshold:
        return 0.0
    quick = bound(a, b)
    if quick < threshold:
        return 0.0
    if n + m and quick < threshold + _NEAR and 2 * _common_length(similarity, a, b) / (n + m) < threshold:
        return 0.0  # the matcher's matches are a common subsequence: at most the longest one
    if similarity is token_ratio and threshold >= _TOKEN_FLOOR:
        # the bound is ``quick_ratio``, at least the threshold: token_ratio's own cut would pass
        return SequenceMatcher(None, _tokens(a), _tokens(b), autojunk=False).ratio()
    return similarity(a, b)


def align(
    source: Sequence[str],
    target: Sequence[str],
    similarity: Callable[[str, str], float] = token_ratio,
    threshold: float = 0.5,
) -> list[Pair]:
    """Align two key sequences; every index of both appears in exactly one pair. Memoised for
    the similarities that are pure functions of the two keys: the same base and source texts
    meet once per language, and the same segment once per place asked for."""
    if similarity in _PURE:
        return list(_aligned(tuple(source), tuple(target), similarity, threshold))
    return _align(source, target, similarity, threshold)


_PURE = frozenset({token_ratio, char_ratio, never})


@lru_cache(maxsize=4096)
def _aligned(
    source: tuple[str, ...], target: tuple[str, ...], similarity: Callable[[str, str], float], threshold: float
) -> tuple[Pair, ...]:
    return tuple(_align(source, target, similarity, threshold))


def _align(
    source: Sequence[str], target: Sequence[str], similarity: Callable[[str, str], float], threshold: float
) -> list[Pair]:
    pairs: list[Pair] = []
    anchors = [(-1, -1), *_common(source, target), (len(source), len(target))]
    for (s_prev, t_prev), (s_next, t_next) in pairwise(anchors):
        s0, t0 = s_prev + 1, t_prev + 1
        if s0 < s_next or t0 < t_next:
            pairs.extend(_pair_gap(source, target, s0, s_next, t0, t_next, similarity, threshold))
        if s_next < len(source):
            pairs.append(Pair(s_next, t_next, "equal"))
    return pairs


def _common(source: Sequence[str], target: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence (equal keys), earliest pairs preferred."""
    n, m = len(source), len(target)
    head = 0  # a common prefix and suffix need no table (the usual case: few changes)
    while head < min(n, m) and source[head] == target[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and source[n - 1 - tail] == target[m - 1 - tail]:
        tail += 1
    b = target[head : m - tail]
    # Only the source's keys the target has can pair: the others' rows of the table would copy
    # the row below them, and the walk below steps over such a row, so leaving them out changes
    # nothing (a target key the source lacks must stay: the walk prefers earlier source items).
    present = set(b)
    rows = [head + k for k, key in enumerate(source[head : n - tail]) if key in present]
    a = [source[k] for k in rows]
    # lcs[i][j]: the length of an LCS of a[i:] and b[j:].
    lcs = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        row, below, key = lcs[i], lcs[i + 1], a[i]
        for j in range(len(b) - 1, -1, -1):
            if key == b[j]:
                row[j] = below[j + 1] + 1
            else:  # the larger of the two, compared here: max() per cell was most of the table's cost
                down, right = below[j], row[j + 1]
                row[j] = down if down >= right else right
    middle = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j] and lcs[i][j] == lcs[i + 1][j + 1] + 1:
            middle.append((rows[i], head + j))
            i, j = i + 1, j + 1
        elif lcs[i + 1][j] >= lcs[i][j + 1]:
            i += 1
        else:
            j += 1
    prefix = [(k, k) for k in range(head)]
    suffix = [(n - tail + k, m - tail + k) for k in range(tail)]
    return [*prefix, *middle, *suffix]


def _ratios(
    source: Sequence[str], target: Sequence[str], similarity: Callable[[str, str], float], threshold: float
) -> list[list[float]]:
    """:func:`_score` of every pair of the gap; the pairs whose sizes alone rule them out (its
    first bound) told apart here, each text's size taken once, not asked for pair by pair."""
    if similarity not in _SIZES:
        return [[_score(similarity, threshold, a, b) for b in target] for a in source]
    size = _word_count if similarity is token_ratio else len
    t_sizes = [size(b) for b in target]
    out = []
    for a in source:
        n = size(a)
        out.append([
            0.0 if n + m and 2 * min(n, m) / (n + m) < threshold else _bounded_score(similarity, threshold, a, b)
            for b, m in zip(target, t_sizes, strict=True)
        ])  # fmt: skip
    return out


def _pair_gap(
    source: Sequence[str],
    target: Sequence[str],
    s0: int,
    s1: int,
    t0: int,
    t1: int,
    similarity: Callable[[str, str], float],
    threshold: float,
) -> list[Pair]:
    n, m = s1 - s0, t1 - t0
    if similarity is never and threshold > 0:  # nothing pairs: what the DP below finds, without its n * m steps
        return [Pair(s0 + i, None, "missing", 0.0) for i in range(n)] + [
            Pair(None, t0 + j, "extra", 0.0) for j in range(m)
        ]
    ratio = _ratios(source[s0:s1], target[t0:t1], similarity, threshold)
    # best[i][j]: the best total similarity pairing source[s0+i:] with target[t0+j:] in order.
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, scores = best[i], best[i + 1], ratio[i]
        for j in range(m - 1, -1, -1):
            # the most of skipping either item, or of pairing the two (a list and max() per cell cost
            # three times these comparisons, over the n * m cells of the gaps)
            down, right = below[j], row[j + 1]
            value = down if down >= right else right
            score = scores[j]
            if score >= threshold and score + below[j + 1] > value:
                value = score + below[j + 1]
            row[j] = value
    out: list[Pair] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and ratio[i][j] >= threshold and best[i][j] == ratio[i][j] + best[i + 1][j + 1]:
            out.append(Pair(s0 + i, t0 + j, "similar", ratio[i][j]))
            i, j = i + 1, j + 1
        elif i < n and (j == m or best[i][j] == best[i + 1][j]):
            out.append(Pair(s0 + i, None, "missing", 0.0))
            i += 1
        else:
            out.append(Pair(None, t0 + j, "extra", 0.0))
            j += 1
    return out


def one_to_one(candidates: Iterable[tuple[Any, A, B]]) -> dict[A, B]:
    """Pairs taken from ``candidates`` (score, left, right) in their order, best first: each
    left and each right in one pair at most."""
    pairs: dict[A, B] = {}
    taken: set[B] = set()
    for _, left, right in candidates:
        if left not in pairs and right not in taken:
            pairs[left] = right
            taken.add(right)
    return pairs
