"""A language's own frameworks through a port: cells and tabs the source has no counterpart for.

d2l-zh runs a fifth framework, PaddlePaddle, that the English source does not: its cells
(``#@tab paddle``), its text tabs (``:begin_tab:`paddle```) and its share of cells and tabs
written for several frameworks (``#@tab pytorch, paddle``). The port writes the source's cells;
without this, every one of them would be dropped. So:

* a cell or tab of the language's frameworks only stays where its tab group went: after the
  block the nearest member of its group that the port placed went into (the source cell it
  stood beside), or before the first one placed after it; a group of which the source kept
  nothing goes to the archive with its own cells (:attr:`OwnPlaced.archived`);
* a cell shared with the source's frameworks keeps its own frameworks in the source's tab list
  when its code is the source's; when the source changed the code, the old cell stays for the
  language's frameworks alone, beside the new one (it ran there; the new code may not);
* the document's ``tab.interact_select([...])`` (d2lbook 1.0's tab declaration) names them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from polybook.dialect.marks import read_mark
from polybook.dialect.nodes import CodeCell, Document, Node, TextTab

_TAB_LINE = re.compile(r"^(?P<lead>\s*(?:#@tab|%%tab)\s+)(?P<spec>.*?)\s*$")
_BEGIN_TAB = re.compile(r"^(?P<lead>\s*:begin_tab:`)(?P<spec>[^`]*)(?P<rest>`.*)$")
_SELECT = re.compile(r"(interact_select\(\s*\[?)(?P<args>[^\])]*?)(\s*\]?\s*\))")


def own_frameworks(target: Document, source: Document) -> tuple[str, ...]:
    """The frameworks the translation runs that the source does not (zh's paddle)."""
    return tuple(f for f in target.frameworks if f not in source.frameworks)


def is_own(node: Node, own: Sequence[str]) -> bool:
    """A cell or text tab for the language's own frameworks only."""
    if not own or not isinstance(node, (CodeCell, TextTab)):
        return False
    return bool(node.frameworks) and all(f in own for f in node.frameworks)


def shared_own(node: Node, own: Sequence[str]) -> tuple[str, ...]:
    """The language's own frameworks a cell or tab written for several names (not the tab
    declaration, :class:`TabSetup`, which names frameworks too: the source's is written)."""
    if not isinstance(node, (CodeCell, TextTab)):
        return ()
    return tuple(f for f in own if f in node.frameworks)


def _spec_with(spec: str, extra: Sequence[str]) -> str:
    if spec.strip() == "all":
        return spec
    names = [n.strip() for n in spec.split(",") if n.strip()]
    return ", ".join([*names, *(f for f in extra if f not in names)])


def cell_with_tabs(header: str, extra: Sequence[str], default: str) -> str:
    """A source cell's fence and tab lines (``header``) naming ``extra`` frameworks too; an
    untagged cell (the default tab's) gets a ``#@tab`` line."""
    if not extra:
        return header
    lines = header.split("\n")
    for k, line in enumerate(lines[1:], 1):
        found = _TAB_LINE.match(line)
        if found:
            spec = _spec_with(found["spec"], extra)
            lines[k] = line if spec == found["spec"] else found["lead"] + spec  # ``all`` names them already
            return "\n".join(lines)
    return "\n".join([lines[0], "#@tab " + _spec_with(default, extra), *lines[1:]])


def tab_with(begin_line: str, extra: Sequence[str]) -> str:
    """A ``:begin_tab:`...``` line naming ``extra`` frameworks too."""
    found = _BEGIN_TAB.match(begin_line)
    if not extra or found is None:
        return begin_line
    return found["lead"] + _spec_with(found["spec"], extra) + found["rest"]


def narrowed(cell_text: str, own: Sequence[str]) -> str:
    """A translated cell (its text as written) run by the language's own frameworks alone."""
    lines = cell_text.split("\n")
    for k, line in enumerate(lines[1:], 1):
        found = _TAB_LINE.match(line)
        if found:
            lines[k] = found["lead"] + ", ".join(own)
            return "\n".join(lines)
    return "\n".join([lines[0], "#@tab " + ", ".join(own), *lines[1:]])


def setup_with(setup_text: str, extra: Sequence[str]) -> str:
    """The ``%load_ext d2lbook.tab`` cell declaring ``extra`` frameworks too."""

    def add(found: re.Match[str]) -> str:
        args = found["args"]
        quote = "'" if "'" in args or '"' not in args else '"'
        named = re.findall(r"[\w-]+", args)
        more = [f"{quote}{f}{quote}" for f in extra if f not in named]
        return found[1] + ", ".join([args.strip(), *more] if args.strip() else more) + found[3]

    return _SELECT.sub(add, setup_text, count=1)


@dataclass(slots=True)
class OwnPlaced:
    """Where the language's own cells and tabs go: after which output block (-1: before the
    first), or the archive (their group is gone from the source); ``handled``: their ids."""

    after: dict[int, list[Node]] = field(default_factory=dict)
    archived: list[Node] = field(default_factory=list)
    handled: set[int] = field(default_factory=set)


def place_own(target: Document, placed: dict[int, int], used: dict[int, int], own: Sequence[str]) -> OwnPlaced:
    """The translation's own cells and tabs placed by their tab group (consecutive cells and
    text tabs): ``placed`` is ``id(translation node) -> output block`` of what the port paired,
    ``used`` of what it carried. A cell or tab shared with the source's frameworks the port did
    not carry goes with its group too, for the language's own frameworks (:func:`own_text`)."""
    out = OwnPlaced()
    nodes = [n for n in target.nodes if read_mark(n) is None]
    last = -1
    for group in _groups(nodes):
        theirs = [n for n in group if is_own(n, own) or (id(n) not in used and shared_own(n, own))]
        for k, node in enumerate(group):
            if id(node) in placed:
                last = placed[id(node)]
            if node not in theirs:
                continue
            out.handled.add(id(node))
            before = [placed[id(n)] for n in group[:k] if id(n) in placed]
            after = [placed[id(n)] for n in group[k + 1 :] if id(n) in placed]
            if before:
                out.after.setdefault(max(before), []).append(node)
            elif after:
                out.after.setdefault(min(after) - 1, []).append(node)
            elif all(is_own(n, own) for n in group):  # a group of its own cells alone: after what came before
                out.after.setdefault(last, []).append(node)
            else:
                out.archived.append(node)
    return out


def own_text(node: Node, text: str, own: Sequence[str]) -> str:
    """The text of an own cell or tab as the port keeps it: as written, or -- written for the
    source's frameworks too -- for the language's own alone."""
    if is_own(node, own):
        return text
    mine = shared_own(node, own)
    if isinstance(node, TextTab):
        first, _, rest = text.partition("\n")
        found = _BEGIN_TAB.match(first)
        return found["lead"] + ", ".join(mine) + found["rest"] + "\n" + rest if found else text
    return narrowed(text, mine)


def _groups(nodes: list[Node]) -> list[list[Node]]:
    """The nodes in runs: consecutive cells and text tabs together, every other node alone."""
    out: list[list[Node]] = []
    for node in nodes:
        tabbed = isinstance(node, (CodeCell, TextTab))
        if tabbed and out and isinstance(out[-1][-1], (CodeCell, TextTab)):
            out[-1].append(node)
        else:
            out.append([node])
    return out
