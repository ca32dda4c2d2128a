"""The book's table of contents, from its ```` ```toc ```` blocks, per language.

The root document (``index``) and every document it reaches hold toc blocks whose entries are
document names relative to the document (``chapter_x/index`` in the root, ``ndarray`` in
``chapter_x/index``), as in d2lbook and Sphinx's ``toctree``. The toc gives the reading order
(navigation, prev/next, the PDF's order and the order ``#@save`` code is collected in) and the
section numbers, which d2lbook -- through Sphinx -- gives only below ``:numbered:`` blocks
(``1``, ``1.2``; every numbered block numbers anew). An entry naming no document is an error at
its line; a document no toc reaches is a warning at its path (excluded files are not documents).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.nodes import Document, TocBlock

ROOT = "index"
#: ``Title <target>``: an entry with its own title, as Sphinx's toctree writes it.
_TITLED_RE = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$")


@dataclass(slots=True)
class Toc:
    """One language's toc: order, parents and numbers of the documents it reaches."""

    language: str
    order: list[str] = field(default_factory=list)  # reading order, the root first
    parents: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, str] = field(default_factory=dict)  # "2", "2.3" for numbered documents
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def numbered(self, name: str) -> bool:
        return name in self.numbers

    def position(self) -> dict[str, int]:
        """Each reached document's place in reading order (for sorting)."""
        return {name: index for index, name in enumerate(self.order)}


def entry_target(raw: str) -> str | None:
    """The document an entry line names, or None for a URL or ``self``."""
    m = _TITLED_RE.match(raw)
    target = (m["target"] if m else raw).strip()
    if not target or target == "self" or "://" in target or target.startswith("mailto:"):
        return None
    return target.removesuffix(".md")


def resolve_entry(parent: str, target: str) -> str:
    """An entry's document name: relative to the parent's folder, or to the language folder
    when it starts with ``/`` (as in Sphinx)."""
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(parent), target))


def toc_blocks(doc: Document) -> Iterable[TocBlock]:
    return (node for node in doc.walk() if isinstance(node, TocBlock))


def build_toc(lang: str, blocks: Mapping[str, list[TocBlock]], paths: Mapping[str, str], names: Iterable[str]) -> Toc:
    """The toc of ``language``: ``blocks`` holds the toc blocks of every document that has
    any (:func:`toc_blocks`), ``paths`` the path shown for those documents, ``names`` every
    document of the language (to tell a missing entry, and to find unreached documents)."""
    toc = Toc(lang)
    known = set(names)
    if ROOT not in known:
        return toc

    def visit(name: str, number: str | None, stack: tuple[str, ...]) -> None:
        toc.order.append(name)
        if number is not None:
            toc.numbers[name] = number
        counter = 0
        for block in blocks.get(name, []):
            numbered = number is not None or "numbered" in block.options
            if number is None and numbered:
                counter = 0  # every numbered block at the top numbers anew, as Sphinx does
            for offset, raw in enumerate(block.entries):
                line = _entry_line(block, offset)
                target = entry_target(raw)
                if target is None:
                    continue
                child = resolve_entry(name, target)
                if child not in known:
                    message = f"toc entry {raw!r} names no document ({child}.md is missing or excluded)"
                    toc.diagnostics.append(Diagnostic.make(paths[name], line, Code.TOC_MISSING, message))
                    continue
                if child in stack:
                    message = f"toc entry {raw!r} leads back to {child!r}, which contains it"
                    toc.diagnostics.append(Diagnostic.make(paths[name], line, Code.TOC_MISSING, message))
                    continue
                if child in toc.parents or child == ROOT:
                    continue  # listed twice: the first place counts, as in Sphinx
                toc.parents[child] = name
                child_number = None
                if numbered:
                    counter += 1
                    child_number = f"{number}.{counter}" if number else str(counter)
                visit(child, child_number, (*stack, child))

    visit(ROOT, None, (ROOT,))
    return toc


def document_toc(lang: str, docs: Mapping[str, Document]) -> Toc:
    """:func:`build_toc` of a language whose documents are all parsed."""
    blocks = {name: found for name, doc in docs.items() if (found := list(toc_blocks(doc)))}
    return build_toc(lang, blocks, {name: doc.path for name, doc in docs.items()}, docs)


def unreached(toc: Toc, names: Iterable[str], paths: Mapping[str, str]) -> list[Diagnostic]:
    """A warning for every document no toc reaches (at its path, line 1), like Sphinx's
    "document isn't included in any toctree"; ``paths``: document name -> path as shown."""
    if not toc.order:
        return []
    reached = set(toc.order)
    return [
        Diagnostic.make(
            paths[name],
            1,
            Code.TOC_UNREACHED,
            f"document {name!r} is not in any toc block: add it to one, or to the exclusions",
        )
        for name in sorted(names)
        if name not in reached and name in paths
    ]


def _entry_line(block: TocBlock, offset: int) -> int:
    """The file line of the block's ``offset``-th entry (entries skip options and blank lines)."""
    return block.entry_lines[offset] if offset < len(block.entry_lines) else block.line
