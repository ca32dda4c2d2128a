"""Sequence alignment robust to inserted and removed items: exact, then similar.

difflib finds the runs of identical keys (cells whose normalised code is equal); inside
the gaps between them a small dynamic programme pairs the most similar items in order,
and what stays unpaired is missing (source only) or extra (translation only). So one
extra cell is one extra cell, never "every later cell changed".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Pair:
    source: int | None  # index into the source sequence
    target: int | None  # index into the translation sequence
    kind: str  # "equal", "similar", "missing" (source only) or "extra" (translation only)
    ratio: float = 1.0


@lru_cache(maxsize=65536)
def token_ratio(a: str, b: str) -> float:
    """Similarity of two normalised code strings, by their tokens."""
    matcher = SequenceMatcher(None, a.split(), b.split(), autojunk=False)
    if matcher.real_quick_ratio() < 0.3 or matcher.quick_ratio() < 0.3:
        return 0.0
    return matcher.ratio()


def char_ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def align(
    source: Sequence[str],
    target: Sequence[str],
    similarity: Callable[[str, str], float] = token_ratio,
    threshold: float = 0.5,
) -> list[Pair]:
    """Align two key sequences; every index of both appears in exactly one pair."""
    pairs: list[Pair] = []
    matcher = SequenceMatcher(None, list(source), list(target), autojunk=False)
    for op, s0, s1, t0, t1 in matcher.get_opcodes():
        if op == "equal":
            pairs.extend(Pair(s0 + k, t0 + k, "equal") for k in range(s1 - s0))
        else:
            pairs.extend(_pair_gap(source, target, s0, s1, t0, t1, similarity, threshold))
    return pairs


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
    ratio = [[similarity(source[s0 + i], target[t0 + j]) for j in range(m)] for i in range(n)]
    # best[i][j]: the best total similarity pairing source[s0+i:] with target[t0+j:] in order.
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            options = [best[i + 1][j], best[i][j + 1]]
            if ratio[i][j] >= threshold:
                options.append(ratio[i][j] + best[i + 1][j + 1])
            best[i][j] = max(options)
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
