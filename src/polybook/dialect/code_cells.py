"""Code cells and d2lbook 1.0's tab declaration, as the builder makes them (a part of
:class:`polybook.dialect.builder._Builder`, kept apart to keep that module readable)."""

from __future__ import annotations

import functools
import re

from markdown_it.token import Token

from polybook.diagnostics import Code, Level
from polybook.dialect.cells import FenceInfo, read_cell_source, split_spec
from polybook.dialect.nodes import CodeCell, Document, Marker, TabSetup
from polybook.dialect.tabs import find_branches, read_setup

#: ``content.lstrip().startswith("#@")`` without copying the cell (``\s``: what ``str.isspace`` says).
_TAB_COMMENT = re.compile(r"\s*#@").match


@functools.lru_cache(maxsize=1024)
def _resolved(spec: str, known: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The frameworks a tab spec (``mxnet, pytorch``, ``all``) names among the book's ``known``
    ones, in the book's order, and the names it does not know; once per spec: a book writes a
    few on thousands of cells."""
    if spec.strip() == "all":
        return known, ()
    names = split_spec(spec)
    if not known:  # no book: nothing to check the names against
        return tuple(dict.fromkeys(names)), ()
    return tuple(n for n in known if n in names), tuple(n for n in names if n not in known)


class CellBuilder:
    """Builds code cells (``#@tab``/``%%tab``, markers, ``tab.selected`` branches) and the
    ``%load_ext d2lbook.tab`` declaration, reporting what is wrong at its line."""

    path: str
    doc: Document

    def report(self, line: int, code: Code, message: str, level: Level | None = None) -> None:
        raise NotImplementedError  # the builder's

    @property
    def frameworks(self) -> tuple[str, ...]:
        raise NotImplementedError  # the builder's settings

    @property
    def default_tab(self) -> str:
        raise NotImplementedError

    def resolve(self, spec: str, line: int, what: str) -> tuple[str, ...]:
        frameworks, unknown = _resolved(spec, self.frameworks)
        for name in unknown:
            known = ", ".join(self.frameworks)
            self.report(line, Code.TAB_UNKNOWN, f"unknown framework {name!r} in {what} (known: {known})")
        return frameworks

    def tab_setup(self, token: Token, content: str) -> TabSetup:
        """d2lbook 1.0's ``%load_ext d2lbook.tab`` cell: the document's frameworks and requirements."""
        assert token.map is not None
        start, end = token.map
        first = start + 2
        setup = read_setup(content)
        for problem in setup.problems:
            self.report(first + problem.line, Code.TAB_SETUP, problem.message)
        frameworks = setup.frameworks
        if frameworks is not None:
            frameworks = self.resolve(", ".join(frameworks), first, "tab.interact_select") if frameworks else ()
        if self.doc.setup is not None:
            self.report(
                start + 1, Code.TAB_SETUP, f"a second d2lbook.tab cell (the first is at line {self.doc.setup.line})"
            )
        return TabSetup(self.path, start + 1, end, content, frameworks, setup.required_libs)

    def code_cell(self, token: Token, info: FenceInfo, content: str, closed: bool) -> CodeCell:
        """The cell of the fence ``token``, whose info string reads as ``info``."""
        assert token.map is not None
        start, end = token.map
        first = start + 2  # 1-based line of the first line inside the fence
        cell = read_cell_source(content)
        if cell.tab_damaged:
            message = "damaged tab marker; write '#@tab <framework>' or '%%tab <framework>' on the first line"
            self.report(first, Code.DIRECTIVE_DAMAGED, message)
        if cell.tab_commented:
            message = f"'# %%tab {cell.tab}' is read as the cell's tab, as d2lbook reads it; write '%%tab {cell.tab}'"
            self.report(first + cell.code_offset - 1, Code.DIRECTIVE_DAMAGED, message, Level.WARNING)
        for index in cell.misplaced_tabs:
            message = "`%%tab` must be the first line of its cell; here it is run as code"
            self.report(first + index, Code.TAB_MISPLACED, message)
        if cell.tab is None:
            frameworks: tuple[str, ...] = (self.default_tab,) if self.default_tab else ()
        else:
            marker = "#@tab" if _TAB_COMMENT(content) else "%%tab"
            frameworks = self.resolve(cell.tab, first + cell.code_offset - 1, marker)
        code_line = first + cell.code_offset
        branches, problems = find_branches(cell.code, self.frameworks)
        for problem in problems:
            kind = Code.TAB_UNKNOWN if problem.kind == "unknown" else Code.TAB_BRANCH  # branch, stray
            self.report(code_line + problem.line, kind, problem.message)
        return CodeCell(
            self.path,
            start + 1,
            end,
            info=token.info,
            language=info.language,
            attrs=dict(info.attrs),  # its own: the info may be a cached one
            tab=cell.tab,
            frameworks=frameworks,
            code=cell.code,
            code_line=code_line,
            markers=[Marker(name, first + i) for name, i in cell.markers] if cell.markers else [],
            magics=[Marker(name, first + i) for name, i in cell.magics] if cell.magics else [],
            closed=closed,
            branches=branches,
        )

    def check_declared(self) -> None:
        """A framework the cells name that the ``%load_ext d2lbook.tab`` cell does not declare: it
        is offered (d2lbook builds a version for it), and the author is told."""
        setup = self.doc.setup
        if setup is None or setup.frameworks is None:
            return
        named = self.doc.named()
        for framework in [f for f in self.frameworks if f in named and f not in setup.frameworks]:
            first = next(n.line for n in self.doc.naming() if framework in n.frameworks)
            message = (
                f"line {first} names {framework}, which tab.interact_select does not declare (the document "
                f"offers {framework} as d2lbook does): add '{framework}' to tab.interact_select, "
                f"or remove the {framework} cells"
            )
            self.report(setup.line, Code.TAB_SETUP, message)
