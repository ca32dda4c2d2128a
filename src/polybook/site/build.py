"""``polybook build html``: the one site, every language -- the site drives the render.

It gives :func:`polybook.render.build.render_html` what only the site knows -- the
translation-status pages' tables (:mod:`polybook.site.status`) and the PDFs each header links
(:func:`polybook.pdf.build.site_pdfs`, those built), the notebooks' zips and where each framework's
notebooks are (:mod:`polybook.notebooks.site`) -- then assembles the site around the languages'
pages: root index, sitemap, 404 pages, MathJax, PDFs, notebooks (:mod:`polybook.site.assemble`).
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

from polybook.config import BookConfig
from polybook.files import display_path, stage_lock
from polybook.notebooks.site import site_downloads, site_notebooks
from polybook.pdf.build import site_pdfs
from polybook.render import status_page
from polybook.render.build import HtmlOptions, HtmlResult, render_html
from polybook.render.site_info import NotebookPlace, PdfLink
from polybook.site.assemble import assemble

__all__ = ["HtmlOptions", "HtmlResult", "build_html"]


def build_html(
    config: BookConfig, options: HtmlOptions | None = None, on_status: Any = None, on_wait: Any = None
) -> HtmlResult:
    """The site; one build at a time per build folder (a second one -- ``serve`` beside
    ``build html`` -- waits, saying so through ``on_wait``)."""
    options = options or HtmlOptions()
    with html_lock(config, on_wait):
        started = time.monotonic()
        pdfs, zips, places = site_links(config)
        wanted = replace(options, status_pages=StatusTables(), pdfs=pdfs, notebooks=zips, notebook_places=places)
        result = render_html(config, wanted, on_status)
        assembling = time.monotonic()
        outdir = result.outdir
        built = [lang for lang in config.languages if (outdir / lang / "index.html").is_file()]
        assert result.site is not None
        result.diagnostics += assemble(config, result.site.with_languages(built), outdir)  # writes what changed
        result.timings["site"] = time.monotonic() - assembling
        result.timings["total"] = time.monotonic() - started
        result.timings = {step: round(seconds, 3) for step, seconds in result.timings.items()}
        return result


class StatusTables:
    """:mod:`polybook.site.status` for the render, imported when the tables are made: the check it
    runs is imported while Sphinx writes, not before the first language is staged."""

    DOCNAME = status_page.DOCNAME

    def pages(
        self, book: Any, languages: list[str], result: Any = None, linked: set[str] | None = None
    ) -> dict[str, str]:
        from polybook.site import status

        return status.pages(book, languages, result, linked)


def html_lock(config: BookConfig, on_wait: Any = None) -> AbstractContextManager[None]:
    """The build folder's lock: one HTML build at a time (``build html``, serve's rebuilds)."""
    lock = config.build_dir / ".sphinx" / "build.lock"
    return stage_lock(lock, f"the html build in {display_path(config.build_dir)}/", on_wait)


def site_links(
    config: BookConfig,
) -> tuple[dict[str, tuple[PdfLink, ...]], dict[str, tuple[PdfLink, ...]], dict[str, tuple[NotebookPlace, ...]]]:
    """Per language, what its pages link that other commands built: PDFs, notebooks' zips, and
    where each framework's notebooks are."""
    languages = config.languages
    return (
        {lang: pdf_links(config, lang) for lang in languages},
        {lang: notebook_links(config, lang) for lang in languages},
        {lang: notebook_places(config, lang) for lang in languages},
    )


def notebook_links(config: BookConfig, lang: str) -> tuple[PdfLink, ...]:
    """The notebooks' zips of ``lang`` its header links, next to the PDFs: those built."""
    return tuple(PdfLink(z.name, z.path) for z in site_downloads(config, lang))


def notebook_places(config: BookConfig, lang: str) -> tuple[NotebookPlace, ...]:
    """Where each framework's notebooks of ``lang`` are (built ones), linked inside its tabs."""
    return tuple(
        NotebookPlace(n.framework, n.label, n.folder, n.colab, n.studio_lab) for n in site_notebooks(config, lang)
    )


def pdf_links(config: BookConfig, lang: str) -> tuple[PdfLink, ...]:
    """The PDFs of ``lang`` its header links: those built (a link never leads to a 404)."""
    return tuple(PdfLink(pdf["name"], pdf["path"]) for pdf in site_pdfs(config, lang, built_only=True))
