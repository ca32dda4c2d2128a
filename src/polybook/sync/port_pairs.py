"""How ``polybook port`` pairs blocks: the base with the source by content, the base with the
translation by place and by what no translation changes.

The base and the source are two editions of one text: a block pairs with the one that says the
same (equal, or alike in words), in order first and then wherever the source moved it
(:mod:`.moved`). The base and its translation say the same in two languages: they pair by
shared anchors (cells, labels, figures -- the checker's :func:`pair_segments`) and in between by
kind and by what a translator does not change (formulas, inline code, references, links).
"""

from __future__ import annotations

import re

from polybook.check.align import align, token_ratio
from polybook.check.code_keys import cell_key
from polybook.check.code_match import match_cells
from polybook.check.segments import pair_segments
from polybook.dialect.marks import read_mark
from polybook.dialect.nodes import Block, CodeCell, Figure, Heading, Node, Paragraph, TextTab
from polybook.dialect.nodes import Document as Doc
from polybook.dialect.slides import PAIRS, find_slide_marks
from polybook.sync.moved import with_moved, with_rewritten
from polybook.sync.own_frameworks import is_own

_PROSE = (Paragraph, Heading, Figure, TextTab)
#: A block's text that is only slide marks: what it writes is no translation of anything.
_MARKS_ONLY = re.compile("(?:\\s|" + "|".join(re.escape(mark) for pair in PAIRS for mark in pair) + ")+")


def is_prose(node: Node) -> bool:
    return isinstance(node, _PROSE) or (isinstance(node, Block) and node.kind != "html")


def prose_key(node: Node) -> str:
    """What a prose block says, for pairing a base with the source."""
    if isinstance(node, Heading):
        return node.text  # its level and label come from the source whatever the translation had
    if isinstance(node, Figure):
        return f"{node.caption} {node.src}"
    if isinstance(node, TextTab):
        return f"{node.spec} " + " ".join(prose_key(child) for child in node.children if is_prose(child))
    return node.source  # type: ignore[attr-defined]


def _key(node: Node) -> str:
    """A node's kind and content: blocks pair only with blocks of their kind."""
    kind = type(node).__name__
    if is_prose(node):
        return f"{kind} {prose_key(node)}"
    if isinstance(node, CodeCell):
        return f"{kind} {cell_key(node.code)}"
    return f"{kind} {getattr(node, 'tex', '') or getattr(node, 'source', '')}"


def _similarity(a: str, b: str) -> float:
    """Of two blocks of one kind, by their words (the kind itself is no shared word: "Summary"
    and "Discussion" headings have nothing in common)."""
    kind_a, _, rest_a = a.partition(" ")
    kind_b, _, rest_b = b.partition(" ")
    return token_ratio(rest_a, rest_b) if kind_a == kind_b else 0.0


def content_of(doc: Doc) -> list[Node]:
    """The top-level nodes but polybook's own marks (they travel with the block they mark)."""
    return [node for node in doc.nodes if read_mark(node) is None]


def base_to_source(base: Doc, source: Doc) -> dict[int, tuple[Node, bool]]:
    """``id(source node) -> (base node, unchanged)``: each source block's base, by content, in
    order; then, for what that leaves over, wherever the source moved it, and last where it
    rewrote it in place (:mod:`.moved`)."""
    old, new = content_of(base), content_of(source)
    old_keys, new_keys = [_key(n) for n in old], [_key(n) for n in new]
    pairs = with_moved(align(old_keys, new_keys, _similarity, 0.5), old_keys, new_keys, _similarity)
    pairs = with_rewritten(pairs, old_keys, new_keys, _similarity)
    return {
        id(new[p.target]): (old[p.source], p.kind == "equal")
        for p in pairs
        if p.source is not None and p.target is not None
    }


def base_to_translation(base: Doc, target: Doc, own: tuple[str, ...] = ()) -> dict[int, Node]:
    """``id(base node) -> translation node``: shared anchors (cells, labels, figures), and in
    between, blocks of the same kind in order -- what the checker pairs; never a cell or tab of
    the translation's ``own`` frameworks alone (no base has one: :mod:`.own_frameworks`)."""
    match = match_cells(base, target)
    alignment = pair_segments(base, target, match)
    top_base, top_target = {id(n) for n in base.nodes}, {id(n) for n in target.nodes}
    out = {id(b): t for b, t in alignment.anchors if id(b) in top_base and id(t) in top_target}
    for cell_id, cell in match.source_to_target.items():
        if cell_id in top_base and id(cell) in top_target:
            out[cell_id] = cell
    for src_seg, tgt_seg in alignment.pairs:
        old = [i.node for i in src_seg.items if i.tab is None and read_mark(i.node) is None]
        new = [
            i.node
            for i in tgt_seg.items
            if i.tab is None and read_mark(i.node) is None and not marks_only(i.node) and not is_own(i.node, own)
        ]
        kinds = align(_keys(old), _keys(new), _kinship, 0.5)
        out.update({id(old[p.source]): new[p.target] for p in kinds if p.source is not None and p.target is not None})
    return out


def marks_only(node: Node) -> bool:
    """Whether a paragraph is slide marks alone (``**)``)."""
    return isinstance(node, Paragraph) and _MARKS_ONLY.fullmatch(node.source) is not None


def closes_mark(text: str, before: str) -> bool:
    """Whether ``text``, slide marks alone, closes the marks ``before`` leaves open (and opens none)."""
    if _MARKS_ONLY.fullmatch(text) is None or not before or not find_slide_marks(before)[1]:
        return False
    return not find_slide_marks(f"{before}\n\n{text}")[1]


def _keys(nodes: list[Node]) -> list[str]:
    """The blocks' :func:`_kind` (a heading's with its level: the translation's sections are the
    base's), each made unique by its place in the stretch (after :data:`_AT`, as a share of its
    length): no two keys are equal, so the stretch is paired by how alike its blocks are alone --
    a longest common subsequence of equal keys would pair a bare paragraph with the next bare one,
    past those whose formulas the translator damaged."""
    size = max(1, len(nodes) - 1)
    out = []
    for place, node in enumerate(nodes):
        kind = _kind(node)
        if isinstance(node, Heading):
            kind = kind.replace("Heading", f"Heading{node.level}", 1)
        out.append(f"{kind}{_AT}{place / size:.4f}")
    return out


def _kind(node: Node) -> str:
    """A node's kind and what of it no translation changes -- a text tab's frameworks (a pytorch
    tab is not an mxnet one), a block's formulas, inline code, references and links, each once,
    in order -- separated by a character no text holds. Blocks of one kind that share these
    pair first: a paragraph the translator split or joined shifts none of the others."""
    if isinstance(node, TextTab):
        return "TextTab" + _APART + _APART.join(sorted(node.frameworks))
    neutral = (f"{i.kind}:{i.name}:{i.value}" for i in getattr(node, "inlines", ()) if i.kind in _NEUTRAL)
    return _APART.join([kind_name(node), *dict.fromkeys(neutral)])


def kind_name(node: Node) -> str:
    """A block's kind: its node's type, a block's own kind with it (a list is no table)."""
    return f"Block.{node.kind}" if isinstance(node, Block) else type(node).__name__


_APART = "\x1f"  # the unit separator: no Markdown text holds it
_AT = "\x1e"  # the record separator, before a key's place
_NEUTRAL = ("math", "code", "role", "link")


def _kinship(a: str, b: str) -> float:
    """How alike two blocks of :func:`_keys` are: not at all when of different kinds; of one kind,
    0.5, up to 0.4 more by how much of what no translation changes they share, and up to 0.1 more
    by how near their places are (of blocks alike but for their places -- where the translator
    left some out -- those at the same share of the stretch pair); two text tabs only by how far
    their frameworks overlap."""
    kind_a, _, at_a = a.rpartition(_AT)
    kind_b, _, at_b = b.rpartition(_AT)
    kind_a, *mine = kind_a.split(_APART)
    kind_b, *theirs = kind_b.split(_APART)
    if kind_a != kind_b:
        return 0.0
    shared = len(set(mine) & set(theirs)) / max(1, len(set(mine) | set(theirs)))
    if kind_a == "TextTab":
        return shared
    return 0.5 + 0.4 * shared + 0.1 * (1 - abs(float(at_a) - float(at_b)))
