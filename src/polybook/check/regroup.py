"""Cells a translator joined into one, or split in two: which cells of the other side a cell
holds besides its own pair, and which frameworks' streams pair each cell at all."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from polybook.check.align import Pair
from polybook.check.code_keys import cell_key
from polybook.dialect.nodes import CodeCell


@dataclass(slots=True)
class CellMatch:
    """Which translation cell stands for which source cell (over the frameworks both offer)."""

    target_to_source: dict[int, CodeCell] = field(default_factory=dict)  # id(target cell) -> source cell
    source_to_target: dict[int, CodeCell] = field(default_factory=dict)  # id(source cell) -> target cell
    # per framework: (framework, source cells, translation cells, their alignment)
    streams: list[tuple[str, list[CodeCell], list[CodeCell], list[Pair]]] = field(default_factory=list)
    common: frozenset[str] = frozenset()  # the frameworks both chapters offer
    # (source cell, translation cell): the source's code under another ``#@tab`` here, out of the streams
    retabbed: list[tuple[CodeCell, CodeCell]] = field(default_factory=list)


#: A top-level ``def`` or ``class`` in normalised code, by name.
_DEFINES_RE = re.compile(r"^(?:def|class) (\w+)", re.M)
_MOST = 1 / 2  # of a cell's lines (two at least) in its neighbour's pair: the two were joined there


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
        (index, cell_key(holding[index].code_for(framework)), mate)
        for p in pairs
        if (index := theirs(p)) is not None and (mate := mine(p)) is not None
    ]
    out: dict[int, list[int]] = {}
    for pair in pairs:
        lone = mine(pair)
        if theirs(pair) is not None or lone is None or id(lacking[lone]) in elsewhere:
            continue
        holder = _holder(lacking[lone], lone, paired, framework)
        if holder is not None:
            out.setdefault(holder, []).append(lone)
    return out


#: How far (in cells of the stream) a cell joined into another may stand from the one paired with
#: it: joined cells follow each other (a ``def net()`` three cells on is the section's next
#: model, not this one joined there).
_JOINED = 2


def _holder(s: CodeCell, lone: int, paired: list[tuple[int, str, int]], framework: str) -> int | None:
    """The paired cell of the other side that holds a cell the stream leaves unpaired (at
    ``lone``) -- its code as it is, the functions and classes it defines (joined, and changed
    there), or, for the cell paired with its neighbour, half its lines (joined, and some
    lines changed or dropped)."""
    key = cell_key(s.code_for(framework))
    if not key:
        return None
    near = [(j, other, mate) for j, other, mate in paired if abs(mate - lone) <= _JOINED]
    found = next((j for j, other, _ in near if key in other), None)
    if found is not None:
        return found
    defined = set(_DEFINES_RE.findall(key))
    found = next((j for j, other, _ in near if defined and defined <= set(_DEFINES_RE.findall(other))), None)
    if found is not None:
        return found
    lines = key.split("\n")
    for j, other, mate in paired:
        kept = set(other.split("\n"))
        shared = sum(line in kept for line in lines)
        if abs(mate - lone) == 1 and (shared == len(lines) or shared >= max(2, _MOST * len(lines))):
            return j
    return None
