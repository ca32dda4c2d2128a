"""Cells a translator joined into one, or split in two: which cells of the other side a cell
holds besides its own pair, and which frameworks' streams pair each cell at all."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from polybook.check.align import Pair
from polybook.check.code_keys import cell_key
from polybook.dialect.nodes import CodeCell

if TYPE_CHECKING:
    from polybook.check.code import CellMatch

#: A top-level ``def`` or ``class`` in normalised code, by name.
_DEFINES_RE = re.compile(r"^(?:def|class) (\w+)", re.M)


def streams_of(match: CellMatch) -> dict[int, set[str]]:
    """Cell (by id, of either side) -> the frameworks whose stream pairs it with a cell: what
    each framework's reader sees of it, whichever cell of the other side stands for it."""
    out: dict[int, set[str]] = {}
    for framework, src, tgt, pairs in match.streams:
        for p in pairs:
            if p.source is not None and p.target is not None:
                out.setdefault(id(src[p.source]), set()).add(framework)
                out.setdefault(id(tgt[p.target]), set()).add(framework)
    return out


def holders(
    pairs: list[Pair],
    lacking: list[CodeCell],
    holding: list[CodeCell],
    framework: str,
    elsewhere: dict[int, CodeCell],
    joined: bool,
) -> dict[int, list[int]]:
    """Cell -> the cells of the other side the stream leaves unpaired that it holds besides its
    own pair: translation cells holding source cells (``joined``: a translator joined cells into
    one), or source cells holding translation cells (a translator split one). ``lacking``: the
    side of the unpaired cells; ``elsewhere``: cells paired in another framework's stream."""

    def mine(p: Pair) -> int | None:
        return p.source if joined else p.target

    def theirs(p: Pair) -> int | None:
        return p.target if joined else p.source

    paired = [
        (index, cell_key(holding[index].code_for(framework)))
        for p in pairs
        if (index := theirs(p)) is not None and mine(p) is not None
    ]
    out: dict[int, list[int]] = {}
    for pair in pairs:
        lone = mine(pair)
        if theirs(pair) is not None or lone is None or id(lacking[lone]) in elsewhere:
            continue
        holder = _holder(lacking[lone], paired, framework)
        if holder is not None:
            out.setdefault(holder, []).append(lone)
    return out


def _holder(s: CodeCell, paired: list[tuple[int, str]], framework: str) -> int | None:
    """The paired translation cell that holds a source cell the stream lacks -- its code as it
    is, or the functions and classes it defines (joined, and changed there)."""
    key = cell_key(s.code_for(framework))
    if not key:
        return None
    found = next((j for j, other in paired if key in other), None)
    if found is not None:
        return found
    defined = set(_DEFINES_RE.findall(key))
    return next((j for j, other in paired if defined and defined <= set(_DEFINES_RE.findall(other))), None)
