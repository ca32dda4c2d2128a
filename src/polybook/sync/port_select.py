"""``polybook port --chapter NAME``: which documents a port takes, and how a half-ported language reads.

A chapter is a document's folder (``chapter_attention-mechanisms``) or one document
(``chapter_attention-mechanisms/attention-cues``), by the translation's name for it or the
source's. Each document's base is recorded on its own (the sync records), so a language can be
ported a chapter at a time: a ported document is checked against the source at its port, the
others against their old base (the edition, their ``X_origin.md``) as before.

Until the last chapter is ported the language keeps its default tab in conf.py -- its documents
not yet ported are written in it (d2l 0.17's untagged cells are mxnet's) -- and takes the
source's frameworks besides its own (a ported document's ``%%tab jax`` cell names one); a ported
document's untagged cells, the source's default tab's, are then written with their tab
(:func:`with_explicit_tabs`), so they read the same before and after conf.py changes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.nodes import CodeCell


class UnknownChapter(ValueError):
    """A ``--chapter`` that names no document or folder of the language or the source."""


@dataclass(frozen=True, slots=True)
class Selection:
    """The ``--chapter`` names given (none: the whole language); ``renames``: the translation's
    documents the source renamed (translation's name -> source's), which either name takes."""

    names: tuple[str, ...] = ()
    renames: Mapping[str, str] = field(default_factory=dict)

    @property
    def whole(self) -> bool:
        return not self.names

    def takes(self, name: str) -> bool:
        """Whether the document ``name`` (the translation's name, or the source's for a document
        new in it) is ported."""
        if self.whole:
            return True
        names = {name, self.renames.get(name, name)}
        known = names | {_folder(n) for n in names}
        return any(_plain(given) in known for given in self.names)


def selection(
    chapters: Sequence[str], sources: Iterable[str], targets: Iterable[str], renames: Mapping[str, str]
) -> Selection:
    """The selection of ``chapters`` among the documents of the source (``sources``) and of the
    translation (``targets``; ``renames``: the translation's name -> the source's). Raises
    :class:`UnknownChapter` for a name that matches none (with the names nearest to it), and for
    a chapter folder the source no longer has, saying where its documents go: they are ported
    with the source's chapters that took them (or one by one, by their names)."""
    sources, targets = set(sources), set(targets)
    source_known = sources | {_folder(n) for n in sources}
    known = source_known | targets | {_folder(n) for n in targets}
    for chapter in chapters:
        name = _plain(chapter)
        if name not in known:
            near = difflib.get_close_matches(name, sorted(known), n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise UnknownChapter(f"--chapter {chapter}: no chapter folder or document of that name{hint}")
        if name not in source_known and name not in targets:  # a folder only the translation has
            inside = [n for n in sorted(targets) if _folder(n) == name]
            went = [f"{n} -> {renames.get(n) or 'dropped: to the archive'}" for n in inside]
            raise UnknownChapter(
                f"--chapter {chapter}: the source has no chapter {name} any more; its documents go: "
                + "; ".join(went)
                + ". Port the source's chapters that took them, or name each document"
            )
    return Selection(tuple(chapters), renames)


def _folder(name: str) -> str:
    return name.split("/", 1)[0]


def _plain(name: str) -> str:
    """A chapter as given on the command line: ``chapter_x/``, ``chapter_x/y.md`` read as names."""
    name = name.strip().strip("/")
    return name[: -len(".md")] if name.endswith(".md") else name


def with_explicit_tabs(text: str, settings: DialectSettings) -> str:
    """``text`` (read in ``settings``, the source's dialect) with each untagged code cell's tab
    written out (``%%tab pytorch`` for d2l 1.0's default): the cell then belongs to the same
    framework in a language whose default tab is another."""
    document = parse_text(text, "ported.md", settings)
    lines = text.split("\n")
    untagged = [n for n in document.walk() if isinstance(n, CodeCell) and n.tab is None and n.frameworks]
    for cell in sorted(untagged, key=lambda c: c.line, reverse=True):
        fence = lines[cell.line - 1]
        indent = fence[: len(fence) - len(fence.lstrip())]  # a fence in a list item: its lines are indented
        lines.insert(cell.line, f"{indent}%%tab {settings.default_tab}")  # the line after the fence
    return "\n".join(lines)
