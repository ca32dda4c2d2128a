"""The book's own library, checked: what readers of each language import must be what the
source's ``#@save`` code gives.

* A translation's ``#@save`` cell that differs from the source's (``code.saved``, an error):
  the code a translator changed would not reach the library, or -- with a translation's own
  copy of the package -- its readers would get another library.
* A committed module that ``polybook build lib`` would change (``lib.stale``), with the first
  differing definition and the chapter line that defines it.
* A translation's own copy of a module (``chapters/<lang>/d2l/torch.py``, as imported from its
  project) that differs from the book's (``lib.copy``): its kernels import that copy.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from polybook.book import Book, display_path
from polybook.check.findings import Finding, Location
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document
from polybook.library import SavedLibrary, collect_library, library_status, read_settings
from polybook.library.build import first_difference
from polybook.library.collect import SAVE_RE


def saved_drift(lang: str, source: Document, findings: list[Finding]) -> list[Finding]:
    """``code.changed`` findings about a cell the source saves become ``code.saved``."""
    saved = [(cell.line, cell.end_line) for cell in source.cells() if SAVE_RE.search(cell.code)]
    out = []
    for finding in findings:
        where = finding.source.line if finding.source is not None else 0
        if finding.code is Code.CODE_CHANGED and any(first <= where <= last for first, last in saved):
            message = f"{finding.message}; it is #@save code: readers of {lang} would get another library"
            finding = replace(finding, code=Code.CODE_SAVED, message=message)
        out.append(finding)
    return out


def library_findings(book: Book, languages: list[str]) -> list[Finding]:
    """Stale committed modules, and the translations' own copies that differ from the book's."""
    config = book.config
    settings, problems = read_settings(config)
    if problems or not settings.enabled:
        return []  # polybook build lib reports the settings' problems
    source = config.source_language
    if source not in book.tocs:
        return []  # the library follows the toc: only a book whose source was loaded whole
    libraries = collect_library(book, settings)
    out: list[Finding] = []
    for framework, status in library_status(book, libraries).items():
        diagnostic = status.diagnostic()
        if diagnostic is None:
            continue
        block = status.block
        out.append(Finding.make(
            Code.LIB_STALE, diagnostic.message, source, block.document if block else "",
            Location(diagnostic.path, diagnostic.line), source=Location(block.path, block.line) if block else None,
            framework=framework, subject=(libraries[framework].digest, ""),
        ))  # fmt: skip
    for lang in languages:
        for framework, library in libraries.items():
            if framework not in config.languages[lang].frameworks:
                continue
            out += _copy(config.chapters_dir / lang / settings.frameworks[framework].lib_file, lang, library)
    return out


def _copy(copy: Path, lang: str, library: SavedLibrary) -> list[Finding]:
    if not copy.is_file():
        return []
    text = copy.read_text(encoding="utf-8", errors="replace")
    if text == library.text:
        return []
    first, _ = first_difference(text.split("\n"), library.text.split("\n"))
    block = next((b for b in library.origins[first : first + 1] if b is not None), None)
    where = f", defined at {block.location}" if block else ""
    message = (
        f"{lang}'s own {library.framework} module differs from the book's library from line {first + 1}{where}: "
        f"its kernels import this copy (polybook build lib builds the book's; remove the copy to use it)"
    )
    return [Finding.make(
        Code.LIB_COPY, message, lang, block.document if block else "", Location(display_path(copy), first + 1),
        source=Location(block.path, block.line) if block else None, framework=library.framework,
        subject=(library.digest, hashlib.sha256(text.encode("utf-8")).hexdigest()),
    )]  # fmt: skip
