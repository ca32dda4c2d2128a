"""One translated document carried to the source as it is now (``polybook port``).

Three documents meet: the translation, its base (what it was made from, :mod:`polybook.check.bases`)
and the source today. Blocks are paired twice -- base with source by content, base with
translation by position between shared anchors (the checker's :func:`pair_segments`) -- and the
new document is written in the source's order, from the source's own lines:

* a prose block (paragraph, heading, list, table, figure, text tab) whose base is unchanged
  keeps its translation; a changed one keeps the old translation behind a ``stale`` mark that
  holds the source's new text; a new one is the source's text behind an ``untranslated`` mark;
* code cells (in the source's dialect), math, labels, toc and everything else come from the
  source, a cell keeping the translation's code -- its translated comments -- where the code is
  the source's but for comments;
* translated text with no place left (a paragraph the source dropped, a cell whose code changed
  and whose comments were translated) is kept in an ``aside`` mark after the block it followed.

A block of slide marks alone (zh's ``**)`` after a paragraph and its display math) translates
nothing: it pairs with no block of the source, and stays after the kept block whose mark it closes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.builder import heading_damage
from polybook.dialect.marks import (
    READ_AS_SOURCE,
    Mark,
    MarkKind,
    document_mark,
    holding,
    marked,
    read_mark,
    untranslated,
)
from polybook.dialect.nodes import (
    CodeCell,
    DisplayMath,
    Fence,
    Figure,
    Heading,
    Node,
    TabSetup,
    TextTab,
)
from polybook.dialect.nodes import Document as Doc
from polybook.sync.mend import mended
from polybook.sync.moved import moved
from polybook.sync.own_frameworks import own_frameworks, own_text, place_own, setup_with, shared_own, tab_with
from polybook.sync.port_cells import ported_cell, ported_shown, same_code
from polybook.sync.port_pairs import (
    base_to_source,
    base_to_translation,
    closes_mark,
    content_of,
    is_prose,
    kind_name,
)
from polybook.sync.source_parts import in_source_figure, renamed_labels, with_references, with_source_attributes
from polybook.sync.stale_marks import only_form_changed, stale, text_then
from polybook.sync.swallowed import swallowed
from polybook.sync.translated import Known, known, translated_lines


@dataclass(slots=True)
class PortCounts:
    """What became of a document's prose blocks (and cells that kept translated comments)."""

    kept: int = 0
    stale: int = 0
    untranslated: int = 0
    aside: int = 0
    cells_kept: int = 0
    review: int = 0  # translations of an unchanged text that disagree with it
    mended: int = 0  # translations whose damaged markup was mended (:mod:`.mend`)
    moved: int = 0  # blocks whose translation moved with them to where the source put them
    own_kept: int = 0  # cells and tabs of the language's own frameworks kept (:mod:`.own_frameworks`)
    own_archived: int = 0  # ... and archived with their group, which the source dropped

    def add(self, other: PortCounts) -> None:
        for name in ("kept", "stale", "untranslated", "aside", "cells_kept", "review", "mended", "moved", "own_kept",
                     "own_archived"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(slots=True)
class PortedText:
    text: str
    counts: PortCounts = field(default_factory=PortCounts)
    # the lines (first, last) of each kept translation, by the index of its source block
    kept: dict[int, tuple[int, int]] = field(default_factory=dict)
    archived: list[str] = field(default_factory=list)  # own cells whose group the source dropped
    blocks: list[str] = field(default_factory=list)  # each source block as ported (what a bench reads)


class _Lines:
    """A file's lines, for a node's own text."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def of(self, node: Node, start: int | None = None, end: int | None = None) -> str:
        return "\n".join(self.lines[(start or node.line) - 1 : end or node.end_line])


def port_document(
    base: Doc,
    source: Doc,
    source_text: str,
    target: Doc,
    target_text: str,
    disagreeing: frozenset[int] = frozenset(),
    renamed: Mapping[str, str] | None = None,
    bases: Mapping[int, tuple[Node, bool]] | None = None,
) -> PortedText:
    """The translation ``target`` carried from ``base`` to ``source`` (each with its file's text).
    A document still marked untranslated as a whole is the source's text again. ``disagreeing``:
    source blocks (indices, as :attr:`PortedText.kept` gives them) whose translation would be kept
    but disagrees with them (the checker's findings in it): kept behind a review mark instead.
    ``renamed``: the labels the source renamed in the whole book (:func:`book_renamed_labels`;
    None: those of this document), which the translation's references are given. ``bases``:
    :func:`base_to_source` of ``base`` and ``source``, when the caller has it."""
    if document_mark(target) is not None:
        return new_document(source_text, source)
    src_lines, tgt_lines = _Lines(source_text), _Lines(target_text)
    if bases is None:
        bases = base_to_source(base, source)
    if renamed is None:
        renamed = renamed_labels(bases, source)
    own = own_frameworks(target, source)
    translated = base_to_translation(base, target, own)
    counts = PortCounts()
    split, splits = swallowed(base, target_text, translated)
    if splits:  # a heading that swallowed its paragraph, split (:mod:`.swallowed`)
        counts.mended += splits
        target_text, tgt_lines = split, _Lines(split)
        settings = DialectSettings(target.language, target.frameworks, target.default_tab)
        target = parse_text(split, target.path, settings)
        translated = base_to_translation(base, target, own)
    state = _Porting(src_lines, tgt_lines, counts, own, known([source_text, *_texts(base)]), source.default_tab)
    marks = marked(target)
    content = content_of(source)
    for index, node in enumerate(content):
        base_node, unchanged = bases.get(id(node), (None, False))
        unchanged = unchanged or only_form_changed(base_node, node, renamed)  # white space, typography...
        then = text_then(base_node, node, src_lines.of(node)) if base_node is not None and not unchanged else None
        mine = translated.get(id(base_node)) if base_node is not None else None
        if mine is not None and kind_name(mine) != kind_name(node):
            mine = None  # of another kind (a list for a table)
        if mine is not None:
            state.placed.setdefault(id(mine), len(state.blocks))
        if isinstance(node, (CodeCell, Fence, DisplayMath)):
            state.code(node, mine, base_node, unchanged)
            continue
        if mine is not None and _takes_translation(node, mine):
            state.used[id(mine)] = len(state.blocks)
        else:
            mine = None
        kept_before = counts.kept
        block = _block(
            node, mine, unchanged, marks.get(id(mine)), src_lines, tgt_lines, counts, index in disagreeing, then
        )
        if isinstance(node, TextTab) and mine is not None and shared_own(mine, own):
            first_line, _, rest = block.partition("\n")  # the translated tab keeps its own frameworks
            block, state.own_used = tab_with(first_line, shared_own(mine, own)) + "\n" + rest, True
        if isinstance(node, TextTab) and not node.closed:  # the source's own fault is not the translation's
            block = block.rstrip("\n") + "\n:end_tab:"  # closed where the parser ends it
        state.blocks.append(with_references(block, renamed) if mine is not None and is_prose(node) else block)
        if counts.kept > kept_before:
            state.kept.add(index)
    counts.moved = moved(bases, content, content_of(base))
    return state.assembled(target, content)


@dataclass(slots=True)
class _Porting:
    """One document's port under way: the blocks written so far, in the source's order, and
    what stays after them (old cells for the language's own frameworks, asides)."""

    src: _Lines
    tgt: _Lines
    counts: PortCounts
    own: tuple[str, ...]
    found: Known
    default_tab: str
    blocks: list[str] = field(default_factory=list)
    kept: set[int] = field(default_factory=set)  # the source blocks whose translation is kept as it is
    used: dict[int, int] = field(default_factory=dict)  # id(translation node) -> the block it went into
    placed: dict[int, int] = field(default_factory=dict)  # the same for every translation node paired
    after: dict[int, list[str]] = field(default_factory=dict)  # after a block: old cells for own frameworks
    aside_after: dict[int, list[str]] = field(default_factory=dict)  # ... and then old cells kept aside
    own_used: bool = False

    def code(self, node: CodeCell | Fence | DisplayMath, mine: Node | None, base: Node | None, unchanged: bool) -> None:
        """A cell, shown fence or formula: the source's, with what its translation translated."""
        lines, first = (self.src.lines, self.tgt.lines), mine is not None and id(mine) not in self.used
        if isinstance(node, CodeCell):
            cell = ported_cell(node, mine, base, lines, self.own, self.default_tab, self.found, first)
        else:
            cell = ported_shown(node, mine, base, unchanged, lines, self.found, first)
        if mine is not None:
            self.used.setdefault(id(mine), len(self.blocks))
        self.counts.cells_kept += cell.carried
        self.counts.aside += cell.aside
        self.counts.own_kept += bool(cell.own and cell.after)
        self.own_used |= cell.own
        (self.aside_after if cell.aside else self.after)[len(self.blocks)] = cell.after  # own cells, then asides
        self.blocks.append(cell.text)

    def assembled(self, target: Doc, content: list[Node]) -> PortedText:
        """The ported text: the blocks, the language's own cells placed with their group, the
        translation with no place aside, and what no node of the source holds, as written."""
        src, tgt, own, counts = self.src, self.tgt, self.own, self.counts
        mine_own = place_own(target, self.placed, self.used, own)
        for index, nodes in mine_own.after.items():
            self.after.setdefault(index, []).extend(own_text(node, tgt.of(node), own) for node in nodes)
        counts.own_kept += sum(len(nodes) for nodes in mine_own.after.values())
        counts.own_archived += len(mine_own.archived)
        blocks = self.blocks
        if self.own_used or mine_own.after:
            pairs = zip(content, blocks, strict=True)
            blocks = [setup_with(block, own) if isinstance(node, TabSetup) else block for node, block in pairs]
        theirs = {src.of(node).strip() for node in content}
        asides = _asides(target, self.used, tgt, counts, theirs, self.found, mine_own.handled)
        first = content[0].line if content else len(src.lines) + 1
        out: list[tuple[str, int | None]] = [("\n".join(src.lines[: first - 1]), None)]  # front matter, if any
        out += [(part, None) for part in [*self.after.get(-1, []), *asides.get(-1, [])]]
        for index, (node, block) in enumerate(zip(content, blocks, strict=True)):
            parts = [*self.after.get(index, []), *self.aside_after.get(index, []), *asides.get(index, [])]
            out += [(block, index if index in self.kept else None), *((part, None) for part in parts)]
            following = content[index + 1].line - 1 if index + 1 < len(content) else len(src.lines)
            out.append(("\n".join(src.lines[node.end_line : following]), None))  # what no node holds, kept
        ported = _joined(out, counts)
        ported.archived = [own_text(node, tgt.of(node), own) for node in mine_own.archived]
        ported.blocks = blocks
        return ported


def book_renamed_labels(
    pairs: Iterable[tuple[Mapping[int, tuple[Node, bool]], Doc]], sources: Iterable[Doc]
) -> dict[str, str]:
    """``old label -> new label`` over every document: ``pairs`` of each source document with its
    blocks' bases (:func:`base_to_source`). A reference names a label of any document (lstm.md's
    :numref:`sec_rnn_scratch` is rnn-scratch.md's, which d2l 1.0 relabelled ``sec_rnn-scratch``).
    A label the source still has somewhere, or that two documents relabel differently, keeps its name."""
    defined = {label for source in sources for label in source.labels}
    found: dict[str, set[str]] = {}
    for bases, source in pairs:
        for old, new in renamed_labels(bases, source).items():
            found.setdefault(old, set()).add(new)
    return {old: next(iter(new)) for old, new in found.items() if len(new) == 1 and old not in defined}


def _joined(parts: list[tuple[str, int | None]], counts: PortCounts) -> PortedText:
    """The ported text: its parts a blank line apart; and where each kept translation lies."""
    text, spans, line = [], {}, 1
    for part, index in parts:
        part = part.strip("\n")
        if not part.strip():
            continue
        size = part.count("\n") + 1
        if index is not None:
            spans[index] = (line, line + size - 1)
        text.append(part)
        line += size + 1
    return PortedText("\n\n".join(text) + "\n", counts, spans)


def _takes_translation(node: Node, mine: Node) -> bool:
    """Whether a source block takes its translation's text: prose does, a text tab of prose only,
    a code cell when its code is the source's but for comments (it keeps them)."""
    if isinstance(node, CodeCell):
        return isinstance(mine, CodeCell) and same_code(mine, node)
    if isinstance(node, TextTab):
        return all(is_prose(child) for child in node.children)
    if isinstance(node, Heading) and isinstance(mine, Heading):  # one damaged past mending goes aside
        return not heading_damage(mended(mine, "# " + mine.text, node).partition(" ")[2])
    return is_prose(node)


def _block(
    node: Node,
    mine: Node | None,
    unchanged: bool,
    mark: Mark | None,
    src: _Lines,
    tgt: _Lines,
    counts: PortCounts,
    disagrees: bool = False,
    then: str | None = None,
) -> str:
    """One block of the ported document (``disagrees``: its translation, of an unchanged text,
    disagrees with it: kept behind a review mark; ``then``: the source's text the translation
    was made from, :func:`text_then`, for a stale mark)."""
    if not is_prose(node) or (isinstance(node, TextTab) and not all(is_prose(c) for c in node.children)):
        return src.of(node)  # a text tab holding code, math or directives is the source's, as code is
    if isinstance(node, Heading) and isinstance(mine, Heading):
        mine_text = _heading(node, mine, src, tgt)
    elif isinstance(node, Figure) and isinstance(mine, Figure):
        mine_text = in_source_figure(node, mine, src.of(node), tgt.of(mine))
    elif isinstance(node, TextTab) and isinstance(mine, TextTab):  # the source's frameworks, translated text
        mine_text = "\n".join(
            [src.lines[node.line - 1], tgt.of(mine, mine.line + 1, mine.end_line - 1), src.lines[node.end_line - 1]]
        )
    elif mine is not None:  # a paragraph, list or table: the translation's text, the source's label lines
        mine_text = with_source_attributes(tgt.of(mine), src.of(node))
    else:
        mine_text = ""
    repaired = mended(mine, mine_text, node, src.of(node)) if mine is not None else ""
    still_untranslated = mark is not None and mark.kind is MarkKind.UNTRANSLATED
    if mine is not None and not still_untranslated:
        counts.mended += repaired != mine_text
        mine_text = repaired
    if mine is not None and unchanged and not still_untranslated:
        if mark is not None and mark.kind in READ_AS_SOURCE:  # marked by an earlier port, not translated since
            counts.review += mark.kind is MarkKind.REVIEW
            counts.stale += mark.kind is MarkKind.STALE
            return holding(mark.kind, mark.text, mark.was) + "\n" + mine_text
        if disagrees:
            counts.review += 1
            return holding(MarkKind.REVIEW, src.of(node)) + "\n" + mine_text
        counts.kept += 1
        return mine_text
    if mine is not None and not still_untranslated:
        counts.stale += 1
        return stale(src.of(node), then, mine_text)
    counts.untranslated += 1
    return untranslated() + "\n" + src.of(node)


_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")  # a setext heading's second line


def _heading(node: Heading, mine: Heading, src: _Lines, tgt: _Lines) -> str:
    """The translated heading at the source's level, with the source's label lines."""
    title = tgt.lines[mine.line - 1].lstrip("#").strip()
    # (a setext heading's underline is not carried: the heading is written with #)
    own = "\n".join(line for line in src.lines[node.line : node.end_line] if not _UNDERLINE.match(line))
    return "#" * node.level + " " + title + ("\n" + own if own.strip() else "")


def _asides(
    target: Doc,
    used: dict[int, int],
    tgt: _Lines,
    counts: PortCounts,
    source: set[str],
    found: Known,
    placed: set[int],
) -> dict[int, list[str]]:
    """Translated text the ported document has no place for, after the block of the translated
    block before it (-1: before the first): prose whose base the source dropped, the translator's
    own additions, cells that paired with no cell of the source -- only what holds translation
    (:mod:`.translated`: not an old copy of the source's code or directives), and not a block
    that is one of the ``source``'s blocks word for word. The language's own cells and tabs are
    placed apart (:mod:`.own_frameworks`)."""
    out: dict[int, list[str]] = {}
    last = -1
    before = ""  # the kept translated block nothing was put after yet
    for node in target.nodes:
        if id(node) in used:
            last, before = used[id(node)], tgt.of(node)
            continue
        mark = read_mark(node)
        if mark is not None:
            if mark.kind is MarkKind.ASIDE:  # kept from an earlier port: stays kept
                out.setdefault(last, []).append(tgt.of(node))
                before = ""
            continue
        if id(node) in placed or isinstance(node, TabSetup):
            continue  # own cells and tabs, placed with their group (:mod:`.own_frameworks`); the source's declaration
        if closes_mark(tgt.of(node), before):  # the end of the kept block's slide mark: stays with it
            out.setdefault(last, []).append(tgt.of(node))
        elif tgt.of(node).strip() not in source and translated_lines(tgt.of(node), found):
            counts.aside += 1
            out.setdefault(last, []).append(holding(MarkKind.ASIDE, tgt.of(node)))
        else:
            continue
        before = ""
    return out


def _texts(doc: Doc) -> list[str]:
    """The texts of a document's nodes as written (the lines a translation may share with it)."""
    out = []
    for node in doc.walk():
        for name in ("source", "code", "text", "caption", "tex", "src", "spec"):
            value = getattr(node, name, None)
            if isinstance(value, str):
                out.append(value)
    return out


def new_document(source_text: str, source: Doc) -> PortedText:
    """A document new in the source: its text, marked untranslated as a whole."""
    counts = PortCounts(untranslated=sum(is_prose(node) for node in source.nodes))
    return PortedText(untranslated(document=True) + "\n\n" + source_text.lstrip("\n"), counts)
