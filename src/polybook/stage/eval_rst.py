"""``eval_rst`` blocks that need more than reStructuredText: API pages and included files.

d2l's API page (``chapter_appendix-tools-for-deep-learning/d2l.md``) is
``.. automodule:: d2l.torch`` with ``:members:`` (or ``.. autoclass::``/``.. autofunction::``
one by one under ``.. currentmodule::``). The build never imports the module: each autodoc
directive is written out as the ``py:`` directives autodoc would make, read from the module's
source (:mod:`polybook.stage.api_source`), so an API page is the same whether or not the
book's code may run. Only the book's library may be documented -- the packages of conf.py's
``library.frameworks.*.lib_file`` (``d2l``) -- found where the evaluation builds it
(``build/run/<lang>/<framework>/``, see :mod:`polybook.execute.workdir`), else in the
language's folder or the source language's. A directive naming any other module (``evil``,
``os``), a module found nowhere or a name it lacks is one error at the directive's line, and
the directive is left out.

``.. raw:: html`` / ``.. include::`` with a file: the file is found like a figure (the
language's, else the source language's), staged with the pages and its path rewritten;
a file that is not in the book, or a URL (docutils would fetch it while the site is built), is an
error at its line and the directive is left out. The PDF leaves out a raw block for HTML without
looking for its file. A directive that runs code while Sphinx reads the page (``exec``,
``ifconfig``, ``plot``...: a conf.py may load their extensions) is left out with an error: a
book's code runs in ``build eval`` only.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.nodes import Document, EvalRst
from polybook.dialect.rst import Reach, RstDirective, read_directives
from polybook.stage.api_source import DocOptions, document, document_module, read_module

#: ``stage(file, html)`` -> the staged path (from the staged source folder), or None when the file
#: is not in the book; ``html``: a raw HTML file, whose relative ``<img src>`` the site serves.
FileStager = Callable[[str, bool], "str | None"]
#: The autodoc directives an API page may use, and the kinds of object each documents.
AUTODOC = {
    "automodule": None,
    "autoclass": ("class", "exception"),
    "autoexception": ("class", "exception"),
    "autofunction": ("function",),
    "autodecorator": ("function",),
    "automethod": ("method",),
    "autoproperty": ("property",),
    "autoattribute": ("attribute", "property"),
    "autodata": ("data", "function"),
}


@dataclass(slots=True)
class ApiPages:
    """What a language's API pages were written from: the library modules' files."""

    modules: list[Path] = field(default_factory=list)

    def digest(self) -> bytes:
        """What the API pages depend on besides the pages: the modules' code."""
        return b"".join(path.name.encode() + hashlib.sha256(path.read_bytes()).digest() for path in self.modules)


def library_roots(config: BookConfig, lang: str) -> list[Path]:
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
    if not all(part.isidentifier() for part in parts):
        return None
    for root in roots:
        for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                return candidate
    return None


class EvalRstResolver:
    """Rewrites one language's eval_rst blocks (see the module's docstring)."""

    def __init__(self, config: BookConfig, lang: str, output: str = "html") -> None:
        self.output = output  # "html" or "latex": a raw block for the other one is left out
        # a translation's own library (imported with it: zh's d2l 2.0.0), not the book's
        self.own = config.chapters_dir.resolve() / lang if lang != config.source_language else None
        self.roots = library_roots(config, lang)
        self.packages = config.library.packages
        self.order = str(config.sphinx.get("autodoc_member_order") or "bysource")
        self.api = ApiPages()
        self.build_dir = config.build_dir
        self.found: dict[str, Path | None] = {}

    def resolver(
        self, doc: Document, stage_file: FileStager, diagnostics: list[Diagnostic]
    ) -> Callable[[EvalRst], list[str]]:
        """``resolve(node)``: the block's text, one entry per line of the block (an entry may
        be several lines: the directives an autodoc line becomes, numbered as that line)."""
        current: list[str | None] = [None]  # the page's ``.. currentmodule::``, in reading order

        def resolve(node: EvalRst) -> list[str]:
            lines = node.source.split("\n")
            left_out = -1  # the end of the last directive left out: what it holds goes with it
            for directive in read_directives(node.source):
                if directive.start < left_out:
                    continue
                where = node.line + 1 + directive.start
                reach = directive.reach
                if reach is Reach.MODULE:
                    current[0] = None if directive.argument == "None" else directive.argument
                elif reach is Reach.IMPORTS:
                    text, problem = self.autodoc(directive, current[0])
                    if problem:
                        diagnostics.append(Diagnostic.make(doc.path, where, Code.API_MODULE, problem))
                    # its options are read; its content stays where it is, after what it documents
                    lines[directive.start : directive.body] = [text] + [""] * (directive.body - directive.start - 1)
                    left_out = directive.end
                elif reach is Reach.RUNS:
                    message = (
                        f"`{directive.written}` runs code while the book is built: left out "
                        "(a book's code runs in polybook build eval only)"
                    )
                    diagnostics.append(Diagnostic.make(doc.path, where, Code.RST_CODE, message))
                    _comment_out(lines, directive)
                    left_out = directive.end
                elif reach is Reach.FILE and self.stage(directive, lines, stage_file, doc, where, diagnostics):
                    left_out = directive.end
            return lines

        return resolve

    def stage(
        self,
        directive: RstDirective,
        lines: list[str],
        stage_file: FileStager,
        doc: Document,
        where: int,
        diagnostics: list[Diagnostic],
    ) -> bool:
        """Stage the file a directive reads and point it there; True when it is left out
        instead (a raw block for another output, a file not in the book, a URL)."""
        if directive.name == "raw" and directive.argument != self.output:
            _comment_out(lines, directive)
            return True
        file = directive.file
        at = next((i for i in range(directive.start, directive.end) if file in lines[i]), directive.start)
        where += at - directive.start  # the line that names the file
        raw_html = directive.name == "raw" and self.output == "html"
        staged = None if "url" in directive.options else stage_file(file, raw_html)
        if staged is None:
            why = "a URL is read while the book is built" if "url" in directive.options else "it is not in the book"
            message = f"{file!r} (named in eval_rst): {why}; the directive is left out"
            diagnostics.append(Diagnostic.make(doc.path, where, Code.RST_FILE, message))
            _comment_out(lines, directive)
            return True
        lines[at] = lines[at].replace(file, staged)
        return False

    def module_file(self, module: str) -> Path | None:
        """The file of a module of the book's library (None for any other module: never looked for)."""
        if module.split(".")[0] not in self.packages:
            return None
        if module not in self.found:
            self.found[module] = find_module(module, self.roots)
            if (path := self.found[module]) is not None:
                self.api.modules.append(path)
        return self.found[module]

    def locate(self, directive: RstDirective, current: str | None) -> tuple[str, list[str]]:
        """The module and the dotted path inside it an autodoc directive names: the longest
        prefix of its target that is a module of the library, else the current module."""
        parts = directive.argument.split(".")
        if directive.name == "automodule":
            return directive.argument, []
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if self.module_file(module) is not None:
                return module, parts[cut:]
        if current is not None and parts[0] not in self.packages:
            return current, parts
        return ".".join(parts[:-1]), parts[-1:]

    def autodoc(self, directive: RstDirective, current: str | None) -> tuple[str, str]:
        """An autodoc directive as the ``py:`` directives it stands for, read from the library's
        source (its content, after them, is where autodoc puts it); or a comment and the
        problem, when it names no module of the library, or a module found nowhere, or a name
        that module lacks (an older library than the book's: d2l 1.0's ``Module`` is not in
        0.17's ``d2l/torch.py``)."""
        name, target, indent = directive.name.removeprefix("py:"), directive.argument, directive.indent
        left_out = f"{indent}.. polybook: {name} {target} left out"
        written = f"`.. {name}:: {target}`"
        if name not in AUTODOC:
            return left_out, f"{written}: polybook documents the library with autodoc's directives only; left out"
        module, path = self.locate(directive, current)
        shown = ", ".join(sorted(self.packages)) or "none: conf.py names no polybook.library"
        if not module:
            problem = "no module: name it, or set one with `.. currentmodule::` before"
            return left_out, f"{written}: {problem}; the directive is left out"
        if module.split(".")[0] not in self.packages:
            problem = (
                f"{module!r} is not the book's library ({shown}): an API page documents the library "
                "from its source and nothing else is read or imported; the directive is left out"
            )
            return left_out, f"{written}: {problem}"
        file = self.module_file(module)
        if file is None:
            folders = ", ".join(str(root) for root in self.roots) or "no folder"
            problem = f"module {module!r} is not found (looked in {folders})"
            return left_out, f"{written}: {problem}; build the book's library (polybook build lib, or build eval)"
        api = read_module(file, self.build_dir)
        if api.problem:
            return left_out, f"{written}: {api.problem}; the directive is left out"
        options = DocOptions.of(directive.options, self.order)
        problems: list[str] = []
        if name == "automodule":
            lines = document_module(module, api, options, indent, problems)
            return "\n".join(lines), "; ".join(problems)
        found = api.find(path)
        kinds = AUTODOC[name] or ()
        if found is None or found.kind not in kinds:
            what = f"no {'.'.join(path)!r}" if found is None else f"{'.'.join(path)!r} as a {found.kind}"
            if self.own is not None and file.is_relative_to(self.own):
                problem = f"{module} ({file}, the language's own library) has {what}: the page names what it lacks"
                return left_out, f"{written}: {problem}; mend the page or the library; the directive is left out"
            problem = f"{module} ({file}) has {what}: it is not this book's library"
            return left_out, f"{written}: {problem}; build the book's library (polybook build lib, or build eval)"
        prefix = ".".join(path[:-1]) + "." if len(path) > 1 else ""
        lines = document(found, module, prefix, options, indent, api, problems)
        return "\n".join(lines), "; ".join(problems)


def _comment_out(lines: list[str], directive: RstDirective) -> None:
    """Turn a directive into a comment, so docutils reads its options and content as the comment's."""
    line = lines[directive.start]
    lines[directive.start] = f"{directive.indent}.. polybook: left out: {line.strip()[3:]}"


def relative_to_page(docname: str, staged: str) -> str:
    """A staged path (``/_book/…``) as docutils wants it in a ``:file:`` option: relative to
    the page's folder."""
    return posixpath.relpath(staged.lstrip("/"), posixpath.dirname(docname) or ".")
