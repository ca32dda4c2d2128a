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
#: A ``%%tab`` line anywhere in a cell (only the first line may hold one).
ANY_MAGIC_TAB_RE = re.compile(r"^\s*%%tab\b")
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

    ``known``: the book's frameworks (an ``else`` arm is kept by those no earlier arm named).
    A cell whose branches cannot be read has no branches: every framework sees it as written.
    """
    if not _MARK_RE.search(code):
        return (), []
    lines = code.split("\n")
    try:
        tree = ast.parse(_neutral(lines))
    except SyntaxError as exc:
        line = max((exc.lineno or 1) - 1, 0)
        return (), [Problem(line, "branch", f"this cell's tab.selected branches cannot be read: {exc.msg}")]
    finder = _Finder(lines, tuple(known))
    finder.visit_tree(tree)
    problems = sorted(finder.problems, key=lambda p: p.line)
    if any(p.kind == "branch" for p in problems):
        return (), problems
    return tuple(sorted(finder.branches, key=lambda b: b.head)), problems


def _neutral(lines: list[str]) -> str:
    """The code with IPython lines (``%magic``, ``!shell``) as ``pass``, line for line, so
    :mod:`ast` can read the rest."""
    return "\n".join(_MAGIC_LINE_RE.sub(r"\1pass #", line) if _MAGIC_LINE_RE.match(line) else line for line in lines)


class _Finder:
    def __init__(self, lines: list[str], known: tuple[str, ...]) -> None:
        self.lines = lines
        self.known = known
        self.branches: list[Branch] = []
        self.problems: list[Problem] = []
        self.used: set[int] = set()  # ids of the test expressions read as tab conditions

    def visit_tree(self, tree: ast.Module) -> None:
        elifs: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and id(node) not in elifs and _mentions(node.test):
                elifs.update(self.chain(node))
        for node in ast.walk(tree):
            if _is_mark(node) and id(node) not in self.used:
                self.problems.append(
                    Problem(
                        node.lineno - 1,  # type: ignore[attr-defined]
                        "stray",
                        "tab.selected(...) is only resolved as the condition of an `if`; "
                        "write `if tab.selected(...):` here",
                    )
                )

    def chain(self, node: ast.If) -> set[int]:
        """Record the arms of the chain starting at ``node``; the ids of its ``elif`` nodes."""
        arms: list[tuple[int, list[ast.stmt], frozenset[str]]] = []
        taken: frozenset[str] = frozenset()
        elifs: set[int] = set()
        current: ast.If | None = node
        last: ast.If = node
        while current is not None:
            try:
                selected = self.condition(current.test)
            except _NotTab as exc:
                self.problems.append(Problem(current.lineno - 1, "branch", str(exc)))
                return elifs
            arms.append((current.lineno - 1, current.body, selected - taken))
            taken |= selected
            last, current = current, None
            orelse = last.orelse
            if len(orelse) == 1 and isinstance(orelse[0], ast.If) and self._is_elif(orelse[0]):
                current = orelse[0]
                elifs.add(id(current))
                if not _mentions(current.test):
                    message = "an if/elif chain mixes tab.selected(...) with other conditions"
                    self.problems.append(Problem(current.lineno - 1, "branch", message))
                    return elifs
        if last.orelse:
            head = self._else_line(last)
            if head is None:
                self.problems.append(Problem(last.lineno - 1, "branch", "cannot find the `else:` of this branch"))
                return elifs
            arms.append((head, last.orelse, frozenset(self.known) - taken))
        ends = [head for head, _, _ in arms[1:]] + [self._end(arms[-1][1], node)]
        indent = node.col_offset
        for (head, body, frameworks), end in zip(arms, ends, strict=True):
            first = body[0]
            if first.lineno - 1 == head:  # ``if tab.selected('x'): y = 1``
                if len(body) > 1 and body[-1].end_lineno != first.lineno:
                    message = "write the body of a tab.selected branch on lines of its own"
                    self.problems.append(Problem(head, "branch", message))
                    return elifs
                self.branches.append(Branch(head, head, head + 1, frameworks, 0, first.col_offset))
                continue
            self.branches.append(Branch(head, head + 1, end, frameworks, first.col_offset - indent))
        return elifs

    def _is_elif(self, node: ast.If) -> bool:
        return self.lines[node.lineno - 1].lstrip().startswith("elif")

    def _else_line(self, node: ast.If) -> int | None:
        body_end = node.body[-1].end_lineno or node.body[-1].lineno
        for index in range(node.orelse[0].lineno - 2, body_end - 1, -1):
            text = self.lines[index]
            if text.lstrip().startswith("else") and len(text) - len(text.lstrip()) == node.col_offset:
                return index
        return None

    def _end(self, body: list[ast.stmt], node: ast.If) -> int:
        """One past the last line of the chain's last body: its last statement, and the comment
        lines indented into it that follow (blank lines after it stay outside)."""
        end = max(stmt.end_lineno or stmt.lineno for stmt in body)
        index, last = end, end
        while index < len(self.lines):
            text = self.lines[index]
            if text.strip() and (
                not text.lstrip().startswith("#") or len(text) - len(text.lstrip()) <= node.col_offset
            ):
                break
            index += 1
            if text.strip():
                last = index
        return last

    def condition(self, test: ast.expr) -> frozenset[str]:
        """The frameworks a tab condition selects; raises :class:`_NotTab` for anything else."""
        self.used.update(id(n) for n in ast.walk(test) if _is_mark(n))
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


def _mentions(test: ast.expr) -> bool:
    return any(_is_mark(n) for n in ast.walk(test))


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
