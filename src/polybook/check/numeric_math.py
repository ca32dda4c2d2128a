"""Math made of numbers only (``$28 \\times 28$``, ``$0.01$``), changed where it stands.

Such math is no formula to the pairing of :mod:`polybook.check.formulas` (a translation may
write it as plain text, ``28×28``), and its numbers are never missing (a formula's ``1000`` of
``$t_1 + 1000 t_2$`` is not prose's). So ``$5 \\times 5$`` written where the source says
``$28 \\times 28$``, or ``$\\mathbf{R}$`` where it says ``$0.01$``, went untold. Here it is told
when the paragraph where the source's belongs holds, instead, one piece of math the source's
chapter does not have there: one of numbers with other numbers, or a formula for the number
(``$c$`` become ``$561 \\times 728 \\times 5$`` is the reverse). Number-only math left out alone
is still not told: it may be said in words.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection

from polybook.check.formulas import Formula, Places, pair_nearest

Pairs = list[tuple[Formula | None, Formula | None]]
_NOT_DIGIT = re.compile(r"\D")


@functools.lru_cache(maxsize=16384)
def numbers_of_math(tex: str) -> str:
    """What number-only math says: its digits in order, however spaced, grouped or separated
    (``$10,000$`` and ``$10.000$``, ``$(-1,1)$`` and ``$(-1, 1)$``, ``$5\\times5$`` and
    ``$5 \\times 5$`` are one)."""
    return _NOT_DIGIT.sub("", tex)


def numbers_changed(
    pairs: Pairs, source: list[Formula], target: list[Formula], places: Places, told: Collection[Formula]
) -> Pairs:
    """The (source, translation) number-only math changed: ``source`` and ``target`` are the
    chapters' number-only math, ``pairs`` the formulas :func:`~.formulas.pair_formulas` left
    unpaired, ``told`` the formulas already told missing or extra (not told again)."""
    paired = pair_nearest(  # nearest first, not in order: some are said in words, the rest may be anywhere
        [numbers_of_math(f.tex) for f in source],
        [numbers_of_math(f.tex) for f in target],
        lambda i, j: abs(places(source[i].node, source[i].line) - target[j].node),
    )
    s_paired, t_paired = {i for i, _ in paired}, {j for _, j in paired}
    s_left = [(f, True) for i, f in enumerate(source) if i not in s_paired]
    s_left += [(s, False) for s, t in pairs if s is not None and t is None]
    t_left = [(f, True) for j, f in enumerate(target) if j not in t_paired]
    t_left += [(t, False) for s, t in pairs if t is not None and s is None]
    if not any(numeric for _, numeric in s_left) and not any(numeric for _, numeric in t_left):
        return []  # (most chapters)
    by_node: dict[int, list[tuple[Formula, bool]]] = {}
    for t, numeric in t_left:
        by_node.setdefault(t.node, []).append((t, numeric))
    s_at: dict[int, list[tuple[Formula, bool]]] = {}
    for s, numeric in s_left:
        s_at.setdefault(places(s.node, s.line), []).append((s, numeric))
    out: Pairs = []
    for node, mine in s_at.items():
        theirs = by_node.get(node, [])
        if len(mine) != 1 or len(theirs) != 1:
            continue  # one for one only: two or more left on a side is another story
        (s, s_numeric), (t, t_numeric) = mine[0], theirs[0]
        if (s_numeric or t_numeric) and s not in told and t not in told:
            out.append((s, t))
    return out
