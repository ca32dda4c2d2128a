"""``polybook import d2lbook PATH --lang en --as-base``: an older edition of the source, held by
the book as what its translations were made from.

d2l's translations were made from its 0.17 edition while the English book moved to 1.0: each
translation is checked against the edition it follows (:mod:`polybook.check.bases`), and what
the source changed since is a migration plan, not a list of mistakes. The import copies the
project's documents (its ``notebooks`` less its ``exclusions``, as a language import selects
them; no resources: only the text is compared) into ``editions/<lang>-<edition>/`` beside
conf.py, records the folder in conf.py's ``editions``, and makes every translation that
follows no edition yet follow this one (said, so it can be changed). The edition's name is the
project's ``release`` unless ``--edition`` gives one. Atomic like a language import: conf.py is
validated first, the folder swapped in last; the project is only read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from polybook.config import find_config, load_config
from polybook.importer.confpy import Change, ConfEditError, edit_conf, read_book_settings
from polybook.importer.ini import IniError, read_ini
from polybook.importer.mapping import read_settings
from polybook.importer.tree import assemble, select_files

EDITIONS_DIR = "editions"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(slots=True)
class EditionResult:
    project: Path
    lang: str
    edition: str
    destination: Path
    replaced: bool
    documents: int
    changes: list[Change] = field(default_factory=list)
    followers: list[str] = field(default_factory=list)  # translations that now follow it

    def report(self) -> list[str]:
        lines = [
            f"imported {self.project} as edition {self.edition} of {self.lang} into {self.destination}"
            + (" (replacing the earlier copy)" if self.replaced else ""),
            f"  Markdown: {self.documents} document(s) copied",
            f"  conf.py: {len(self.changes)} change(s)",
            *(f"  {change.format()}" for change in self.changes),
        ]
        if self.followers:
            lines.append(
                f"  {', '.join(self.followers)} now follow {self.edition}: each is checked against it, and what "
                f"the source changed since is said as a migration plan (polybook.languages.X.base)"
            )
        return lines


def import_edition(
    project: Path, lang: str, edition: str | None, conf: Path | None, force: bool, cwd: Path | None = None
) -> EditionResult:
    """Copy ``project`` into the book as edition ``edition`` (default: its release) of ``lang``,
    which must be the book's source language."""
    from polybook.importer.d2lbook import ImportRefused, _check_places, _commit, _staging, _validate

    conf_path = (conf or find_config(cwd or Path.cwd()) or Path()).absolute()
    if not conf_path.is_file():
        raise ImportRefused("an edition is imported into a book: run it where the book's conf.py is (or --conf)")
    config = load_config(conf_path)
    if lang != config.source_language:
        raise ImportRefused(
            f"--as-base imports an edition of the source language ({config.source_language}), not {lang}"
        )
    try:
        settings = read_settings(read_ini(project / "config.ini"), lang)
    except IniError as exc:
        raise ImportRefused(f"{project} is not a d2lbook project:", exc.diagnostics) from None
    except OSError as exc:
        raise ImportRefused(f"{project} is not a d2lbook project: {exc}") from None
    name = edition or settings.sphinx.get("release")
    if not name or not _SAFE_NAME.match(name):
        raise ImportRefused(f"name the edition with --edition (config.ini gives {name!r}: not a name like 'v0.17.6')")
    relative = f"{EDITIONS_DIR}/{lang}-{name}"
    destination = conf_path.parent / relative
    _check_places(project, conf_path, destination)
    if destination.exists() and not force:
        raise ImportRefused(f"{destination} exists: pass --force to replace it with this import")
    selection = select_files(project, settings)
    selection.origins, selection.resources, selection.static = [], [], []
    text = conf_path.read_text(encoding="utf-8")
    try:
        book = read_book_settings(text, str(conf_path))
    except ConfEditError as exc:
        raise ImportRefused(diagnostics=exc.diagnostics) from None
    languages = (book.polybook or {}).get("languages") or {}
    followers = [other for other in config.translations if not isinstance(languages.get(other), dict) or
                 "base" not in languages[other]]  # fmt: skip
    entry: dict[str, object] = {"folder": relative}
    if settings.tabs:  # read with its own tabs: d2l-en 0.17's untagged cells are MXNet's
        entry |= {"frameworks": list(settings.tabs), "default_tab": settings.tabs[0]}
    wanted = {"editions": {name: entry}, "languages": {other: {"base": name} for other in followers}}
    try:
        new_text, changes = edit_conf(text, {}, wanted, str(conf_path))
    except ConfEditError as exc:
        raise ImportRefused(diagnostics=exc.diagnostics) from None
    destination.parent.mkdir(parents=True, exist_ok=True)
    result = EditionResult(project, lang, name, destination, destination.exists(), len(selection.documents))
    with _staging(destination.parent, destination.name) as fresh:
        assemble(project, selection, fresh)
        _validate_with(new_text, conf_path, destination, fresh, _validate)
        _commit(conf_path, text, new_text, fresh, destination)
    result.changes, result.followers = changes, followers
    return result


def _validate_with(text: str, conf_path: Path, destination: Path, fresh: Path, validate: object) -> None:
    """conf.py as it will be read, once the edition's folder is where it names (it must exist)."""
    made = not destination.exists()
    if made:
        destination.symlink_to(fresh, target_is_directory=True)
    try:
        validate(text, conf_path)  # type: ignore[operator]
    finally:
        if made:
            destination.unlink()
