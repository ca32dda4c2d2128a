"""One vocabulary of problems for the whole pipeline.

Every problem polybook reports -- a parse error, a config mistake, later a checker
finding or a build warning -- is a :class:`Diagnostic` with a code from :class:`Code`,
so users can grep, suppress and count them, and every one prints the same way:
``path:line: level: message [polybook.code]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Code(StrEnum):
    """Diagnostic codes; the value is what users see after ``polybook.``."""

    CONFIG = "config"
    READ = "read"
    ENCODING = "encoding"
    FENCE_UNCLOSED = "fence.unclosed"
    FENCE_ATTRS = "fence.attrs"
    TAB_UNCLOSED = "tab.unclosed"
    TAB_NESTED = "tab.nested"
    TAB_UNMATCHED = "tab.unmatched"
    TAB_UNKNOWN = "tab.unknown"
    TAB_MISPLACED = "tab.misplaced"
    TAB_BRANCH = "tab.branch"  # an ``if tab.selected(...)`` branch that cannot be resolved
    TAB_SETUP = "tab.setup"  # a ``%load_ext d2lbook.tab`` cell with something it does not declare
    CELL_MISPLACED = "cell.misplaced"
    DIRECTIVE_DAMAGED = "directive.damaged"
    ROLE_DAMAGED = "role.damaged"
    LABEL_DUPLICATE = "label.duplicate"
    LABEL_ORPHAN = "label.orphan"
    HEADING_DAMAGED = "heading.damaged"
    LABEL_KIND = "label.kind"  # :eqlabel: on a figure (taken as its :label:)
    SLIDE_MARK = "slide.mark"  # an unclosed or overlapping slide mark ([**…**], (~~…~~))
    CITE_KEY = "cite.key"  # a citation key that cannot be a BibTeX key (a space inside)
    # The book's table of contents (toc blocks)
    TOC_MISSING = "toc.missing"  # a toc entry naming no document
    TOC_UNREACHED = "toc.unreached"  # a document no toc block reaches
    CHAPTERS_LINK = "chapters.link"  # a symbolic link in chapters/ that loops or leaves the book: not followed
    # Translation consistency (polybook check)
    CODE_MISSING = "code.missing"
    CODE_EXTRA = "code.extra"
    CODE_CHANGED = "code.changed"
    CODE_SAVED = "code.saved"  # a #@save cell differs from the source's: another library
    CODE_STRINGS = "code.strings"
    CODE_MARKERS = "code.markers"
    CODE_TABS = "code.tabs"
    CODE_COVERAGE = "code.coverage"  # a framework one chapter offers and the other does not
    MATH_CHANGED = "math.changed"
    MATH_MISSING = "math.missing"
    MATH_EXTRA = "math.extra"
    NUMBERS_MISSING = "numbers.missing"
    REF_LABEL = "ref.label"
    REF_TARGET = "ref.target"
    REF_FIGURE = "ref.figure"
    REF_LINK = "ref.link"
    REF_FALLBACK = "ref.fallback"  # a translation uses the source language's file (figure, link)
    STRUCTURE_HEADING = "structure.heading"
    STRUCTURE_SECTION = "structure.section"
    STRUCTURE_TEXTTAB = "structure.texttab"
    STRUCTURE_CHAPTER = "structure.chapter"
    # What a translation adds that the build would run, import or read (docs/trust.md)
    TRUST_DIRECTIVE = "trust.directive"  # an eval_rst directive that imports, runs or reads a file
    TRUST_MODULE = "trust.module"  # a Python module file (.py, .pyc, .so) in the language's folder
    HTML_ACTIVE = "html.active"  # raw HTML that would run, load or redirect, which the source has not there
    STALE_SOURCE = "stale.source"
    STALE_UNKNOWN = "stale.unknown"
    STALE_PLAN = "stale.plan"  # a document's row of the migration plan (renamed, new, gone, changed)
    STALE_MARKED = "stale.marked"  # blocks `polybook port` marked untranslated or stale, drafts not reviewed
    TERMS_MISSING = "terms.missing"  # a glossary term of the source the translation renders otherwise
    TERMS_UNFOLLOWED = "terms.unfollowed"  # a glossary term a language renders otherwise in most blocks
    STALE_BASE = "stale.base"  # a language made from an edition the book does not hold
    STALE_LOCK = "stale.lock"  # an entry of the sync lock file that cannot be trusted
    SUPPRESSION = "suppression"
    SUPPRESSION_UNUSED = "suppression.unused"
    # Execution (polybook build eval)
    EXEC_ERROR = "exec.error"
    EXEC_NEEDS_GPU = "exec.needs_gpu"
    EXEC_TIMEOUT = "exec.timeout"
    EXEC_KERNEL_DIED = "exec.kernel_died"
    EXEC_ALLOWED_ERROR = "exec.allowed_error"
    EXEC_OPTION = "exec.option"
    EXEC_DOWNLOAD = "exec.download"  # a dataset or weights could not be downloaded (no network)
    EXEC_NO_FRAMEWORK = "exec.no_framework"  # the framework is not installed in the kernel, or its env not made
    # HTML (polybook build html)
    HTML_SPHINX = "html.sphinx"  # a Sphinx warning, mapped back to the chapter's path:line
    HTML_FIGURE_OUTSIDE = "html.figure.outside"  # a figure path escaping the book root
    HTML_FIGURE_MISSING = "html.figure.missing"
    HTML_LINK_OUTSIDE = "html.link.outside"  # a link to a local file escaping the book root
    OUTPUT_MISSING = "output.missing"  # html --no-eval, pdf: no stored output matches a cell
    HTML_CITE_NO_BIB = "html.cite.no_bib"  # :cite: without any bibtex_bibfiles configured
    HTML_MATHJAX = "html.mathjax"  # no local MathJax to serve
    HTML_PDF = "html.pdf"  # a PDF that is not what its stamp says: not copied into the site
    API_MODULE = "api.module"  # an autodoc directive naming no module of the book's library, or one not found
    RST_CODE = "rst.code"  # an eval_rst directive that runs code while Sphinx reads the page
    RST_FILE = "rst.file"  # a file an eval_rst block names is not in the book
    # PDF (polybook build pdf)
    PDF_SPHINX = "pdf.sphinx"  # a Sphinx warning of the LaTeX build, at the chapter's path:line
    PDF_LATEX = "pdf.latex"  # a LaTeX error, at the chapter's path:line when it can be traced
    PDF_FORMULA = "pdf.formula"  # a formula LaTeX cannot set: shown as its text, the rest of the PDF built
    PDF_GLYPH = "pdf.glyph"  # a character no configured font has: it would print as a blank
    PDF_FIGURE = "pdf.figure"  # an SVG that could not be converted, or a missing figure
    PDF_TOOLS = "pdf.tools"  # xelatex/latexmk/rsvg-convert not installed
    PDF_CITE_NO_BIB = "pdf.cite.no_bib"  # :cite: without any bibtex_bibfiles configured
    # Notebooks for readers (polybook build notebooks)
    NOTEBOOK_REF = "notebook.ref"  # a cross reference naming no label of the language: shown as text
    NOTEBOOK_FIGURE = "notebook.figure"  # a figure or linked file not found inside the book: not in the download
    NOTEBOOK_INVALID = "notebook.invalid"  # a notebook nbformat does not validate: not written
    NOTEBOOK_LINKS = "notebook.links"  # no html_baseurl: links to the published pages stay relative
    NOTEBOOK_INSTALL = "notebook.install"  # an install cell the package index cannot satisfy
    # The book's library (polybook build lib)
    LIB_SYNTAX = "lib.syntax"  # #@save code that does not parse
    LIB_CLASS = "lib.class"  # @d2l.add_to_class naming no class saved before it
    LIB_UNREACHED = "lib.unreached"  # #@save code in a document no toc reaches: not collected
    LIB_HEADER = "lib.header"  # a library file without the WARNING line: replaced whole
    LIB_VERSION = "lib.version"  # version_file missing, or without a __version__ line
    LIB_STALE = "lib.stale"  # a library file is not what the #@save cells give
    LIB_COPY = "lib.copy"  # a translation's own copy of a library module differs from the book's
    # Importing a d2lbook project (polybook import d2lbook)
    IMPORT_INI = "import.ini"  # its config.ini cannot be read, or configparser would refuse it
    IMPORT_CONF = "import.conf"  # conf.py cannot be read, or not edited in place (not Python, not a literal)
    IMPORT_SETTING = "import.setting"  # a config.ini setting the import overrides (lang, origin_lang)
    IMPORT_MISSING = "import.missing"  # a file config.ini names that the project lacks: not copied
    IMPORT_UNMAPPED = "import.unmapped"  # a config.ini setting polybook has no place for


#: The level a code is reported at unless the reporter says otherwise.
DEFAULT_LEVEL: dict[Code, Level] = {
    Code.CONFIG: Level.ERROR,
    Code.CHAPTERS_LINK: Level.ERROR,
    Code.READ: Level.ERROR,
    Code.ENCODING: Level.ERROR,
    Code.FENCE_UNCLOSED: Level.ERROR,
    Code.FENCE_ATTRS: Level.WARNING,
    Code.TAB_UNCLOSED: Level.ERROR,
    Code.TAB_NESTED: Level.ERROR,
    Code.TAB_UNMATCHED: Level.ERROR,
    Code.TAB_UNKNOWN: Level.ERROR,
    Code.TAB_MISPLACED: Level.ERROR,
    Code.TAB_BRANCH: Level.ERROR,
    Code.TAB_SETUP: Level.WARNING,
    Code.CELL_MISPLACED: Level.ERROR,
    Code.DIRECTIVE_DAMAGED: Level.ERROR,
    Code.ROLE_DAMAGED: Level.WARNING,
    Code.LABEL_DUPLICATE: Level.ERROR,
    Code.LABEL_ORPHAN: Level.WARNING,
    Code.HEADING_DAMAGED: Level.WARNING,
    Code.LABEL_KIND: Level.WARNING,
    Code.SLIDE_MARK: Level.WARNING,
    Code.CITE_KEY: Level.ERROR,
    Code.TOC_MISSING: Level.ERROR,
    Code.TOC_UNREACHED: Level.WARNING,
    Code.CODE_MISSING: Level.ERROR,
    Code.CODE_EXTRA: Level.ERROR,
    Code.CODE_CHANGED: Level.ERROR,
    Code.CODE_SAVED: Level.ERROR,
    Code.CODE_STRINGS: Level.INFO,
    Code.CODE_MARKERS: Level.ERROR,
    Code.CODE_TABS: Level.ERROR,
    Code.CODE_COVERAGE: Level.INFO,
    Code.MATH_CHANGED: Level.ERROR,
    Code.MATH_MISSING: Level.WARNING,  # only left untranslated (a paragraph whose `$` do not pair: an error)
    Code.MATH_EXTRA: Level.WARNING,
    Code.NUMBERS_MISSING: Level.WARNING,
    Code.REF_LABEL: Level.ERROR,
    Code.REF_TARGET: Level.WARNING,
    Code.REF_FIGURE: Level.ERROR,
    Code.REF_LINK: Level.WARNING,
    Code.REF_FALLBACK: Level.INFO,
    Code.STRUCTURE_HEADING: Level.WARNING,
    Code.STRUCTURE_SECTION: Level.ERROR,
    Code.STRUCTURE_TEXTTAB: Level.ERROR,
    Code.STRUCTURE_CHAPTER: Level.ERROR,
    Code.TRUST_DIRECTIVE: Level.ERROR,
    Code.TRUST_MODULE: Level.ERROR,
    Code.HTML_ACTIVE: Level.ERROR,
    Code.STALE_SOURCE: Level.INFO,  # how far behind the source: a migration plan, never a mistake
    Code.STALE_UNKNOWN: Level.INFO,
    Code.STALE_PLAN: Level.INFO,  # how far behind, document by document: never a mistake
    Code.STALE_MARKED: Level.INFO,  # left to translate after a port: not a mistake
    Code.TERMS_MISSING: Level.INFO,  # a glossary is advice: a translator may have a reason
    Code.TERMS_UNFOLLOWED: Level.INFO,
    Code.STALE_BASE: Level.WARNING,
    Code.STALE_LOCK: Level.ERROR,
    Code.SUPPRESSION: Level.ERROR,
    Code.SUPPRESSION_UNUSED: Level.WARNING,
    Code.EXEC_ERROR: Level.ERROR,
    Code.EXEC_NEEDS_GPU: Level.WARNING,
    Code.EXEC_TIMEOUT: Level.ERROR,
    Code.EXEC_KERNEL_DIED: Level.ERROR,
    Code.EXEC_ALLOWED_ERROR: Level.INFO,
    Code.EXEC_OPTION: Level.WARNING,
    Code.EXEC_DOWNLOAD: Level.WARNING,
    Code.EXEC_NO_FRAMEWORK: Level.WARNING,
    Code.HTML_SPHINX: Level.WARNING,
    Code.HTML_FIGURE_OUTSIDE: Level.ERROR,
    Code.HTML_FIGURE_MISSING: Level.ERROR,
    Code.HTML_LINK_OUTSIDE: Level.ERROR,
    Code.OUTPUT_MISSING: Level.WARNING,
    Code.HTML_CITE_NO_BIB: Level.WARNING,
    Code.HTML_MATHJAX: Level.WARNING,
    Code.HTML_PDF: Level.ERROR,
    Code.API_MODULE: Level.ERROR,
    Code.RST_CODE: Level.ERROR,
    Code.RST_FILE: Level.ERROR,
    Code.PDF_SPHINX: Level.WARNING,
    Code.PDF_LATEX: Level.ERROR,
    Code.PDF_FORMULA: Level.ERROR,
    Code.PDF_GLYPH: Level.ERROR,
    Code.PDF_FIGURE: Level.ERROR,
    Code.PDF_TOOLS: Level.ERROR,
    Code.PDF_CITE_NO_BIB: Level.WARNING,
    Code.NOTEBOOK_REF: Level.WARNING,
    Code.NOTEBOOK_FIGURE: Level.WARNING,
    Code.NOTEBOOK_INVALID: Level.ERROR,
    Code.NOTEBOOK_LINKS: Level.INFO,
    Code.NOTEBOOK_INSTALL: Level.ERROR,
    Code.LIB_SYNTAX: Level.ERROR,
    Code.LIB_CLASS: Level.ERROR,
    Code.LIB_UNREACHED: Level.WARNING,
    Code.LIB_HEADER: Level.WARNING,
    Code.LIB_VERSION: Level.WARNING,
    Code.LIB_STALE: Level.WARNING,
    Code.LIB_COPY: Level.WARNING,
    Code.IMPORT_INI: Level.ERROR,
    Code.IMPORT_CONF: Level.ERROR,
    Code.IMPORT_SETTING: Level.WARNING,
    Code.IMPORT_MISSING: Level.WARNING,
    Code.IMPORT_UNMAPPED: Level.INFO,
}

#: Severity order, for thresholds such as ``--fail-on warning``.
RANK = {Level.INFO: 0, Level.WARNING: 1, Level.ERROR: 2}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem at a 1-based line of a file."""

    path: str
    line: int
    code: Code
    message: str
    level: Level

    @classmethod
    def make(cls, path: str, line: int, code: Code, message: str, level: Level | None = None) -> Diagnostic:
        return cls(path, line, code, message, level or DEFAULT_LEVEL[code])

    def format(self) -> str:
        return f"{self.path}:{self.line}: {self.level}: {self.message} [polybook.{self.code}]"

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "level": str(self.level),
            "code": f"polybook.{self.code}",
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> Diagnostic:
        """The diagnostic :meth:`to_dict` wrote (a stamp, a report); other keys are ignored."""
        code = Code(str(entry["code"]).removeprefix("polybook."))
        return cls(str(entry["path"]), int(entry["line"]), code, str(entry["message"]), Level(entry["level"]))


class DiagnosticError(Exception):
    """A stage stops on ``diagnostics``; its text is ``headline`` (what was refused, when there is
    one to say) followed by every diagnostic, formatted."""

    def __init__(self, diagnostics: Iterable[Diagnostic], headline: str = "") -> None:
        self.diagnostics = list(diagnostics)
        self.headline = headline
        super().__init__("\n".join([headline] * bool(headline) + [d.format() for d in self.diagnostics]))


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.level is Level.ERROR for d in diagnostics)


def fails_build(reported: dict[str, object], strict: bool) -> bool:
    """Whether a diagnostic (as :meth:`Diagnostic.to_dict` reports it) fails a site build:
    errors do; with --strict, warnings of parsing and rendering too. Execution keeps its own
    policy (a "needs a GPU" cell is an error only with ``polybook.execution.fail_on_needs_gpu``)."""
    level, code = reported["level"], str(reported["code"])
    return level == Level.ERROR or (strict and level == Level.WARNING and not code.startswith("polybook.exec."))


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, str]:
    return (diagnostic.path, diagnostic.line, diagnostic.code)


def grouped(found: Iterable[tuple[Diagnostic, str]]) -> list[tuple[Diagnostic, list[str]]]:
    """Diagnostics that several targets (the PDFs of one language, say) report alike -- same
    place, code and message -- once each, with the targets that reported it; sorted by place."""
    targets: dict[Diagnostic, list[str]] = {}
    for diagnostic, target in found:
        named = targets.setdefault(diagnostic, [])
        if target not in named:
            named.append(target)
    return sorted(targets.items(), key=lambda item: sort_key(item[0]))


def format_grouped(diagnostic: Diagnostic, targets: list[str], of: int) -> str:
    """``diagnostic.format()`` and the targets that reported it, when there were ``of`` > 1."""
    return diagnostic.format() + (f" ({', '.join(targets)})" if of > 1 else "")


#: How many places the summary of a command's diagnostics names per code.
PLACES_SHOWN = 3

#: The one line that stands for every diagnostic of a code an option asked for, given them all.
Collapse = Callable[[list[Diagnostic]], str]


def collapse_missing_outputs(why: str) -> Collapse:
    """``output.missing`` said once: the cells a command shows without output because ``why``
    (``--no-eval``: no code run; a PDF never runs code) -- each cell's line is for ``-v``."""

    def line(found: list[Diagnostic]) -> str:
        documents = sum("for this document" in d.message for d in found)  # notebooks: once per document
        counts = {"cell": len(found) - documents, "document": documents}
        what = " and ".join(f"{n} {noun}{'s' * (n != 1)}" for noun, n in counts.items() if n)
        verb = "shows" if len(found) == 1 else "show"
        return f"{what} {verb} no output: {why}; run polybook build eval [polybook.{Code.OUTPUT_MISSING}]"

    return line


def report_lines(
    diagnostics: Iterable[Diagnostic],
    verbose: bool = False,
    collapsed: Mapping[Code, Collapse] | None = None,
    describe: Callable[[Diagnostic], str] = Diagnostic.format,
) -> list[str]:
    """What a command prints of its diagnostics, so that a person reads it: every error in full
    (``describe``: ``path:line: error: message [polybook.code]``), then the warnings and notes
    as a table by code -- how many, the first places and what the first says -- and one line
    for each code in ``collapsed`` (what an option asked for: ``output.missing`` under
    ``--no-eval``). ``verbose``: every line in full instead of the table, sorted by place."""
    found = sorted(diagnostics, key=sort_key)
    errors = [d for d in found if d.level is Level.ERROR]
    rest = [d for d in found if d.level is not Level.ERROR]
    lines = [describe(d) for d in errors]
    if verbose:
        return lines + [describe(d) for d in rest]
    collapsed = collapsed or {}
    kept = [d for d in rest if d.code not in collapsed]
    for code, one_line in collapsed.items():
        if of_code := [d for d in rest if d.code is code]:
            lines.append(one_line(of_code))
    return lines + _table(kept)


#: What the summary calls a level's diagnostics.
_NOUN = {Level.ERROR: "error", Level.WARNING: "warning", Level.INFO: "note"}


def _table(found: list[Diagnostic]) -> list[str]:
    """Warnings and notes by level and code, most frequent first: a row of count, level, code and
    first places, and under it what the first one says."""
    groups: dict[tuple[Level, Code], list[Diagnostic]] = {}
    for diagnostic in found:
        groups.setdefault((diagnostic.level, diagnostic.code), []).append(diagnostic)
    if not groups:
        return []
    rows = sorted(groups.items(), key=lambda item: (-RANK[item[0][0]], -len(item[1]), item[0][1]))
    counts = {level: sum(len(ds) for (at, _), ds in groups.items() if at is level) for level in Level}
    said = ", ".join(f"{n} {_NOUN[level]}{'s' * (n != 1)}" for level, n in counts.items() if n)
    width = max(len(f"polybook.{code}") for _, code in groups)
    indent = " " * (2 + 6 + 2 + 7 + 2 + width + 2)
    lines = [f"{said} by code (-v/--verbose: every line):"]
    lines.append(f"  {'count':>6}  {'level':<7}  {'code':<{width}}  first places")
    for (level, code), ds in rows:
        places = ", ".join(f"{d.path}:{d.line}" for d in ds[:PLACES_SHOWN]) + (", …" if len(ds) > PLACES_SHOWN else "")
        lines.append(f"  {len(ds):>6}  {_NOUN[level]:<7}  {f'polybook.{code}':<{width}}  {places}")
        first = ds[0].message.splitlines()[0] if ds[0].message else ""
        lines.append(f"{indent}e.g. {first}")
    return lines
