"""Stage one language for Sphinx: MyST files, figures, outputs and sidecars in a folder.

``build/.sphinx/<lang>/src`` is Sphinx's source folder. A file is rewritten only when
its content changes, so Sphinx's own incremental build (by mtime) re-reads only what
changed, and :attr:`Stage.digest` -- a hash of everything staged -- lets the build skip
Sphinx altogether when nothing did.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docutils.nodes import make_id

from polybook.book import display_path
from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.nodes import Document, Heading
from polybook.render.bibliography import BibliographyPlan
from polybook.render.eval_rst import ApiImports, EvalRstResolver, relative_to_page
from polybook.render.i18n import SPHINX_LANGUAGE
from polybook.render.myst import Transpiled, transpile
from polybook.render.outputs import ChapterResults, OutputRenderer, asset_name
from polybook.toc import entry_target, resolve_entry

#: Where each page's sidecar (its anchors and labels, for :mod:`polybook.render.sphinx_ext`) is staged.
SIDECAR_DIR = "_polybook"
#: Where the language's catalog of theme strings is staged for Sphinx (its ``locale_dirs``).
LOCALE_DIR = "_locale"
#: Staged folders that hold no documents (Sphinx's ``exclude_patterns``).
STAGED_DIRS = ("_book", "_outputs", SIDECAR_DIR, LOCALE_DIR)
#: polybook's catalogs of the theme's UI strings, one per language (``ja.po``...).
CATALOGS = Path(__file__).parent / "assets" / "locale"
_MARKUP_RE = re.compile(r"[*_`$]|\{[a-z:]+\}|:[a-z]+:")
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
    api: ApiImports = field(default_factory=ApiImports)  # what the API pages need to import

    @property
    def digest(self) -> str:
        return self.hasher.hexdigest()

    def write(self, relative: str, data: bytes) -> None:
        """Write ``srcdir/relative`` only when its bytes change; every write enters the digest."""
        self.hasher.update(relative.encode() + b"\0" + hashlib.sha256(data).digest())
        path = self.srcdir / relative
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        _replace(path, lambda tmp: tmp.write_bytes(data))

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
        path.parent.mkdir(parents=True, exist_ok=True)
        _replace(path, lambda tmp: _link_or_copy(source, tmp))


def _link_or_copy(source: Path, target: Path) -> None:
    """A hard link when the build folder and the book share a file system (a book's figures are
    hundreds of megabytes, staged once per language and PDF), else a copy with its times."""
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _replace(path: Path, fill: Any) -> None:
    """Write ``path`` through a temporary file of a unique name beside it, then rename: two
    builds staging at once never collide, and readers never see half a file."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        fill(tmp)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class BookFiles:
    """Files of the book that pages refer to (figures, downloads): found with the language
    fallback of :meth:`BookConfig.locate` and staged once each as ``/_book/<path in the book>``.

    A staged copy keeps its source's modification time, and the digest takes the source's
    size and time, not its bytes: an unchanged build reads no figure (d2l has 230 a language).
    """

    def __init__(self, config: BookConfig, language: str, stage: Stage, wanted: set[str]) -> None:
        self.config = config
        self.language = language
        self.root = config.root.resolve()
        self.target = stage
        self.wanted = wanted
        self.staged: dict[Path, str] = {}

    def own(self, name: str, ref: str) -> Path:
        """Where ``ref`` would be in this language (for messages)."""
        return (self.config.document_path(self.language, name).parent / ref).resolve()

    def find(self, name: str, ref: str) -> Path | None:
        found = self.config.locate(self.language, name, ref)
        return found[0] if found else None

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


def stage_language(
    config: BookConfig,
    language: str,
    docs: dict[str, Document],
    source_headings: dict[str, list[Heading]],
    results: dict[str, dict[str, Any]],
    srcdir: Path,
    bibfiles: list[Path],
    extra: dict[str, str] | None = None,
    *,
    stored: bool = False,
) -> Stage:
    """Write ``srcdir`` for ``language``; ``results`` maps chapter -> its eval document;
    ``extra`` maps docname -> MyST of generated pages (the translation-status page).
    ``stored``: the results are a previous run's (``--no-eval``), so a cell without any
    -- never run, or its code changed since -- is worth a warning."""
    stage = Stage(language, srcdir)
    root = config.root.resolve()
    chapters = config.chapters_dir.resolve()
    wanted: set[str] = set()
    files = BookFiles(config, language, stage, wanted)
    references = BibliographyPlan.make(language, docs, bibfiles, config.sphinx.get("bibtex_default_style"))
    rst = EvalRstResolver(config, language)
    stage.api = rst.api

    for name, doc in docs.items():
        chapter = config.document_path(language, name)

        def figure(src: str, line: int, name: str = name, doc: Document = doc) -> str | None:
            if "://" in src or src.startswith("data:"):
                return src
            if not files.own(name, src).is_relative_to(root):
                message = f"figure {src!r} is outside the book root {display_path(root)}; not rendered"
                stage.diagnostics.append(Diagnostic.make(doc.path, line, Code.HTML_FIGURE_OUTSIDE, message))
                return None
            target = files.find(name, src)
            if target is None:
                message = f"figure {src!r} not found ({display_path(files.own(name, src))})"
                stage.diagnostics.append(Diagnostic.make(doc.path, line, Code.HTML_FIGURE_MISSING, message))
                return None
            return files.stage(target)

        def link(href: str, line: int, name: str = name, chapter: Path = chapter, doc: Document = doc) -> str | None:
            local = local_link(href)
            if local is None:  # a URL or an anchor of this page
                return href
            path, rest = local
            if path.startswith("/"):
                target = (root / path.lstrip("/")).resolve()
            else:
                target = files.find(name, path) or (chapter.parent / path).resolve()
            if not target.is_relative_to(root):
                message = f"link {href!r} is outside the book root {display_path(root)}; shown as text"
                stage.diagnostics.append(Diagnostic.make(doc.path, line, Code.HTML_LINK_OUTSIDE, message))
                return None
            if target.suffix == ".md" and target.is_relative_to(chapters):  # a chapter: its page
                page = config.document_name(target)
                return f"/{page}.md{rest}" if page in docs else href  # else Sphinx says it is missing
            if target.is_file():  # a file of the book: staged like a figure, a download
                return files.stage(target) + rest
            return href  # not found: Sphinx reports it

        def asset(data: bytes, suffix: str) -> str:
            relative = f"_outputs/{asset_name(data, suffix)}"
            stage.write(relative, data)
            wanted.add(relative)
            return "/" + relative

        renderer = OutputRenderer(language, ChapterResults.from_doc(results.get(name)), asset, label=config.label_of)
        myst = transpile(
            doc,
            language,
            outputs=renderer,
            figure=figure,
            cite=references.cite_handler(doc, stage.diagnostics, Code.HTML_CITE_NO_BIB),
            link=link,
            toc=toc_resolver(name, docs),
            bibliography=references.references(),
            eval_rst=rst.resolver(doc, rst_files(files, name), stage.diagnostics),
            label=config.label_of,
        )
        if stored:
            stage.diagnostics += renderer.missing_diagnostics(doc.path)
        append_lines(myst, references.page_end(name), doc.nodes[-1].end_line if doc.nodes else 1)
        stage.docs[name] = myst
        stage.paths[name] = doc.path
        stage.write(f"{name}.md", myst.text.encode("utf-8"))
        sidecar = {
            "path": doc.path,
            "anchors": cross_language_anchors(headings(doc), source_headings.get(name)),
            "labels": sorted(doc.labels),
        }
        stage.write(f"{SIDECAR_DIR}/{name}.json", json.dumps(sidecar, ensure_ascii=False).encode())
        wanted.update({f"{name}.md", f"{SIDECAR_DIR}/{name}.json"})
    for name, myst_text in (extra or {}).items():
        if name not in docs:  # a chapter of the same name wins
            stage.write(f"{name}.md", myst_text.encode("utf-8"))
            wanted.add(f"{name}.md")
    po = CATALOGS / f"{language.split('_')[0]}.po"
    if po.is_file():  # Sphinx compiles it to sphinx.mo beside it
        folder = f"{LOCALE_DIR}/{SPHINX_LANGUAGE.get(language, language)}/LC_MESSAGES"
        catalog = po.read_bytes()
        stage.write(f"{folder}/sphinx.po", catalog)
        stage.catalog = hashlib.sha256(catalog).hexdigest()[:16]
        wanted.update({f"{folder}/sphinx.po", f"{folder}/sphinx.mo"})
    for bib in bibfiles:  # read by sphinxcontrib-bibtex from the book root; a change rebuilds
        stage.hasher.update(bib.name.encode() + hashlib.sha256(bib.read_bytes()).digest())
    stage.hasher.update(stage.api.digest())  # a rebuilt library changes its API pages
    prune(srcdir, wanted)
    return stage


def rst_files(files: BookFiles, name: str) -> Callable[[str], str | None]:
    """Stage a file an eval_rst block of page ``name`` names; its path from the page."""

    def stage_file(ref: str) -> str | None:
        target = files.find(name, ref)
        if target is None or not target.is_relative_to(files.root):
            return None
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
