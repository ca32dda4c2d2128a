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

import functools
import hashlib
from dataclasses import replace
from pathlib import Path

from polybook.book import Book, display_path
from polybook.check.findings import Finding, Location
from polybook.check.memo import checker_version, file_bytes, key_of
from polybook.config import BookConfig
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document
from polybook.files import hash_files, kept
from polybook.library import LibrarySettings, SavedLibrary, collect_library, library_status, read_settings
from polybook.library.build import first_difference, library_languages
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


def library_findings(book: Book, languages: list[str], store: Path | None = None) -> list[Finding]:
    """Stale committed modules, and the translations' own copies that differ from the book's.
    ``store``: the folder of kept findings (:mod:`polybook.check.memo`; None: computed)."""
    config = book.config
    settings, problems = read_settings(config)
    if problems or not settings.enabled:
        return []  # polybook build lib reports the settings' problems
    if config.source_language not in book.tocs:
        return []  # the library follows the toc: only a book whose source was loaded whole
    if store is None:
        return _library_findings(book, languages, settings)
    key = _library_key(config, settings, languages)
    return kept(store / "library" / f"{key}.pickle", list, lambda: _library_findings(book, languages, settings))


def _library_key(config: BookConfig, settings: LibrarySettings, languages: list[str]) -> str:
    """Everything the library's findings read: the checker's and the library's code, conf.py,
    every document of the languages the modules are collected from (the toc, the #@save
    cells), the committed modules and the translations' copies."""
    parts: list[str | bytes] = [
        checker_version(),
        _library_code(),
        config.path.as_posix(),
        file_bytes(config.path),
        repr(languages),
    ]
    for lang in sorted({config.source_language, *library_languages(config, settings).values()}):
        for name in config.document_names(lang):
            path = config.document_path(lang, name)
            parts += [f"{lang}/{name}\0{display_path(path)}", file_bytes(path)]
    for framework, spec in settings.frameworks.items():
        parts.append(file_bytes(settings.target(config, framework)))
        parts += [file_bytes(config.chapters_dir / lang / spec.lib_file) for lang in languages]
    return key_of(parts)


@functools.cache
def _library_code() -> str:
    import polybook.library

    digest = hashlib.sha256()
    hash_files(digest, sorted(Path(polybook.library.__file__).parent.glob("*.py")))
    return digest.hexdigest()


def _library_findings(book: Book, languages: list[str], settings: LibrarySettings) -> list[Finding]:
    config = book.config
    source = config.source_language
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
