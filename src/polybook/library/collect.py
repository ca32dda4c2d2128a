"""The ``#@save`` code of one language's documents, per framework, as d2lbook 1.0.3 collects it.

d2lbook reads every document of the toc as a notebook (notedown: a markdown cell is the
non-blank text between two fences, every fence that is not an input cell is a markdown cell of
its own), keeps the cells one framework shows (:func:`cells_for`), and from each code cell saves
the lines that :func:`save_lines` picks. The saved code is sorted with isort (:func:`format_code`)
and a function or class gets the note "Defined in :numref:`sec_x`" in its docstring
(:func:`add_note`), naming the latest ``sec_`` label before the cell (:func:`latest_label`,
which skips the cell just before it, as d2lbook does).
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.nodes import CodeCell, Document, EvalRst, Fence, TabSetup, TextTab, TocBlock

if TYPE_CHECKING:  # isort is imported when a block has imports to sort: a check that reads no
    import isort  # library does not pay for it (a tenth of the check's imports)

#: d2lbook's save mark: ``#@save``, ``# @save``.
SAVE_RE = re.compile(r"# *@save")
#: The decorator that adds a function to a class saved earlier (d2l 1.0).
ADD_TO_CLASS = "@d2l.add_to_class"
ADD_TO_CLASS_RE = re.compile(r"@d2l\.add_to_class\(([.\w]+)\)")
#: Labels that can be named in the docstring note.
SECTION_LABEL = "sec_"
#: What notedown makes a cell of its own. The ``%load_ext d2lbook.tab`` cell (:class:`TabSetup`) is
#: one too -- it splits the text around it -- but no framework's notebook keeps it.
_FENCES = (CodeCell, Fence, TocBlock, EvalRst, TabSetup)
T = TypeVar("T")
Line = tuple[str, int]  # a line of code and its 1-based line in the document's file


@dataclass(frozen=True, slots=True)
class SavedBlock:
    """What one code cell gives the library of one framework."""

    framework: str
    language: str
    document: str  # chapter_x/section
    path: str  # the document's file, as shown in diagnostics
    line: int  # the line of the cell's first save mark
    code: str  # as written into the library: sorted imports, the docstring note
    label: str  # the section named by the note ("" for none)
    definitions: tuple[str, ...]  # top-level functions and classes ("Class.method" for add_to_class)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class _Unit:
    """A notebook cell in d2lbook's sense: its lines, and the code cell when it is one."""

    start: int
    end: int
    cell: CodeCell | None = None
    setup: bool = False  # the d2lbook.tab cell: dropped from every framework's notebook


def collect_document(doc: Document, name: str, framework: str, root: Path) -> tuple[list[SavedBlock], list[Diagnostic]]:
    """The blocks one document saves for ``framework``; ``root``: the folder the library is
    written in (isort's first-party modules are found there, as d2lbook found them in the
    project folder)."""
    blocks: list[SavedBlock] = []
    problems: list[Diagnostic] = []
    # (most documents save nothing: not cut into notedown's cells; asked first, for it is one walk of
    # the document and whether it names the framework two: the 1.0 book, 0.03 -> 0.01 CPU-s)
    if not any(SAVE_RE.search(cell.code) for cell in doc.cells()) or not names_framework(doc, framework):
        return blocks, problems
    cells = cells_for(units(doc), framework)
    for index, unit in enumerate(cells):
        if unit.cell is None:
            continue
        lines = unit.cell.lines_for(framework)
        saved = save_lines(lines)
        if not saved:
            continue
        mark = next(n for text, n in lines if SAVE_RE.search(text))
        raw = "\n".join(text for text, _ in saved)
        error = _syntax_error(raw, saved, mark)
        if error:
            message = f"saved code does not parse: {error[1]}"
            problems.append(Diagnostic.make(doc.path, error[0], Code.LIB_SYNTAX, message))
            continue
        code = format_code(raw, root)
        if not code:
            continue
        label = latest_label(doc, cells, index)
        code = add_note(code, label)
        parsed = _parsed(code)
        if isinstance(parsed, SyntaxProblem):
            message = "saved code does not parse once the docstring note is added: "
            message += f"{parsed.message} (line {parsed.line} of the saved block)"
            problems.append(Diagnostic.make(doc.path, mark, Code.LIB_SYNTAX, message))
            continue
        blocks.append(SavedBlock(framework, doc.language or "", name, doc.path, mark, code, label, parsed))
    return blocks, problems


def names_framework(doc: Document, framework: str) -> bool:
    """Whether d2lbook reads ``doc`` for ``framework``: always for the default tab, else only when
    a code cell's ``#@tab`` names it -- ``#@tab all`` alone is not enough (d2lbook's
    ``get_tab_notebook``; the d2l books rely on it: a chapter with no TensorFlow code of its
    own gives the TensorFlow module nothing)."""
    return doc.offers(framework)


def units(doc: Document) -> list[_Unit]:
    """The document as notedown cuts it: fences (code cells included) and the text between them."""
    fences = sorted((n for n in doc.walk() if isinstance(n, _FENCES)), key=lambda n: n.line)
    text_lines = {label.line for label in doc.labels.values()}
    if doc.front_matter is not None:
        text_lines.add(1)
    for node in doc.walk():
        if isinstance(node, TextTab):
            text_lines.update((node.line, node.end_line))
        elif not isinstance(node, _FENCES):
            text_lines.update(range(node.line, node.end_line + 1))
    ordered = sorted(text_lines)
    out: list[_Unit] = []
    previous_end = 0
    for fence in [*fences, None]:
        stop = fence.line if fence is not None else (ordered[-1] + 1 if ordered else 0)
        between = ordered[bisect.bisect_right(ordered, previous_end) : bisect.bisect_left(ordered, stop)]
        if between:
            out.append(_Unit(between[0], between[-1]))
        if fence is not None:
            cell = fence if isinstance(fence, CodeCell) else None
            out.append(_Unit(fence.line, fence.end_line, cell, isinstance(fence, TabSetup)))
            previous_end = fence.end_line
    return out


def cells_for(cells: list[_Unit], framework: str) -> list[_Unit]:
    """The cells a framework's notebook keeps: all markdown, and its own code cells."""
    return [u for u in cells if not u.setup and (u.cell is None or framework in u.cell.frameworks)]


def save_lines(lines: Sequence[Line]) -> list[Line]:
    """d2lbook's rule, line based: for each save mark, the code before the mark on its line,
    then the lines at the margin that follow, then -- from the first indented or blank line --
    the indented and blank lines up to the next line at the margin."""
    block: list[Line] = []
    for i, (text, number) in enumerate(lines):
        mark = SAVE_RE.search(text)
        if not mark:
            continue
        head = text[: mark.start()].rstrip()
        if head:
            block.append((head, number))
        for j in range(i + 1, len(lines)):
            if lines[j][0] and not lines[j][0].startswith(" "):
                block.append(lines[j])
                continue
            for k in range(j, len(lines)):
                if lines[k][0] and not lines[k][0].startswith(" "):
                    break
                block.append(lines[k])
            break
    return block


def format_code(source: str, root: Path | None) -> str:
    """Imports sorted by isort with d2lbook's settings (one group, no blank lines between
    sections); trailing spaces and surrounding blank lines removed. ``root``: the folder whose
    modules are first-party (None: none is)."""
    if "import " in source:
        import isort

        source = isort.code(source, config=_isort_config(None if root is None else str(root)))
    return "\n".join(line.rstrip() for line in source.split("\n")).strip()


@functools.lru_cache(maxsize=8)
def _isort_config(root: str | None) -> isort.Config:
    import isort

    sections = [isort.settings.FUTURE, isort.settings.STDLIB, isort.settings.THIRDPARTY]
    sections += [isort.settings.FIRSTPARTY, isort.settings.LOCALFOLDER]
    # src_paths as isort derives them from the folder d2lbook ran in; fixed here so the result
    # does not depend on where polybook runs
    src_paths = () if root is None else (Path(root) / "src", Path(root))
    return isort.settings.Config(no_lines_before=sections, src_paths=src_paths)


def latest_label(doc: Document, cells: list[_Unit], index: int) -> str:
    """The latest ``sec_`` label in the markdown cells before ``cells[index]``, the cell right
    before it excepted (d2lbook searches ``cells[:index - 1]``, Python's slice included)."""
    region = [u for u in cells[: index - 1] if u.cell is None]
    found = [
        (label.line, label.name)
        for label in doc.labels.values()
        if SECTION_LABEL in label.name and any(u.start <= label.line <= u.end for u in region)
    ]
    return max(found)[1] if found else ""


def add_note(code: str, label: str) -> str:
    """d2lbook's docstring note: after the first line holding ``):`` of each function or class
    at the margin, "Defined in :numref:`label`" ends the one-line docstring or becomes one."""
    if not label:
        return code
    note = f'Defined in :numref:`{label}`"""'
    modules = split_list(code.split("\n"), lambda line: line.startswith(("def", "class")))
    out = ["\n".join(modules[0])] if modules[0] else []
    for module in modules[1:]:
        parts = split_list(module, lambda line: "):" in line)
        if len(parts) > 1:
            body = parts[1]
            docstring = body[1] if len(body) > 1 else _spaces(module[0]) + "    "
            if docstring.lstrip().startswith('"""') and docstring.endswith('"""'):
                body[1] = f"{docstring[:-3]}\n\n{_spaces(docstring)}{note}"
            else:
                body.insert(1, f'{_spaces(docstring)}"""{note}')
        out.append("\n".join(line for part in parts for line in part))
    return "\n".join(out)


def _defined(tree: ast.Module) -> tuple[str, ...]:
    """Top-level functions and classes of a block's tree; a function added to a class is ``Class.name``."""
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            owner = next((m[1].split(".")[-1] for d in node.decorator_list if (m := _added_to(d))), None)
            names.append(f"{owner}.{node.name}" if owner else node.name)
    return tuple(names)


def _added_to(decorator: ast.expr) -> re.Match[str] | None:
    return ADD_TO_CLASS_RE.match("@" + ast.unparse(decorator))


def split_list(items: list[T], starts: Callable[[T], bool]) -> list[list[T]]:
    """Cut ``items`` before every item that ``starts`` (the first part may be empty)."""
    parts: list[list[T]] = [[]]
    for item in items:
        if starts(item):
            parts.append([])
        parts[-1].append(item)
    return parts


def _syntax_error(code: str, lines: Sequence[Line], fallback: int) -> tuple[int, str] | None:
    """The file line and message of ``code``'s syntax error, if any."""
    parsed = _parsed(code)
    if isinstance(parsed, SyntaxProblem):
        at = (parsed.line or 1) - 1
        line = lines[at][1] if 0 <= at < len(lines) else fallback
        return line, f"{parsed.message} (line {parsed.line} of the saved block)"
    return None


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """Why a block does not parse: ``SyntaxError``'s message and line (in the block)."""

    message: str
    line: int | None


@functools.lru_cache(maxsize=4096)
def _parsed(code: str) -> tuple[str, ...] | SyntaxProblem:
    """What a block defines (:func:`_defined`), or why it does not parse. Memoised by text: a
    block is parsed as saved and again sorted and noted (often the same text), and a ``#@tab
    all`` cell is saved by every framework's module (bookmix: 1,500 parses of 1,100 texts)."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return SyntaxProblem(exc.msg, exc.lineno)
    return _defined(tree)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _spaces(line: str) -> str:
    return line[: _indent(line)]
