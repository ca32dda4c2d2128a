"""The files a language's notebooks refer to (figures, linked files), placed inside the download.

A notebook lies at ``<document>.ipynb`` below its folder, as the document lies below its language
folder; a file the document names is found with the language fallback of
:meth:`polybook.config.BookConfig.locate` and placed where the language folder has it
(``img/x.svg``), a file shared by all languages (``chapters/img/x.svg``) where the chapters folder
has it, any other file of the book under ``_book/``. Links are written relative to the notebook,
so the figures show wherever the folder or the zip is unpacked.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from polybook.config import BookConfig
from polybook.files import resolved


@dataclass(slots=True)
class DownloadFiles:
    """Book files wanted in one language's notebooks: place in the download -> file in the book."""

    config: BookConfig
    language: str
    wanted: dict[str, Path] = field(default_factory=dict)
    missing: set[Path] = field(default_factory=set)  # where a file not found would be: made again when it comes

    def find(self, document: str, ref: str) -> Path | None:
        found = self.config.locate(self.language, document, ref)
        return found[0] if found else None

    def place(self, target: Path) -> str | None:
        """Where a file of the book goes in the download (None: outside the book)."""
        chapters = self.config.chapters_dir.resolve()
        for folder in (chapters / self.language, chapters / self.config.source_language, chapters):
            if target.is_relative_to(folder):
                return target.relative_to(folder).as_posix()
        root = self.config.root.resolve()
        return "_book/" + target.relative_to(root).as_posix() if target.is_relative_to(root) else None

    def link(self, document: str, ref: str) -> str | None:
        """``ref`` (a path written in ``document``) as the notebook of ``document`` links to it,
        the file being wanted in the download; None when the book has no such file."""
        target = self.find(document, ref)
        place = self.place(target) if target is not None else None
        if target is None or place is None:
            self.missing.add(resolved(self.config.document_path(self.language, document).parent / ref))
            return None
        self.wanted.setdefault(place, target)
        return quote(posixpath.relpath(place, posixpath.dirname(document) or "."))
