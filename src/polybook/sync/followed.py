"""References that follow a port into the documents it did not port (:mod:`.renames`).

A port gives the language's ported documents the source's labels. A reference to an old label
then breaks wherever that label is no longer defined: in the language's documents a half port
(``--chapter``) left as they were, and in every other language whose documents already follow
the source (ported before: their sync record names the source file as it is). Those references
are renamed there too -- only the references, only to labels the document's language no longer
defines, each file shown in the port's diff. A language not yet ported keeps its old labels and
references alike: nothing of it is touched. A file with uncommitted changes is left alone and said.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from polybook.book import Book, load_book
from polybook.check.staleness import read_lock, run_git
from polybook.dialect.nodes import Document
from polybook.files import file_sha256
from polybook.sync.port_files import FileKind, PortedFile
from polybook.sync.source_parts import with_references
from polybook.toc import entry_target, resolve_entry, toc_blocks


def followed(
    book: Book,
    lang: str,
    unported: dict[str, Document],
    renamed: dict[str, str],
    defined: set[str],
    moved: dict[str, str | None] | None = None,
) -> tuple[list[PortedFile], list[str]]:
    """The files whose references follow ``renamed``: ``lang``'s ``unported`` documents (its book
    after the port defines ``defined``; their toc entries follow the documents the port ``moved``,
    old name -> new, None: out of the book), and the other languages' documents that follow the
    source; and a note for each such file left alone because it has uncommitted changes."""
    config = book.config
    files = []
    for name, doc in unported.items():
        made = _file(config.document_path(lang, name), name, renamed, defined)
        made.text = with_toc_following(made.text, name, doc, moved or {})
        files.append(made)
    notes: list[str] = []
    source_labels = {label for doc in book.chapters[config.source_language].values() for label in doc.labels}
    for other in config.translations:
        if other == lang or not renamed:
            continue
        current = _following(book, other)
        if not current:
            continue
        docs = load_book(config, [other], cached=True).chapters[other]
        theirs = source_labels | {label for name, doc in docs.items() if name not in current for label in doc.labels}
        dirty = _uncommitted(config.chapters_dir / other)
        for name in sorted(current & set(docs)):
            path = config.document_path(other, name)
            made = _file(path, name, renamed, theirs)
            if made.changed and path.resolve() in dirty:
                left = "uncommitted changes; its references to renamed labels are left as they are"
                notes.append(f"{made.shown(config.root)}: {left}")
            else:
                files.append(made)
    return [f for f in files if f.changed], notes


def _file(path: Path, name: str, renamed: dict[str, str], defined: set[str]) -> PortedFile:
    text = path.read_text(encoding="utf-8")
    wanted = {old: new for old, new in renamed.items() if old not in defined}
    return PortedFile(FileKind.REFERENCES, path, path, text, with_references(text, wanted), name=name)


def with_toc_following(text: str, name: str, doc: Document, moved: dict[str, str | None]) -> str:
    """``text`` (document ``name``, read as ``doc``) with its toc entries naming a document the
    port moved naming its new name (relative to ``name``'s folder when it lies there, else from
    the language's folder, ``/chapter_x/y``), and those naming one it moved out of the book gone."""
    if not moved:
        return text
    lines = text.split("\n")
    gone: list[int] = []
    for block in toc_blocks(doc):
        for raw, line in zip(block.entries, block.entry_lines, strict=False):
            target = entry_target(raw)
            entry = resolve_entry(name, target) if target is not None else None
            if entry not in moved:
                continue
            new = moved[entry]
            if new is None:
                gone.append(line)
                continue
            folder = posixpath.dirname(name)
            written = posixpath.relpath(new, folder) if folder and new.startswith(folder + "/") else new
            written = written if not folder or written != new else "/" + new
            lines[line - 1] = lines[line - 1].replace(target, written, 1)  # type: ignore[arg-type]
    for line in sorted(gone, reverse=True):
        del lines[line - 1]
    return "\n".join(lines)


def _following(book: Book, lang: str) -> set[str]:
    """``lang``'s documents whose sync record names the source file as it is."""
    config = book.config
    lock = read_lock(config.chapters_dir / lang)
    return {
        name
        for name, record in lock.items()
        if config.document_path(config.source_language, name).is_file()
        and record.sha256 == file_sha256(config.document_path(config.source_language, name))
    }


def _uncommitted(folder: Path) -> set[Path]:
    """The files of ``folder`` git sees changed (none when git is not at hand)."""
    status = run_git(folder, "status", "--porcelain", "--", ".")
    top = run_git(folder, "rev-parse", "--show-toplevel")
    if not status or not top:
        return set()
    root = Path(top.strip())
    return {(root / line[3:].strip().strip('"')).resolve() for line in status.splitlines() if len(line) > 3}
