"""``eval_rst`` blocks that need more than reStructuredText: API pages and included files.

d2l's API page (``chapter_appendix-tools-for-deep-learning/d2l.md``) is
``.. automodule:: d2l.torch`` with ``:members:``. Sphinx documents it when
``sphinx.ext.autodoc`` is loaded and the module imports in the Sphinx process: the book's
own library is found where the evaluation builds it (``build/run/<lang>/d2l/``, see
:mod:`polybook.execute.workdir`), else in the language's folder or the source language's.
A framework it imports that is not installed where Sphinx runs is mocked. A module found
nowhere is one error at the directive's line, and the directive is left out (Sphinx would
add a traceback per page).

``.. raw:: html`` / ``.. include::`` with a file: the file is found like a figure (the
language's, else the source language's), staged with the pages and its path rewritten;
a file that is not in the book is an error at its line and the directive is left out, and so is
a ``:url:``, which docutils would fetch while the site is built. The
PDF leaves out a raw block for HTML without looking for its file.

:func:`setup` is the small Sphinx extension that puts the import roots on ``sys.path``.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import posixpath
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.nodes import Document, EvalRst

_AUTODOC_RE = re.compile(r"^(?P<indent>\s*)\.\.\s+(?P<directive>auto\w+)::\s*(?P<target>\S+)")
_FILE_RE = re.compile(r"^(?P<indent>\s*)(?::file:|\.\.\s+(?:include|literalinclude)::)\s*(?P<path>\S+)\s*$")
#: A ``.. raw::`` or ``.. include::`` option that has docutils fetch a URL as the page is built.
_URL_RE = re.compile(r"^\s*:url:\s*(?P<url>\S+)")
_CURRENT_RE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:currentmodule|module)::\s*(?P<module>\S+)")
_DIRECTIVE_RE = re.compile(r"^(?P<indent>\s*)\.\.\s+[\w:-]+::")
#: ``stage(file)`` -> the staged path (from the staged source folder), or None when the file is
#: not in the book.
FileStager = Callable[[str], "str | None"]


@dataclass(slots=True)
class ApiImports:
    """What the Sphinx process needs to document the modules a language's pages name."""

    roots: list[Path] = field(default_factory=list)  # put first on sys.path
    mocked: set[str] = field(default_factory=set)  # third-party modules autodoc mocks
    used: bool = False  # a page has an autodoc directive
    modules: list[Path] = field(default_factory=list)  # the files of the modules documented

    def digest(self) -> bytes:
        """What the API pages depend on besides the pages: the modules' code."""
        return b"".join(path.name.encode() + hashlib.sha256(path.read_bytes()).digest() for path in self.modules)

    def settings(self, extensions: list[str]) -> dict[str, Any]:
        """Sphinx settings (``extensions`` extended in place); none when no page needs them."""
        if not self.used:
            return {}
        for extension in ("sphinx.ext.autodoc", "polybook.stage.eval_rst"):
            if extension not in extensions:
                extensions.append(extension)
        return {
            "polybook_import_roots": [str(root) for root in self.roots],
            "autodoc_mock_imports": sorted(self.mocked),
            "autodoc_default_options": {"undoc-members": True, "show-inheritance": True},
            # A framework's docstring (mxnet's Block.forward) is not the book's, and its
            # markup is not always reStructuredText: the book's methods show their own only.
            "autodoc_inherit_docstrings": False,
        }


def import_roots(config: BookConfig, lang: str) -> list[Path]:
    """Where the book's own modules are looked for, first match wins: the evaluation's mirror
    (the library built from the chapters; every framework's mirror has it, the default tab's is
    read), the language's folder, the source language's."""
    from polybook.execute.workdir import run_root

    mirrored = run_root(config, lang, config.languages[lang].default_tab)
    folders = [mirrored, config.document_path(lang, "x").parent]
    folders.append(config.document_path(config.source_language, "x").parent)
    return list(dict.fromkeys(folder.resolve() for folder in folders if folder.is_dir()))


def find_module(name: str, roots: list[Path]) -> Path | None:
    """The file of module ``name`` (``d2l.torch``) under the first root that has it."""
    parts = name.split(".")
    for root in roots:
        for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                return candidate
    return None


def missing_imports(path: Path) -> set[str]:
    """Top-level packages a module imports that this Python cannot import (a framework not
    installed): autodoc mocks them. What is installed is imported for real: d2l calls its
    frameworks when it is imported (``devices=d2l.try_all_gpus()``), which mocks cannot answer."""
    return {name for name in third_party_imports(path) if importlib.util.find_spec(name) is None}


def documents_api(doc: Document) -> bool:
    """Does ``doc`` have an autodoc directive (an API page)?"""
    return any(
        isinstance(node, EvalRst) and any(_AUTODOC_RE.match(line) for line in node.source.split("\n"))
        for node in doc.walk()
    )


def library_imports(config: BookConfig, languages: list[str]) -> set[str]:
    """The installed top-level packages the book's library modules (conf.py's
    ``library.frameworks.*.lib_file``) import, as the API pages of ``languages`` find them:
    what autodoc will import in those languages' Sphinx processes."""
    files = [library.lib_file for library in config.library.frameworks.values()]
    found: set[str] = set()
    for lang in languages:
        roots = import_roots(config, lang)
        for name in files:
            path = next((root / name for root in roots if (root / name).is_file()), None)
            if path is not None:
                found |= third_party_imports(path)
    return {name for name in found if importlib.util.find_spec(name) is not None}


def third_party_imports(path: Path) -> frozenset[str]:
    """The top-level packages outside the standard library (and the module's own package)
    that a module imports anywhere in its code; kept while the file is unchanged."""
    stat = path.stat()
    return _third_party(path, stat.st_mtime_ns, stat.st_size)


#: An import statement at the start of a line: ``import a.b as c, d`` or ``from a.b import c``
#: (a relative import names no package). Read with a pattern, not ``ast.parse``: a 3,000-line
#: library costs 0.1-0.25 s to parse, in every build. A line of a docstring that looks like an
#: import names one package more: mocked or imported ahead for nothing, never missed.
_IMPORT_RE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<source>[A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+(?P<names>[^\n#;]+))", re.M
)


@functools.cache
def _third_party(path: Path, mtime: int, size: int) -> frozenset[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    own = path.parent.name if (path.parent / "__init__.py").is_file() else ""
    names: set[str] = set()
    for m in _IMPORT_RE.finditer(text):
        if m["source"]:
            names.add(m["source"])
        else:
            names.update(part.split()[0].split(".")[0] for part in m["names"].split(",") if part.split())
    return frozenset(
        name for name in names if name.isidentifier() and name not in sys.stdlib_module_names and name != own
    )


def defined_names(path: Path) -> frozenset[str]:
    """The names a module defines at its top level (classes, functions, assignments, imports)."""
    return _names(path, path.stat().st_mtime_ns)


@functools.cache
def _names(path: Path, mtime: int) -> frozenset[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return frozenset()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return frozenset(names)


class EvalRstResolver:
    """Rewrites one language's eval_rst blocks (see the module's docstring)."""

    def __init__(self, config: BookConfig, lang: str, output: str = "html") -> None:
        self.output = output  # "html" or "latex": a raw block for the other one is left out
        self.roots = import_roots(config, lang)
        self.api = ApiImports(self.roots)
        self.found: dict[str, Path | None] = {}

    def resolver(
        self, doc: Document, stage_file: FileStager, diagnostics: list[Diagnostic]
    ) -> Callable[[EvalRst], str]:
        current: list[str | None] = [None]  # the page's ``.. currentmodule::``, in reading order

        def resolve(node: EvalRst) -> str:
            lines = node.source.split("\n")
            for offset, line in enumerate(lines):
                where = node.line + 1 + offset
                if m := _CURRENT_RE.match(line):
                    current[0] = None if m["module"] == "None" else m["module"]
                elif m := _AUTODOC_RE.match(line):
                    lines[offset] = self.autodoc(m, current[0], doc, where, diagnostics)
                elif m := _URL_RE.match(line):
                    message = (
                        f"`:url: {m['url']}` (in eval_rst) would be fetched as the site is built; the directive is "
                        "left out: put the file in the book and name it with :file:"
                    )
                    diagnostics.append(Diagnostic.make(doc.path, where, Code.RST_FILE, message))
                    _comment_out(lines, offset)
                elif m := _FILE_RE.match(line):
                    if self.other_output(lines, offset):
                        _comment_out(lines, offset)
                        continue
                    staged = stage_file(m["path"])
                    if staged is None:
                        message = f"{m['path']!r} (named in eval_rst) is not in the book; the directive is left out"
                        diagnostics.append(Diagnostic.make(doc.path, where, Code.RST_FILE, message))
                        _comment_out(lines, offset)
                    else:
                        lines[offset] = line.replace(m["path"], staged)
            return "\n".join(lines)

        return resolve

    def other_output(self, lines: list[str], offset: int) -> bool:
        """Is line ``offset`` an option of a ``.. raw::`` block for another output (the PDF
        never shows ``.. raw:: html``, so its file does not matter there)?"""
        for start in range(offset, -1, -1):
            if _DIRECTIVE_RE.match(lines[start]):
                raw = re.match(r"\s*\.\.\s+raw::\s*(\S+)", lines[start])
                return raw is not None and raw[1] != self.output
        return False

    def module_file(self, module: str) -> Path | None:
        if module not in self.found:
            self.found[module] = find_module(module, self.roots)
            if (path := self.found[module]) is not None:
                self.api.mocked |= missing_imports(path)
                self.api.modules.append(path)
        return self.found[module]

    def autodoc(
        self, m: re.Match[str], current: str | None, doc: Document, line: int, diagnostics: list[Diagnostic]
    ) -> str:
        """An autodoc directive as Sphinx will read it, or left out with an error when its
        module is nowhere, or the module found has no such name (an older library than the
        book's: d2l 1.0's ``Module`` is not in 0.17's ``d2l/torch.py``)."""
        self.api.used = True
        target, directive = m["target"], m["directive"]
        module, name = target, None
        if directive != "automodule":
            head, _, last = target.rpartition(".")
            if head and (self.module_file(head) is not None or current is None):
                module, name = head, last
            else:  # relative to ``.. currentmodule::`` (``Module`` or ``Module.forward``)
                module, name = current or "", target.split(".")[0]
        path = self.module_file(module) if module else None
        shown = ", ".join(str(root) for root in self.roots) or "no folder"
        if not module:
            problem = "no module: name it, or set one with `.. currentmodule::` before"
        elif path is None:
            problem = f"module {module!r} is not found (looked in {shown})"
        elif name is not None and name not in defined_names(path):
            problem = f"{module} ({path}) has no {name!r}: it is not this book's library"
        else:
            return m[0]
        message = (
            f"`.. {directive}:: {target}`: {problem}; build the book's library (polybook build lib, or build eval)"
        )
        diagnostics.append(Diagnostic.make(doc.path, line, Code.API_MODULE, message))
        return f"{m['indent']}.. polybook: {directive} {target} left out ({module or 'no module'})"


def _comment_out(lines: list[str], offset: int) -> None:
    """Turn the directive holding line ``offset`` (its own line or an option of it) into a
    comment, so docutils reads its options and content as the comment's."""
    for start in range(offset, -1, -1):
        if m := _DIRECTIVE_RE.match(lines[start]):
            lines[start] = f"{m['indent']}.. polybook: left out: {lines[start].strip()[3:]}"
            return


def relative_to_page(docname: str, staged: str) -> str:
    """A staged path (``/_book/…``) as docutils wants it in a ``:file:`` option: relative to
    the page's folder."""
    return posixpath.relpath(staged.lstrip("/"), posixpath.dirname(docname) or ".")


def setup(app: Any) -> dict[str, Any]:
    """Sphinx extension: the import roots first on ``sys.path`` of the build's process."""
    from polybook import __version__

    app.add_config_value("polybook_import_roots", [], "env", types=frozenset({list}))

    def add_roots(app: Any, config: Any) -> None:
        for root in reversed(config.polybook_import_roots):
            if root not in sys.path:
                sys.path.insert(0, root)

    app.connect("config-inited", add_roots)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
