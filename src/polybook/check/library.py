"""The book's own library, checked: what readers of each language import must be what the
source's ``#@save`` code gives.

* A translation's ``#@save`` cell that differs from the source's (``code.saved``, an error):
  the code a translator changed would not reach the library, or -- with a translation's own
  copy of the package -- its readers would get another library.
* A committed module whose code is not what ``polybook build lib`` gives (``lib.stale``), with the
  first differing definition and the chapter line that defines it.
* A translation's own copy of a module (``chapters/<lang>/d2l/torch.py``, as imported from its
  project) whose code differs from the book's (``lib.copy``): its kernels import that copy.

Modules are compared as code: comments, blank lines, layout, the header's wording (d2lbook's or
polybook's) and docstrings (which translations translate) are no difference.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from polybook.book import Book
from polybook.check.code_changed import TAKE_SOURCE
from polybook.check.documents import cells_of
from polybook.check.findings import Finding, Location
from polybook.check.keys import checker_version, file_digest, key_of
from polybook.check.library_code import code_difference
from polybook.check.segments import by_identity
from polybook.config import BookConfig, LibrarySettings
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, Document
from polybook.files import display_path, hash_files, kept
from polybook.library import SavedLibrary, collect_library, library_status
from polybook.library.build import (
    library_book,
    library_languages,
    module_target,
    source_languages,
)
from polybook.library.collect import SAVE_RE, save_lines


def saved_drift(
    lang: str, source: Document, findings: list[Finding], translation: Document | None = None
) -> list[Finding]:
    """``code.changed`` findings about the lines of a cell that ``#@save`` marks give the library
    become ``code.saved`` (of the translation's cell when the change has text there, else of the
    source's; with no ``translation``, any line of a cell the source saves)."""
    if not any(finding.code is Code.CODE_CHANGED for finding in findings):
        return findings  # (most chapters: nothing to turn)
    s_lines = _saved_lines(source) if translation is not None else None
    t_lines = _saved_lines(translation) if translation is not None else None
    out = []
    for finding in findings:
        if finding.code is not Code.CODE_CHANGED:
            out.append(finding)
            continue
        where = finding.source.line if finding.source is not None else 0
        if s_lines is not None and t_lines is not None and finding.location is not None:
            mine = bool(finding.diff and finding.diff[0][0])
            library = finding.location.line in t_lines if mine else where in s_lines
        else:
            library = any(cell.line <= where <= cell.end_line for cell in _saved_cells(source))
        if library:
            said = finding.message.removesuffix(f"; {TAKE_SOURCE}").removesuffix(f": {TAKE_SOURCE}")
            message = f"{said}; it is #@save code: readers of {lang} would get another library; {TAKE_SOURCE}"
            finding = replace(finding, code=Code.CODE_SAVED, message=message)
        out.append(finding)
    return out


@by_identity
def _saved_cells(doc: Document) -> list[CodeCell]:
    """The document's code cells with a save mark (memoised for the last documents)."""
    return [cell for cell in cells_of(doc) if SAVE_RE.search(cell.code)]


@by_identity
def _saved_lines(doc: Document) -> frozenset[int]:
    """The file lines whose code ``#@save`` marks give the library, for any framework (memoised
    for the last documents: the source's serves every language). A framework's lines are its
    cell's code's (some dropped, some cut): a cell with no mark in its code has none in them."""
    return frozenset(n for cell in _saved_cells(doc) for f in cell.frameworks for _, n in save_lines(cell.lines_for(f)))


def library_findings(
    book: Book, languages: list[str], store: Path | None = None, frameworks: tuple[str, ...] | None = None
) -> list[Finding]:
    """Stale committed modules, and the translations' own copies that differ from the book's
    (``frameworks``: of these only). ``store``: the folder of kept findings
    (:mod:`polybook.check.memo`; None: computed)."""
    config = book.config
    settings = config.library
    if config.library_problems or not settings.enabled:
        return []  # polybook build lib reports the settings' problems
    whole = set(book.tocs)  # the languages loaded whole: the library follows their tocs
    if config.source_language not in whole and not set(source_languages(config, settings, frameworks)) <= whole:
        return []  # neither the source nor the languages of these modules was loaded whole
    if store is None:
        return _library_findings(book, languages, settings, frameworks)
    key = _library_key(config, settings, languages, frameworks)
    compute = functools.partial(_library_findings, book, languages, settings, frameworks)
    return kept(store / "library" / f"{key}.pickle", list, compute)


def kept_library_findings(
    config: BookConfig,
    languages: list[str],
    store: Path,
    load: Callable[[], Book] | None = None,
    frameworks: tuple[str, ...] | None = None,
) -> list[Finding]:
    """:func:`library_findings` kept in ``store``, the book loaded (``load``: its source language
    whole; None: the languages the modules come from, whole) only when they are computed: an
    unchanged book's check does not load it."""
    settings = config.library
    if config.library_problems or not settings.enabled:
        return []
    key = _library_key(config, settings, languages, frameworks)

    def compute() -> list[Finding]:
        book = load() if load is not None else library_book(config, source_languages(config, settings, frameworks))
        return library_findings(book, languages, None, frameworks)

    return kept(store / "library" / f"{key}.pickle", list, compute)


def _library_key(
    config: BookConfig, settings: LibrarySettings, languages: list[str], frameworks: tuple[str, ...] | None
) -> str:
    """Everything the library's findings read: the checker's and the library's code, conf.py,
    every document of the languages the modules are collected from (the toc, the #@save
    cells), the committed modules and the translations' copies (of ``frameworks``, None: all)."""
    chosen = [f for f in settings.frameworks if frameworks is None or f in frameworks]
    parts: list[str | bytes] = [
        checker_version(),
        _library_code(),
        config.path.as_posix(),
        file_digest(config.path),
        repr(languages),
        repr(chosen),
    ]
    from_languages = library_languages(config, settings)
    for lang in sorted({config.source_language, *(from_languages[f] for f in chosen if f in from_languages)}):
        for name in config.document_names(lang):
            path = config.document_path(lang, name)
            parts += [f"{lang}/{name}\0{display_path(path)}", file_digest(path)]
    for framework in chosen:
        spec = settings.frameworks[framework]
        parts.append(file_digest(module_target(config, settings, framework)))
        parts += [file_digest(config.chapters_dir / lang / spec.lib_file) for lang in languages]
    return key_of(parts)


@functools.cache
def _library_code() -> str:
    import polybook.library

    digest = hashlib.sha256()
    hash_files(digest, sorted(Path(polybook.library.__file__).parent.glob("*.py")))
    return digest.hexdigest()


def _library_findings(
    book: Book, languages: list[str], settings: LibrarySettings, frameworks: tuple[str, ...] | None = None
) -> list[Finding]:
    config = book.config
    source = config.source_language
    libraries = collect_library(book, settings, frameworks)
    out: list[Finding] = []
    for framework, status in library_status(book, libraries).items():
        diagnostic = status.diagnostic()
        if diagnostic is None:
            continue
        library = libraries[framework]
        block = status.block
        if status.missing:
            diagnostic = replace(diagnostic, message="the library file does not exist: polybook build lib writes it")
        else:
            found = code_difference(library.target.read_text(encoding="utf-8", errors="replace"), library)
            if found is None:
                continue  # the same code: comments, layout or docstrings differ
            diagnostic = replace(diagnostic, line=found.line, message=found.stale_message())
            block = found.block
        owner = library.language if library.target.is_relative_to(config.chapters_dir / library.language) else source
        out.append(Finding.make(
            Code.LIB_STALE, diagnostic.message, owner, block.document if block else "",
            Location(diagnostic.path, diagnostic.line), source=Location(block.path, block.line) if block else None,
            framework=framework, subject=(library.digest, ""),
        ))  # fmt: skip
    for lang in languages:
        for framework, library in libraries.items():
            copy = config.chapters_dir / lang / settings.frameworks[framework].lib_file
            if framework not in config.languages[lang].frameworks or copy == library.target:
                continue  # (the language's own library: the module itself, checked above)
            if config.languages[lang].base is not None:
                # its chapters follow an older edition and call that edition's library
                # (d2l.train_ch3, which 1.0 dropped): today's is not what its copy should be
                continue
            out += _copy(config.chapters_dir / lang / settings.frameworks[framework].lib_file, lang, library)
    return out


#: More places than this and a copy is told as another version of the library, not place by place.
_FEW_PLACES = 3


def _copy(copy: Path, lang: str, library: SavedLibrary) -> list[Finding]:
    if not copy.is_file():
        return []
    text = copy.read_text(encoding="utf-8", errors="replace")
    found = code_difference(text, library) if text != library.text else None
    if found is None:
        return []
    block = found.block
    where = f", defined at {block.location}" if block else ""
    if found.places > _FEW_PLACES:  # another version of the library: what to do is about the file, not a place
        message = (
            f"{lang}'s own {library.framework} module is another version of the book's library ({found.places} "
            f"top-level statements differ; the first at line {found.line}: {found.first or found.what}{where}); "
            f"its kernels import this copy: remove it to use the book's (polybook build lib)"
        )
    else:
        message = (
            f"{lang}'s own {library.framework} module differs from the book's library in code at line {found.line}: "
            f"{found.what}{where}; its kernels import this copy: remove it to use the book's (polybook build lib)"
        )
    return [Finding.make(
        Code.LIB_COPY, message, lang, block.document if block else "", Location(display_path(copy), found.line),
        source=Location(block.path, block.line) if block else None, framework=library.framework,
        subject=(library.digest, hashlib.sha256(text.encode("utf-8")).hexdigest()),
    )]  # fmt: skip
