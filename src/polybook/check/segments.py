"""Prose segments between anchors shared by the source and a translation.

Anchors are the things both languages must have in the same order: labelled headings,
figures, labelled equations and the code cells that the code check paired. Between two
consecutive shared anchors lies a segment; math, numbers, text tabs and headings are
compared segment by segment, so a difference is reported near where it is. The same
pairing says where in the translation something missing from it belongs
(:meth:`Alignment.place`).
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from cydifflib import SequenceMatcher  # difflib's, compiled: the same results (see pyproject.toml)

from polybook.check.align import Pair, align, never
from polybook.check.documents import by_identity, cells_of
from polybook.check.regroup import CellMatch
from polybook.dialect.nodes import CodeCell, DisplayMath, Document, Figure, Heading, Inline, Node, TextTab
from polybook.dialect.slides import prose_of


@dataclass(slots=True)
class Item:
    node: Node
    tab: tuple[str, ...] | None  # the text tab the node sits in, if any


@dataclass(slots=True)
class Segment:
    line: int  # where the segment starts (the anchor before it, or line 1)
    items: list[Item] = field(default_factory=list)


def prose_text(item: Item) -> str:
    """The prose of a node whose numbers count (paragraphs, lists, headings, captions)."""
    return prose_of(item.node)


def sentences(text: str) -> list[str]:
    """``text`` cut where its sentences end: a full stop, question or exclamation mark and white
    space after it (a Chinese or Japanese one needs none)."""
    return _SENTENCE_END.split(text)


_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


@by_identity
def flatten(doc: Document) -> list[Item]:
    """Every node in order, text-tab children carrying their tab's frameworks (shared: never mutate)."""
    out: list[Item] = []
    for node in doc.nodes:
        out.append(Item(node, None))
        if isinstance(node, TextTab):
            out.extend(Item(child, node.frameworks) for child in node.children)
    return out


@by_identity
def walked(doc: Document) -> list[Node]:
    """``doc.walk()`` once for every check that reads the document (shared: never mutate)."""
    return list(doc.walk())


@by_identity
def written_text(doc: Document) -> str:
    """The text of ``doc``'s nodes that hold it as written (paragraphs, blocks), joined by lines."""
    return "\n".join(text for node in walked(doc) if isinstance(text := getattr(node, "source", None), str))


@by_identity
def inlines_of(doc: Document) -> list[tuple[Inline, int]]:
    """Every inline element of the document in order, with its line (its node's when it has
    none of its own) (shared: never mutate)."""
    return [(i, i.line or node.line) for node in walked(doc) for i in getattr(node, "inlines", ())]


_ANCHORS = (Heading, Figure, DisplayMath, CodeCell)  # the kinds of node that may be anchors


def _anchor_key(node: Node, cell_keys: dict[int, str]) -> str | None:
    if isinstance(node, Heading) and node.label:
        return f"h:{node.label}"
    if isinstance(node, Figure):
        return f"f:{node.label or node.src}"
    if isinstance(node, DisplayMath) and node.label:
        return f"m:{node.label}"
    if isinstance(node, CodeCell):
        return cell_keys.get(id(node))
    return None


@dataclass(slots=True)
class Alignment:
    """The segments of both documents, paired, and the shared anchors between them."""

    pairs: list[tuple[Segment, Segment]]
    anchors: list[tuple[Node, Node]]  # (source node, translation node), in document order
    # worked out once, when first asked for: the anchors' source lines, each segment's node kinds aligned
    _starts: list[int] | None = field(default=None, init=False, repr=False, compare=False)
    _kinds: dict[int, list[Pair]] = field(default_factory=dict, init=False, repr=False, compare=False)
    # whether the source's anchors follow each other without overlapping (then one is found by bisection)
    _apart: bool | None = field(default=None, init=False, repr=False, compare=False)
    # each segment's source nodes' first lines, when in order (else None: each is looked at)
    _lines: dict[int, list[int] | None] = field(default_factory=dict, init=False, repr=False, compare=False)
    _placed: dict[int, int] = field(default_factory=dict, init=False, repr=False, compare=False)  # line -> place
    _where: dict[int, dict[int, int]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def _anchor_lines(self) -> list[int]:
        if self._starts is None:
            self._starts = [s.line for s, _ in self.anchors]
        return self._starts

    def _pair_of(self, k: int) -> dict[int, int]:
        """Segment ``k``'s source nodes -> the first of :meth:`_kinds_paired` that pairs each."""
        found = self._where.get(k)
        if found is None:
            found = self._where[k] = {}
            for n, pair in enumerate(self._kinds_paired(k)):
                if pair.source is not None:
                    found.setdefault(pair.source, n)
        return found

    def _holding(self, source_line: int) -> Node | None:
        """The counterpart of the first source anchor that holds ``source_line``, if one does."""
        if self._apart is None:
            self._apart = all(
                s.line < n.line and s.end_line < n.line for (s, _), (n, _) in itertools.pairwise(self.anchors)
            )
        if not self._apart:
            return next((t for s, t in self.anchors if s.line <= source_line <= s.end_line), None)
        k = bisect.bisect_right(self._anchor_lines(), source_line) - 1  # the only one that may hold it
        if k >= 0 and source_line <= self.anchors[k][0].end_line:
            return self.anchors[k][1]
        return None

    def _last_before(self, k: int, source_line: int) -> int:
        """The index of segment ``k``'s last source node that starts at or before ``source_line`` (-1: none)."""
        if k not in self._lines:
            lines = [item.node.line for item in self.pairs[k][0].items]
            self._lines[k] = lines if all(a <= b for a, b in itertools.pairwise(lines)) else None
        lines = self._lines[k]
        if lines is not None:
            return bisect.bisect_right(lines, source_line) - 1
        before = [i for i, item in enumerate(self.pairs[k][0].items) if item.node.line <= source_line]
        return before[-1] if before else -1

    def _kinds_paired(self, k: int) -> list[Pair]:
        """Segment ``k``'s nodes paired by their kind only (where a node without counterpart belongs)."""
        found = self._kinds.get(k)
        if found is None:
            src, tgt = self.pairs[k]
            found = align([_kind(i) for i in src.items], [_kind(i) for i in tgt.items], never, 1.0)
            self._kinds[k] = found
        return found

    def at(self, source_line: int) -> float:
        """Roughly where ``source_line`` falls in the translation: between the shared anchors
        around it, in proportion (for pairing things that may have moved a little)."""
        k = bisect.bisect_right(self._anchor_lines(), source_line)
        s0, t0 = (self.anchors[k - 1][0].line, self.anchors[k - 1][1].line) if k else (1, 1)
        if k == len(self.anchors):
            return t0 + source_line - s0
        s1, t1 = self.anchors[k][0].line, self.anchors[k][1].line
        return t0 + (source_line - s0) * (t1 - t0) / max(1, s1 - s0)

    def place(self, source_line: int) -> int:
        """The translation line where what stands at ``source_line`` of the source belongs.

        That is the counterpart of the anchor holding the line; else, inside the aligned
        segment, the counterpart of the source node holding it, of its nearest neighbour
        that has one, or the anchor before the segment. Line 1 only for an empty translation.
        (Memoised: many checks ask for the same lines.)
        """
        found = self._placed.get(source_line)
        if found is None:
            found = self._placed[source_line] = self._place(source_line)
        return found

    def _place(self, source_line: int) -> int:
        anchor = self._holding(source_line)
        if anchor is not None:
            return anchor.line
        k = bisect.bisect_left(self._anchor_lines(), source_line)
        tgt = self.pairs[k][1]
        last = self._last_before(k, source_line)
        if tgt.items and last >= 0:
            pairs = self._kinds_paired(k)
            at = self._pair_of(k)[last]
            order = itertools.chain(range(at, -1, -1), range(at + 1, len(pairs)))  # it, those before, then after
            both = (pairs[n] for n in order if pairs[n].target is not None and pairs[n].source is not None)
            paired = next((p.target for p in both), None)
            if paired is not None:
                return tgt.items[paired].node.line
        if k > 0:
            return tgt.line  # the anchor before the segment
        if tgt.items:
            return tgt.items[0].node.line
        return self.anchors[0][1].line if self.anchors else 1


def _kind(item: Item) -> str:
    return type(item.node).__name__


@by_identity  # a source chapter is paired with every translation
def _source_keys(source: Document) -> tuple[dict[int, str], list[str | None]]:
    """The source's code cells' keys (by identity), and every node's anchor key (None: no anchor)."""
    cells = {id(c): f"c:{i}" for i, c in enumerate(cells_of(source))}
    return cells, [_anchor_key(i.node, cells) if isinstance(i.node, _ANCHORS) else None for i in flatten(source)]


def pair_segments(source: Document, translation: Document, match: CellMatch) -> Alignment:
    """Segments of both documents, paired; anchors themselves belong to no segment."""
    src_cells, src_keys = _source_keys(source)
    tgt_cells = {t_id: src_cells[id(s)] for t_id, s in match.target_to_source.items()}
    src_items, tgt_items = flatten(source), flatten(translation)
    tgt_keys = [_anchor_key(i.node, tgt_cells) if isinstance(i.node, _ANCHORS) else None for i in tgt_items]
    src_pos = [k for k, key in enumerate(src_keys) if key]
    tgt_pos = [k for k, key in enumerate(tgt_keys) if key]
    mine, theirs = [src_keys[k] for k in src_pos], [tgt_keys[k] for k in tgt_pos]
    if mine == theirs:  # (most chapters: every anchor in its place, as the matching would find)
        shared = list(zip(src_pos, tgt_pos, strict=True))
    else:
        matcher = SequenceMatcher(None, mine, theirs, autojunk=False)
        shared = [(src_pos[a + n], tgt_pos[b + n]) for a, b, size in matcher.get_matching_blocks() for n in range(size)]
    bounds = [(-1, -1), *shared, (len(src_items), len(tgt_items))]
    out = []
    for (s0, t0), (s1, t1) in itertools.pairwise(bounds):
        src_seg = Segment(src_items[s0].node.line if s0 >= 0 else 1, src_items[s0 + 1 : s1])
        tgt_seg = Segment(tgt_items[t0].node.line if t0 >= 0 else 1, tgt_items[t0 + 1 : t1])
        out.append((src_seg, tgt_seg))
    return Alignment(out, [(src_items[s].node, tgt_items[t].node) for s, t in shared])


def cell_place(cell: CodeCell, source: Document, translation: Document, match: CellMatch, alignment: Alignment) -> int:
    """The translation line where the source's ``cell``, which the translation lacks, belongs:
    the last line of the counterpart of what stands before it in the source, else the first of the
    counterpart of the cell that follows it -- what both documents share, so a missing pytorch cell is told between the
    mxnet and tensorflow cells around it, not at the end of the last pytorch cell before it (the
    line ``polybook sync`` inserts it at: :func:`cell_slot`)."""
    return cell_slot(cell, source, translation, match, alignment)[0]


def cell_slot(
    cell: CodeCell, source: Document, translation: Document, match: CellMatch, alignment: Alignment
) -> tuple[int, bool]:
    """:func:`cell_place`'s line, and whether the cell goes after it (else before it): right after
    the counterpart of the node before it (a run of cells the translation lacks goes together),
    else right before the counterpart of the cell after it, else next to the nearest node around
    it that both documents share."""
    nodes = [node for node in walked(source) if not isinstance(node, TextTab)]
    k = next((i for i, node in enumerate(nodes) if node is cell), None)
    if k is None:
        return alignment.place(cell.line), False
    anchors = {id(s): t for s, t in alignment.anchors}
    at_line: dict[int, Node] = {}
    for n in walked(translation):
        if not isinstance(n, TextTab):
            at_line.setdefault(n.line, n)

    def counterpart(node: Node) -> Node | None:
        if isinstance(node, CodeCell) or id(node) in anchors:
            return match.source_to_target.get(id(node)) or anchors.get(id(node))
        t_node = at_line.get(alignment.place(node.line))
        return t_node if t_node is not None and type(t_node) is type(node) else None

    j = k
    while j and isinstance(nodes[j - 1], CodeCell) and counterpart(nodes[j - 1]) is None:
        j -= 1
    if j and (t := counterpart(nodes[j - 1])) is not None:
        return t.end_line, True  # (its last line: the cell belongs right after it)
    after = nodes[k + 1] if k + 1 < len(nodes) else None
    if isinstance(after, CodeCell) and (t := counterpart(after)) is not None:
        return t.line, False
    for node in reversed(nodes[: max(0, j - 1)]):
        if (t := counterpart(node)) is not None:
            return t.end_line, True
    for node in nodes[k + 1 :]:
        if (t := counterpart(node)) is not None:
            return t.line, False
    return alignment.place(cell.line), False
