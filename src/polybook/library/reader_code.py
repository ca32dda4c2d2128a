"""The code framework F's reader sees: what d2lbook 1.0.3 does to each framework's cells.

d2lbook builds a framework's notebook from the chapter (``notebook.get_tab_notebook``: the
``tab.selected`` branches resolved, every ``#@tab`` line of the cell deleted), then rewrites its
code with the library's aliases (``library.replace_alias``) and sorts its imports
(``library.format_code``). Its pages, PDF and notebooks show that code, and it is the code that
runs. :class:`ReaderCode` does the same, in d2lbook's order:

1. the framework's branches (:meth:`CodeCell.code_for`);
2. a ``#@tab``/``%%tab`` (or ``:begin_tab:``/``:end_tab:``) line inside the cell is deleted, as
   d2lbook's loop deletes it: a line right after a deleted one is not looked at, and the cell's
   own tab line counts as deleted (:func:`drop_tab_lines`);
3. ``reverse_alias`` then ``simple_alias`` (``d2l.tensor`` -> ``torch.tensor``), replaced as text
   wherever they occur, in the order written -- d2lbook 1.0.3 replaces ``reverse_alias``'s left
   side as written, never as a regular expression;
4. ``fluent_alias`` (``d2l.reshape(x, s)`` -> ``x.reshape(s)``) and ``args_alias`` calls
   rewritten through the syntax tree; the rewritten call is written by :func:`ast.unparse`
   (d2lbook's astor writes the same for the calls d2l makes);
5. imports sorted by isort with d2lbook's settings, trailing spaces and surrounding blank lines
   removed (:func:`polybook.library.collect.format_code`, the library's own sorting).

``alias`` only adds lines to the library's module and rewrites no cell. The book's source is never
changed; the checker compares the source's text (it does not use this).
"""

from __future__ import annotations

import ast
import atexit
import pickle
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from polybook.config.library import FrameworkLibrary, LibrarySettings
from polybook.dialect.nodes import CodeCell
from polybook.files import read_pickled, store_bytes
from polybook.library.collect import format_code

if TYPE_CHECKING:
    from polybook.config import BookConfig

#: d2lbook's ``common.source_tab_pattern`` and ``source_tab_pattern_2``, searched anywhere in a line.
_TAB_LINE_RE = re.compile(r"# *@tab +[\w, ]+|%%tab +[\w, ]+")
#: d2lbook's ``common.md_mark_pattern``: a ``:begin_tab:`` / ``:end_tab:`` line goes too.
_MD_MARK_RE = re.compile(r":([-/\\._\w]+):(`[ *-/\\._\w]+`)?")
#: d2lbook stops rewriting a cell's calls after this many (its "big enough number").
_MAX_CALLS = 100
Rule = TypeVar("Rule")


def drop_tab_lines(lines: list[str], tagged: bool) -> list[str]:
    """``lines`` without the tab lines d2lbook deletes. Its loop deletes from the list it walks,
    so the line after a deleted one is never looked at; ``tagged``: the cell's first line (not
    in ``lines``) was its ``#@tab`` line, deleted, so ``lines[0]`` is not looked at either."""
    out: list[str] = []
    skip = tagged
    for line in lines:
        if skip:
            out.append(line)
            skip = False
            continue
        mark = _MD_MARK_RE.search(line)
        if _TAB_LINE_RE.search(line) or (mark is not None and mark[1] in ("begin_tab", "end_tab")):
            skip = True
            continue
        out.append(line)
    return out


@dataclass(frozen=True, slots=True)
class Aliases:
    """One framework's rewriting rules, read from its library settings as d2lbook reads them."""

    replacements: tuple[tuple[str, str], ...] = ()  # reverse_alias, then d2l.<simple> -> <lib>.<simple>
    fluent: dict[str, str] = field(default_factory=dict)  # d2l.a(x, ...) -> x.b(...)
    args: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = field(default_factory=dict)

    @classmethod
    def of(cls, library: FrameworkLibrary | None) -> Aliases:
        if library is None:
            return cls()
        replacements = list(library.reverse_alias or ())
        fluent: dict[str, str] = {}
        args: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {}
        if library.lib_name:
            replacements += [(f"d2l.{a}", f"{library.lib_name}.{b}") for a, b in library.simple_alias or ()]
            fluent = dict(library.fluent_alias or ())
            for call, expression in library.args_alias or ():
                parsed = args_call(call)
                if parsed is not None:
                    args[parsed[0]] = (parsed[1], parsed[2], expression)
        return cls(tuple(replacements), fluent, args)

    def apply(self, source: str) -> str:
        for old, new in self.replacements:
            source = source.replace(old, new)
        if self.fluent:
            source = _replace_calls(source, self.fluent, _fluent_call)
        if self.args:
            source = _replace_calls(source, self.args, _args_call)
        return source


def args_call(call: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """``name(a_x, key=v)`` -> (name, positional names, keyword names); None if it is no such call."""
    try:
        node = ast.parse(call, mode="eval").body
    except SyntaxError:
        return None
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and all(isinstance(a, ast.Name) for a in node.args)
        and all(k.arg for k in node.keywords)
    ):
        return None
    positional = tuple(a.id for a in node.args if isinstance(a, ast.Name))
    return node.func.id, positional, tuple(str(k.arg) for k in node.keywords)


def _fluent_call(node: ast.Call, method: str) -> str | None:
    """``d2l.reshape(x, s)`` -> ``x.reshape(s)``."""
    if not node.args:
        return None
    call = ast.Call(ast.Attribute(value=node.args[0], attr=method, ctx=ast.Load()), node.args[1:], node.keywords)
    return _source(call)


def _args_call(node: ast.Call, rule: tuple[tuple[str, ...], tuple[str, ...], str]) -> str | None:
    """d2lbook's ``replace_args_alias``: the call's arguments put into the rule's expression."""
    names, keywords, expression = rule
    positional = [name for name in names if name.startswith("a_")]
    if len(node.args) != len(positional) or any(k.arg not in keywords for k in node.keywords):
        return None
    values = {name: _text(arg) for arg, name in zip(node.args, positional, strict=True)}
    for keyword in node.keywords:
        values["=" + str(keyword.arg)] = "=" + _text(keyword.value)
    try:
        target = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(target, ast.Call):  # keywords the call does not give are left out
        target.keywords = [k for k in target.keywords if isinstance(k.value, ast.Name) and "=" + k.value.id in values]
        expression = _source(target)
    for name, value in values.items():
        expression = expression.replace(name, value)
    return expression


def _text(node: ast.expr) -> str:
    """d2lbook's ``node_to_source``: a constant as ``str`` gives it (a string loses its quotes)."""
    return str(node.value) if isinstance(node, ast.Constant) else _source(node)


def _leftmost(node: ast.expr) -> ast.expr:
    """The expression written first in ``node``'s text (``'a'`` of ``'a'.upper() + b``)."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.BinOp | ast.Compare):
            node = node.left
        elif isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        else:
            return node


def _source(node: ast.expr) -> str:
    """``node`` written as d2lbook's astor writes it, for what d2lbook rewrites: as
    :func:`ast.unparse` does, but a string that starts the text is triple-quoted (astor's
    ``pretty_string`` on an empty line: ``d2l.upper('ab')`` -> ``\"\"\"ab\"\"\".upper()``)."""
    text = ast.unparse(node)
    first = _leftmost(node)
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        written = ast.unparse(first)
        fancy = '"""{}"""'.format(first.value.replace("\\", "\\\\").replace('"""', '""\\"'))
        try:
            same = ast.literal_eval(fancy) == first.value and "\r" not in fancy
        except (SyntaxError, ValueError):
            same = False
        if same and text.startswith(written):
            text = fancy + text[len(written) :]
    return text


def _replace_calls(source: str, mapping: Mapping[str, Rule], rewrite: Callable[[ast.Call, Rule], str | None]) -> str:
    """d2lbook's ``replace_call``: while a ``d2l.<name>(...)`` call of ``mapping`` is found
    (breadth first), every occurrence of its text is replaced by its rewriting. A first line
    that is a magic is kept out of the parse; code that does not parse is left as it is."""
    if not any("d2l." + name in source for name in mapping):
        return source
    lines = source.splitlines()
    magic = lines[0] if lines and lines[0].startswith("%") else None
    if magic is not None:
        source = "\n".join(lines[1:])
    for _ in range(_MAX_CALLS):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            break
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "d2l"
                and node.func.attr in mapping
            ):
                new = rewrite(node, mapping[node.func.attr])
                segment = ast.get_source_segment(source, node)
                if new and segment:
                    source = source.replace(segment, new)
                    break
        else:
            break
    return source if magic is None else magic + "\n" + source


class ReaderCode:
    """``reader(cell, framework)``: the code ``framework``'s reader sees in ``cell`` -- on its page,
    in its PDF and notebook -- and the code its program runs. ``root``: the folder the book's
    library is in (isort finds the first-party modules there, as d2lbook found them in its
    project folder); None for none."""

    def __init__(self, library: LibrarySettings | None = None, root: Path | None = None) -> None:
        frameworks = library.frameworks if library is not None else {}
        self.aliases = {name: Aliases.of(settings) for name, settings in frameworks.items()}
        self.root = root
        self._memo: dict[tuple[str, str, bool], str] = {}

    def __call__(self, cell: CodeCell, framework: str) -> str:
        return self.code(cell.code_for(framework), framework, cell.tab is not None)

    def program(self, cells: Sequence[CodeCell], framework: str) -> list[str]:
        """The code of a framework's program, cell by cell."""
        return [self(cell, framework) for cell in cells]

    def code(self, code: str, framework: str, tagged: bool = False) -> str:
        """What :meth:`__call__` does to a cell's ``code`` already resolved for ``framework``."""
        key = (framework, code, tagged)
        found = self._memo.get(key)
        if found is None:
            source = "\n".join(drop_tab_lines(code.split("\n"), tagged))
            aliases = self.aliases.get(framework)
            if aliases is not None:
                source = aliases.apply(source)
            found = self._memo[key] = format_code(source, self.root)
        return found


_READERS: dict[int, tuple[LibrarySettings, Path, ReaderCode]] = {}
#: Below the build folder: every cell's reader code the last commands made, for the next one
#: (isort and the aliases take a tenth of a second a language otherwise: a one-page edit's staging
#: asks for every cell of the language).
STORE = ".polybook/reader-code.pickle"


def reader_code(config: BookConfig) -> ReaderCode:
    """The book's :class:`ReaderCode`, made once per config, with what the book's last commands
    made (:data:`STORE`, kept while the library's settings, the library folder and isort are the
    same; written back as the process ends when it grew)."""
    root = config.chapters_dir / config.source_language
    held = _READERS.get(id(config.library))
    if held is not None and held[0] is config.library and held[1] == root:
        return held[2]
    reader = ReaderCode(config.library, root)
    _READERS[id(config.library)] = (config.library, root, reader)
    _keep(reader, config.build_dir / STORE, repr((config.library, str(root), isort_version())))
    return reader


def _keep(reader: ReaderCode, store: Path, key: str) -> Callable[[], None]:
    """Fill ``reader``'s memo from ``store`` when it was made under ``key``, and write the memo
    back there as the process ends, when it grew (the function that does, returned)."""
    found = read_pickled(store, tuple)
    if found is not None and len(found) == 2 and found[0] == key and isinstance(found[1], dict):
        reader._memo.update(found[1])
    known = len(reader._memo)

    def write_back() -> None:
        if len(reader._memo) > known:
            store_bytes(store, pickle.dumps((key, reader._memo), protocol=pickle.HIGHEST_PROTOCOL))

    atexit.register(write_back)
    return write_back


def isort_version() -> str:
    from importlib.metadata import version

    return version("isort")
