"""Stage one (language, framework) book for Sphinx's LaTeX builder.

The same transpile as the HTML site (:func:`polybook.render.myst.transpile`), asked for a
single framework: only that framework's cells, outputs and ``:begin_tab:`` text, no tab
UI. Outputs come from the execution results (``build/eval/<lang>/<chapter>.json``) as
plain text (no raw HTML in LaTeX); SVG figures and SVG outputs are converted to PDF.
Citations are sphinxcontrib-bibtex's, listed as on the site (:mod:`polybook.render.bibliography`);
LaTeX gathers them in one bibliography at the end of the book.
Files are written through :class:`polybook.render.stage.Stage`, so unchanged files keep
their mtime and :attr:`Stage.digest` says whether anything the PDF depends on changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from polybook.book import display_path
from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect.nodes import Document
from polybook.pdf.figures import ConversionError, svg_to_pdf
from polybook.render.bibliography import BibliographyPlan
from polybook.render.eval_rst import EvalRstResolver
from polybook.render.myst import transpile
from polybook.render.outputs import ChapterResults, OutputRenderer, asset_name
from polybook.render.settings import bibfiles
from polybook.render.stage import BookFiles, Stage, append_lines, prune, rst_files, toc_resolver
from polybook.toc import ROOT, Toc


def _numbering(toc: Toc | None, name: str) -> list[str]:
    """Raw LaTeX before a chapter of the root toc: numbering on or off, as the toc numbers it."""
    if toc is None or toc.parents.get(name) != ROOT:
        return []
    depth = r"\polybooksecnumdepth" if toc.numbered(name) else "-1"
    return ["```{raw} latex", rf"\setcounter{{secnumdepth}}{{{depth}}}", "```", ""]


def stage_framework(
    config: BookConfig,
    language: str,
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
    stage = Stage(language, srcdir)
    root = config.root.resolve()
    wanted: set[str] = set()

    def put(relative: str, data: bytes) -> str:
        stage.write(relative, data)
        wanted.add(relative)
        return "/" + relative

    def as_pdf(svg: bytes, path: str, line: int, what: str) -> bytes | None:
        try:
            return svg_to_pdf(svg, figure_cache)
        except ConversionError as exc:
            stage.diagnostics.append(
                Diagnostic.make(path, line, Code.PDF_FIGURE, f"cannot convert {what} to PDF: {exc}")
            )
            return None

    files = BookFiles(config, language, stage, wanted)
    bibs = bibfiles(config, language)
    references = BibliographyPlan.make(language, docs, bibs, config.sphinx.get("bibtex_default_style"))
    for bib in bibs:  # read by sphinxcontrib-bibtex from the book; a change rebuilds the PDF
        stage.hasher.update(bib.name.encode() + hashlib.sha256(bib.read_bytes()).digest())
    rst = EvalRstResolver(config, language, output="latex")
    stage.api = rst.api
    for name, doc in docs.items():

        def figure(src: str, line: int, name: str = name, doc: Document = doc) -> str | None:
            if "://" in src:  # the reader gets a link to it, and the author a warning
                message = f"figure {src!r} is not a local file; LaTeX cannot include it: the PDF links to it"
                stage.diagnostics.append(Diagnostic.make(doc.path, line, Code.PDF_FIGURE, message, Level.WARNING))
                return None
            if src.startswith("data:"):
                message = f"figure {src!r} is not a local file; LaTeX cannot include it"
                stage.diagnostics.append(Diagnostic.make(doc.path, line, Code.PDF_FIGURE, message))
                return None
            target = files.find(name, src)
            if target is None or not target.is_relative_to(root):
                message = f"figure {src!r} not found inside the book ({display_path(files.own(name, src))})"
                stage.diagnostics.append(Diagnostic.make(doc.path, line, Code.PDF_FIGURE, message))
                return None
            if target.suffix.lower() != ".svg":
                return files.stage(target)
            relative = "_book/" + target.relative_to(root).as_posix()
            pdf = as_pdf(target.read_bytes(), doc.path, line, f"figure {src!r}")
            return put(relative[:-4] + ".pdf", pdf) if pdf is not None else None

        def asset(data: bytes, suffix: str, doc: Document = doc) -> str:
            if suffix == ".svg":
                pdf = as_pdf(data, doc.path, 1, "an SVG output")
                data, suffix = (pdf, ".pdf") if pdf is not None else (b"", ".png")
            return put(f"_outputs/{asset_name(data, suffix)}", data)

        results_of = ChapterResults.from_doc(results.get(name))
        renderer = OutputRenderer(language, results_of, asset, rich=False, label=config.label_of)
        numbering = _numbering(toc, name)
        myst = transpile(
            doc,
            language,
            framework=framework,
            outputs=renderer,
            figure=figure,
            cite=references.cite_handler(doc, stage.diagnostics, Code.PDF_CITE_NO_BIB),
            toc=toc_resolver(name, docs),
            bibliography=references.references(),
            eval_rst=rst.resolver(doc, rst_files(files, name), stage.diagnostics),
            label=config.label_of,
        )
        stage.diagnostics += renderer.missing_diagnostics(doc.path)  # the PDF shows stored results only
        append_lines(myst, references.page_end(name), doc.nodes[-1].end_line if doc.nodes else 1)
        if numbering:
            myst.text, myst.lines = "\n".join(numbering) + "\n" + myst.text, [1] * len(numbering) + myst.lines
        stage.docs[name] = myst
        stage.paths[name] = doc.path
        put(f"{name}.md", myst.text.encode("utf-8"))
    stage.hasher.update(stage.api.digest())  # a rebuilt library changes its API pages
    prune(srcdir, wanted)
    return stage
