"""Stage one (language, framework) book for Sphinx's LaTeX builder.

The same transpile as the HTML site (:func:`polybook.stage.myst.transpile`), asked for a
single framework: only that framework's cells, outputs and ``:begin_tab:`` text, no tab
UI. Outputs come from the execution results (``build/eval/<lang>/<chapter>.json``) as
plain text (no raw HTML in LaTeX); SVG figures and SVG outputs are converted to PDF.
Citations are sphinxcontrib-bibtex's, listed as on the site (:mod:`polybook.stage.bibliography`);
LaTeX gathers them in one bibliography at the end of the book.
Files are written through :class:`polybook.stage.documents.Stage`, so unchanged files keep
their mtime and :attr:`Stage.digest` says whether anything the PDF depends on changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.diagnostics import Code, Level
from polybook.dialect.nodes import Document
from polybook.files import display_path
from polybook.pdf.figures import ConversionError, svg_to_pdf
from polybook.stage.documents import Stage, StagePolicy, Staging, stage_documents
from polybook.stage.outputs import asset_name
from polybook.stage.settings import bibfiles
from polybook.toc import ROOT, Toc


def _numbering(toc: Toc | None, name: str) -> list[str]:
    """Raw LaTeX before a chapter of the root toc: numbering on or off, as the toc numbers it."""
    if toc is None or toc.parents.get(name) != ROOT:
        return []
    depth = r"\polybooksecnumdepth" if toc.numbered(name) else "-1"
    return ["```{raw} latex", rf"\setcounter{{secnumdepth}}{{{depth}}}", "```", ""]


def stage_framework(
    config: BookConfig,
    lang: str,
    framework: str,
    docs: dict[str, Document],
    results: dict[str, dict[str, Any]],
    srcdir: Path,
    figure_cache: Path,
    toc: Toc | None = None,
) -> Stage:
    """Write ``srcdir``: one MyST file per chapter with only ``framework``'s content. With the
    language's ``toc``, a chapter the toc does not number (only ``:numbered:`` blocks are, as in
    d2lbook) is an unnumbered chapter of the PDF: LaTeX numbers every chapter otherwise."""
    policy = PdfPages(framework, figure_cache, toc)
    return stage_documents(config, lang, docs, results, srcdir, bibfiles(config, lang), policy)


class PdfPages(StagePolicy):
    cite_code = Code.PDF_CITE_NO_BIB
    rich = False
    rst_output = "latex"
    missing_always = True  # the PDF shows stored results only

    def __init__(self, framework: str, figure_cache: Path, toc: Toc | None) -> None:
        self.framework = framework
        self.figure_cache = figure_cache
        self.toc = toc

    def figure(self, staging: Staging, name: str, doc: Document, src: str, line: int) -> str | None:
        if "://" in src:  # the reader gets a link to it, and the author a warning
            message = f"figure {src!r} is not a local file; LaTeX cannot include it: the PDF links to it"
            staging.say(doc.path, line, Code.PDF_FIGURE, message, Level.WARNING)
            return None
        if src.startswith("data:"):
            staging.say(doc.path, line, Code.PDF_FIGURE, f"figure {src!r} is not a local file; LaTeX cannot include it")
            return None
        target = staging.files.find(name, src)
        if target is None or not target.is_relative_to(staging.root):
            message = f"figure {src!r} not found inside the book ({display_path(staging.files.own(name, src))})"
            staging.say(doc.path, line, Code.PDF_FIGURE, message)
            return None
        if target.suffix.lower() != ".svg":
            return staging.files.stage(target)
        relative = "_book/" + target.relative_to(staging.root).as_posix()
        pdf = self._as_pdf(staging, target.read_bytes(), doc.path, line, f"figure {src!r}")
        return staging.put(relative[:-4] + ".pdf", pdf) if pdf is not None else None

    def asset(self, staging: Staging, doc: Document, data: bytes, suffix: str) -> str:
        if suffix == ".svg":
            pdf = self._as_pdf(staging, data, doc.path, 1, "an SVG output")
            data, suffix = (pdf, ".pdf") if pdf is not None else (b"", ".png")
        return staging.put(f"_outputs/{asset_name(data, suffix)}", data)

    def prefix(self, name: str) -> list[str]:
        return _numbering(self.toc, name)

    def _as_pdf(self, staging: Staging, svg: bytes, path: str, line: int, what: str) -> bytes | None:
        try:
            return svg_to_pdf(svg, self.figure_cache)
        except ConversionError as exc:
            staging.say(path, line, Code.PDF_FIGURE, f"cannot convert {what} to PDF: {exc}")
            return None
