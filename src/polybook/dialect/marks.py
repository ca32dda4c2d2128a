"""The marks ``polybook port`` leaves in a translation, as HTML comments any Markdown reader
skips: a block in the source language not translated yet, a translation whose source changed
(the source's text now inside the mark), a translation that disagrees with its unchanged source
text (that text inside the mark), and translated text the new source no longer has a place for,
kept aside where a translator finds it.

    <!-- polybook:untranslated document -->   the whole document is the source's text
    <!-- polybook:untranslated -->            the next block is the source's text
    <!-- polybook:stale                       the next block translates an older source text;
    the source's text now                     the source says this now, and said that when it
    polybook:was                              was translated (a page shows the words that
    the source's text then                    changed; marks of earlier ports hold the text
    -->                                       now only)
    <!-- polybook:review                      the next block translates this text, but says
    the source's text                         less or other than it (a formula, a number lost)
    -->
    <!-- polybook:aside                       translated text kept, out of the page
    the old translation
    -->
    <!-- polybook:draft engine=deepl model=x date=2026-11-28 -->
                                              the next block is a machine's draft (``polybook
                                              translate``), not yet reviewed: removing the
                                              mark accepts it

Comments, not a new syntax: the file stays valid d2lbook Markdown and renders everywhere; the
checker reads a stale or review block as the source text the mark holds (so consistency stays
the source's), the renderer shows a notice in the reader's language.

A text a mark holds never holds ``-->`` (written ``-- >``, which would end the comment) nor a
line ``polybook:was`` (written with a backslash after it), the separator of a stale mark's two texts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from polybook.dialect.nodes import Block, Document, Node

PREFIX = "<!-- polybook:"
_MARK = re.compile(
    r"\A<!-- polybook:(untranslated|stale|review|aside|draft)( document)?((?:[ \t]+[\w.-]+=[^\s=]*)*)[ \t]*"
    r"(?:\n(.*?))?\n?[ \t]*-->\s*\Z",
    re.S,
)
_UNSAFE = re.compile(r"[\s=]|--")  # what a draft mark's value cannot hold
_CLOSE = "-->"
_ESCAPED = "-- >"  # what a mark's text holds for ``-->``, which would end the comment
_WAS = "polybook:was"  # the line between a stale mark's text now and its text then
_WAS_ESCAPED = re.compile(r"^(polybook:was)(\\*)$", re.M)  # a text's own such line, one ``\`` more
_WAS_UNESCAPED = re.compile(r"^(polybook:was)\\(\\*)$", re.M)


class MarkKind(StrEnum):
    UNTRANSLATED = "untranslated"
    STALE = "stale"
    REVIEW = "review"
    ASIDE = "aside"
    DRAFT = "draft"


#: The marks whose block the checker reads as the source text they hold (:func:`as_checked`).
READ_AS_SOURCE = (MarkKind.STALE, MarkKind.REVIEW)


@dataclass(frozen=True, slots=True)
class Mark:
    kind: MarkKind
    text: str  # a stale mark's source text, an aside's translation ("" for untranslated)
    document: bool = False  # ``untranslated document``: the whole document
    line: int = 1
    attributes: tuple[tuple[str, str], ...] = ()  # a draft's ``engine=... model=... date=...``
    was: str | None = None  # a stale mark's source text then (None: a mark of an older port)


def read_mark(node: Node) -> Mark | None:
    """The mark an HTML block is, if it is one."""
    if not isinstance(node, Block) or node.kind != "html" or not node.source.startswith(PREFIX):
        return None
    found = _MARK.match(node.source.strip() + "\n")
    if found is None:
        return None
    text, separator, was = (found.group(4) or "").partition(f"\n{_WAS}\n")
    if not separator and text.endswith(f"\n{_WAS}"):  # the text then is empty
        text, separator, was = text[: -len(_WAS) - 1], _WAS, ""
    attributes = tuple(tuple(pair.split("=", 1)) for pair in found.group(3).split())
    return Mark(
        MarkKind(found.group(1)), _unescaped(text), bool(found.group(2)), node.line, attributes,  # type: ignore[arg-type]
        _unescaped(was) if separator else None,
    )  # fmt: skip


def _escaped(text: str) -> str:
    return _WAS_ESCAPED.sub(lambda m: m.group(1) + m.group(2) + "\\", text.rstrip().replace(_CLOSE, _ESCAPED))


def _unescaped(text: str) -> str:
    return _WAS_UNESCAPED.sub(r"\1\2", text.replace(_ESCAPED, _CLOSE))


def untranslated(document: bool = False) -> str:
    return f"{PREFIX}untranslated{' document' if document else ''} -->"


def draft(**attributes: str) -> str:
    """A draft mark: who drafted the next block (``engine``, ``model``, ``date``); a value's
    spaces and ``=`` become ``-`` (the mark is one line of ``name=value`` pairs)."""
    pairs = " ".join(f"{name}={_UNSAFE.sub('-', value) or '-'}" for name, value in attributes.items())
    return f"{PREFIX}draft {pairs} -->"


def holding(kind: MarkKind, text: str, was: str | None = None) -> str:
    """A stale, review or aside mark holding ``text``; a stale one also the source's text ``was``
    when the translation was made."""
    then = f"\n{_WAS}\n{_escaped(was)}".rstrip() if was is not None else ""
    return f"{PREFIX}{kind}\n{_escaped(text)}{then}\n{_CLOSE}"


def marked(doc: Document) -> dict[int, Mark]:
    """``id(node) -> mark`` for every top-level node a block mark stands right before."""
    out: dict[int, Mark] = {}
    for before, node in zip(doc.nodes, doc.nodes[1:], strict=False):
        mark = read_mark(before)
        if mark is not None and mark.kind is not MarkKind.ASIDE and not mark.document:
            out[id(node)] = mark
    return out


def stale_lines(doc: Document) -> set[int]:
    """The lines of the blocks a ``stale`` or ``review`` mark stands before, as :func:`as_checked` reads them:
    from the block's first line, as many as the block or the source text the mark holds has (a
    place in that text is counted from the block's first line), never into the next block."""
    marks = marked(doc)
    out: set[int] = set()
    for index, node in enumerate(doc.nodes):
        mark = marks.get(id(node))
        if mark is not None and mark.kind in READ_AS_SOURCE:
            following = doc.nodes[index + 1].line - 1 if index + 1 < len(doc.nodes) else node.end_line
            last = max(node.end_line, min(node.line + mark.text.count("\n"), following))
            out.update(range(node.line, last + 1))
    return out


def document_mark(doc: Document) -> Mark | None:
    """The ``untranslated document`` mark, when the document starts with one."""
    mark = read_mark(doc.nodes[0]) if doc.nodes else None
    return mark if mark is not None and mark.document else None


def as_checked(doc: Document, parse: Callable[[str], Document]) -> tuple[Document, Counter[MarkKind]]:
    """The document as its consistency is checked: a block behind a ``stale`` or ``review`` mark
    stands for the source text the mark holds (its translation is of an older text, or known to
    disagree with it and left to its translator: checking it against the source would report
    what the mark says already); and how many blocks each kind of mark stands before
    (``parse``: the dialect's parser, for the mark's text)."""
    marks = marked(doc)
    counted: Counter[MarkKind] = Counter(mark.kind for mark in marks.values())
    if not any(mark.kind in READ_AS_SOURCE for mark in marks.values()):
        return doc, counted
    stale = [(id(node), mark) for node in doc.nodes if (mark := marks.get(id(node))) and mark.kind in READ_AS_SOURCE]
    fragments = _fragments([mark.text for _, mark in stale], parse)
    texts = {node_id: fragment for (node_id, _), fragment in zip(stale, fragments, strict=True)}
    nodes: list[Node] = []
    labels = dict(doc.labels)
    for node in doc.nodes:
        fragment = texts.get(id(node))
        if fragment is None:
            nodes.append(node)
            continue
        nodes += [_moved(new, node.line) for new in fragment.nodes]
        # the block's own labels go with it: a figure translated from the older text keeps the
        # label it had then, which the source may have renamed since
        for name in [name for name, label in labels.items() if node.line <= label.line <= node.end_line]:
            del labels[name]
        labels |= {name: replace(label, line=node.line) for name, label in fragment.labels.items()}
    return replace(doc, nodes=nodes, labels=labels), counted


_SEPARATOR = "<!-- polybook:fragment -->"


def _fragments(texts: list[str], parse: Callable[[str], Document]) -> list[Document]:
    """Each text parsed as a document of its own, in one parse (a parse's fixed cost is most of
    a short text's): the texts joined by a separator comment, the nodes split at it."""
    if not texts:
        return []
    whole = parse(("\n\n" + _SEPARATOR + "\n\n").join(texts))
    out: list[Document] = [replace(whole, nodes=[], labels={})]
    for node in whole.nodes:
        if isinstance(node, Block) and node.kind == "html" and node.source.strip() == _SEPARATOR:
            out.append(replace(whole, nodes=[], labels={}))
        else:
            out[-1].nodes.append(node)
    if len(out) != len(texts):  # a text that opens something the separator cannot close: one by one
        return [parse(text) for text in texts]
    for name, label in whole.labels.items():
        at = sum(1 for node in whole.nodes if isinstance(node, Block) and node.source.strip() == _SEPARATOR
                 and node.line < label.line)  # fmt: skip
        out[at].labels[name] = label
    return out


def _moved(node: Node, line: int) -> Node:
    """A node of a mark's text, placed at the marked block's line."""
    changes: dict[str, object] = {"line": line, "end_line": line}
    if hasattr(node, "inlines"):
        changes["inlines"] = [replace(inline, line=line) for inline in node.inlines]  # type: ignore[attr-defined]
    return replace(node, **changes)
