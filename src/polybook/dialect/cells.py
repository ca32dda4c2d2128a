"""Fence info strings and the d2lbook markers inside code cells.

Written by hand: the pandoc attribute syntax of d2lbook fences (``{.python .input n=1}``)
and its ``#@tab`` / ``%%tab`` / ``#@save`` / ``#@hide`` markers exist in no parsing library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ATTR_TOKEN_RE = re.compile(
    r"""\s*(?:\.(?P<cls>[\w-]+)|\#(?P<id>[\w-]+)|(?P<key>[\w-]+)=(?P<val>"[^"]*"|'[^']*'|[^\s}]*))"""
)
#: ``#@tab mxnet, pytorch`` (d2lbook 0.x and 1.0) or ``%%tab mxnet, pytorch`` (1.0's cell magic).
_TAB_RE = re.compile(r"^(?:#@tab|%%tab)\s+(?P<spec>\S.*?)\s*$")
_DAMAGED_TAB_RE = re.compile(r"^#\s*@\s*tab\b|^#@tab\s*:|^%%tab\s*$")
#: ``# %%tab jax``: the magic commented out, which d2lbook still reads as the cell's tab.
_COMMENTED_TAB_RE = re.compile(r"^#\s*%%tab\s+(?P<spec>\S.*?)\s*$")
_MARKER_RE = re.compile(r"#@(?P<name>save|hide_code|hide_output|hide)\b")
#: A ``%magic`` / ``%%magic`` line, searched over a whole cell (``[^\S\n]``: a space within the line).
_MAGIC_LINES_RE = re.compile(r"^[^\S\n]*(?P<name>%%?[A-Za-z_]\w*)", re.MULTILINE)
_IPYTHON_RE = re.compile(r"^\s*(?:%%?[A-Za-z_]|!\S)", re.MULTILINE)
#: Fence languages that are Python, so IPython's syntax may be in them.
PYTHON_LANGUAGES = ("", "python", "python3", "py", "ipython", "ipython3")


@dataclass(slots=True)
class FenceInfo:
    """A parsed fence info string."""

    language: str = ""
    classes: list[str] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def is_input(self) -> bool:
        return "input" in self.classes


def parse_fence_info(info: str) -> FenceInfo:
    """``{.python .input n=1}`` -> classes and attributes; ``bash`` -> language only."""
    info = info.strip()
    if not info.startswith("{"):
        return FenceInfo(language=info.split()[0] if info else "")
    if not info.endswith("}"):
        return FenceInfo(error=f"fence attributes {info!r} have no closing '}}'")
    body, pos, result = info[1:-1], 0, FenceInfo()
    while pos < len(body):
        m = _ATTR_TOKEN_RE.match(body, pos)
        if not m or m.end() == pos:
            if body[pos:].strip():
                result.error = f"cannot read fence attribute {body[pos:].strip()!r}"
            break
        if m["cls"]:
            result.classes.append(m["cls"])
        elif m["key"]:
            result.attrs[m["key"]] = m["val"].strip("\"'")
        pos = m.end()
    languages = [c for c in result.classes if c != "input"]
    result.language = languages[0] if languages else ""
    return result


@dataclass(slots=True)
class CellSource:
    """What the first line and the markers of a cell say."""

    tab: str | None
    tab_damaged: bool
    tab_commented: bool  # ``# %%tab x``: read as the tab, as d2lbook reads it
    misplaced_tabs: list[int]  # 0-based lines of ``%%tab`` lines that are not the first line
    code: str
    code_offset: int  # lines skipped before ``code`` (blank lines and the tab line)
    markers: list[tuple[str, int]]  # (name, 0-based line within the cell source)
    magics: list[tuple[str, int]]


def read_cell_source(source: str) -> CellSource:
    """The tab marker on the cell's first line that is not blank (d2lbook's notebooks strip the
    blank lines around a cell), the markers and the magics."""
    tab, tab_damaged, commented, offset = None, False, False, 0
    start, begin = _first_written_line(source)
    end = source.find("\n", begin)  # the cell is not split into lines: most are read at their first
    first = (source[begin:] if end < 0 else source[begin:end]).strip()
    if m := _TAB_RE.match(first):
        tab, offset = m["spec"], start + 1
    elif m := _COMMENTED_TAB_RE.match(first):
        tab, commented, offset = m["spec"], True, start + 1
    elif _DAMAGED_TAB_RE.match(first):
        tab_damaged = True
    # Each search runs over the whole cell, only when the text it needs is there (most cells
    # have no marker and no magic): the cells are most of a chapter's lines.
    markers = (
        [(m["name"], source.count("\n", 0, m.start())) for m in _MARKER_RE.finditer(source)] if "#@" in source else []
    )
    code = (source[end + 1 :] if end >= 0 else "") if offset else source  # the lines after the tab line
    magics, misplaced = [], []
    if "%" in code:
        magics = [(m["name"], offset + code.count("\n", 0, m.start())) for m in _MAGIC_LINES_RE.finditer(code)]
        misplaced = [i for name, i in magics if i > start and name == "%%tab"]
    return CellSource(tab, tab_damaged, commented, misplaced, code, offset, markers, magics)


def _first_written_line(source: str) -> tuple[int, int]:
    """The index of the first line of ``source`` that is not blank, and where it begins
    (0, 0 when every line is)."""
    index, begin = 0, 0
    while True:
        end = source.find("\n", begin)
        if (source[begin:] if end < 0 else source[begin:end]).strip():
            return index, begin
        if end < 0:
            return 0, 0
        index, begin = index + 1, end + 1


def highlight_language(language: str, code: str) -> str:
    """The Pygments lexer for a cell: ``ipython3`` for Python with magics (``%matplotlib``,
    ``%%time``) or shell escapes (``!ls``), which the Python lexer cannot read."""
    if language in PYTHON_LANGUAGES and _IPYTHON_RE.search(code):
        return "ipython3"
    return language or "python"


def split_spec(spec: str) -> list[str]:
    """``"mxnet, pytorch"`` -> ``["mxnet", "pytorch"]``."""
    return [part.strip() for part in spec.split(",") if part.strip()]
