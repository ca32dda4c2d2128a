"""A code cell of the source, ported: the source's code with what its translation translated.

The code is the source's as it is now (its frameworks' and the library's); what a translator
wrote in the old cell comes with it where it still fits: the whole translated cell where only
comments differ, else each line the source kept with its translated comment or string
(:mod:`.code_text`). What finds no place is kept aside after the cell -- only when it holds
translation (:mod:`.translated`). A cell the language's own frameworks shared keeps them
(:mod:`.own_frameworks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from polybook.check.code_keys import cell_key
from polybook.dialect.marks import MarkKind, holding
from polybook.dialect.nodes import CodeCell, DisplayMath, Fence, Node
from polybook.sync.code_text import carried_code
from polybook.sync.own_frameworks import cell_with_tabs, narrowed, shared_own
from polybook.sync.source_parts import with_source_attributes
from polybook.sync.translated import Known, translated_lines


@dataclass(slots=True)
class PortedCell:
    text: str
    after: list[str] = field(default_factory=list)  # what stays after it: the old cell, aside or for own frameworks
    carried: bool = False  # translated text carried into the cell
    own: bool = False  # the language's own frameworks kept with it
    aside: bool = False


def same_code(mine: CodeCell, node: CodeCell) -> bool:
    """Whether a translated cell is the source's but for comments: the same code and the same
    markers (``#@save`` is a comment, and says which code the library takes)."""
    return cell_key(mine.code) == cell_key(node.code) and [m.name for m in mine.markers] == [
        m.name for m in node.markers
    ]


def ported_cell(
    node: CodeCell,
    mine: Node | None,
    base: Node | None,
    lines: tuple[list[str], list[str]],
    own: Sequence[str],
    default_tab: str,
    found: Known,
    first: bool,
) -> PortedCell:
    """The source's cell ``node`` with its translation ``mine`` (of ``base``); ``lines``: the
    source's and the translation's lines; ``first``: ``mine`` is not ported into another cell
    yet (what stays after a cell stays once)."""
    src, tgt = lines
    whole = "\n".join(src[node.line - 1 : node.end_line])
    if not isinstance(mine, CodeCell):
        return PortedCell(whole)
    head = "\n".join(src[node.line - 1 : node.code_line - 1])
    closing = "\n".join(src[node.code_line - 1 + len(node.code.split("\n")) : node.end_line])
    extra = () if (node.tab or "").strip() == "all" else shared_own(mine, own)  # ``all`` runs them already
    old = "\n".join(tgt[mine.line - 1 : mine.end_line])
    if same_code(mine, node):  # the translation's code where it holds translation, else the source's as is
        code = mine.code if translated_lines("```\n" + mine.code, found) else node.code
        text = "\n".join(part for part in (cell_with_tabs(head, extra, default_tab), code, closing) if part)
        return PortedCell(text, carried=code != node.code, own=bool(extra))
    if isinstance(base, CodeCell):
        carried = carried_code(base.code, node.code, mine.code, found)
        code, complete = carried.code, carried.complete
    else:
        code, complete = node.code, not translated_lines(old, found)
    text = "\n".join(part for part in (head, code, closing) if part)
    out = PortedCell(text, carried=code != node.code)
    if extra and first:  # the old code, for the language's frameworks alone: it ran there
        out.after.append(narrowed(old, extra))
        out.own = True
    elif not complete and first:
        out.after.append(holding(MarkKind.ASIDE, old))
        out.aside = True
    return out


def ported_shown(
    node: Fence | DisplayMath,
    mine: Node | None,
    base: Node | None,
    unchanged: bool,
    lines: tuple[list[str], list[str]],
    found: Known,
    first: bool,
) -> PortedCell:
    """A fence shown, not run (a shell session, sample output), or a display formula, with what
    its translation translated in it: a fence's comments line by line as a cell's; a formula's
    whole (``\\text{其中}``) where its base is the source's, else kept aside after it."""
    src, tgt = lines
    whole = "\n".join(src[node.line - 1 : node.end_line])
    if type(mine) is not type(node):
        return PortedCell(whole)
    old = "\n".join(tgt[mine.line - 1 : mine.end_line])
    if not translated_lines(old if isinstance(node, DisplayMath) else "```\n" + old, found):
        return PortedCell(whole)
    if isinstance(node, Fence) and isinstance(mine, Fence) and isinstance(base, Fence) and node.closed:
        carried = carried_code(base.code, node.code, mine.code, found)
        text = "\n".join([src[node.line - 1], carried.code, src[node.end_line - 1]])
        out = PortedCell(text, carried=carried.code != node.code)
        if not carried.complete and first:
            out.after.append(holding(MarkKind.ASIDE, old))
            out.aside = True
        return out
    if isinstance(node, DisplayMath) and unchanged:
        return PortedCell(with_source_attributes(old, whole), carried=True)
    out = PortedCell(whole)
    if first:
        out.after.append(holding(MarkKind.ASIDE, old))
        out.aside = True
    return out
