"""The whole book: every document of every language, parsed with that language's settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from polybook.config import BookConfig
from polybook.dialect import Document
from polybook.files import display_path
from polybook.models import MODELS_DIR, parse_cached
from polybook.toc import Toc, document_toc, unreached


@dataclass(slots=True)
class Book:
    config: BookConfig
    # lang -> document name (``chapter_x/section``) -> document, in reading order when the
    # whole language was loaded (the toc's order, then documents no toc reaches, by name)
    chapters: dict[str, dict[str, Document]] = field(default_factory=dict)
    tocs: dict[str, Toc] = field(default_factory=dict)  # languages loaded whole
    names: dict[str, list[str]] = field(default_factory=dict)  # lang -> every document's name, loaded or not

    def documents(self) -> list[Document]:
        return [doc for docs in self.chapters.values() for doc in docs.values()]

    def names_of(self, lang: str) -> list[str]:
        """Every document name of ``lang`` in the book's folder, as found when it was loaded."""
        found = self.names.get(lang)
        return found if found is not None else self.config.document_names(lang)


def load_book(
    config: BookConfig,
    languages: list[str] | None = None,
    names: set[str] | None = None,
    *,
    cached: bool = False,
    present: dict[str, list[str]] | None = None,
) -> Book:
    """Parse the documents of ``languages`` (default: all), only those named ``names`` if given
    (``present``: each language's document names when the caller has listed them already).

    A language loaded whole also gets its toc (:mod:`polybook.toc`); the toc's problems join
    the diagnostics of the documents they are about. ``cached``: through the store of parsed
    documents in the build folder (:mod:`polybook.models`), as the commands do.
    """
    book = Book(config)
    store = config.build_dir / MODELS_DIR if cached else None
    for lang, settings in config.languages.items():
        if languages and lang not in languages:
            continue
        docs = {}
        book.names[lang] = present[lang] if present and lang in present else config.document_names(lang)
        for name in book.names[lang]:
            if names is None or name in names:
                path = config.document_path(lang, name)
                docs[name] = parse_cached(path, settings.settings, display_path(path), store)
        if names is None:
            toc = language_toc(lang, docs)
            book.tocs[lang] = toc
            docs = in_reading_order(docs, toc)
        book.chapters[lang] = docs
    return book


def complete_book(book: Book) -> Book:
    """``book`` with every language of its config, those it lacks loaded (from the store of
    parsed documents), in the config's order."""
    missing = [lang for lang in book.config.languages if lang not in book.chapters]
    if not missing:
        return book
    more = load_book(book.config, missing, cached=True)
    order = list(book.config.languages)
    chapters = {**book.chapters, **more.chapters}
    tocs = {**book.tocs, **more.tocs}
    return Book(
        book.config,
        {lang: chapters[lang] for lang in order if lang in chapters},
        {lang: tocs[lang] for lang in order if lang in tocs},
        {**book.names, **more.names},
    )


def language_toc(lang: str, docs: dict[str, Document]) -> Toc:
    """The toc of a language loaded whole; its diagnostics are added to the documents."""
    toc = document_toc(lang, docs)
    paths = {name: doc.path for name, doc in docs.items()}
    by_path = {doc.path: doc for doc in docs.values()}
    for diagnostic in [*toc.diagnostics, *unreached(toc, docs, paths)]:
        by_path[diagnostic.path].diagnostics.append(diagnostic)
    return toc


def in_reading_order(docs: dict[str, Document], toc: Toc) -> dict[str, Document]:
    position = toc.position()
    ordered = sorted(docs, key=lambda name: (name not in position, position.get(name, 0), name))
    return {name: docs[name] for name in ordered}
