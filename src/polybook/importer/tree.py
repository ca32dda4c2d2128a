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
from dataclasses import dataclass, field
from pathlib import Path

from polybook.diagnostics import Code, Diagnostic
from polybook.files import atomic_copy
from polybook.importer.mapping import ProjectSettings

ORIGIN_SUFFIX = "_origin.md"
_SKIPPED_FOLDERS = {"_build", "__pycache__"}


@dataclass(slots=True)
class Selection:
    """Paths relative to the project root (``/``-separated)."""

    documents: list[str] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)  # X_origin.md copied beside X.md
    resources: list[str] = field(default_factory=list)  # files of [build] resources
    static: list[str] = field(default_factory=list)  # favicon and logos
    excluded: list[str] = field(default_factory=list)  # .md files [build] exclusions removed
    unmatched: list[str] = field(default_factory=list)  # .md files no notebooks pattern matched
    orphan_origins: list[str] = field(default_factory=list)  # X_origin.md whose X.md is not copied
    skipped: list[Diagnostic] = field(default_factory=list)  # resources and static files that do not exist

    @property
    def files(self) -> list[str]:
        return sorted({*self.documents, *self.origins, *self.resources, *self.static})


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
    selection.documents = sorted(documents - origins)
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
    selection.resources = sorted(set(selection.resources))
    for setting, (path, line) in settings.static.items():
        if path in everything:
            selection.static.append(path)
        else:
            missing = f"{setting} file {path} does not exist: skipped"
            selection.skipped.append(settings.ini.diagnostic(line, Code.IMPORT_MISSING, missing))
    return selection


def assemble(project: Path, selection: Selection, folder: Path) -> None:
    """Copy the selected files into ``folder``, keeping the project's tree."""
    for relative in selection.files:
        target = folder / relative
        atomic_copy(project / relative, target)


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
