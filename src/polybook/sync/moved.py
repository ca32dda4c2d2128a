"""Blocks the source moved: paired with their base by content wherever they now stand.

:func:`polybook.check.align.align` pairs blocks in order -- the longest common subsequence of
equal blocks, then the most alike in order between them -- so a section the source moved past
others (d2l 1.0 put transformer.md's "Model" section below its import cells) is paired in one
place only: the blocks it crossed, or the section itself, are left over, "dropped" from the base
and "new" in the source. Those left over on both sides are paired here by how alike they are,
in any order, the most alike first: the translation of a moved block moves with it instead of
going aside while the source's text comes in marked untranslated.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from polybook.check.align import Pair
from polybook.dialect.nodes import Node

#: How alike two blocks out of order must be to be taken for one block moved: more than the
#: in-order pairing asks (0.5), as nothing around them says they belong together.
MOVED = 0.6


def with_moved(
    pairs: list[Pair], old: Sequence[str], new: Sequence[str], similarity: Callable[[str, str], float]
) -> list[Pair]:
    """``pairs`` (an alignment of ``old`` to ``new``) with the items it left over on both sides
    paired when alike enough (:data:`MOVED`), each at most once, the most alike first; an item
    left over equal to one on the other side pairs as equal. The order is ``pairs``', a moved
    item's pair standing where its ``old`` item was left over."""
    gone = [p.source for p in pairs if p.target is None and p.source is not None]
    added = [p.target for p in pairs if p.source is None and p.target is not None]
    if not gone or not added:
        return pairs
    found: list[tuple[float, int, int]] = []
    sizes = {t: len(new[t].split()) for t in added}
    for s in gone:
        n = len(old[s].split())
        for t in added:
            m = sizes[t]
            if 2 * min(n, m) < MOVED * (n + m):  # too unlike in size to reach MOVED (ratio's own bound)
                continue
            ratio = 1.0 if old[s] == new[t] else similarity(old[s], new[t])
            if ratio >= MOVED:
                found.append((ratio, s, t))
    found.sort(key=lambda item: (-item[0], item[1], item[2]))
    taken_s: dict[int, Pair] = {}
    taken_t: set[int] = set()
    for ratio, s, t in found:
        if s in taken_s or t in taken_t:
            continue
        taken_s[s] = Pair(s, t, "equal" if old[s] == new[t] else "similar", ratio)
        taken_t.add(t)
    out = []  # in the order of ``pairs``: a moved block where its base stood
    for p in pairs:
        if p.target is None and p.source in taken_s:
            out.append(taken_s[p.source])
        elif not (p.source is None and p.target in taken_t):
            out.append(p)
    return out


#: How alike a block rewritten in place must be to its base: any likeness a ratio of words
#: finds at all (below it two texts share next to nothing, :data:`polybook.check.align._TOKEN_FLOOR`).
REWRITTEN = 0.3


def with_rewritten(
    pairs: list[Pair], old: Sequence[str], new: Sequence[str], similarity: Callable[[str, str], float]
) -> list[Pair]:
    """``pairs`` with the blocks the source rewrote in place paired: between two paired blocks,
    as many left over on each side, of the same kinds in the same order, each pair alike at
    least :data:`REWRITTEN` (d2l 1.0's new wording of lookup-api.md's opening tabs): a changed
    block -- its translation kept, marked stale -- not a dropped one and a new one."""
    out: list[Pair] = []
    run: list[Pair] = []
    for pair in [*pairs, None]:
        if pair is not None and (pair.source is None or pair.target is None):
            run.append(pair)
            continue
        out += _in_place(run, old, new, similarity)
        run = []
        if pair is not None:
            out.append(pair)
    return out


def _in_place(
    run: list[Pair], old: Sequence[str], new: Sequence[str], similarity: Callable[[str, str], float]
) -> list[Pair]:
    gone = [p.source for p in run if p.source is not None]
    added = [p.target for p in run if p.target is not None]
    if not gone or len(gone) != len(added):
        return run
    ratios = [similarity(old[s], new[t]) for s, t in zip(gone, added, strict=True)]
    if min(ratios) < REWRITTEN:
        return run
    return [Pair(s, t, "similar", r) for s, t, r in zip(gone, added, ratios, strict=True)]


def moved(bases: dict[int, tuple[Node, bool]], content: list[Node], old: list[Node]) -> int:
    """How many of the source's blocks stand elsewhere than their base did: those out of the
    longest run of blocks kept in their base's order (the fewest that moved)."""
    at = {id(node): index for index, node in enumerate(old)}
    order = [at[id(pair[0])] for node in content if (pair := bases.get(id(node))) and id(pair[0]) in at]
    tails: list[int] = []  # the smallest last base index of an increasing run of each length
    for index in order:
        place = bisect.bisect_left(tails, index)
        tails[place : place + 1] = [index]
    return len(order) - len(tails)
