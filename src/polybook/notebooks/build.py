"""``polybook build notebooks``: a folder of notebooks per language and framework.

``build/notebooks/<lang>/<framework>/`` holds one notebook per document (``<document>.ipynb``,
the language's folders kept), the figures they show and the book's library (``d2l/``) as the
programs imported it, so the folder -- or its zip -- runs and reads as it is.

Incremental as the other stages are: each (language, framework) keeps a stamp of what it was made
from -- the settings of conf.py that concern the language's notebooks (not Sphinx's theme, not
another language's entry), polybook's version, the language's document names and the size and time of every
file read (its documents, the results ``build eval`` recorded, the figures and library files
copied). When nothing of it changed the folder is left alone without parsing anything; otherwise
every notebook of that language and framework is made again and written only where its bytes
change. A translation reads only its own files (and the source language's figures it falls back
on), so an edit in one language makes only that language's notebooks again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from polybook import __version__
from polybook.book import Book, load_book
from polybook.config import BookConfig
from polybook.config.digest import book_settings
from polybook.diagnostics import Code, Diagnostic, has_errors
from polybook.dialect.nodes import Document
from polybook.execute.outputs import read_outputs
from polybook.files import (
    atomic_write,
    atomic_write_bytes,
    display_path,
    link_or_copy,
    read_json,
    stage_lock,
    write_through,
)
from polybook.notebooks.files import DownloadFiles
from polybook.notebooks.launch import GPU_METADATA, InstallCell, install_cell, wants_gpu
from polybook.notebooks.nbfile import notebook_bytes, validation_problem
from polybook.notebooks.references import LabelIndex, PublishedPages, numfig_words
from polybook.notebooks.writer import LanguageNotebooks, NotebookWriter
from polybook.stage.bibliography import BibliographyPlan
from polybook.stage.names import book_name
from polybook.stage.outputs import ChapterResults
from polybook.stage.settings import bibfiles

NOTEBOOKS_DIR = "notebooks"
LAUNCH_DIR = "launch"  # <build>/launch/<lang>/<framework>/: the launch notebooks, as a branch holds them
STAMP_FORMAT = 2  # 2: no notebook for a framework a document has no version for


@dataclass(frozen=True, slots=True)
class NotebookTarget:
    language: str
    framework: str
    folder: Path  # build/notebooks/<lang>/<framework>
    zip: Path  # build/notebooks/<lang>/<book>-<lang>-<framework>.zip: the folder, for readers to download
    launch: Path  # build/launch/<lang>/<framework>: the launch notebooks (polybook publish --notebooks-branch)

    @property
    def name(self) -> str:
        return f"{self.language}/{self.framework}"

    @property
    def stamp(self) -> Path:
        """What the folder was made from, beside it."""
        return self.folder.with_name(f".{self.framework}.stamp.json")


class NotebookStatus(StrEnum):
    """What became of one language and framework's notebooks in a ``build notebooks``."""

    BUILT = "built"  # made again (the notebooks whose bytes changed written)
    UNCHANGED = "unchanged"  # nothing they are made from changed: not made again
    FAILED = "failed"  # a notebook did not validate: not written; the stamp is removed


@dataclass(slots=True)
class NotebookOutcome:
    target: NotebookTarget
    status: NotebookStatus
    notebooks: int = 0  # in the folder
    written: int = 0  # by this build (their bytes changed)
    seconds: float = 0.0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    installs: dict[str, list[str]] = field(default_factory=dict)  # install cell requirements -> documents


@dataclass(slots=True)
class NotebookReport:
    outcomes: list[NotebookOutcome]
    seconds: float

    @property
    def failed(self) -> list[NotebookOutcome]:
        return [o for o in self.outcomes if o.status is NotebookStatus.FAILED or has_errors(o.diagnostics)]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for o in self.outcomes for d in o.diagnostics]


def notebook_targets(
    config: BookConfig, languages: list[str] | None = None, frameworks: list[str] | None = None
) -> list[NotebookTarget]:
    """Every (language, framework) of the book, in config order, filtered."""
    stem = book_name(config)
    root = config.build_dir / NOTEBOOKS_DIR
    return [
        NotebookTarget(
            lang,
            fw,
            root / lang / fw,
            root / lang / f"{stem}-{lang}-{fw}.zip",
            config.build_dir / LAUNCH_DIR / lang / fw,
        )
        for lang, settings in config.languages.items()
        if not languages or lang in languages
        for fw in settings.frameworks
        if not frameworks or fw in frameworks
    ]


def build_notebooks(
    config: BookConfig,
    languages: list[str] | None = None,
    frameworks: list[str] | None = None,
    *,
    force: bool = False,
    on_done: Callable[[NotebookOutcome], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> NotebookReport:
    """Make the notebooks of ``languages`` x ``frameworks`` (default: all) in ``build/notebooks``;
    one build at a time per book."""
    lock = config.build_dir / NOTEBOOKS_DIR / "build.lock"
    with stage_lock(lock, f"the notebooks build in {display_path(config.build_dir)}/", say):
        return _build(config, notebook_targets(config, languages, frameworks), force, on_done)


def _build(
    config: BookConfig,
    targets: list[NotebookTarget],
    force: bool,
    on_done: Callable[[NotebookOutcome], None] | None,
) -> NotebookReport:
    started = time.monotonic()
    settings = {lang: config_digest(config, lang) for lang in {t.language for t in targets}}
    outcomes: dict[NotebookTarget, NotebookOutcome] = {}
    pending: list[NotebookTarget] = []
    names = {lang: config.document_names(lang) for lang in {t.language for t in targets}}
    for target in targets:
        kept = None if force else unchanged(target, settings[target.language], names[target.language])
        if kept is not None:
            outcomes[target] = kept
            if on_done:
                on_done(kept)
        else:
            pending.append(target)
    if pending:
        languages = list(dict.fromkeys(t.language for t in pending))
        book = load_book(config, languages, cached=True, present={lang: names[lang] for lang in languages})
        for lang in languages:
            damaged: list[Diagnostic] = []
            results = read_outputs(config.build_dir, lang, damaged)
            for target in (t for t in pending if t.language == lang):
                outcome = build_target(config, book, target, results, settings[lang], damaged)
                outcomes[target] = outcome
                if on_done:
                    on_done(outcome)
    return NotebookReport([outcomes[t] for t in targets], round(time.monotonic() - started, 3))


def install_problems(report: NotebookReport, index: list[str] | None = None) -> list[Diagnostic]:
    """Resolve every launch notebook's install cell against the package index (uv, nothing
    installed; ``index``: uv's index options, default pip's): an error for each that cannot be
    installed, at the first document whose notebook has it."""
    from polybook.notebooks.launch import check_installs

    wanted: dict[str, list[str]] = {}
    for outcome in report.outcomes:
        for key, docs in outcome.installs.items():
            wanted.setdefault(key, []).extend(docs)
    cells = [InstallCell(tuple(key.split("\n"))) for key in wanted]
    found = []
    for problem in check_installs(cells, index):
        docs = wanted["\n".join(problem.requirements)]
        more = f" (and {len(docs) - 1} more notebooks)" if len(docs) > 1 else ""
        message = (
            f"the launch notebook's install cell cannot be installed{more}: {' '.join(problem.requirements)}: "
            f"{problem.reason}"
        )
        found.append(Diagnostic.make(docs[0], 1, Code.NOTEBOOK_INSTALL, message))
    return found


#: The Sphinx settings of conf.py a notebook shows (the release its launch cell installs, figure
#: and table numbers, the site's links, its bibliography).
SPHINX_SETTINGS = ("release", "numfig_format", "html_baseurl", "bibtex_default_style", "bibtex_bibfiles")


def config_digest(config: BookConfig, lang: str) -> str:
    """What a language's notebooks depend on besides its files: polybook's settings as they
    concern ``lang`` (:func:`~polybook.config.digest.book_settings`), the Sphinx settings they
    show, and polybook."""
    shown = {key: config.sphinx.get(key) for key in SPHINX_SETTINGS}
    digest = hashlib.sha256(book_settings(config, lang).encode())
    digest.update(json.dumps(shown, sort_keys=True, default=repr).encode())
    digest.update(f"{__version__}\0{STAMP_FORMAT}".encode())
    return digest.hexdigest()


def unchanged(target: NotebookTarget, settings: str, names: list[str]) -> NotebookOutcome | None:
    """The outcome of a target whose stamp says nothing it was made from changed, else None."""
    stamp = read_json(target.stamp)
    if not target.zip.is_file() or stamp.get("settings") != settings or stamp.get("names") != names:
        return None
    if any(_stat(Path(path)) != seen for path, seen in stamp.get("files", {}).items()):
        return None
    if stamp.get("installs") and not target.launch.is_dir():
        return None
    said = [Diagnostic.from_dict(d) for d in stamp.get("diagnostics", [])]
    installs = {str(k): list(v) for k, v in stamp.get("installs", {}).items()}
    return NotebookOutcome(target, NotebookStatus.UNCHANGED, int(stamp.get("notebooks", 0)), 0, 0.0, said, installs)


def _stat(path: Path) -> list[int] | None:
    """Size and modification time (as JSON keeps them), None for a file that is not there."""
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


@dataclass(slots=True)
class Made:
    """One language and framework's notebooks, made in memory."""

    notebooks: dict[str, bytes] = field(default_factory=dict)  # <document>.ipynb -> the file
    launch: dict[str, bytes] = field(default_factory=dict)  # the launch notebooks (with their install cell)
    installs: dict[str, list[str]] = field(default_factory=dict)  # an install cell's requirements -> documents
    diagnostics: list[Diagnostic] = field(default_factory=list)


def build_target(
    config: BookConfig,
    book: Book,
    target: NotebookTarget,
    results: dict[str, dict[str, Any]],
    settings: str,
    damaged: list[Diagnostic] | None = None,
) -> NotebookOutcome:
    """Make one language and framework's notebooks, copy their files, keep the stamp
    (``damaged``: the results files that did not read, said with the notebooks' diagnostics)."""
    started = time.monotonic()
    lang, docs = target.language, book.chapters[target.language]
    shared = language_notebooks(config, book, target)
    read: set[Path] = {config.document_path(lang, name) for name in docs}
    read |= {config.build_dir / "eval" / lang / f"{name}.json" for name in docs}
    made = make_notebooks(config, target, shared, docs, results)
    made.diagnostics[:0] = damaged or []
    if not shared.pages.base_url:
        message = "no html_baseurl in conf.py: the notebooks link to the pages relative to where the site has them"
        made.diagnostics.insert(0, Diagnostic.make(display_path(config.path), 1, Code.NOTEBOOK_LINKS, message))
    files = {**shared.files.wanted, **library_files(config, target)}
    read |= set(files.values()) | shared.files.missing
    written_count = write_folder(target.folder, made.notebooks, files)
    write_zip(target, made.notebooks, sorted(files))
    if made.launch or target.launch.is_dir():  # without a launch place the folder goes
        write_folder(target.launch, made.launch, shared.files.wanted if made.launch else {})
    failed = any(d.code is Code.NOTEBOOK_INVALID for d in made.diagnostics)
    seconds = round(time.monotonic() - started, 3)
    status = NotebookStatus.FAILED if failed else NotebookStatus.BUILT
    outcome = NotebookOutcome(
        target, status, len(made.notebooks), written_count, seconds, made.diagnostics, made.installs
    )
    if failed:
        target.stamp.unlink(missing_ok=True)
    else:
        write_stamp(target, settings, list(book.names_of(lang)), read, outcome)
    return outcome


def make_notebooks(
    config: BookConfig,
    target: NotebookTarget,
    shared: LanguageNotebooks,
    docs: dict[str, Document],
    results: dict[str, dict[str, Any]],
) -> Made:
    """The notebook of every document with a version for the framework (as d2lbook writes one:
    :meth:`Document.offered`), and its launch notebook when conf.py says where they are published."""
    made = Made()
    launching = config.notebooks.place(target.language, target.framework) is not None
    kernels: dict[tuple[str, ...], str] = {}  # the document's extra requirements -> its kernel
    for name, doc in docs.items():
        if target.framework not in doc.offered():
            continue
        if doc.required_libs not in kernels:
            kernels[doc.required_libs] = kernel_name(config, target.framework, doc.required_libs)
        stored = ChapterResults.from_doc(results.get(name))
        written = NotebookWriter(shared, name, doc, stored).write()
        notebook = notebook_document(config, target, name, kernels[doc.required_libs], written.notebook)
        made.diagnostics += written.diagnostics
        problem = validation_problem(notebook)
        if problem is not None:
            made.diagnostics.append(Diagnostic.make(doc.path, 1, Code.NOTEBOOK_INVALID, f"{target.name}: {problem}"))
            continue
        made.notebooks[f"{name}.ipynb"] = notebook_bytes(notebook)
        if launching and doc.cells(target.framework):
            program = stored.programs.get(target.framework)
            cell = install_cell(config, target.language, target.framework, doc, program)
            made.installs.setdefault("\n".join(cell.requirements), []).append(doc.path)
            made.launch[f"{name}.ipynb"] = notebook_bytes(
                launch_notebook(notebook, cell, wants_gpu(doc, target.framework))
            )
    return made


def launch_notebook(notebook: dict[str, Any], cell: InstallCell, gpu: bool) -> dict[str, Any]:
    """The notebook with its install cell first, and the accelerator metadata when it wants a GPU."""
    first = {
        "cell_type": "code",
        "id": "polybook-install",
        "metadata": {},
        "execution_count": None,
        "source": cell.source(),
        "outputs": [],
    }
    metadata = {**notebook["metadata"], **(GPU_METADATA if gpu else {})}
    return {**notebook, "metadata": metadata, "cells": [first, *notebook["cells"]]}


def language_notebooks(config: BookConfig, book: Book, target: NotebookTarget) -> LanguageNotebooks:
    """What the notebooks of one language and framework share: its labels and their numbers,
    where its pages are published, the files wanted in its download, where works are listed."""
    lang, docs = target.language, book.chapters[target.language]
    labels = LabelIndex.make(lang, docs, book.tocs.get(lang), numfig_words(config, lang))
    pages = PublishedPages(lang, target.framework, str(config.sphinx.get("html_baseurl") or ""))
    plan = BibliographyPlan.make(lang, docs, bibfiles(config, lang), config.sphinx.get("bibtex_default_style"))
    listed = {key.lower(): page for page, keys in plan.listed_on.items() for key in keys}

    def references_page(key: str) -> str | None:
        return plan.references_pages[0] if plan.references_pages else listed.get(key.lower())

    offered = frozenset(name for name, doc in docs.items() if target.framework in doc.offered())
    return LanguageNotebooks(
        config, lang, target.framework, labels, pages, DownloadFiles(config, lang), references_page, offered
    )


def notebook_document(
    config: BookConfig, target: NotebookTarget, name: str, kernel: str, body: dict[str, Any]
) -> dict[str, Any]:
    """The nbformat 4 notebook: the cells, and metadata naming the framework's kernel."""
    label = config.label_of(target.framework)
    metadata = {
        "kernelspec": {"name": kernel, "display_name": f"Python 3 ({label})", "language": "python"},
        "language_info": {"name": "python"},
        "polybook": {"language": target.language, "framework": target.framework, "document": name},
    }
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": body["cells"]}


def kernel_name(config: BookConfig, framework: str, required_libs: tuple[str, ...] = ()) -> str:
    """The kernel conf.py gives the framework: its environment's (with the document's extra
    requirements, a derived one's), else the ``kernel`` setting's."""
    if framework in config.execution.environments:
        from polybook.execute.envs import env_spec

        return env_spec(config.execution, framework, required_libs).kernel
    return config.execution.kernel_for(framework)


def library_files(config: BookConfig, target: NotebookTarget) -> dict[str, Path]:
    """The book's library as the language's programs imported it (``build eval``'s mirror), else
    the language's own folder, else the source language's: place in the download -> file."""
    from polybook.execute.workdir import run_root

    out: dict[str, Path] = {}
    folders = {os.path.dirname(fw.lib_file) for fw in config.library.frameworks.values()} - {""}
    for folder in sorted(folders):
        for base in (
            run_root(config, target.language, target.framework),
            config.chapters_dir / target.language,
            config.chapters_dir / config.source_language,
        ):
            if (base / folder).is_dir():
                for path in sorted((base / folder).glob("*.py")):
                    out[f"{folder}/{path.name}"] = path.resolve()
                break
    return out


def write_folder(folder: Path, notebooks: dict[str, bytes], files: dict[str, Path]) -> int:
    """Write the notebooks whose bytes changed, copy the files that changed, remove the rest;
    the number of notebooks written."""
    written = 0
    for relative, data in notebooks.items():
        path = folder / relative
        if path.is_file() and path.read_bytes() == data:
            continue
        atomic_write_bytes(path, data)
        written += 1
    for relative, source in files.items():
        path = folder / relative
        info = source.stat()
        if path.is_file() and (path.stat().st_size, path.stat().st_mtime_ns) == (info.st_size, info.st_mtime_ns):
            continue
        link_or_copy(source, path)
    keep = set(notebooks) | set(files)
    for path in sorted(folder.rglob("*"), reverse=True):
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and relative not in keep:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return written


#: Every entry of a zip gets this time: an unchanged folder gives the same bytes.
_ZIP_TIME = (2000, 1, 1, 0, 0, 0)
#: zlib's level: 1 makes d2l's zips (SVG figures, notebooks) 7% larger than the default 6, in half the time.
_ZIP_LEVEL = 1
#: Files compressed already (figures): stored in the zip as they are.
_PACKED = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".zip", ".gz", ".pdf", ".mp4")


def write_zip(target: NotebookTarget, notebooks: dict[str, bytes], files: list[str]) -> None:
    """The folder as one zip, under a folder of its own name: the notebooks first, in reading
    order (the toc's), then their figures and the library, as the folder holds them."""
    import zipfile

    top = target.zip.stem

    def fill(name: Path) -> None:
        with zipfile.ZipFile(name, "w", zipfile.ZIP_DEFLATED, compresslevel=_ZIP_LEVEL) as archive:
            entries = [(relative, data) for relative, data in notebooks.items()]
            entries += [(relative, (target.folder / relative).read_bytes()) for relative in files]
            for relative, data in entries:
                info = zipfile.ZipInfo(f"{top}/{relative}", _ZIP_TIME)
                packed = relative.lower().endswith(_PACKED)  # deflating them again only costs time
                info.compress_type = zipfile.ZIP_STORED if packed else zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, data, compresslevel=None if packed else _ZIP_LEVEL)
        os.chmod(name, 0o644)

    write_through(target.zip, fill)


def write_stamp(
    target: NotebookTarget, settings: str, names: list[str], read: set[Path], outcome: NotebookOutcome
) -> None:
    files = {str(path): _stat(path) for path in sorted(read)}
    said = [d.to_dict() for d in outcome.diagnostics]
    data = {
        "settings": settings,
        "names": names,
        "files": files,
        "notebooks": outcome.notebooks,
        "diagnostics": said,
        "installs": outcome.installs,
    }
    target.stamp.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target.stamp, json.dumps(data, ensure_ascii=False, indent=0))
