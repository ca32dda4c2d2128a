"""Stage one language's documents for Sphinx: MyST files, figures and outputs in a folder.

What the site and a PDF stage alike is here (:func:`stage_documents`); what each does its own
way is its :class:`StagePolicy` (:mod:`polybook.render.stage`, :mod:`polybook.pdf.stage`).

``build/.sphinx/<lang>/src`` is Sphinx's source folder. A file is rewritten only when
its content changes, so Sphinx's own incremental build (by mtime) re-reads only what
changed, and :attr:`Stage.digest` -- a hash of everything staged -- lets the build skip
Sphinx altogether when nothing did.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docutils.nodes import make_id

from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect.nodes import Document, Heading
from polybook.dialect.raw_html import loaded_files
from polybook.files import link_or_copy, resolved, write_through
from polybook.library.reader_code import reader_code
from polybook.stage.bibliography import BibliographyPlan
from polybook.stage.eval_rst import ApiPages, EvalRstResolver, relative_to_page
from polybook.stage.myst import Transpiled, transpile
from polybook.stage.outputs import ChapterResults, OutputRenderer, asset_name
from polybook.toc import entry_target, resolve_entry

_MARKUP_RE = re.compile(r"[*_`$]|\{[a-z:]+\}|:[a-z]+:")
#: Staged files the site serves as they are, at their path from the language's root (the files a
#: raw HTML file's ``<img src>`` names: d2l's front page and its ``_images/``): Sphinx's
#: ``html_extra_path``.
SERVED_DIR = "_served"
#: A URL scheme as MyST recognises one (``https:``, ``mailto:``, ``path:``...).
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]{0,31}):")


@dataclass(slots=True)
class Stage:
    language: str
    srcdir: Path
    docs: dict[str, Transpiled] = field(default_factory=dict)  # docname -> MyST
    paths: dict[str, str] = field(default_factory=dict)  # docname -> chapter path as shown
    diagnostics: list[Diagnostic] = field(default_factory=list)
    hasher: Any = field(default_factory=hashlib.sha256)
    catalog: str = ""  # hash of the staged catalog of theme strings ("" when there is none)
    api: ApiPages = field(default_factory=ApiPages)  # the library modules the API pages were written from

    @property
    def digest(self) -> str:
        return self.hasher.hexdigest()

    def write(self, relative: str, data: bytes) -> None:
        """Write ``srcdir/relative`` only when its bytes change; every write enters the digest."""
        self.hasher.update(relative.encode() + b"\0" + hashlib.sha256(data).digest())
        path = self.srcdir / relative
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            return
        write_through(path, lambda tmp: tmp.write_bytes(data))

    def copy(self, relative: str, source: Path) -> None:
        """Stage a copy of ``source`` unless an identical one (size and modification time) is there."""
        info = source.stat()
        self.hasher.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}".encode())
        path = self.srcdir / relative
        try:
            mine = path.stat()
        except OSError:
            mine = None
        if mine is not None and mine.st_size == info.st_size and mine.st_mtime_ns == info.st_mtime_ns:
            return
        link_or_copy(source, path)


class BookFiles:
    """Files of the book that pages refer to (figures, downloads): found with the language
    fallback of :meth:`BookConfig.locate` and staged once each as ``/_book/<path in the book>``.

    A staged copy keeps its source's modification time, and the digest takes the source's
    size and time, not its bytes: an unchanged build reads no figure (d2l has 230 a language).
    """

    def __init__(self, config: BookConfig, lang: str, stage: Stage, wanted: set[str]) -> None:
        self.config = config
        self.language = lang
        self.root = config.root.resolve()
        self.target = stage
        self.wanted = wanted
        self.staged: dict[Path, str] = {}

    def own(self, name: str, ref: str) -> Path:
        """Where ``ref`` would be in this language (for messages)."""
        return resolved(self.config.document_path(self.language, name).parent / ref)

    def find(self, name: str, ref: str) -> Path | None:
        found = self.config.locate(self.language, name, ref)
        return found[0] if found else None

    def serve_loaded(self, name: str, html: Path) -> None:
        """Serve the files the raw HTML file ``html`` of page ``name`` loads by a relative URL
        (``<img src="_images/x.jpg">``), found as a figure of the page is (the language's, else
        the source language's), at the URL's place from the page, so the URL works as written."""
        try:
            text = html.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        folder = posixpath.dirname(name)
        for ref in loaded_files(text):
            ref = unquote(ref)
            served = posixpath.normpath(posixpath.join(folder, ref))
            target = self.find(name, ref)
            if served.startswith("../") or target is None or not target.is_relative_to(self.root):
                continue
            relative = f"{SERVED_DIR}/{served}"
            if relative not in self.wanted:
                self.target.copy(relative, target)
                self.wanted.add(relative)

    def stage(self, target: Path) -> str:
        """Stage ``target`` (a file inside the book root); its path for MyST."""
        if target not in self.staged:
            relative = "_book/" + target.relative_to(self.root).as_posix()
            self.target.copy(relative, target)
            self.wanted.add(relative)
            self.staged[target] = "/" + relative
        return self.staged[target]


def toc_resolver(name: str, docs: Mapping[str, Any]) -> Callable[[str, int], str | None]:
    """Keep the toc entries of document ``name`` that name a document of ``docs`` (the others
    are errors of the toc, :mod:`polybook.toc`), and URLs."""

    def keep(entry: str, line: int) -> str | None:
        target = entry_target(entry)
        return entry if target is None or resolve_entry(name, target) in docs else None

    return keep


def headings(doc: Document) -> list[Heading]:
    """The document's sections, in order (headings inside text tabs do not make sections)."""
    return [node for node in doc.nodes if isinstance(node, Heading)]


def heading_slug(heading: Heading) -> str:
    return make_id(_MARKUP_RE.sub("", heading.text))


def cross_language_anchors(headings: list[Heading], source: list[Heading] | None) -> list[str | None]:
    """Per section: its label, else the source language's slug of the same heading.

    Unlabelled headings are paired by position only when both languages have the same
    heading structure; otherwise they keep only their own (language-specific) ids.
    """
    same_shape = source is not None and [h.level for h in headings] == [h.level for h in source]
    anchors: list[str | None] = []
    for index, heading in enumerate(headings):
        if heading.label:
            anchors.append(heading.label)
        elif same_shape and source is not None:
            anchors.append(source[index].label or heading_slug(source[index]) or None)
        else:
            anchors.append(None)
    seen: set[str] = set()
    for index, anchor in enumerate(anchors):
        if anchor in seen:
            anchors[index] = None
        elif anchor:
            seen.add(anchor)
    return anchors


@dataclass(slots=True)
class Staging:
    """One language being staged: where files go and what is kept (the rest is pruned)."""

    config: BookConfig
    language: str
    stage: Stage
    files: BookFiles
    wanted: set[str]
    docs: dict[str, Document]  # every document being staged

    @property
    def root(self) -> Path:
        return self.files.root

    def put(self, relative: str, data: bytes) -> str:
        """Stage ``data`` at ``relative``, kept; its path for MyST."""
        self.stage.write(relative, data)
        self.wanted.add(relative)
        return "/" + relative

    def say(self, path: str, line: int, code: Code, message: str, level: Level | None = None) -> None:
        self.stage.diagnostics.append(Diagnostic.make(path, line, code, message, level))


class StagePolicy:
    """What one output (the site, a PDF) does its own way while its documents are staged;
    :func:`stage_documents` does the rest the same for both."""

    cite_code: Code  # a citation in a language without a bibliography
    framework: str | None = None  # only this framework's cells, outputs and text (a PDF)
    rich = True  # outputs as HTML (the site), else as plain text
    rst_output = "html"  # what eval_rst blocks are written for
    missing_always = False  # a cell without a result is said even when the results are fresh

    def figure(self, staging: Staging, name: str, doc: Document, src: str, line: int) -> str | None:
        raise NotImplementedError

    def asset(self, staging: Staging, doc: Document, data: bytes, suffix: str) -> str:
        """An output's file (a plot, an image)."""
        return staging.put(f"_outputs/{asset_name(data, suffix)}", data)

    def link(self, staging: Staging, name: str, doc: Document) -> Callable[[str, int], str | None] | None:
        """The page's links as staged (None: as written)."""
        return None

    def prefix(self, name: str) -> list[str]:
        """Lines before a page's MyST."""
        return []

    def after_title(self, staging: Staging, name: str, doc: Document) -> list[str]:
        """MyST lines under a page's title."""
        return []

    def staged(self, staging: Staging, name: str, doc: Document) -> None:
        """After a page is staged."""

    def finish(self, staging: Staging, docs: dict[str, Document]) -> None:
        """After every page is."""


def stage_documents(
    config: BookConfig,
    lang: str,
    docs: dict[str, Document],
    results: dict[str, dict[str, Any]],
    srcdir: Path,
    bibs: list[Path],
    policy: StagePolicy,
    *,
    stored: bool = False,
    only: set[str] | None = None,
) -> Stage:
    """Write ``srcdir``: one MyST file per document of ``language``, with its figures, outputs
    and files, as ``policy``'s output wants them; ``results`` maps a document to its eval
    document. ``stored``: the results are a previous run's (``--no-eval``), so a cell without
    any -- never run, or its code changed since -- is worth a warning. ``only``: stage just
    these documents (the others are as staged before: ``polybook serve``'s warm path); nothing
    is pruned, and the stage's digest is not the language's."""
    stage = Stage(lang, srcdir)
    wanted: set[str] = set()
    staging = Staging(config, lang, stage, BookFiles(config, lang, stage, wanted), wanted, docs)
    references = BibliographyPlan.make(lang, docs, bibs, config.sphinx.get("bibtex_default_style"))
    for bib in bibs:  # read by sphinxcontrib-bibtex from the book; a change rebuilds
        stage.hasher.update(bib.name.encode() + hashlib.sha256(bib.read_bytes()).digest())
    rst = EvalRstResolver(config, lang, output=policy.rst_output)
    stage.api = rst.api
    reader = reader_code(config)
    for name, doc in docs.items():
        if only is not None and name not in only:
            continue
        renderer = OutputRenderer(
            lang,
            ChapterResults.from_doc(results.get(name)),
            functools.partial(policy.asset, staging, doc),
            rich=policy.rich,
            label=config.label_of,
            reader=reader,
            quiet=config.execution.quiet_stderr,
        )
        myst = transpile(
            doc,
            lang,
            framework=policy.framework,
            outputs=renderer,
            figure=functools.partial(policy.figure, staging, name, doc),
            cite=references.cite_handler(doc, stage.diagnostics, policy.cite_code),
            link=policy.link(staging, name, doc),
            toc=toc_resolver(name, docs),
            bibliography=references.references(),
            eval_rst=rst.resolver(doc, rst_files(staging.files, name), stage.diagnostics),
            label=config.label_of,
            after_title=policy.after_title(staging, name, doc),
            reader=reader,
        )
        if stored or policy.missing_always:
            stage.diagnostics += renderer.missing_diagnostics(doc.path)
        append_lines(myst, references.page_end(name), doc.nodes[-1].end_line if doc.nodes else 1)
        if prefix := policy.prefix(name):
            myst.text, myst.lines = "\n".join(prefix) + "\n" + myst.text, [1] * len(prefix) + myst.lines
        stage.docs[name] = myst
        stage.paths[name] = doc.path
        staging.put(f"{name}.md", myst.text.encode("utf-8"))
        policy.staged(staging, name, doc)
    if only is not None:
        return stage
    policy.finish(staging, docs)
    stage.hasher.update(stage.api.digest())  # a rebuilt library changes its API pages
    prune(srcdir, wanted)
    return stage


def rst_files(files: BookFiles, name: str) -> Callable[[str, bool], str | None]:
    """Stage a file an eval_rst block of page ``name`` names; its path from the page. A raw HTML
    file (``html``) also has the files it loads served (:meth:`BookFiles.serve_loaded`)."""

    def stage_file(ref: str, html: bool = False) -> str | None:
        target = files.find(name, ref)
        if target is None or not target.is_relative_to(files.root):
            return None
        if html:
            files.serve_loaded(name, target)
        return relative_to_page(name, files.stage(target))

    return stage_file


def append_lines(myst: Transpiled, lines: list[str], line: int) -> None:
    """Add ``lines`` to the end of a staged page, mapped to the chapter's ``line``."""
    if lines:
        myst.text += "\n".join(lines) + "\n"
        myst.lines += [line] * len(lines)


def local_link(href: str) -> tuple[str, str] | None:
    """(path, ``#fragment``/``?query``) of a link to a file, as MyST would look for it; None
    for a URL (``https:``, ``mailto:``...) or an anchor of the page itself."""
    scheme = _SCHEME_RE.match(href)
    if scheme and scheme[1] not in ("path", "project"):
        return None
    path = href[scheme.end() :] if scheme else href
    cut = min((i for i in (path.find("#"), path.find("?")) if i >= 0), default=len(path))
    if cut == 0:
        return None
    return unquote(path[:cut]), path[cut:]


def prune(srcdir: Path, wanted: set[str]) -> None:
    """Remove staged files of chapters, figures and outputs that are gone."""
    if not srcdir.is_dir():
        return
    for path in sorted(srcdir.rglob("*"), reverse=True):
        relative = path.relative_to(srcdir).as_posix()
        if path.is_file() and relative not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            shutil.rmtree(path)
