"""The book's own package in the kernels: ``from d2l import torch as d2l`` imports the book's
library, not a release installed from the package registry.

Each language's programs run in its mirror ``build/run/<lang>/`` (:mod:`.workdir`), whose root
is put first on the kernel's ``PYTHONPATH``: ``d2l/`` there is the language's own package
folder (a translation's copy, as imported from its project), else the source language's. The
module of a framework the book collects (``polybook.library``) is the one the chapters give
*now*: built into ``build/lib/`` when the ``#@save`` code changed (the committed file in the
sources is left alone -- ``polybook build lib`` writes it, ``polybook check`` says when it is
stale) and linked into the mirror in place of the committed one.

What a program imports enters its key (:meth:`KernelLibrary.key`): for the built module, the
``#@save`` code of the documents up to the program's own (toc order), so editing a saved
function reruns exactly the programs of that framework that come after it; for a language's
own copy, the file's bytes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from polybook.book import Book, load_book
from polybook.config import LibrarySettings
from polybook.diagnostics import Diagnostic, has_errors
from polybook.dialect.normalize import normalize_code
from polybook.files import atomic_write
from polybook.library import collect_library
from polybook.library.build import library_languages, module_target
from polybook.library.collect import SAVE_RE
from polybook.library.write import custom_header

LIB_DIR = "lib"
STATE = ".state.json"


@dataclass(slots=True)
class SavedCode:
    """One framework's ``#@save`` code in reading order: a running digest per document."""

    language: str  # the language whose documents give the module
    positions: dict[str, int] = field(default_factory=dict)  # document -> index into ``digests``
    digests: list[str] = field(default_factory=list)

    def up_to(self, document: str) -> str:
        """The digest of the saved code of the documents up to ``document`` (all of it when the
        document is not in that language's reading order)."""
        if not self.digests:
            return ""
        return self.digests[self.positions.get(document, len(self.digests) - 1)]


@dataclass(slots=True)
class KernelLibrary:
    """What the kernels import, per language and framework."""

    settings: LibrarySettings = field(default_factory=LibrarySettings)
    saved: dict[str, SavedCode] = field(default_factory=dict)  # framework -> its saved code
    built: dict[str, Path] = field(default_factory=dict)  # framework -> build/lib/<lib_file>
    own: dict[tuple[str, str], str] = field(default_factory=dict)  # (lang, framework) -> its copy's digest
    problems: list[Diagnostic] = field(default_factory=list)

    def key(self, lang: str, framework: str, document: str) -> str | None:
        """What a program of ``document`` imports for ``framework`` (None: no book library)."""
        if (lang, framework) in self.own:
            return "file:" + self.own[(lang, framework)]
        if framework in self.saved:
            return "book:" + self.saved[framework].up_to(document)
        return None

    def overrides(self, lang: str) -> dict[str, Path]:
        """Files of ``language``'s mirror that are the built modules (relative path -> file)."""
        return {
            self.settings.frameworks[fw].lib_file: path
            for fw, path in self.built.items()
            if (lang, fw) not in self.own and path.is_file()
        }


def prepare_library(book: Book) -> KernelLibrary:
    """The book's library for the kernels: built into ``build/lib/`` when its saved code, its
    settings or the committed module's header changed since the last build (the check is
    cheap; collecting is not), and what each language imports."""
    config = book.config
    settings = config.library
    library = KernelLibrary(settings, problems=list(config.library_problems))
    if config.library_problems or not settings.enabled:
        return library
    sources = library_languages(config, settings)
    loaded = {lang: book for lang in book.tocs}
    for framework, lang in sources.items():
        if lang not in loaded:
            loaded[lang] = load_book(config, [lang], cached=True)
        library.saved[framework] = _saved_code(loaded[lang], lang, framework, settings)
        library.built[framework] = config.build_dir / LIB_DIR / settings.frameworks[framework].lib_file
    _build_if_changed(book, library, loaded)
    for lang in config.languages:
        for framework, options in settings.frameworks.items():
            if lang == config.source_language or framework not in config.languages[lang].frameworks:
                continue
            own = config.chapters_dir / lang / options.lib_file
            if own.is_file():  # its own copy first, the module of its own library included (zh's paddle.py)
                library.own[(lang, framework)] = hashlib.sha256(own.read_bytes()).hexdigest()
    return library


def _saved_code(book: Book, lang: str, framework: str, settings: LibrarySettings) -> SavedCode:
    """Running digests of the saved cells of ``framework`` in ``lang``'s reading order, seeded
    with the module's settings and the committed module's own header (kept above the code)."""
    config = book.config
    target = module_target(config, settings, framework)
    existing = target.read_text(encoding="utf-8") if target.is_file() else None
    seed = json.dumps([asdict(settings.frameworks[framework]), custom_header(existing) or ""], default=str)
    digest = hashlib.sha256(seed.encode("utf-8"))
    saved = SavedCode(lang)
    for name, doc in book.chapters.get(lang, {}).items():
        for cell in doc.cells(framework):
            if SAVE_RE.search(cell.code):
                digest.update(normalize_code(cell.code).encode("utf-8") + b"\0")
        saved.positions[name] = len(saved.digests)
        saved.digests.append(digest.hexdigest())
    return saved


def _build_if_changed(book: Book, library: KernelLibrary, loaded: dict[str, Book]) -> None:
    config = book.config
    state_path = config.build_dir / LIB_DIR / STATE
    wanted = {fw: saved.up_to("") for fw, saved in library.saved.items()}
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state = {}
    if state == wanted and all(path.is_file() for path in library.built.values()):
        return
    languages = Book(config)  # the languages the modules come from, each loaded whole
    for lang, loaded_book in loaded.items():
        languages.chapters[lang], languages.tocs[lang] = loaded_book.chapters[lang], loaded_book.tocs[lang]
    modules = collect_library(languages, library.settings)
    done = {}
    for framework, module in modules.items():
        library.problems.extend(module.diagnostics)
        if has_errors(module.diagnostics):
            continue  # the last good build stays (or none): the error is reported at its line
        path = library.built[framework]
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != module.text:
            atomic_write(path, module.text)
        done[framework] = wanted[framework]
    state_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(state_path, json.dumps(done, sort_keys=True))
