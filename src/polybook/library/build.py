"""The book's library: collected per framework (:func:`collect_library`), compared with the files
on disk (:func:`library_status`) and written (:func:`write_library`).

Each framework's blocks come from the source language's documents in toc order; a framework
only a translation has (zh's ``paddle``) comes from the first translation that has it. A module
is written below the source language's folder -- or, for a framework a translation gives, into
that translation's own library when it has one (d2l-zh's ``d2l/``, imported with it) -- only when
its text changed.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path, PurePosixPath

from polybook.book import Book, in_reading_order, load_book
from polybook.config import BookConfig, ConfigError, LibrarySettings
from polybook.diagnostics import Code, Diagnostic, has_errors, sort_key
from polybook.dialect.nodes import Document
from polybook.files import atomic_write, display_path, read_file
from polybook.library.collect import SAVE_RE, SavedBlock, collect_document
from polybook.library.write import custom_header, module_text, versioned, wording_of
from polybook.models import MODELS_DIR, parse_cached
from polybook.toc import build_toc, toc_blocks


@dataclass(frozen=True, slots=True)
class SavedLibrary:
    """One framework's module as the book gives it."""

    framework: str
    language: str  # the language its blocks come from
    target: Path  # the module's file
    blocks: tuple[SavedBlock, ...]
    text: str  # what is written: the existing file's header, the blocks, the aliases
    origins: tuple[SavedBlock | None, ...]  # the block each line of ``text`` comes from
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def digest(self) -> str:
        """SHA-256 of ``text``: changes exactly when the module would."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def ok(self) -> bool:
        """No error: the text is complete and may be written."""
        return not has_errors(self.diagnostics)

    @property
    def definitions(self) -> tuple[str, ...]:
        return tuple(name for block in self.blocks for name in block.definitions)

    def origin(self, line: int) -> SavedBlock | None:
        """The block that 1-based ``line`` of ``text`` comes from."""
        return self.origins[line - 1] if 0 < line <= len(self.origins) else None


@dataclass(frozen=True, slots=True)
class LibraryStatus:
    """A module on disk against what the book gives: stale, and where they first differ."""

    framework: str
    target: Path
    stale: bool
    missing: bool = False
    line: int | None = None  # first differing line of the file on disk
    definition: str | None = None  # the definition there (of the book's text, or only the file's)
    block: SavedBlock | None = None  # where the book defines it (or what follows a removed one)
    removed: bool = False  # the difference is lines only the file has

    def diagnostic(self) -> Diagnostic | None:
        """``lib.stale`` at the file's first differing line, naming the document to look at."""
        if not self.stale:
            return None
        shown = display_path(self.target)
        if self.missing:
            return Diagnostic.make(shown, 1, Code.LIB_STALE, "the library file does not exist (polybook build lib)")
        if self.removed:
            what = f"{self.definition!r} is" if self.definition else "lines are"
            where = f" (before the code of {self.block.location})" if self.block else ""
            message = f"{what} no longer saved by the book{where}"
        else:
            what = f"{self.definition!r} differs" if self.definition else "differs"
            where = f" from {self.block.location}" if self.block else ""
            message = f"{what}{where}"
        message += ": the file is not what the #@save code gives (polybook build lib)"
        return Diagnostic.make(shown, self.line or 1, Code.LIB_STALE, message)


class Written(StrEnum):
    """What became of one file of the library (a module, the version file)."""

    WRITTEN = "written"
    UNCHANGED = "unchanged"
    STALE = "stale"  # --check: it would change
    FAILED = "failed"  # its #@save code has errors: not written

    @property
    def fatal(self) -> bool:
        return self is Written.FAILED


@dataclass(slots=True)
class LibraryReport:
    """What :func:`write_library` did: per framework written, unchanged or failed."""

    libraries: dict[str, SavedLibrary] = field(default_factory=dict)
    outcomes: dict[str, Written] = field(default_factory=dict)  # framework -> what became of its module
    version: Written | None = None  # None: no version_file or release
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return has_errors(self.diagnostics) or any(outcome.fatal for outcome in self.outcomes.values())


def library_settings(config: BookConfig) -> LibrarySettings:
    """The validated ``polybook.library``; raises :class:`ConfigError` listing its problems."""
    if config.library_problems:
        raise ConfigError(list(config.library_problems))
    return config.library


def library_languages(config: BookConfig, settings: LibrarySettings) -> dict[str, str]:
    """framework -> the language its blocks come from: the source language when it has the
    framework, else the first translation that has it."""
    out = {}
    for framework in settings.frameworks:
        for lang, language in config.languages.items():  # the source language first
            if framework in language.frameworks:
                out[framework] = lang
                break
    return out


def module_target(config: BookConfig, settings: LibrarySettings, framework: str) -> Path:
    """Where ``framework``'s module is written: the source language's library, unless the module
    comes from a translation that has a library of its own (the module's folder exists in its
    folder: zh's ``chapters/zh/d2l/``), whose library it then is."""
    lang = library_languages(config, settings).get(framework, config.source_language)
    own = config.chapters_dir / lang / settings.frameworks[framework].lib_file
    return own if lang != config.source_language and own.parent.is_dir() else settings.target(config, framework)


def source_languages(
    config: BookConfig, settings: LibrarySettings, frameworks: Collection[str] | None = None
) -> list[str]:
    """The languages the modules of ``frameworks`` (None: all) are collected from, in the
    config's order; the source language when none is (a book without a library)."""
    chosen = library_languages(config, settings)
    wanted = {lang for framework, lang in chosen.items() if frameworks is None or framework in frameworks}
    return [lang for lang in config.languages if lang in wanted] or [config.source_language]


def load_library_book(config: BookConfig) -> Book:
    """The languages the library is collected from, each loaded whole (for its toc)."""
    return load_book(config, source_languages(config, library_settings(config)), cached=True)


def library_book(config: BookConfig, languages: list[str]) -> Book:
    """``languages`` as the library reads them: each one's toc, built from every document, and
    of its documents only those that can give the library code or the toc -- a file with no
    ``@save`` holds no #@save cell and one with no ``toc`` no toc block (the others, some half
    of d2l-en's 192, were a third of a library task's CPU, unpickled for nothing)."""
    store = config.build_dir / MODELS_DIR
    book = Book(config)
    for lang in languages:
        settings = config.languages[lang].settings
        names = config.document_names(lang)
        docs = {}
        for name in names:
            path = config.document_path(lang, name)
            try:
                data = read_file(path)
            except OSError:  # parsed, to say it cannot be read
                docs[name] = parse_cached(path, settings, display_path(path), store)
                continue
            if _may_matter(data):
                docs[name] = parse_cached(path, settings, display_path(path), store, data)
        blocks = {name: found for name, doc in docs.items() if (found := list(toc_blocks(doc)))}
        toc = build_toc(lang, blocks, {name: doc.path for name, doc in docs.items()}, names)
        book.chapters[lang], book.tocs[lang], book.names[lang] = in_reading_order(docs, toc), toc, names
    return book


def _may_matter(data: bytes) -> bool:
    """Whether a document's file (its bytes) may hold a #@save cell or a toc block."""
    return b"@save" in data or b"toc" in data


def collect_library(
    book: Book, settings: LibrarySettings | None = None, frameworks: Collection[str] | None = None
) -> dict[str, SavedLibrary]:
    """Every framework's module (``frameworks``: only these), in the book's framework order. A
    language the book did not load whole is loaded here. Raises :class:`ConfigError` for bad
    ``polybook.library`` settings."""
    config = book.config
    settings = settings or library_settings(config)
    out = {}
    loaded: dict[str, Book] = {}
    for framework, lang in library_languages(config, settings).items():
        if frameworks is not None and framework not in frameworks:
            continue
        if lang not in book.tocs and lang not in loaded:
            loaded[lang] = library_book(config, [lang])
        target = module_target(config, settings, framework)
        blocks, problems = _blocks(loaded.get(lang, book), lang, framework, target)
        existing = target.read_text(encoding="utf-8") if target.is_file() else None
        header = custom_header(existing)
        if header is None:
            message = f"no {'#' * 17}   WARNING line: the whole file is replaced by the generated module"
            problems.append(Diagnostic.make(display_path(target), 1, Code.LIB_HEADER, message))
            header = ""
        module = module_text(header, blocks, settings.frameworks[framework], wording_of(existing))
        problems.extend(module.diagnostics)
        out[framework] = SavedLibrary(
            framework, lang, target, tuple(blocks), module.text, module.origins, tuple(sorted(problems, key=sort_key))
        )
    return out


def _blocks(book: Book, lang: str, framework: str, target: Path) -> tuple[list[SavedBlock], list[Diagnostic]]:
    """The framework's blocks from ``lang``'s documents in toc order; saved code in a document
    no toc reaches is reported, not collected (d2lbook reads only the toc's documents)."""
    config = book.config
    docs = book.chapters.get(lang, {})
    order = book.tocs[lang].order if lang in book.tocs else list(docs)
    settings = config.library
    root = target  # the language folder the library is written into
    for _ in PurePosixPath(settings.frameworks[framework].lib_file).parts:
        root = root.parent
    blocks: list[SavedBlock] = []
    problems: list[Diagnostic] = []
    for name in order:
        if name in docs:
            found, bad = collect_document(docs[name], name, framework, root)
            blocks.extend(found)
            problems.extend(bad)
    reached = set(order)
    for name, doc in docs.items():
        if name not in reached and (line := _first_save(doc, framework)):
            message = f"#@save code for {framework} in a document no toc reaches is not in the library"
            problems.append(Diagnostic.make(doc.path, line, Code.LIB_UNREACHED, message))
    return blocks, problems


def _first_save(doc: Document, framework: str) -> int | None:
    for cell in doc.cells(framework):
        for offset, line in enumerate(cell.code.split("\n")):
            if SAVE_RE.search(line):
                return cell.code_line + offset
    return None


def library_status(book: Book, libraries: dict[str, SavedLibrary] | None = None) -> dict[str, LibraryStatus]:
    """Per framework: whether the file on disk is what the book gives and, when not, its first
    differing line, the definition there and the document that defines it."""
    libraries = libraries if libraries is not None else collect_library(book)
    return {framework: status_of(library) for framework, library in libraries.items()}


def status_of(library: SavedLibrary) -> LibraryStatus:
    if not library.target.is_file():
        return LibraryStatus(library.framework, library.target, stale=True, missing=True)
    disk = library.target.read_text(encoding="utf-8")
    if disk == library.text:
        return LibraryStatus(library.framework, library.target, stale=False)
    mine, book = disk.split("\n"), library.text.split("\n")
    first, removed = first_difference(mine, book)
    if removed:  # a line only the file has: a definition the book no longer saves
        definition = _definition_in(disk, first + 1, first + 1)
        block = next((b for b in library.origins[first:] if b is not None), None)
    else:
        definition = _definition_in(library.text, first + 1, first + 1)
        block = next((b for b in library.origins[first : first + 1] if b is not None), None)
    return LibraryStatus(library.framework, library.target, True, False, first + 1, definition, block, removed)


def first_difference(mine: list[str], book: list[str]) -> tuple[int, bool]:
    """The first line (0-based) where a file and the book's text differ, and whether it is a
    line only the file has (found nowhere in the book's text). A linear scan, not a diff: a
    library is thousands of lines and this runs on every check."""
    first = next((i for i, (a, b) in enumerate(zip(mine, book, strict=False)) if a != b), min(len(mine), len(book)))
    removed = first < len(mine) and mine[first] not in set(book)
    return first, removed


def _definition_in(text: str, first: int, last: int) -> str | None:
    """The first top-level function or class of ``text`` that overlaps lines ``first..last``."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        if start <= last and first <= (node.end_lineno or node.lineno) and hasattr(node, "name"):
            return str(node.name)
    return None


def write_library(book: Book, check_only: bool = False) -> LibraryReport:
    """Write every framework's module that changed (none with errors), then the version file.
    ``check_only``: write nothing; a module that would change is ``stale``."""
    config = book.config
    settings = library_settings(config)
    report = LibraryReport(collect_library(book, settings))
    for framework, library in report.libraries.items():
        report.diagnostics.extend(library.diagnostics)
        existing = library.target.read_text(encoding="utf-8") if library.target.is_file() else None
        if not library.ok:
            report.outcomes[framework] = Written.FAILED
        elif existing == library.text:
            report.outcomes[framework] = Written.UNCHANGED
        elif check_only:
            report.outcomes[framework] = Written.STALE
            stale = status_of(library).diagnostic()
            report.diagnostics.extend([stale] if stale else [])
        else:
            library.target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(library.target, library.text)
            report.outcomes[framework] = Written.WRITTEN
    report.version = _write_version(config, settings, report.diagnostics, check_only)
    return report


def _write_version(
    config: BookConfig, settings: LibrarySettings, problems: list[Diagnostic], dry: bool
) -> Written | None:
    """conf.py's ``release`` into the ``__version__`` line of ``version_file`` (d2lbook's
    project release); the rest of the file is kept."""
    path = settings.version_path(config)
    release = config.sphinx.get("release")
    if path is None or not release:
        return None
    shown = display_path(path)
    if not path.is_file():
        problems.append(Diagnostic.make(shown, 1, Code.LIB_VERSION, "version_file does not exist"))
        return None
    text = path.read_text(encoding="utf-8")
    new, found = versioned(text, str(release))
    if not found:
        problems.append(Diagnostic.make(shown, 1, Code.LIB_VERSION, "version_file has no __version__ line"))
        return None
    if new == text:
        return Written.UNCHANGED
    if dry:
        return Written.STALE
    atomic_write(path, new)
    return Written.WRITTEN
