"""The document model: small typed nodes that all know their file and 1-based line.

Prose nodes keep their raw Markdown (``source``) so later stages (checker, renderer)
can work on exactly what the author wrote; the dialect's own constructs (code cells,
text tabs, labels, figures) are parsed into fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from polybook.diagnostics import Diagnostic
from polybook.dialect.tabs import Branch, resolve_lines


@dataclass(slots=True)
class Node:
    path: str
    line: int  # 1-based line of the node's first source line
    end_line: int  # 1-based last line (inclusive)

    @property
    def type(self) -> str:
        return type(self).__name__.lower()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            if f.name == "path":
                continue
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class Inline:
    """An inline element inside prose: ``kind`` is role, math, code or link."""

    kind: str
    line: int
    value: str  # role target, TeX, code, or link URL
    name: str = ""  # role name (numref, ref, eqref, cite, citet...) or link text
    damaged: bool = False  # e.g. ``: numref: `x``` recovered as a role

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "line": self.line, "value": self.value}
        if self.name:
            out["name"] = self.name
        if self.damaged:
            out["damaged"] = True
        return out


@dataclass(slots=True)
class Heading(Node):
    level: int
    text: str
    label: str | None = None
    inlines: list[Inline] = field(default_factory=list)


@dataclass(slots=True)
class Paragraph(Node):
    source: str
    inlines: list[Inline] = field(default_factory=list)


@dataclass(slots=True)
class Block(Node):
    """Any other CommonMark block kept as written: list, blockquote, table, html, hr."""

    kind: str
    source: str
    inlines: list[Inline] = field(default_factory=list)
    label: str | None = None  # a table's ``:label:``


@dataclass(slots=True)
class DisplayMath(Node):
    tex: str
    label: str | None = None


@dataclass(slots=True)
class Figure(Node):
    src: str
    caption: str
    width: str | None = None
    height: str | None = None
    label: str | None = None
    inlines: list[Inline] = field(default_factory=list)


@dataclass(slots=True)
class Marker:
    """A ``#@save`` / ``#@hide...`` marker or a ``%magic`` line inside a code cell."""

    name: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "line": self.line}


@dataclass(slots=True)
class CodeCell(Node):
    """A ```` ```{.python .input} ```` cell: executed, once per framework it belongs to."""

    info: str
    language: str
    attrs: dict[str, str]
    tab: str | None  # the raw ``#@tab`` value, None when untagged
    frameworks: tuple[str, ...]  # resolved: untagged -> the document's default tab
    code: str  # without the ``#@tab`` line
    code_line: int  # line of the first line of ``code``
    markers: list[Marker] = field(default_factory=list)
    magics: list[Marker] = field(default_factory=list)
    closed: bool = True
    branches: tuple[Branch, ...] = ()  # ``if tab.selected(...)`` arms (:mod:`polybook.dialect.tabs`)

    @property
    def saved(self) -> bool:
        return any(m.name == "save" for m in self.markers)

    @property
    def varies(self) -> bool:
        """Whether frameworks see different code in this cell (it has ``tab.selected`` branches)."""
        return bool(self.branches)

    def code_for(self, framework: str) -> str:
        """The code ``framework`` runs, shows, saves and compares: its branches kept, dedented,
        the others' dropped. Every stage asks this; none reads the branches itself."""
        if not self.branches:
            return self.code
        return "\n".join(text for _, text in resolve_lines(self.code.split("\n"), self.branches, framework))

    def lines_for(self, framework: str) -> list[tuple[str, int]]:
        """:meth:`code_for` line by line, each with its 1-based line in the file."""
        resolved = resolve_lines(self.code.split("\n"), self.branches, framework)
        return [(text, self.code_line + index) for index, text in resolved]


@dataclass(slots=True)
class TabSetup(Node):
    """d2lbook 1.0's ``%load_ext d2lbook.tab`` cell: it declares the document's frameworks
    (``tab.interact_select([...])``) and extra requirements (``#required_libs("gpytorch")``).
    Never shown, run or compared as code."""

    code: str  # as written, for the record
    frameworks: tuple[str, ...] | None  # None: the cell does not say
    required_libs: tuple[str, ...] = ()


@dataclass(slots=True)
class Fence(Node):
    """A fence that is shown, never executed (bash, text, plain ``python``...)."""

    language: str
    info: str
    code: str
    closed: bool = True


@dataclass(slots=True)
class TocBlock(Node):
    options: dict[str, str]
    entries: list[str]
    entry_lines: list[int] = field(default_factory=list)  # the file line of each entry


@dataclass(slots=True)
class EvalRst(Node):
    source: str


@dataclass(slots=True)
class Bibliography(Node):
    """``:bibliography:`../d2l.bib```: the book's list of references is here (its page)."""

    file: str


@dataclass(slots=True)
class TextTab(Node):
    """Text between ``:begin_tab:`x``` and ``:end_tab:``: shown only for its frameworks."""

    spec: str
    frameworks: tuple[str, ...]
    children: list[Node] = field(default_factory=list)
    closed: bool = True


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    kind: str  # heading, figure, equation, table, orphan
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "line": self.line}


@dataclass(slots=True)
class Document:
    path: str
    language: str | None
    frameworks: tuple[str, ...]
    default_tab: str
    nodes: list[Node] = field(default_factory=list)
    labels: dict[str, Label] = field(default_factory=dict)
    front_matter: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        """Every node in document order, text-tab children included."""
        stack = list(reversed(self.nodes))
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, TextTab):
                stack.extend(reversed(node.children))

    @property
    def setup(self) -> TabSetup | None:
        """The document's ``%load_ext d2lbook.tab`` cell, if it has one."""
        return next((n for n in self.nodes if isinstance(n, TabSetup)), None)

    @property
    def required_libs(self) -> tuple[str, ...]:
        """Requirements the document's programs need beyond their framework's environment."""
        setup = self.setup
        return setup.required_libs if setup is not None else ()

    def cells(self, framework: str | None = None) -> list[CodeCell]:
        """Code cells in order; with ``framework``, only the cells that run for it."""
        return [n for n in self.walk() if isinstance(n, CodeCell) and (framework is None or framework in n.frameworks)]

    def offers(self, framework: str) -> bool:
        """Whether the document has a version for ``framework`` (:meth:`offered`)."""
        return framework in self.offered()

    def named(self) -> set[str]:
        """The frameworks the document's cells (not ``#@tab all``, not untagged) and text tabs
        (not ``all``) name."""
        out: set[str] = set()
        for node in self.naming():
            out.update(node.frameworks)
        return out

    def naming(self) -> Iterator[CodeCell | TextTab]:
        """The code cells and text tabs whose tab names frameworks (not ``all``, not untagged)."""
        for node in self.walk():
            tab = node.spec if isinstance(node, TextTab) else node.tab if isinstance(node, CodeCell) else None
            if tab is not None and tab.strip() != "all":
                yield node  # type: ignore[misc]

    def offered(self) -> tuple[str, ...]:
        """The frameworks the document has a version for -- a notebook, a tab on its page, a
        program, library code -- in the book's order, as d2lbook decides (its
        ``get_tab_notebook``, which writes nothing for the others):

        - the default tab, or a framework a code cell's ``#@tab``/``%%tab`` or a text tab names
          (``#@tab all`` names none; nor does ``tab.interact_select([...])``: d2lbook reads the
          ``%load_ext d2lbook.tab`` cell as untagged code, and a framework it declares but no
          cell names gets no version);
        - and, when the document has code, some cell of it for that framework (an untagged cell is
          the default tab's, ``#@tab all`` everyone's; the setup cell counts for none): a document
          whose every cell is ``#@tab mxnet`` has no version for the default tab either.

        A document without code has a version for every framework (its prose)."""
        named = self.named() | {self.default_tab}
        has_code = False
        runs: set[str] = set()
        for node in self.walk():
            if isinstance(node, CodeCell | TextTab):
                runs.update(node.frameworks)
            has_code = has_code or isinstance(node, CodeCell | TabSetup)
        return tuple(fw for fw in self.frameworks if not has_code or (fw in named and fw in runs))

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "language": self.language,
            "frameworks": list(self.frameworks),
            "default_tab": self.default_tab,
            "front_matter": self.front_matter,
            "labels": [label.to_dict() for label in self.labels.values()],
            "nodes": [n.to_dict() for n in self.nodes],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }
