"""Editing conf.py in place: new keys go into dict literals, changed values are replaced, and
everything else the user wrote -- comments, other settings, formatting -- stays as it was.

Edits are made on the source text at the positions :mod:`ast` gives (line and UTF-8 byte
column of every node), one at a time, re-parsing after each, so conf.py is never re-printed.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from polybook.diagnostics import Code, Diagnostic, DiagnosticError
from polybook.importer.merge import BookSettings

_WIDTH = 100  # a value longer than this on one line is written over several lines
_INDENT = "    "
#: A new conf.py: the header and the ``polybook`` dict with a comment for each setting;
#: the import fills in the values.
SKELETON = """\
# The book's one config file: Sphinx settings plus polybook's own (the `polybook` dict).
# Created by `polybook import d2lbook`; later imports merge into it and keep your edits.
#
# polybook reads this file statically -- literal assignments only, nothing is executed --
# so `polybook check` is safe to run on pull requests. Sphinx executes it when building.

project = {project}

polybook = {{
    # The book's title in each language.
    "title": {{}},
    # The language the translations follow (the origin the translations name).
    "source_language": {source},
    # Book-wide frameworks in tab order; untagged cells belong to `default_tab`.
    "frameworks": [],
    "default_tab": "",
    # Each language: its name in itself, its frameworks and default tab, the language it
    # was translated from.
    "languages": {{}},
    # One sub-folder per language holds its chapters; outputs go to build_dir.
    "chapters": "chapters",
    "build_dir": "build",
    # Markdown files that are not documents (globs relative to each language's folder).
    "exclusions": [],
}}
"""
#: The ``polybook`` dict appended to a Sphinx conf.py that has none.
_APPENDED = """
# polybook's own settings (read statically: literals only).
polybook = {{
    "source_language": {source},
    "chapters": "chapters",
    "build_dir": "build",
}}
"""


#: The comment on a setting an import wrote: ``release = "0.2.0"  # from ja's config.ini (polybook import)``.
_MARK_RE = re.compile(r"#\s*from (?P<lang>[\w-]+)'s config\.ini \(polybook import\)\s*$")


def _mark(lang: str) -> str:
    return f"  # from {lang}'s config.ini (polybook import)"


class ConfEditError(DiagnosticError):
    """conf.py cannot be edited safely (not Python, or a setting that is not a literal): the one
    ``polybook.import.conf`` diagnostic says where."""

    def __init__(self, shown: str, line: int, message: str) -> None:
        super().__init__([Diagnostic.make(shown, line, Code.IMPORT_CONF, message)])


@dataclass(frozen=True, slots=True)
class Change:
    """One edit of conf.py, for the summary."""

    name: str  # polybook.languages.ja.origin, html_logo
    old: Any
    new: Any
    added: bool

    def format(self) -> str:
        if self.added:
            return f"+ {self.name} = {_short(_render_flat(self.new))}"
        return f"~ {self.name}: {_short(_render_flat(self.old))} -> {_short(_render_flat(self.new))}"


def read_book_settings(text: str | None, shown: str = "conf.py") -> BookSettings:
    """What conf.py holds (empty for a conf.py still to be created)."""
    if text is None:
        return BookSettings()
    tree = _parse(text, shown)
    settings = BookSettings()
    lines = text.split("\n")
    for name, node in _assignments(tree).items():
        settings.assigned.add(name)
        end = node.end_lineno or node.lineno
        if end <= len(lines) and (mark := _MARK_RE.search(lines[end - 1])):
            settings.imported[name] = mark["lang"]
        try:
            settings.literals[name] = ast.literal_eval(node)
        except ValueError:
            continue
    raw = settings.literals.pop("polybook", None)
    if "polybook" in settings.assigned and not isinstance(raw, dict):
        node = _assignments(tree)["polybook"]
        raise ConfEditError(shown, node.lineno, "polybook must be a literal dict to be merged into")
    settings.polybook = _plain(raw) if raw is not None else None
    return settings


def new_conf(project: str, source: str) -> str:
    """The text of a new conf.py, before the import's values are merged in."""
    return SKELETON.format(project=render(project, ""), source=render(source, ""))


def edit_conf(
    text: str,
    top: dict[str, Any],
    polybook: dict[str, Any],
    shown: str = "conf.py",
    marks: dict[str, str] | None = None,
) -> tuple[str, list[Change]]:
    """``text`` with the top-level settings ``top`` set and ``polybook`` merged into its
    ``polybook`` dict (keys are added or changed, never removed). A setting in ``marks`` gets a
    comment naming the language whose config.ini it comes from, so a later import knows it
    was not the user's (:func:`read_book_settings` reads it back as ``imported``)."""
    changes: list[Change] = []
    text = text if text.endswith("\n") else text + "\n"
    if "polybook" not in _assignments(_parse(text, shown)):
        text = text.rstrip("\n") + "\n" + _APPENDED.format(source=render(polybook.get("source_language", ""), ""))
    for name, value in top.items():
        text = _set_top(text, name, value, changes, shown, (marks or {}).get(name))
    text = _merge_dict(text, ("polybook",), polybook, changes, shown)
    return text, changes


def render(value: Any, indent: str) -> str:
    """``value`` as a Python literal; continuation lines are indented from ``indent``."""
    inner = indent + _INDENT
    if isinstance(value, str) and "\n" in value.strip("\n"):
        # one piece per line, joined by Python's concatenation of adjacent strings
        lines = value.split("\n")
        pieces = [_render_str(line + "\n") for line in lines[:-1]] + ([_render_str(lines[-1])] if lines[-1] else [])
        return "(\n" + "".join(f"{inner}{piece}\n" for piece in pieces) + f"{indent})"
    flat = _render_flat(value)
    nested = isinstance(value, dict) and any(isinstance(v, dict) or _multiline(v) for v in value.values())
    if len(flat) + len(indent) <= _WIDTH and not nested and not _multiline(value):
        return flat
    if isinstance(value, dict) and value:
        items = [f"{inner}{_render_flat(k)}: {render(v, inner)}," for k, v in value.items()]
        return "{\n" + "\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list | tuple) and value:
        items = [f"{inner}{render(v, inner)}," for v in value]
        return "[\n" + "\n".join(items) + f"\n{indent}]"
    return flat


def _multiline(value: Any) -> bool:
    return isinstance(value, str) and "\n" in value.strip("\n")


def _render_str(text: str) -> str:
    """A string literal: raw (``r"..."``) when that spares doubled backslashes, else JSON's
    escaping, which Python reads the same way."""
    body, newline = (text[:-1], "\n") if text.endswith("\n") else (text, "")
    raw_ok = "\\" in body and '"' not in body and not body.endswith("\\") and body.isprintable()
    if raw_ok:
        return f'r"{body}"' + (' "\\n"' if newline else "")
    return json.dumps(text, ensure_ascii=False)


def _render_flat(value: Any) -> str:
    if isinstance(value, str):
        return _render_str(value) if "\n" not in value else json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_render_flat(k)}: {_render_flat(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render_flat(v) for v in value) + "]"
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    raise TypeError(f"cannot write {type(value).__name__} into conf.py")


def _plain(value: Any) -> Any:
    """Tuples as lists, so that values compare as the import computes them."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _parse(text: str, shown: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise ConfEditError(shown, exc.lineno or 1, f"syntax error: {exc.msg}") from None


def _assignments(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``name = value`` assignments (the last one of a name wins, as in Python)."""
    found: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = statement.value
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
            found[statement.target.id] = statement.value
    return found


class _Text:
    """The source as UTF-8 bytes, addressed by ast's (line, byte column) positions."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self.starts = [0]
        for index, byte in enumerate(self.data):
            if byte == 0x0A:
                self.starts.append(index + 1)

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def span(self, node: ast.AST) -> tuple[int, int]:
        """Where ``node`` is written, with the parentheses around it (ast leaves them out)."""
        start, end = self.start(node), self.end(node)
        while True:
            before = self.data[:start].rstrip()
            after = self.data[end:]
            stripped = after.lstrip()
            if not (before.endswith(b"(") and stripped.startswith(b")")):
                return start, end
            start, end = len(before) - 1, end + (len(after) - len(stripped)) + 1

    def line_end(self, line: int) -> int:
        """The offset of the newline ending ``line`` (or of the end of the text)."""
        return self.starts[line] - 1 if line < len(self.starts) else len(self.data)

    def indent_of(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.data)
        content = self.data[start:end].decode("utf-8")
        return content[: len(content) - len(content.lstrip())].rstrip("\n")

    def splice(self, start: int, end: int, new: str) -> str:
        return (self.data[:start] + new.encode("utf-8") + self.data[end:]).decode("utf-8")


def _set_top(text: str, name: str, value: Any, changes: list[Change], shown: str, mark: str | None = None) -> str:
    tree = _parse(text, shown)
    source = _Text(text)
    node = _assignments(tree).get(name)
    if node is not None:
        try:
            old = ast.literal_eval(node)
        except ValueError:
            old = None
        changes.append(Change(name, old, value, False))
        start, end = source.span(node)
        rest = source.data[end : source.line_end(node.end_lineno or node.lineno)].decode("utf-8")
        comment = (_mark(mark) if mark else "") if not rest.strip() or _MARK_RE.search(rest) else ""
        tail = len(rest) if comment else 0  # an old mark is replaced by the new one
        return source.splice(start, end + tail, render(value, source.indent_of(node.lineno)) + comment)
    changes.append(Change(name, None, value, True))
    line = f"{name} = {render(value, '')}{_mark(mark) if mark else ''}\n"
    polybook = next(
        (s for s in tree.body if isinstance(s, ast.Assign | ast.AnnAssign) and "polybook" in _target_names(s)), None
    )
    before = [s for s in tree.body if isinstance(s, ast.Assign) and polybook is not None and s.lineno < polybook.lineno]
    if before:  # after the last setting above the polybook dict
        at = source.starts[before[-1].end_lineno] if before[-1].end_lineno < len(source.starts) else len(source.data)
        return source.splice(at, at, line)
    if polybook is not None:
        at = source.starts[polybook.lineno - 1]
        return source.splice(at, at, line + "\n")
    return text.rstrip("\n") + "\n" + line


def _target_names(statement: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _find_dict(text: str, path: tuple[str, ...], shown: str) -> ast.Dict:
    node: ast.expr | None = _assignments(_parse(text, shown)).get(path[0])
    for key in path[1:]:
        node = _value_node(node, key) if isinstance(node, ast.Dict) else None
    if not isinstance(node, ast.Dict):
        line = getattr(node, "lineno", 1)
        raise ConfEditError(shown, line, f"{'.'.join(path)} must be a dict literal to be merged into")
    return node


def _value_node(mapping: ast.Dict, key: str) -> ast.expr | None:
    for k, v in zip(mapping.keys, mapping.values, strict=True):
        if isinstance(k, ast.Constant) and k.value == key:
            return v
    return None


def _merge_dict(text: str, path: tuple[str, ...], wanted: dict[str, Any], changes: list[Change], shown: str) -> str:
    for key, value in wanted.items():
        node = _find_dict(text, path, shown)
        current = _value_node(node, key)
        name = ".".join((*path, key))
        if current is None:
            changes.append(Change(name, None, value, True))
            text = _set_item(text, node, key, value)
            continue
        try:
            old = _plain(ast.literal_eval(current))
        except ValueError:
            raise ConfEditError(shown, current.lineno, f"{name} is not a literal") from None
        if old == value:
            continue
        if isinstance(value, dict) and isinstance(current, ast.Dict):
            text = _merge_dict(text, (*path, key), value, changes, shown)
            continue
        changes.append(Change(name, old, value, False))
        text = _set_item(text, node, key, value)
    return text


def _set_item(text: str, node: ast.Dict, key: str, value: Any) -> str:
    """``text`` with ``key: value`` set in the dict literal ``node``, in its layout: a value is
    replaced where it stands; a new key goes on a line of its own before the closing brace of
    a multi-line dict; a one-line dict is laid out again (it cannot hold comments)."""
    source = _Text(text)
    if node.lineno == node.end_lineno or not node.keys:
        return _relayout(source, node, key, value)
    for k, v in zip(node.keys, node.values, strict=True):
        if isinstance(k, ast.Constant) and k.value == key:
            start, end = source.span(v)
            return source.splice(start, end, render(value, source.indent_of(k.lineno)))
    start, end = source.span(node)
    close = end - 1  # the closing brace
    base = source.indent_of(node.lineno)
    last_end = source.span(node.values[-1])[1]
    comma = _comma_after(source.data, last_end, close)
    line_start = source.data.rfind(b"\n", 0, close) + 1
    if not source.data[line_start:close].strip():  # the closing brace opens its line
        first = node.keys[0]
        own_line = first is not None and not source.data[source.starts[first.lineno - 1] : source.start(first)].strip()
        inner = source.indent_of(first.lineno) if first is not None and own_line else base + _INDENT
        text = source.splice(line_start, line_start, f"{inner}{_render_flat(key)}: {render(value, inner)},\n")
        return text if comma is not None else _Text(text).splice(last_end, last_end, ",")
    inner = base + _INDENT
    after = comma + 1 if comma is not None else last_end
    item = f"{_render_flat(key)}: {render(value, inner)}"
    return source.splice(after, after, ("" if comma is not None else ",") + f"\n{inner}{item}")


def _relayout(source: _Text, node: ast.Dict, key: str, value: Any) -> str:
    """A one-line (or empty) dict with ``key: value`` set: on one line if it fits, else one item
    per line; the other items keep their source text."""
    start, end = source.span(node)
    base = source.indent_of(node.lineno)
    inner = base + _INDENT
    items: list[str] = []
    for k, v in zip(node.keys, node.values, strict=True):
        if isinstance(k, ast.Constant) and k.value == key:
            continue
        if k is not None:
            items.append(source.data[source.start(k) : source.span(v)[1]].decode("utf-8"))
    at = next((i for i, k in enumerate(node.keys) if isinstance(k, ast.Constant) and k.value == key), len(items))
    flat = [*items[:at], f"{_render_flat(key)}: {_render_flat(value)}", *items[at:]]
    line_start = source.data.rfind(b"\n", 0, start) + 1
    prefix = source.data[line_start:start].decode("utf-8")
    one_line = "{" + ", ".join(flat) + "}"
    if len(prefix) + len(one_line) + 2 <= _WIDTH and not _multiline(value) and not isinstance(value, dict):
        return source.splice(start, end, one_line)
    laid = [*items[:at], f"{_render_flat(key)}: {render(value, inner)}", *items[at:]]
    return source.splice(start, end, "{\n" + "".join(f"{inner}{item},\n" for item in laid) + base + "}")


def _comma_after(data: bytes, start: int, stop: int) -> int | None:
    """The offset of the comma between a dict's last value and its closing brace, if any
    (only blanks and comments can stand there besides it)."""
    index = start
    while index < stop:
        char = data[index : index + 1]
        if char == b",":
            return index
        if char == b"#":
            newline = data.find(b"\n", index, stop)
            index = stop if newline < 0 else newline
            continue
        index += 1
    return None


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(line.strip() for line in text.splitlines())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
