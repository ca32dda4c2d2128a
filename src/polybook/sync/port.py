"""``polybook port LANG``: a translation an edition behind, moved to the source as it is now.

Per document (:mod:`.port_document`): renamed documents (the migration plan's renames: the
labels they share) move to their new names, documents new in the source are created from its
text marked untranslated, documents the source dropped leave the book for
``editions/<lang>-<base>/`` (kept, where a translator finds them), and every other document is
carried from its base to the source block by block. What it prints, a summary first, is
:mod:`.port_report`'s; ``--chapter`` ports some documents only (:mod:`.port_select`); references
to labels the source renamed follow in every document (:mod:`.renames`, :mod:`.followed`).
:meth:`Port.write` applies it (:func:`.port_files.apply`: every file or none) and records the
source each ported document now follows (the sync records, ``X_origin.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
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
from polybook.sync.followed import followed
from polybook.sync.port_document import (
    PortCounts,
    PortedText,
    base_to_source,
    new_document,
    port_document,
)
from polybook.sync.port_files import FileKind, PortedFile, apply
from polybook.sync.port_select import Selection, UnknownChapter, selection, with_explicit_tabs
from polybook.sync.renames import dangling, label_renames, referred_labels

EDITIONS_DIR = "editions"


class PortRefused(Exception):
    """A port that would lose or garble work: parse errors, uncommitted changes (``--force``)."""


@dataclass(slots=True)
class Port:
    lang: str
    files: list[PortedFile] = field(default_factory=list)
    records: dict[str, SyncRecord] = field(default_factory=dict)  # the new base of each document
    dropped: list[str] = field(default_factory=list)  # records of documents no longer translated here
    complete: bool = True  # every document of the language follows the source after it (not half ported)
    dangling: list[str] = field(default_factory=list)  # ``file:line: reference`` to labels the source dropped
    notes: list[str] = field(default_factory=list)  # files whose references could not follow (uncommitted)

    def count(self, kind: FileKind) -> int:
        return sum(1 for f in self.files if f.kind == kind)

    def counts(self) -> PortCounts:
        total = PortCounts()
        for f in self.files:
            total.add(f.counts)
        return total

    def summary(self) -> str:
        c = self.counts()
        return (
            f"{self.lang}: {self.count(FileKind.PORTED)} documents carried forward, "
            f"{self.count(FileKind.RENAMED)} renamed, {self.count(FileKind.NEW)} new (untranslated), "
            f"{self.count(FileKind.GONE)} gone (kept in {EDITIONS_DIR}/); "
            f"paragraphs: {c.kept:,} kept, {c.review:,} to review (they disagree with their unchanged "
            f"source text), {c.stale:,} stale, {c.untranslated:,} untranslated, {c.aside:,} kept aside, "
            f"{c.moved:,} moved with their source; "
            f"{c.cells_kept:,} cells keep their translated comments; {c.mended:,} with damaged markup mended; "
            f"{c.own_kept:,} cells and tabs of the language's own frameworks kept, {c.own_archived:,} archived "
            f"with their group (in {EDITIONS_DIR}/)"
        )

    def diff(self, root: Path) -> str:
        return "".join(f.diff(root) for f in self.files if f.changed)

    def write(self, config: BookConfig) -> None:
        """Apply the port (:func:`.port_files.apply`: every file or none), then -- last, once the
        work it describes is done -- record each ported document's new base."""
        apply(self.files)
        folder = config.chapters_dir / self.lang
        records = {k: v for k, v in read_lock(folder).items() if k not in self.dropped}
        write_lock(folder, config.source_language, {**records, **self.records})


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def refusals(book: Book, lang: str, chosen: Selection | None = None) -> list[str]:
    """Why a port of ``lang`` would be unsafe: parse errors in the documents it would port
    (``path:line``), uncommitted changes to the language's files (``git status``)."""
    config = book.config
    chosen = chosen or Selection()
    problems = [
        d.format()
        for name, doc in book.chapters[lang].items()
        if chosen.takes(name)
        for d in doc.diagnostics
        if d.level is Level.ERROR
    ]
    folder = config.chapters_dir / lang
    status = run_git(folder, "status", "--porcelain", "--", ".")
    if status:
        problems += [f"uncommitted change: {line}" for line in status.splitlines()]
    return problems


def chapter_selection(book: Book, lang: str, chapters: Sequence[str]) -> Selection:
    """The documents ``--chapter`` names (:func:`.port_select.selection`); raises
    :class:`PortRefused` for a name the port cannot take."""
    sources, targets = book.chapters[book.config.source_language], book.chapters[lang]
    try:
        return selection(chapters, sources, targets, _renames(sources, targets))
    except UnknownChapter as exc:
        raise PortRefused(str(exc)) from None


def _renames(sources: dict[str, Document], targets: dict[str, Document]) -> dict[str, str]:
    """The translation's documents the source renamed: translation's name -> source's."""
    return pair_renames(
        {name: frozenset(doc.labels) for name, doc in targets.items() if name not in sources},
        {name: frozenset(doc.labels) for name, doc in sources.items() if name not in targets},
    )


def port_language(book: Book, lang: str, chapters: Sequence[str] = ()) -> Port:
    """What ``polybook port`` would change in ``lang`` (nothing is written); ``chapters``: only
    those (:mod:`.port_select`), the whole language when empty."""
    config = book.config
    source_lang = config.source_language
    sources, targets = book.chapters[source_lang], book.chapters[lang]
    lock = read_lock(config.chapters_dir / lang)
    store = config.build_dir / MODELS_DIR
    commit = head_commit(config.chapters_dir / source_lang)
    renames = _renames(sources, targets)
    chosen = chapter_selection(book, lang, chapters)
    port = Port(lang, complete=_completes(config, lang, chosen, targets, sources, renames, lock))
    _settings(port, config)
    archive = config.root / EDITIONS_DIR / f"{lang}-{config.languages[lang].base or 'before-port'}"
    if port.complete:
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
    pairs = [(c.bases, c.source) for c in carried.values()]
    renamed = label_renames(pairs, sources.values(), referred_labels(targets.values()))
    taken = {name for name in targets if chosen.takes(name)}
    for name, target in sorted(targets.items()):
        if name not in taken:
            continue
        if name not in carried:
            _gone(port, config.document_path(lang, name), archive / f"{name}.md", name)
            port.dropped.append(name)
            continue
        _carry(port, book, name, carried[name], target, renamed, archive)
        source_name = carried[name].source_name
        port.records[source_name] = SyncRecord(commit, file_sha256(config.document_path(source_lang, source_name)))
        if name != source_name:
            port.dropped.append(name)
    for name in sorted(set(sources) - set(targets) - set(renames.values())):
        if chosen.takes(name):
            _new(port, config, name, sources[name], commit)
    if not port.complete:
        _tagged(port, config)
    _follow_renames(port, book, taken, renamed)
    return port


def _follow_renames(port: Port, book: Book, taken: set[str], renamed: dict[str, str]) -> None:
    """References follow the labels the source renamed in every document that follows the source
    after the port and was not ported now (``taken``: the translation's documents it ported;
    :mod:`.followed`), and toc entries the documents it moved; references to labels the source
    dropped are listed, ``file:line``."""
    config = book.config
    sources, targets = book.chapters[config.source_language], book.chapters[port.lang]
    defined = {label for doc in sources.values() for label in doc.labels}
    unported = {name: doc for name, doc in targets.items() if name not in taken}
    own = defined | {label for doc in unported.values() for label in doc.labels}
    source_own = own | referred_labels(sources.values())  # a reference the source makes is not the translation's
    for f in port.files:
        if f.kind in (FileKind.PORTED, FileKind.RENAMED, FileKind.NEW) and f.new is not None:
            port.dangling += dangling(f.text, display_path(f.new), source_own)
    moved: dict[str, str | None] = {f.name: None for f in port.files if f.kind is FileKind.GONE}
    moved |= {old: new for old, new in _renames(sources, targets).items() if old in taken}
    files, port.notes = followed(book, port.lang, unported, renamed, own, moved)
    port.files += files


def _completes(
    config: BookConfig,
    lang: str,
    chosen: Selection,
    targets: dict[str, Document],
    sources: dict[str, Document],
    renames: dict[str, str],
    lock: dict[str, SyncRecord],
) -> bool:
    """Whether every document of ``lang`` follows the source once the ``chosen`` ones are ported:
    each other one ported before (its record names the source file as it is)."""
    if chosen.whole:
        return True
    for name in targets:
        source_name = renames.get(name) or name
        if chosen.takes(name):
            continue
        record = lock.get(source_name)
        if source_name not in sources or record is None or name != source_name:
            return False
        if record.sha256 != file_sha256(config.document_path(config.source_language, source_name)):
            return False
    return True


def _new(port: Port, config: BookConfig, name: str, source: Document, commit: str | None) -> None:
    """A document new in the source: its text, marked untranslated."""
    source_file = config.document_path(config.source_language, name)
    made = new_document(_read(source_file), source)
    path = config.document_path(port.lang, name)
    port.files.append(PortedFile(FileKind.NEW, None, path, "", made.text, made.counts, name))
    port.records[name] = SyncRecord(commit, file_sha256(source_file))


def _tagged(port: Port, config: BookConfig) -> None:
    """A half port's documents with their untagged cells' tab written out, when the language
    keeps a default tab other than the source's (:func:`.port_select.with_explicit_tabs`)."""
    own, settings = config.languages[port.lang], ported_settings(config, port.lang)
    if own.default_tab == settings.default_tab:
        return
    for f in port.files:
        if f.kind in (FileKind.PORTED, FileKind.RENAMED, FileKind.NEW):
            f.text = with_explicit_tabs(f.text, settings)


def _settings(port: Port, config: BookConfig) -> None:
    """conf.py: the language takes the source's frameworks and default tab (its code cells are
    the source's now, in the source's dialect), keeping a framework only it has; a half port
    (:mod:`.port_select`) only the frameworks."""
    from polybook.importer.confpy import ConfEditError, edit_conf  # conf.py's one editor

    own = config.languages[port.lang]
    settings = ported_settings(config, port.lang)
    frameworks = list(settings.frameworks)
    default_tab = settings.default_tab if port.complete else own.default_tab
    if (list(own.frameworks), own.default_tab) == (frameworks, default_tab):
        return
    wanted = {"languages": {port.lang: {"frameworks": frameworks, "default_tab": default_tab}}}
    before = config.path.read_text(encoding="utf-8")
    try:
        after, _ = edit_conf(before, {}, wanted, str(config.path))
    except ConfEditError as exc:
        raise PortRefused(str(exc)) from None
    port.files.append(PortedFile(FileKind.SETTINGS, config.path, config.path, before, after))


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
            port.files.append(PortedFile(FileKind.LIBRARY, mine, mine, _read(mine), _read(source)))
            port.files.append(PortedFile(FileKind.LIBRARY, None, archive / rel, "", _read(mine)))


def _gone(port: Port, path: Path, kept: Path, name: str) -> None:
    """A document the source dropped: out of the book, into the archive (its origin file too)."""
    text = _read(path)
    port.files.append(PortedFile(FileKind.GONE, path, kept, text, text, name=name))
    if origin_file(path).is_file():
        origin = _read(origin_file(path))
        port.files.append(PortedFile(FileKind.ORIGIN, origin_file(path), origin_file(kept), origin, origin, name=name))


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
    kind = FileKind.PORTED if name == source_name else FileKind.RENAMED
    port.files.append(PortedFile(kind, path, new_path, text, ported.text, ported.counts, source_name))
    if ported.archived:  # the language's own cells of groups the source dropped: kept, out of the book
        head = (
            f"<!-- polybook: cells of {port.lang}'s own frameworks from {name}.md, their group gone from the source -->"
        )
        kept = archive / f"{name}.md"
        archived = "\n\n".join([head, *ported.archived]) + "\n"
        port.files.append(PortedFile(FileKind.ARCHIVE, None, kept, "", archived, name=name))
    if origin_file(path).is_file():
        origin = _read(origin_file(path))
        port.files.append(PortedFile(FileKind.ORIGIN, origin_file(path), origin_file(new_path), origin, source_text))


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


__all__ = ["FileKind", "Port", "PortRefused", "PortedFile", "port_language", "refusals"]
