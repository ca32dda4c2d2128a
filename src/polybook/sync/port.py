"""``polybook port LANG``: a translation an edition behind, moved to the source as it is now.

Per document (:mod:`.port_document`): renamed documents (the migration plan's renames: the
labels they share) move to their new names, documents new in the source are created from its
text marked untranslated, documents the source dropped leave the book for
``editions/<lang>-<base>/`` (kept, where a translator finds them), and every other document is
carried from its base to the source block by block. The change is shown as a unified diff
first; :meth:`Port.write` applies it -- every file staged beside its place, then all renamed
in -- and records the source each document now follows (the sync records, ``X_origin.md``).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path

from polybook.book import Book
from polybook.check import check_chapter
from polybook.check.bases import Base, BaseKind, base_of
from polybook.check.migration import pair_renames
from polybook.check.staleness import SyncRecord, head_commit, origin_file, read_lock, run_git, write_lock
from polybook.config import BookConfig, LibrarySettings
from polybook.diagnostics import Level
from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.nodes import Document, Node
from polybook.files import display_path, file_sha256
from polybook.models import MODELS_DIR
from polybook.sync.port_document import (
    PortCounts,
    PortedText,
    base_to_source,
    book_renamed_labels,
    new_document,
    port_document,
)

EDITIONS_DIR = "editions"


class PortRefused(Exception):
    """A port that would lose or garble work: parse errors, uncommitted changes (``--force``)."""


@dataclass(slots=True)
class PortedFile:
    """One file's change: ``old`` -> ``new`` (None: created / removed), ``text`` its new content."""

    # ported, renamed, new, gone (moved out to ``new``), origin, settings (conf.py), library (or .bib),
    # archive (a carried document's own cells whose group the source dropped)
    kind: str
    old: Path | None
    new: Path | None
    before: str
    text: str
    counts: PortCounts = field(default_factory=PortCounts)

    @property
    def changed(self) -> bool:
        return self.old != self.new or self.before != self.text

    def diff(self, root: Path) -> str:
        a = f"a/{_rel(self.old, root)}" if self.old else "/dev/null"
        b = f"b/{_rel(self.new, root)}" if self.new else "/dev/null"
        head = f"diff --polybook {a} {b}\n"
        if self.old and self.new and self.old != self.new:
            head += f"rename from {_rel(self.old, root)}\nrename to {_rel(self.new, root)}\n"
        lines = difflib.unified_diff(self.before.splitlines(True), self.text.splitlines(True), a, b)
        return head + "".join(lines)


@dataclass(slots=True)
class Port:
    lang: str
    files: list[PortedFile] = field(default_factory=list)
    records: dict[str, SyncRecord] = field(default_factory=dict)  # the new base of each document
    dropped: list[str] = field(default_factory=list)  # records of documents no longer translated here

    def count(self, kind: str) -> int:
        return sum(1 for f in self.files if f.kind == kind)

    def counts(self) -> PortCounts:
        total = PortCounts()
        for f in self.files:
            total.add(f.counts)
        return total

    def summary(self) -> str:
        c = self.counts()
        return (
            f"{self.lang}: {self.count('ported')} documents carried forward, {self.count('renamed')} renamed, "
            f"{self.count('new')} new (untranslated), {self.count('gone')} gone (kept in {EDITIONS_DIR}/); "
            f"paragraphs: {c.kept:,} kept, {c.review:,} to review (they disagree with their unchanged "
            f"source text), {c.stale:,} stale, {c.untranslated:,} untranslated, {c.aside:,} kept aside; "
            f"{c.cells_kept:,} cells keep their translated comments; {c.mended:,} with damaged markup mended; "
            f"{c.own_kept:,} cells and tabs of the language's own frameworks kept, {c.own_archived:,} archived "
            f"with their group (in {EDITIONS_DIR}/)"
        )

    def diff(self, root: Path) -> str:
        return "".join(f.diff(root) for f in self.files if f.changed)

    def write(self, config: BookConfig) -> None:
        """Apply the port: stage every new text beside its file, rename them all in, remove what
        moved, then record each document's new base."""
        staged: list[tuple[Path, Path]] = []
        try:
            for f in self.files:
                if f.new is not None and f.changed:
                    f.new.parent.mkdir(parents=True, exist_ok=True)
                    temp = f.new.with_name(f".{f.new.name}.{os.getpid()}.port")
                    staged.append((temp, f.new))  # first: a write the disk stops is removed too
                    temp.write_text(f.text, encoding="utf-8")
        except OSError:
            for temp, _ in staged:
                temp.unlink(missing_ok=True)
            raise
        for temp, path in staged:
            os.replace(temp, path)
        for f in self.files:
            if f.old is not None and f.new != f.old:
                f.old.unlink(missing_ok=True)
        folder = config.chapters_dir / self.lang
        records = {k: v for k, v in read_lock(folder).items() if k not in self.dropped}
        write_lock(folder, config.source_language, {**records, **self.records})


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def refusals(book: Book, lang: str) -> list[str]:
    """Why a port of ``lang`` would be unsafe: parse errors in its documents, uncommitted changes
    to its files (``git status``)."""
    config = book.config
    problems = [d.format() for doc in book.chapters[lang].values() for d in doc.diagnostics if d.level is Level.ERROR]
    folder = config.chapters_dir / lang
    status = run_git(folder, "status", "--porcelain", "--", ".")
    if status:
        problems += [f"uncommitted change: {line}" for line in status.splitlines()]
    return problems


def port_language(book: Book, lang: str) -> Port:
    """What ``polybook port`` would change in ``lang`` (nothing is written)."""
    config = book.config
    source_lang = config.source_language
    sources, targets = book.chapters[source_lang], book.chapters[lang]
    lock = read_lock(config.chapters_dir / lang)
    store = config.build_dir / MODELS_DIR
    commit = head_commit(config.chapters_dir / source_lang)
    renames = pair_renames(
        {name: frozenset(doc.labels) for name, doc in targets.items() if name not in sources},
        {name: frozenset(doc.labels) for name, doc in sources.items() if name not in targets},
    )
    port = Port(lang)
    _settings(port, config)
    archive = config.root / EDITIONS_DIR / f"{lang}-{config.languages[lang].base or 'before-port'}"
    _library(port, config, archive)
    carried: dict[str, _Carried] = {}
    for name, target in sorted(targets.items()):
        moved = renames.get(name)
        source_name = moved or (name if name in sources else None)
        if source_name is not None:
            source = sources[source_name]
            found = base_of(config, lang, name, source if moved is None else None, lock.get(name), store, target)
            base = found.document or source
            carried[name] = _Carried(source_name, base, source, base_to_source(base, source))
    # labels are the book's: a reference in one document names a label the source renamed in another
    renamed = book_renamed_labels([(c.bases, c.source) for c in carried.values()], sources.values())
    for name, target in sorted(targets.items()):
        if name not in carried:
            _gone(port, config.document_path(lang, name), archive / f"{name}.md")
            port.dropped.append(name)
            continue
        _carry(port, book, name, carried[name], target, renamed, archive)
        source_name = carried[name].source_name
        port.records[source_name] = SyncRecord(commit, file_sha256(config.document_path(source_lang, source_name)))
        if name != source_name:
            port.dropped.append(name)
    for name in sorted(set(sources) - set(targets) - set(renames.values())):
        source_file = config.document_path(source_lang, name)
        made = new_document(_read(source_file), sources[name])
        port.files.append(PortedFile("new", None, config.document_path(lang, name), "", made.text, made.counts))
        port.records[name] = SyncRecord(commit, file_sha256(source_file))
    return port


def _settings(port: Port, config: BookConfig) -> None:
    """conf.py: the language takes the source's frameworks and default tab (its code cells are
    the source's now, in the source's dialect), keeping a framework only it has."""
    from polybook.importer.confpy import ConfEditError, edit_conf  # conf.py's one editor

    own = config.languages[port.lang]
    settings = ported_settings(config, port.lang)
    frameworks = list(settings.frameworks)
    if (list(own.frameworks), own.default_tab) == (frameworks, settings.default_tab):
        return
    wanted = {"languages": {port.lang: {"frameworks": frameworks, "default_tab": settings.default_tab}}}
    before = config.path.read_text(encoding="utf-8")
    try:
        after, _ = edit_conf(before, {}, wanted, str(config.path))
    except ConfEditError as exc:
        raise PortRefused(str(exc)) from None
    port.files.append(PortedFile("settings", config.path, config.path, before, after))


def ported_settings(config: BookConfig, lang: str) -> DialectSettings:
    """How ``lang`` reads once ported: the source's frameworks and default tab (its code cells are
    the source's now, in the source's dialect), and a framework only it has (zh keeps paddle)."""
    own, source = config.languages[lang], config.languages[config.source_language]
    frameworks = (*source.frameworks, *(f for f in own.frameworks if f not in source.frameworks))
    return DialectSettings(lang, frameworks, source.default_tab)


def _library(port: Port, config: BookConfig, archive: Path) -> None:
    """The language's copies of the book's library and bibliography become the source's (the
    code and citations are the source's now); the old copies -- translated docstrings and all --
    are kept in the archive."""
    settings = LibrarySettings() if config.library_problems else config.library  # build lib reports them
    files = [lib.lib_file for lib in settings.frameworks.values()] + [settings.version_file or "", config.bibfile or ""]
    for rel in filter(None, files):
        mine, source = config.chapters_dir / port.lang / rel, config.chapters_dir / config.source_language / rel
        if mine.is_file() and source.is_file() and _read(mine) != _read(source):
            port.files.append(PortedFile("library", mine, mine, _read(mine), _read(source)))
            port.files.append(PortedFile("library", None, archive / rel, "", _read(mine)))


def _gone(port: Port, path: Path, kept: Path) -> None:
    """A document the source dropped: out of the book, into the archive (its origin file too)."""
    text = _read(path)
    port.files.append(PortedFile("gone", path, kept, text, text))
    if origin_file(path).is_file():
        origin = _read(origin_file(path))
        port.files.append(PortedFile("origin", origin_file(path), origin_file(kept), origin, origin))


@dataclass(frozen=True, slots=True)
class _Carried:
    """A translated document to carry: the source's name for it, its base and source documents,
    and each source block's base (:func:`base_to_source`, worked out once)."""

    source_name: str
    base: Document
    source: Document
    bases: dict[int, tuple[Node, bool]]


def _carry(
    port: Port,
    book: Book,
    name: str,
    carried: _Carried,
    translation: Document,
    renamed: dict[str, str],
    archive: Path,
) -> None:
    """A document carried from ``base`` to ``source`` (renamed when the names differ), and its
    origin file -- d2lbook's record of what the translation was made from -- now the source.
    A kept translation the checker finds at odds with its source text (a formula, reference,
    number or heading its translator damaged) goes behind a review mark holding that text: the
    ported document's check then has no consistency findings, and the translator is shown the
    text to translate again beside what they wrote."""
    config, source_name, base, source = book.config, carried.source_name, carried.base, carried.source
    path, new_path = config.document_path(port.lang, name), config.document_path(port.lang, source_name)
    source_text, text = _read(config.document_path(config.source_language, source_name)), _read(path)
    ported = port_document(base, source, source_text, translation, text, renamed=renamed, bases=carried.bases)
    disagreeing: frozenset[int] = frozenset()
    for _ in range(_ROUNDS):  # a block marked stale can move the checker's pairing of the next ones
        more = _disagreeing(book, port.lang, source_name, source, ported, new_path)
        if not more:
            break
        disagreeing |= more
        ported = port_document(base, source, source_text, translation, text, disagreeing, renamed, carried.bases)
    kind = "ported" if name == source_name else "renamed"
    port.files.append(PortedFile(kind, path, new_path, text, ported.text, ported.counts))
    if ported.archived:  # the language's own cells of groups the source dropped: kept, out of the book
        head = (
            f"<!-- polybook: cells of {port.lang}'s own frameworks from {name}.md, their group gone from the source -->"
        )
        kept = archive / f"{name}.md"
        port.files.append(PortedFile("archive", None, kept, "", "\n\n".join([head, *ported.archived]) + "\n"))
    if origin_file(path).is_file():
        port.files.append(
            PortedFile("origin", origin_file(path), origin_file(new_path), _read(origin_file(path)), source_text)
        )


def _disagreeing(book: Book, lang: str, name: str, source: Document, ported: PortedText, path: Path) -> frozenset[int]:
    """The kept translations of ``ported`` that hold an error or warning of the checker, checked
    against ``source`` as its base (what the port records)."""
    if not ported.kept:
        return frozenset()
    document = parse_text(ported.text, display_path(path), ported_settings(book.config, lang))
    base = Base(BaseKind.SYNC, source, "the last sync")
    findings = check_chapter(book, lang, name, source, document, {}, None, base)
    lines = {f.location.line for f in findings if f.location is not None and f.level in _LOUD}
    return frozenset(
        index for index, (first, last) in ported.kept.items() if any(first <= line <= last for line in lines)
    )


_LOUD = (Level.ERROR, Level.WARNING)
_ROUNDS = 3  # checks of a ported document, each after marking what the last one found (d2l: 2 at most)


__all__ = ["Port", "PortRefused", "PortedFile", "port_language", "refusals"]
