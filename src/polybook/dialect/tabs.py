"""What code a framework sees: d2lbook's tab marks inside code cells, resolved once for every stage.

d2lbook 0.x marks a cell's frameworks with ``#@tab x, y`` on its first line; d2lbook 1.0 also
with the cell magic ``%%tab x, y`` (``%%tab all``), declares a document's frameworks and extra
requirements in a ``%load_ext d2lbook.tab`` cell (``tab.interact_select([...])``,
``#required_libs("gpytorch")``), and lets one shared cell differ per framework with
``if tab.selected('x'):`` branches (0.x books: ``if d2l.USE_MXNET:``). d2lbook drops the other
frameworks' branches and dedents the kept ones before it runs, shows or saves a cell
(``notebook.get_tab_notebook`` / ``_clean_if_branches``); so does :func:`resolve_lines` here.
The parser stores what it finds on the nodes (:class:`Branch` on ``CodeCell.branches``,
:class:`polybook.dialect.nodes.TabSetup`), and the checker's code streams, the program planner,
the library collector and the MyST stager all ask ``CodeCell.code_for(framework)``: no stage
reads these marks on its own.

Written by hand because no library reads d2lbook's marks. The branches are found with
:mod:`ast` rather than line by line as d2lbook does, so a condition is read for what it says
(``or``, ``not``, lists), ``elif``/``else`` arms work, and a branch that does not parse is an
error at its line instead of a silently wrong program.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: ``%%tab mxnet, pytorch`` -- the cell magic of d2lbook 1.0 (first line of a cell).
MAGIC_TAB_RE = re.compile(r"^%%tab(?:\s+(?P<spec>\S.*?))?\s*$")
#: The cell that loads d2lbook's tab extension: the document's tab declaration.
SETUP_RE = re.compile(r"^\s*%load_ext\s+d2lbook\.tab\s*$", re.MULTILINE)
_REQUIRED_RE = re.compile(r"^\s*#\s*required_libs\s*\((?P<args>.*)\)\s*$")
_MARK_RE = re.compile(r"\btab\s*\.\s*selected\b|\bd2l\s*\.\s*USE_\w+")
_MAGIC_LINE_RE = re.compile(r"^(\s*)(?:%|!)")


@dataclass(frozen=True, slots=True)
class Branch:
    """One arm of an ``if tab.selected(...)`` / ``elif`` / ``else`` chain, in 0-based lines of
    the cell's code: the framework(s) that keep its body see it dedented, the others lose it;
    the ``if``/``elif``/``else`` line itself is dropped for every framework."""

    head: int  # the line of ``if``/``elif``/``else``
    start: int  # first line of the body (== head for a body on the head line)
    end: int  # one past the body's last line
    frameworks: frozenset[str]
    dedent: int  # spaces the kept body loses
    inline_at: int = -1  # column of a body written on the head line (``if tab.selected('x'): y``)

    def to_dict(self) -> dict[str, Any]:
        return {
            "head": self.head,
            "start": self.start,
            "end": self.end,
            "frameworks": sorted(self.frameworks),
            "dedent": self.dedent,
        }


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with the marks of a cell, at a 0-based line of its code."""

    line: int
    kind: str  # "branch": the cell cannot be resolved; "stray": a mark outside an ``if``; "unknown"
    # framework; "setup": a line of the d2lbook.tab cell it does not declare
    message: str


class _NotTab(Exception):
    """A condition that is not only about the selected tab."""


def resolve_lines(lines: Sequence[str], branches: Sequence[Branch], framework: str) -> list[tuple[int, str]]:
    """The lines ``framework`` sees, each with its 0-based index in ``lines``."""
    if not branches:
        return list(enumerate(lines))
    dropped: set[int] = set()
    dedent = [0] * len(lines)
    replaced: dict[int, str] = {}
    for branch in branches:
        kept = framework in branch.frameworks
        if branch.inline_at >= 0:
            if kept:
                head = lines[branch.head]
                replaced[branch.head] = head[: len(head) - len(head.lstrip())] + head[branch.inline_at :].strip()
            else:
                dropped.add(branch.head)
            continue
        dropped.add(branch.head)
        for index in range(branch.start, branch.end):
            if kept:
                dedent[index] += branch.dedent
            else:
                dropped.add(index)
    out = []
    for index, line in enumerate(lines):
        if index in dropped:
            continue
        line = replaced.get(index, line)
        cut = min(dedent[index], len(line) - len(line.lstrip(" ")))
        out.append((index, line[cut:]))
    return out


def find_branches(code: str, known: Sequence[str]) -> tuple[tuple[Branch, ...], list[Problem]]:
    """The ``tab.selected`` (and ``d2l.USE_X``) branches of a cell's code, and its problems.

    A branch is read as d2lbook reads it, line by line: it starts at its ``if`` line and runs
    over the blank lines and the lines indented deeper than that ``if``; an ``if tab.selected``
    line inside it starts the next branch (d2l's books rely on that: a ``tensorflow`` branch
    inside a ``mxnet, tensorflow`` one adds lines to the method above it). Beyond d2lbook, the
    condition is read with :mod:`ast` (``or``, ``not``, lists), ``elif``/``else`` arms work,
    and a body on the ``if`` line is kept. ``known``: the book's frameworks (an ``else`` arm is
    kept by those no earlier arm named). A cell whose branches cannot be read has none: every
    framework sees it as written.
    """
    if ("selected" not in code and "USE_" not in code) or not _MARK_RE.search(code):  # no mark: most cells
        return (), []
    lines = code.split("\n")
    try:
        tree = ast.parse(_neutral(lines))
    except SyntaxError as exc:
        line = max((exc.lineno or 1) - 1, 0)
        return (), [Problem(line, "branch", f"this cell's tab.selected branches cannot be read: {exc.msg}")]
    finder = _Finder(lines, tuple(known))
    finder.scan()
    for node in ast.walk(tree):
        if _is_mark(node) and node.lineno - 1 not in finder.heads:  # type: ignore[attr-defined]
            message = (
                "tab.selected(...) is only resolved as the condition of an `if`; write `if tab.selected(...):` here"
            )
            finder.problems.append(Problem(node.lineno - 1, "stray", message))  # type: ignore[attr-defined]
    problems = sorted(finder.problems, key=lambda p: p.line)
    if any(p.kind == "branch" for p in problems):
        return (), problems
    return tuple(finder.branches), problems


def _neutral(lines: list[str]) -> str:
    """The code with IPython lines (``%magic``, ``!shell``) as ``pass``, line for line, so
    :mod:`ast` can read the rest."""
    return "\n".join(_MAGIC_LINE_RE.sub(r"\1pass #", line) if _MAGIC_LINE_RE.match(line) else line for line in lines)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


class _Finder:
    def __init__(self, lines: list[str], known: tuple[str, ...]) -> None:
        self.lines = lines
        self.known = known
        self.branches: list[Branch] = []
        self.problems: list[Problem] = []
        self.heads: set[int] = set()  # lines of every branch head, read or not

    def scan(self) -> None:
        """d2lbook's walk over the lines: each branch head opens a branch, which the first
        line not blank and not indented deeper than its head closes."""
        chain: tuple[int, frozenset[str]] | None = None  # (indent, frameworks taken) of the open chain
        index = 0
        while index < len(self.lines):
            text = self.lines[index]
            stripped = text.strip()
            arm = self.arm(stripped, index, chain if chain is not None and chain[0] == _indent(text) else None)
            if arm is None:
                if stripped and not stripped.startswith("#") and (chain is None or _indent(text) <= chain[0]):
                    chain = None
                index += 1
                continue
            if arm is False:  # a head that cannot be read: already reported
                return
            selected, inline_at = arm
            taken = chain[1] if chain is not None and not stripped.startswith("if") else frozenset()
            chain = (_indent(text), taken | selected)
            frameworks = selected - taken
            if inline_at >= 0:
                self.branches.append(Branch(index, index, index + 1, frameworks, 0, inline_at))
                index += 1
                continue
            end = index + 1
            while (
                end < len(self.lines)
                and (not self.lines[end].strip() or _indent(self.lines[end]) > _indent(text))
                and not self._is_head(end)
            ):
                end += 1
            body = next((line for line in self.lines[index + 1 : end] if line.strip()), text + "    ")
            self.branches.append(Branch(index, index + 1, end, frameworks, _indent(body) - _indent(text)))
            index = end

    def _is_head(self, index: int) -> bool:
        stripped = self.lines[index].strip()
        return stripped.startswith(("if", "elif")) and bool(_MARK_RE.search(stripped))

    def arm(
        self, stripped: str, index: int, chain: tuple[int, frozenset[str]] | None
    ) -> tuple[frozenset[str], int] | bool | None:
        """What a line heads: (frameworks it selects, column of a body on its line or -1), None
        for a line that heads no branch, False for a head that cannot be read."""
        keyword = stripped.split("(")[0].split()[0] if stripped else ""
        if keyword == "else" or stripped.startswith("else:"):
            if chain is None:
                return None
            rest = stripped.split(":", 1)[1].strip()
            column = self.lines[index].index(rest) if rest and not rest.startswith("#") else -1
            return frozenset(self.known) - chain[1], column
        if keyword not in ("if", "elif") or not _MARK_RE.search(stripped):
            return None
        if keyword == "elif" and chain is None:
            return None
        self.heads.add(index)
        source = stripped[2:] if keyword == "elif" else stripped
        try:
            node = ast.parse(source + "\n    pass").body[0]
        except SyntaxError:
            try:  # a body on the head line: ``if tab.selected('x'): y = 1``
                node = ast.parse(source).body[0]
            except SyntaxError as exc:
                message = f"this tab.selected branch cannot be read: {exc.msg}"
                self.problems.append(Problem(index, "branch", message))
                return False
        if not isinstance(node, ast.If):
            return None
        try:
            selected = self.condition(node.test)
        except _NotTab as exc:
            self.problems.append(Problem(index, "branch", str(exc)))
            return False
        inline = node.body[0]
        if inline.lineno != 1:
            return selected, -1
        return selected, _indent(self.lines[index]) + len(stripped) - len(source) + inline.col_offset

    def condition(self, test: ast.expr) -> frozenset[str]:
        """The frameworks a tab condition selects; raises :class:`_NotTab` for anything else."""
        if isinstance(test, ast.BoolOp):
            parts = [self.condition(v) for v in test.values]
            if isinstance(test.op, ast.Or):
                return frozenset().union(*parts)
            return frozenset(self.known).intersection(*parts)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return frozenset(self.known) - self.condition(test.operand)
        if isinstance(test, ast.Call) and _is_selected(test.func) and not test.keywords:
            names: list[str] = []
            for arg in test.args:
                items = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
                for item in items:
                    if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                        raise _NotTab("tab.selected(...) takes framework names written as strings")
                    names.append(item.value)
            return self.names(names, test.lineno - 1)
        if isinstance(test, ast.Attribute) and _is_use(test):
            wanted = test.attr[len("USE_") :]
            found = [name for name in self.known if name.upper() == wanted]
            if not found:
                self.problems.append(
                    Problem(test.lineno - 1, "unknown", f"d2l.{test.attr} names no framework of the book")
                )
            return frozenset(found)
        raise _NotTab(f"the condition `{ast.unparse(test)}` mixes tab.selected(...) with other code")

    def names(self, names: list[str], line: int) -> frozenset[str]:
        for name in names:
            if self.known and name not in self.known:
                known = ", ".join(self.known)
                self.problems.append(
                    Problem(line, "unknown", f"unknown framework {name!r} in tab.selected (known: {known})")
                )
        return frozenset(names)


def _is_selected(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "selected"
        and isinstance(func.value, ast.Name)
        and (func.value.id == "tab")
    )


def _is_use(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr.startswith("USE_")
        and isinstance(node.value, ast.Name)
        and node.value.id == "d2l"
    )


def _is_mark(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and _is_selected(node.func)) or (
        isinstance(node, ast.Attribute) and _is_use(node)
    )


@dataclass(frozen=True, slots=True)
class SetupCell:
    """What a ``%load_ext d2lbook.tab`` cell declares."""

    frameworks: tuple[str, ...] | None  # ``tab.interact_select(...)``; None when it does not say
    required_libs: tuple[str, ...]
    problems: tuple[Problem, ...]


def read_setup(code: str) -> SetupCell:
    """The frameworks and requirements a ``%load_ext d2lbook.tab`` cell declares. Anything else in
    it is reported (d2lbook drops the whole cell: that code never runs)."""
    frameworks: tuple[str, ...] | None = None
    required: list[str] = []
    problems: list[Problem] = []
    for index, line in enumerate(code.split("\n")):
        text = line.strip()
        if not text or SETUP_RE.match(line):
            continue
        if m := _REQUIRED_RE.match(line):
            try:
                value = ast.literal_eval(f"({m['args']},)")
            except (ValueError, SyntaxError):
                value = None
            if not isinstance(value, tuple) or not all(isinstance(v, str) and v.strip() for v in value):
                problems.append(Problem(index, "setup", f'cannot read {text!r}: write #required_libs("pkg==1.0", ...)'))
                continue
            required.extend(v.strip() for v in value)
            continue
        if text.startswith("#"):
            continue
        declared = _interact_select(text)
        if declared is None:
            problems.append(
                Problem(index, "setup", f"{text!r} in the d2lbook.tab cell is never run (the cell is not code)")
            )
            continue
        frameworks = declared
    return SetupCell(frameworks, tuple(required), tuple(problems))


def _interact_select(text: str) -> tuple[str, ...] | None:
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("interact_select", "select_tab")
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "tab"
    ):
        return None
    names: list[str] = []
    for arg in node.args:
        items = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
        for item in items:
            if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                return None
            names.append(item.value)
    return tuple(names)
