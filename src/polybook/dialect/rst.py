"""The directives of an ``eval_rst`` block, and which of them reach beyond the page.

An ``eval_rst`` block is reStructuredText that Sphinx reads as it is. Most of its directives
only show what they hold; some import or run code (autodoc's ``automodule``, ``exec``-like
extensions), read a file of the machine that builds (``include``, ``literalinclude``, ``raw``
with ``:file:``) or put raw HTML in the page. The build documents the book's library from its
source instead of importing it (:mod:`polybook.stage.api_source`), and ``polybook check``
reports such a directive that a translation adds (:mod:`polybook.check.trust`): both read the
blocks here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

#: A directive as docutils reads one: ``.. name::`` (any case, an optional space before ``::``), or
#: in a substitution definition, ``.. |name| directive::`` (which runs the directive too).
_DIRECTIVE_RE = re.compile(
    r"^(?P<indent>[ \t]*)\.\.[ \t]+(?:\|[^|]+\|[ \t]+)?(?P<name>(?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*)"
    r"[ \t]?::(?:[ \t]+(?P<argument>.*?))?[ \t]*$"
)
_OPTION_RE = re.compile(r"^[ \t]+:(?P<name>[\w-]+):(?:[ \t]+(?P<value>.*?))?[ \t]*$")


class Reach(StrEnum):
    """What a directive does beyond showing its own text."""

    IMPORTS = "imports"  # documents a module by importing it (autodoc, autosummary, autoapi)
    MODULE = "module"  # sets the module the next autodoc directives import from
    RUNS = "runs"  # runs code or a program while the book is built
    FILE = "file"  # reads a file of the machine that builds (or a URL) into the page
    RAW = "raw"  # puts raw output (HTML with its scripts) into the page


#: Directives that run code or a program when Sphinx reads the page, from the extensions that
#: offer them (Sphinx's own doctest and ifconfig, matplotlib, jupyter-sphinx, IPython,
#: sphinxcontrib-programoutput, sphinx-exec-code, bokeh...): none is polybook's, but a book's
#: conf.py may load one.
RUNS_CODE = frozenset(
    {
        "exec", "exec_code", "exec-code", "execute", "runblock", "program-output", "command-output",
        "jupyter-execute", "jupyter-kernel", "ipython", "plot", "bokeh-plot", "doctest", "testcode",
        "testsetup", "testcleanup", "testoutput", "ifconfig", "sage", "sagecell", "pyscript",
    }
)  # fmt: skip
#: Directives whose option names a file or URL to read.
_FILE_OPTIONS = ("file", "url")


@dataclass(frozen=True, slots=True)
class RstDirective:
    """One directive of a block: its name (``automodule``; a ``py:`` prefix kept), its argument,
    options, the offsets of its first and after-last lines in the block (its options and
    indented content included), and what it reaches (None: it only shows its text)."""

    name: str
    argument: str
    options: dict[str, str] = field(default_factory=dict)
    start: int = 0
    end: int = 1
    indent: str = ""
    text: str = ""  # its lines in the block
    body: int = 1  # the offset of its first line after the options (its content, if any)

    @property
    def reach(self) -> Reach | None:
        name = self.name.removeprefix("py:")
        if name.startswith("auto"):
            return Reach.IMPORTS
        if name in ("currentmodule", "module"):
            return Reach.MODULE
        if name in RUNS_CODE:
            return Reach.RUNS
        if name in ("include", "literalinclude") or any(option in self.options for option in _FILE_OPTIONS):
            return Reach.FILE
        if name == "raw" or (name == "role" and "(raw)" in self.argument.replace(" ", "")):
            return Reach.RAW
        return None

    @property
    def file(self) -> str:
        """The file (or URL) the directive reads, "" for none."""
        if self.name in ("include", "literalinclude"):
            return self.argument
        return next((self.options[option] for option in _FILE_OPTIONS if option in self.options), "")

    @property
    def written(self) -> str:
        """The directive as the block writes it, in short: ``.. raw:: html :file: front.html``."""
        file = f" :{next(o for o in _FILE_OPTIONS if o in self.options)}: {self.file}" if self.file else ""
        argument = f" {self.argument}" if self.argument else ""
        return f".. {self.name}::{argument}{file if self.file != self.argument else ''}"


def read_directives(source: str) -> list[RstDirective]:
    """Every directive of an ``eval_rst`` block (nested ones too: a directive inside
    ``.. only::`` is read where it stands), in order."""
    lines = source.split("\n")
    found: list[RstDirective] = []
    for start, line in enumerate(lines):
        m = _DIRECTIVE_RE.match(line)
        if m is None or m["name"] == "_":
            continue
        indent = m["indent"]
        options: dict[str, str] = {}
        end = start + 1
        while end < len(lines) and (option := _OPTION_RE.match(lines[end])) and _deeper(lines[end], indent):
            options[option["name"]] = option["value"] or ""
            end += 1
        body = last = end
        while end < len(lines) and (not lines[end].strip() or _deeper(lines[end], indent)):
            end += 1
            if lines[end - 1].strip():
                last = end
        text = "\n".join(lines[start:last])
        name = m["name"].lower()
        found.append(RstDirective(name, m["argument"] or "", options, start, last, indent, text, body))
    return found


def _deeper(line: str, indent: str) -> bool:
    """Is ``line`` indented more than a directive written at ``indent``?"""
    return len(line) - len(line.lstrip(" \t")) > len(indent)
