"""``polybook import d2lbook``: one d2lbook project becomes one language of the book.

The steps, in order: read the project's config.ini, find (or start) the book's conf.py,
select the project's files, copy them into a hidden folder beside ``<chapters>/<lang>``,
merge the settings into conf.py's text (with the numbered links a translation has its own of,
:mod:`.links`), validate that text as polybook reads it, and only then write conf.py and swap
the folder in. A refusal or a failure changes nothing; the project itself is only ever read.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from polybook.config import CONFIG_NAME, ConfigError, find_config, load_config
from polybook.config.glossary import GLOSSARY_NAME, from_terminology
from polybook.diagnostics import Code, Diagnostic, DiagnosticError
from polybook.files import atomic_write, replace_folder
from polybook.importer.confpy import Change, ConfEditError, edit_conf, new_conf, read_book_settings
from polybook.importer.environments import project_date, propose, resolve
from polybook.importer.ini import IniError, read_ini
from polybook.importer.links import add_own_links
from polybook.importer.mapping import ProjectSettings, Unmapped, read_settings
from polybook.importer.merge import BookSettings, Merged, merge
from polybook.importer.start import ignore_build
from polybook.importer.tree import Selection, assemble, select_files, uncovered

_SAFE_LANG = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")  # a folder name; conf.py validation says more


class ImportRefused(DiagnosticError):
    """The import cannot be done as asked; nothing was changed. ``headline`` says what was refused
    (when the diagnostics alone do not), ``diagnostics`` the problems in the files read, each at
    its line (config.ini, conf.py)."""

    def __init__(self, message: str = "", diagnostics: Iterable[Diagnostic] = ()) -> None:
        super().__init__(diagnostics, message)


@dataclass(slots=True)
class ImportResult:
    project: Path
    lang: str
    conf_path: Path
    created: bool  # conf.py was created
    destination: Path  # <chapters>/<lang>
    replaced: bool  # an earlier <chapters>/<lang> was replaced (--force)
    settings: ProjectSettings
    selection: Selection
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)

    def report(self) -> list[str]:
        """The summary printed after an import."""
        s = self.selection
        copied = len(s.documents) + len(s.origins)
        lines = [
            f"imported {self.project} as {self.lang} into {self.destination}"
            + (" (replacing the earlier copy)" if self.replaced else ""),
            f"  Markdown: {copied} file(s) copied: {len(s.documents)} document(s)"
            f" + {len(s.origins)} *_origin.md base(s) of the translation",
            f"  resources: {len(s.resources)} file(s) from {', '.join(p for p, _ in self.settings.resources) or '-'}"
            f"; static: {', '.join(s.static) or '-'}",
            f"  not copied: {len(s.excluded)} .md file(s) [build] exclusions exclude,"
            f" {len(s.unmatched)} matching no [build] notebooks pattern,"
            f" {len(s.orphan_origins)} *_origin.md without their translation",
        ]
        if s.outside_toc:
            lines.append(
                f"  outside every toc: {', '.join(s.outside_toc)} copied as the project's notes, not documents"
                " (added to exclusions)"
            )
        lines += [f"  {skipped.format()}" for skipped in s.skipped]
        for document, source in s.front_pages.items():
            loaded = sum(1 for d, p in s.carried.items() if p != source)
            lines.append(
                f"  front page: {document}.md's raw HTML file, {source}, copied beside it with the {loaded} file(s)"
                " it loads (as d2l's build script copies them)"
            )
        if s.library:
            lines.append(
                f"  library: {', '.join(s.library)} copied, as [library-*] lib_file names it"
                " (the resources line does not)"
            )
        verb = "created" if self.created else "updated"
        lines.append(f"{self.conf_path}: {verb}, {len(self.changes)} change(s)")
        lines += [f"  {change.format()}" for change in self.changes]
        lines += [f"  {note}" for note in self.notes]
        lines += [warning.format() for warning in self.settings.warnings]
        lines.append(f"not mapped: {len(self.unmapped)} setting(s)")
        lines += [entry.diagnostic().format() for entry in self.unmapped]
        return lines


@dataclass(slots=True)
class _Book:
    """The book an import goes into: its conf.py, as it is (None: to be created) and as the
    import starts from (a new conf.py's skeleton), and its chapters folder."""

    conf_path: Path
    text: str | None
    base: str
    settings: BookSettings
    chapters: Path


def import_d2lbook(
    project: Path, lang: str, conf: Path | None, force: bool, cwd: Path | None = None, check_environments: bool = True
) -> ImportResult:
    """Import the d2lbook project ``project`` as language ``lang`` of the book whose conf.py is
    ``conf`` (default: the nearest above ``cwd``, else a new one in ``cwd``); ``check_environments``:
    ask uv whether the proposed execution environments can be installed here."""
    if not _SAFE_LANG.match(lang):
        raise ImportRefused(f"--lang {lang!r} is not a language code like 'en', 'pt' or 'zh_CN'")
    settings = _read_project(project, lang)
    book = _locate_book(conf, cwd or Path.cwd(), settings)
    destination = book.chapters / lang
    _check_places(project, book.conf_path, destination)
    if destination.exists() and not force:
        raise ImportRefused(f"{destination} exists: pass --force to replace it with this import")
    selection = select_files(project, settings)
    settings.exclusions = (*settings.exclusions, *selection.outside_toc)  # kept as files, not documents
    libraries = {
        fw: values["lib_file"] for fw, values in settings.library.get("frameworks", {}).items() if "lib_file" in values
    }
    settings.environments = propose(project, selection.documents, settings.tabs, libraries)
    if settings.environments.environments:
        settings.environments.as_of = project_date(project, selection.documents)
        if check_environments:
            resolve(settings.environments, project, settings.environments.as_of)
    result = ImportResult(
        project, lang, book.conf_path, book.text is None, destination, destination.exists(), settings, selection
    )
    with _staging(book.chapters, lang) as fresh:
        assemble(project, selection, fresh)
        _glossary(project, fresh)
        exclusions = [*((book.settings.polybook or {}).get("exclusions") or []), *settings.exclusions]
        origin_pattern = bool(uncovered(fresh, selection.origins, exclusions))
        copied = {*selection.files, *selection.carried}
        merged = merge(book.settings, settings, copied, origin_pattern, sorted(selection.front_pages))
        merged.notes += add_own_links(merged.polybook, book.chapters, lang, fresh)
        new_text, result.changes = _edit(book.base, merged, book.conf_path)
        _validate(new_text, book.conf_path)
        _commit(book.conf_path, book.text, new_text, fresh, destination)
    result.notes = merged.notes
    result.unmapped = sorted([*settings.unmapped, *merged.unmapped], key=lambda u: u.line)
    return result


def _glossary(project: Path, fresh: Path) -> None:
    """The project's ``TERMINOLOGY.md`` (d2l-zh's, d2l-tr's), as the language's glossary."""
    terminology = project / "TERMINOLOGY.md"
    if terminology.is_file():
        text = from_terminology(_read_text(terminology))
        if text.count("\n") > 1:
            (fresh / GLOSSARY_NAME).write_text(text, encoding="utf-8")


def _locate_book(conf: Path | None, cwd: Path, settings: ProjectSettings) -> _Book:
    """``conf``, else the nearest conf.py above ``cwd``, else a new one in ``cwd``."""
    conf_path = (conf or find_config(cwd) or cwd / CONFIG_NAME).absolute()
    text = _read_text(conf_path) if conf_path.exists() else None
    base = text if text is not None else new_conf(settings.title or settings.lang, settings.lang)
    try:
        book = read_book_settings(base, str(conf_path))
    except ConfEditError as exc:
        raise ImportRefused(diagnostics=exc.diagnostics) from None
    chapters = conf_path.parent / str((book.polybook or {}).get("chapters") or "chapters")
    return _Book(conf_path, text, base, book, chapters)


@contextmanager
def _staging(chapters: Path, lang: str) -> Iterator[Path]:
    """A hidden folder beside ``<chapters>/<lang>`` to assemble the language in; removed at the
    end (after a successful import it has been renamed into place)."""
    made_chapters = not chapters.exists()
    chapters.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{lang}.import-", dir=chapters))
    try:
        fresh.chmod(0o755)  # mkdtemp makes it private; the book's folders are not
        yield fresh
    finally:
        if fresh.exists():
            shutil.rmtree(fresh)
        if made_chapters and chapters.is_dir() and not any(chapters.iterdir()):
            chapters.rmdir()


def _read_project(project: Path, lang: str) -> ProjectSettings:
    ini_path = project / "config.ini"
    if not ini_path.is_file():
        raise ImportRefused(f"{project} has no config.ini: not a d2lbook project")
    try:
        return read_settings(read_ini(ini_path), lang)
    except IniError as exc:
        raise ImportRefused(diagnostics=exc.diagnostics) from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportRefused(
            diagnostics=[Diagnostic.make(str(path), 1, Code.IMPORT_CONF, f"cannot read: {exc}")]
        ) from None


def _edit(text: str, merged: Merged, conf_path: Path) -> tuple[str, list[Change]]:
    try:
        return edit_conf(text, merged.top, merged.polybook, str(conf_path), merged.marks)
    except ConfEditError as exc:
        raise ImportRefused(diagnostics=exc.diagnostics) from None


def _check_places(project: Path, conf_path: Path, destination: Path) -> None:
    """The project is only read: nothing may be written inside it, nor may it be replaced."""
    source = project.resolve()
    for written in (conf_path, destination):
        if written.resolve().is_relative_to(source):
            raise ImportRefused(f"{written} lies inside {project}: the project is never changed; run elsewhere")
    if source.is_relative_to(destination.resolve()):
        raise ImportRefused(f"{project} lies inside {destination}, which the import would replace")


def _validate(text: str, conf_path: Path) -> None:
    """Read ``text`` as polybook will read conf.py (it must be beside conf.py for the paths)."""
    fd, candidate = tempfile.mkstemp(prefix=f".{conf_path.name}.import-", suffix=".py", dir=conf_path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        load_config(Path(candidate))
    except ConfigError as exc:
        problems = [replace(d, path=str(conf_path)) if d.path == candidate else d for d in exc.diagnostics]
        raise ImportRefused(
            "the conf.py this import would write is not valid; nothing was changed:", problems
        ) from None
    finally:
        Path(candidate).unlink(missing_ok=True)


def _commit(conf_path: Path, old_text: str | None, new_text: str, fresh: Path, destination: Path) -> None:
    """Write conf.py, then swap the language folder in; a failed swap puts conf.py back."""
    atomic_write(conf_path, new_text)
    if old_text is None:  # a new book: what it builds is not to be committed
        ignore_build(conf_path.parent)
    try:
        replace_folder(fresh, destination)
    except BaseException:
        if old_text is None:
            conf_path.unlink(missing_ok=True)
        else:
            atomic_write(conf_path, old_text)
        raise
