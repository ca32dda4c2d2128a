"""The whole book: every chapter of every language, parsed with that language's settings."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from polybook.config import BookConfig
from polybook.dialect import Document, parse_file


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return os.path.relpath(path) if path.resolve().is_relative_to(Path.cwd()) else str(path)
    except ValueError:
        return str(path)


@dataclass(slots=True)
class Book:
    config: BookConfig
    chapters: dict[str, dict[str, Document]] = field(default_factory=dict)  # lang -> stem -> doc

    def documents(self) -> list[Document]:
        return [doc for docs in self.chapters.values() for doc in docs.values()]


def load_book(config: BookConfig, languages: list[str] | None = None, names: set[str] | None = None) -> Book:
    """Parse the chapters of ``languages`` (default: all), only those named ``names`` if given."""
    book = Book(config)
    for code, lang in config.languages.items():
        if languages and code not in languages:
            continue
        book.chapters[code] = {
            path.stem: parse_file(path, lang.settings, display_path(path))
            for path in config.chapter_files(code)
            if names is None or path.stem in names
        }
    return book
