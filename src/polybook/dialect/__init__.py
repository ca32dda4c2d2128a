"""d2lbook Markdown -> the document model (:mod:`polybook.dialect.nodes`) with diagnostics."""

from __future__ import annotations

from pathlib import Path

from polybook.dialect.builder import DialectSettings, build_document
from polybook.dialect.markdown import tokenize
from polybook.dialect.nodes import Document
from polybook.dialect.reader import read_text
from polybook.dialect.shortcuts import cycle_collection_paused

__all__ = ["DialectSettings", "Document", "parse_file", "parse_text"]


def parse_text(text: str, path: str = "<string>", settings: DialectSettings | None = None) -> Document:
    """Parse Markdown text. Never raises on any input: problems become diagnostics."""
    settings = settings or DialectSettings()
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")  # split once, for the parser's line tables and the builder
    with cycle_collection_paused():
        return build_document(path, text, tokenize(text, lines), settings, lines)


def parse_file(path: Path, settings: DialectSettings | None = None, display: str | None = None) -> Document:
    """Parse a chapter file; ``display`` is the path shown in diagnostics."""
    shown = display or str(path)
    text, problems = read_text(path, shown)
    doc = parse_text(text, shown, settings)
    doc.diagnostics[:0] = problems
    return doc
