"""Parsed documents kept between runs, by content: a whole book is parsed once.

Parsing a 170-section language with markdown-it takes about a second; loading the same
document model from a pickle takes a fourteenth of that. Every command that reads the book
(check, build, serve's rebuilds) goes through :func:`parse_cached`, so an edit of one section
parses one file. An entry is keyed by the file's bytes, the path shown in diagnostics, the
language's settings and the parser's own code (:data:`PARSER`): a change of any of them is a
miss. A corrupt or unreadable entry is a miss too. The entries are kept in one database file
(:mod:`polybook.database`: a file per document cost a cold check more than the pickles), written
a batch at a time; those no run has used for a month are swept.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from polybook.database import kept_in, store_at
from polybook.diagnostics import Diagnostic
from polybook.dialect import DialectSettings, Document, nodes, parse_file, parse_text
from polybook.dialect.reader import decode
from polybook.dialect.tabs import Branch
from polybook.files import hash_files, pickled_by_fields, read_file

MODELS_DIR = ".polybook/models"
DATABASE = "documents.sqlite"  # in MODELS_DIR: every kept document (:mod:`polybook.database`)
# a document's nodes, each pickled as a call of its class (not slot by slot through a state
# dict, nor through dataclasses' own for frozen ones): bookmix's 1,179 kept documents were dumped
# in 0.16 CPU-s, 0.10 so, and are 8 % smaller
pickled_by_fields(
    nodes.Document, nodes.Heading, nodes.Paragraph, nodes.Block, nodes.DisplayMath, nodes.Figure, nodes.Marker,
    nodes.CodeCell, Branch, nodes.TabSetup, nodes.Fence, nodes.TocBlock, nodes.EvalRst, nodes.Bibliography,
    nodes.TextTab, nodes.Inline, nodes.Label, Diagnostic,
)  # fmt: skip


@functools.cache
def parser_version() -> str:
    """The parser's code and markdown-it's versions: a change makes every entry a miss."""
    import markdown_it
    import mdit_py_plugins

    digest = hashlib.sha256()
    hash_files(digest, sorted((Path(__file__).parent / "dialect").glob("*.py")))
    # the packages' own ``__version__`` (importlib.metadata, which reads their dist-info, was a
    # hundredth of a second to import before every check)
    for name, module in (("markdown-it-py", markdown_it), ("mdit-py-plugins", mdit_py_plugins)):
        digest.update(f"{name}={module.__version__}".encode())
    return digest.hexdigest()


def parse_cached(
    path: Path, settings: DialectSettings, display: str, store: Path | None, data: bytes | None = None
) -> Document:
    """:func:`polybook.dialect.parse_file`, through the store at ``store`` (None: no store);
    ``data``: the file's bytes, when the caller has read them."""
    if data is None:
        try:
            data = read_file(path)
        except OSError:
            return parse_file(path, settings, display)  # reports the unreadable file
    if store is None:
        return _parse(data, settings, display)
    key = hashlib.sha256(
        b"\0".join([parser_version().encode(), display.encode(), repr(settings).encode(), data])
    ).hexdigest()
    if _shared and key in _shared[0]:
        return _shared[0][key]
    doc = kept_in(store_at(store / DATABASE), key, Document, lambda: _parse(data, settings, display))
    if _shared:
        _shared[0][key] = doc
    return doc


_shared: list[dict[str, Document]] = []  # the documents of the running :func:`shared_documents` block


@contextmanager
def shared_documents() -> Iterator[None]:
    """Inside the block, :func:`parse_cached` gives one document object for one file (the same
    bytes, shown path and settings) however often it is asked: a check compares every language
    with the base it was made from, and the languages that share one (an edition's document)
    then share what is worked out from it, memoised by the document's identity (its segments,
    formulas, numbers, cell keys). For callers that never change a document they are given."""
    if _shared:
        yield
        return
    _shared.append({})
    try:
        yield
    finally:
        _shared.clear()


def _parse(data: bytes, settings: DialectSettings, display: str) -> Document:
    text, problems = decode(data, display)
    doc = parse_text(text, display, settings)
    doc.diagnostics[:0] = problems
    return doc
