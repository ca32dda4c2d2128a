"""Which files of a d2lbook project make up the language folder, and copying them there.

Patterns are matched as d2lbook matches them (:func:`glob.glob` from the project root,
recursive: ``*`` stays within a folder, ``**`` crosses folders). Documents are the
``[build] notebooks`` matches minus ``[build] exclusions``; a translation's ``X_origin.md``
(the source text it was made from) goes beside its ``X.md``. Hidden folders (``.git``),
d2lbook's output (``_build``) and ``__pycache__`` are never copied.
"""

from __future__ import annotations

import glob
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from polybook.diagnostics import Code, Diagnostic
from polybook.dialect import parse_text
from polybook.dialect.raw_html import loaded_files
from polybook.files import atomic_copy
from polybook.importer.mapping import ProjectSettings
from polybook.toc import build_toc, toc_blocks

ORIGIN_SUFFIX = "_origin.md"
#: The file of an eval_rst ``.. raw:: html`` directive (d2l's ``:file: frontpage.html``).
_RAW_FILE_RE = re.compile(r"^\s*\.\.\s+raw::\s+html\s*\n\s+:file:\s*(\S+)", re.MULTILINE)
_SKIPPED_FOLDERS = {"_build", "__pycache__"}


@dataclass(slots=True)
class Selection:
    """Paths relative to the project root (``/``-separated)."""

    documents: list[str] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)  # X_origin.md copied beside X.md
    resources: list[str] = field(default_factory=list)  # files of [build] resources
    static: list[str] = field(default_factory=list)  # favicon and logos
    excluded: list[str] = field(default_factory=list)  # .md files [build] exclusions removed
    # .md files at the project's root no toc reaches (TERMINOLOGY.md): copied, and excluded in conf.py
    outside_toc: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)  # .md files no notebooks pattern matched
    orphan_origins: list[str] = field(default_factory=list)  # X_origin.md whose X.md is not copied
    skipped: list[Diagnostic] = field(default_factory=list)  # resources and static files that do not exist
    library: list[str] = field(default_factory=list)  # folders or files of [library*] the resources do not name
    carried: dict[str, str] = field(default_factory=dict)  # a front page and its images: destination -> project file
    front_pages: dict[str, str] = field(default_factory=dict)  # document -> the raw HTML file carried for it

    @property
    def files(self) -> list[str]:
        return sorted({*self.documents, *self.outside_toc, *self.origins, *self.resources, *self.static})


def select_files(project: Path, settings: ProjectSettings) -> Selection:
    """The files of ``project`` the import copies, and what it leaves out."""
    selection = Selection()
    skip = {Path(os.path.normpath(settings.ini.value("build", "output_dir") or "_build")).as_posix()}
    everything = set(_walk(project, skip))
    markdown = {path for path in everything if path.endswith(".md")}
    matched = _matches(project, settings.notebooks, everything)
    excluded = _matches(project, settings.exclusions, everything)
    documents = {p for p in matched & markdown if p not in excluded}
    origins = {p for p in markdown if p.endswith(ORIGIN_SUFFIX) and _base(p) in documents}
    selection.outside_toc = _outside_toc(project, documents - origins)
    selection.documents = sorted(documents - origins - set(selection.outside_toc))
    selection.origins = sorted(origins)
    selection.orphan_origins = sorted(
        p for p in markdown if p.endswith(ORIGIN_SUFFIX) and p not in origins and p not in documents
    )
    orphans = set(selection.orphan_origins)
    selection.excluded = sorted((matched & markdown & excluded) - origins - orphans)
    selection.unmatched = sorted(markdown - matched - excluded - origins - orphans)
    for pattern, line in settings.resources:
        found = _resource_files(project, pattern, everything)
        if found is None:
            missing = f"resource {pattern} does not exist: skipped"
            selection.skipped.append(settings.ini.diagnostic(line, Code.IMPORT_MISSING, missing))
        else:
            selection.resources.extend(found)
    _library_files(project, settings, everything, selection)
    selection.resources = sorted(set(selection.resources))
    _front_pages(project, selection, everything)
    for setting, (path, line) in settings.static.items():
        if path in everything:
            selection.static.append(path)
        else:
            missing = f"{setting} file {path} does not exist: skipped"
            selection.skipped.append(settings.ini.diagnostic(line, Code.IMPORT_MISSING, missing))
    return selection


def _outside_toc(project: Path, documents: set[str]) -> list[str]:
    """The documents at the project's root that no toc reaches (d2l-zh's and d2l-tr's
    ``TERMINOLOGY.md``, d2l-tr's ``Translator_notes.md``): translators' notes of the same kind as
    the ``README.md`` and ``STYLE_GUIDE.md`` their ``[build] exclusions`` name. d2lbook converts
    them too, but Sphinx leaves them out of every toctree ("document isn't included in any
    toctree"): they are not chapters of the book, whose source has no counterpart to check them
    against. None when the project has no toc at all."""
    blocks, paths = {}, {}
    for path in documents:
        text = (project / path).read_text(encoding="utf-8", errors="replace")
        if "```toc" in text:
            name = path.removesuffix(".md")
            blocks[name] = list(toc_blocks(parse_text(text, path)))
            paths[name] = path
    toc = build_toc("", blocks, paths, [p.removesuffix(".md") for p in documents])
    if not toc.order:
        return []
    reached = set(toc.order)
    return sorted(p for p in documents if "/" not in p and p.removesuffix(".md") not in reached)


def _library_files(project: Path, settings: ProjectSettings, everything: set[str], selection: Selection) -> None:
    """The book's library as ``[library-*] lib_file`` and ``[library] version_file`` name it,
    whatever ``resources`` says (d2l-zh's names ``d2lzh/``, which does not exist, while its
    library is ``d2l/``): the folder of each module (the package, as a resource folder is
    copied), or the file itself at the project's root."""
    library = settings.library
    files = [values["lib_file"] for values in library.get("frameworks", {}).values() if values.get("lib_file")]
    files += [library["version_file"]] if library.get("version_file") else []
    copied = set(selection.resources)
    for file in files:
        path = Path(file.strip().removeprefix("./"))
        if path.is_absolute() or ".." in path.parts or path.as_posix() not in everything:
            continue
        pattern = path.parent.as_posix() if path.parent != Path(".") else path.as_posix()
        found = _resource_files(project, pattern, everything) or []
        new = [p for p in found if p not in copied]
        if new:
            selection.library.append(pattern + ("/" if pattern != path.as_posix() else ""))
            selection.resources.extend(new)
            copied.update(new)


def _front_pages(project: Path, selection: Selection, everything: set[str]) -> None:
    """A document's eval_rst ``.. raw:: html`` with ``:file: X`` where the project has no ``X``
    beside it: d2l's front page, which its build script copies in from ``static/frontpage/`` with
    its ``_images/``. The one file of that name in the project is carried to where the document
    names it, with the files it loads by a relative URL (``<img src>``) at the same places from it."""
    copied = set(selection.files)
    for document in selection.documents:
        try:
            text = (project / document).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        folder = posixpath.dirname(document)
        for name in _RAW_FILE_RE.findall(text):
            wanted = posixpath.normpath(posixpath.join(folder, name))
            if wanted in copied or wanted.startswith("../"):
                continue
            found = [p for p in everything if posixpath.basename(p) == posixpath.basename(name)]
            source = wanted if wanted in everything else (found[0] if len(found) == 1 else None)
            if source is None:
                continue
            selection.carried[wanted] = source
            selection.front_pages[posixpath.splitext(document)[0]] = source
            html = (project / source).read_text(encoding="utf-8", errors="replace")
            for ref in map(unquote, loaded_files(html)):
                origin = posixpath.normpath(posixpath.join(posixpath.dirname(source), ref))
                destination = posixpath.normpath(posixpath.join(posixpath.dirname(wanted), ref))
                if origin in everything and not destination.startswith("../") and destination not in copied:
                    selection.carried[destination] = origin


def assemble(project: Path, selection: Selection, folder: Path) -> None:
    """Copy the selected files into ``folder``, keeping the project's tree, and the carried ones
    (a front page and its images) to their places."""
    for relative in selection.files:
        target = folder / relative
        atomic_copy(project / relative, target)
    for destination, source in selection.carried.items():
        atomic_copy(project / source, folder / destination)


def uncovered(folder: Path, relatives: list[str], patterns: list[str]) -> list[str]:
    """Those of ``relatives`` (files in ``folder``) that no pattern excludes, matched as polybook
    matches ``exclusions`` (:meth:`polybook.config.BookConfig.excluded`)."""
    covered: set[str] = set()
    for pattern in patterns:
        try:
            covered.update(p.relative_to(folder).as_posix() for p in folder.glob(pattern))
        except (ValueError, NotImplementedError):  # an absolute or empty pattern matches nothing here
            continue
    return [relative for relative in relatives if relative not in covered]


def _walk(project: Path, skip: set[str]) -> list[str]:
    """Every file below ``project`` outside hidden and skipped folders, relative and ``/``-separated."""
    found = []
    for folder, folders, files in os.walk(project):
        relative = Path(folder).relative_to(project)
        folders[:] = sorted(
            f
            for f in folders
            if not f.startswith(".") and f not in _SKIPPED_FOLDERS and (relative / f).as_posix() not in skip
        )
        found.extend((relative / name).as_posix() for name in files if not name.startswith("."))
    return found


def _matches(project: Path, patterns: tuple[str, ...], everything: set[str]) -> set[str]:
    """Files the glob patterns match (a folder matched stands for every file in it)."""
    found: set[str] = set()
    for pattern in patterns:
        for match in glob.glob(pattern, root_dir=project, recursive=True):
            relative = Path(match).as_posix().rstrip("/")
            if relative in everything:
                found.add(relative)
            elif (project / relative).is_dir():
                found.update(p for p in everything if p.startswith(f"{relative}/"))
    return found


def _resource_files(project: Path, pattern: str, everything: set[str]) -> list[str] | None:
    """The files a ``resources`` entry names (d2lbook: a folder stands for all its files); None
    when it names nothing or leaves the project."""
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        return None
    found = _matches(project, (pattern.rstrip("/") or ".",), everything)
    return sorted(found) if found else None


def _base(origin: str) -> str:
    return origin[: -len(ORIGIN_SUFFIX)] + ".md"
