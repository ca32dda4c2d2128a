"""The documents ``polybook build eval PATHS`` evaluates: files or folders of any language.

A path names one language's copy of a document (``chapters/ja/chapter_x/section.md``) or every
document below a folder (``chapters/en/chapter_x/``, ``chapters/en``); anything else -- a path
outside the languages' folders, a file that is not a document (not Markdown, excluded by
conf.py), a folder without documents -- is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.execute.programs import Document

if TYPE_CHECKING:
    from polybook.config import BookConfig


class NotADocument(ValueError):
    """A path that names no document of the book."""


def documents_at(config: BookConfig, paths: Iterable[Path], languages: Iterable[str] = ()) -> frozenset[Document]:
    """(language, name) of every document ``paths`` name; :class:`NotADocument` for the first that
    names none (``languages``: the languages evaluated, when not all)."""
    chosen = set(languages)
    names: dict[str, list[str]] = {}
    out: set[Document] = set()
    for path in paths:
        lang, inner = _place(config, path)
        if chosen and lang not in chosen:
            raise NotADocument(f"{path}: a document of language {lang!r}, which -l/--lang leaves out")
        if lang not in names:
            names[lang] = config.document_names(lang)
        out.update((lang, name) for name in _named(path, inner, names[lang], config.chapters_dir / lang))
    return frozenset(out)


def _place(config: BookConfig, path: Path) -> tuple[str, str]:
    """The language whose folder holds ``path`` and the path below that folder ("" for the folder)."""
    chapters = config.chapters_dir.resolve()
    try:
        parts = path.resolve().relative_to(chapters).parts
    except ValueError:
        parts = ()
    if not parts or parts[0] not in config.languages:
        folders = ", ".join(f"{chapters.name}/{lang}/" for lang in config.languages)
        raise NotADocument(f"{path}: not in the book (its documents are below {folders})")
    return parts[0], "/".join(parts[1:])


def _named(path: Path, inner: str, names: list[str], folder: Path) -> list[str]:
    """The documents of one language (``names``) that ``path`` (``inner`` below ``folder``) names."""
    if (folder / inner).is_dir():
        found = [name for name in names if not inner or name.startswith(inner + "/")]
        if not found:
            raise NotADocument(f"{path}: a folder with no document in it")
        return found
    name = inner[: -len(".md")] if inner.endswith(".md") else ""
    if name not in names:
        why = "no such file" if not path.exists() else "not a document (a Markdown file conf.py does not exclude)"
        raise NotADocument(f"{path}: {why}")
    return [name]
