"""Sphinx's own state, as a build the disk (or a kill) stopped left it, found before the next
build and built again -- so that the next build equals a cold one.

Sphinx writes its state in place, not atomically: a full disk leaves an empty compiled
catalogue (``.mo``: newer than its ``.po``, never compiled again, the theme speaks English
from then on), an empty ``.buildinfo`` (every later build crashes on it with an
``IndexError``), a truncated ``environment.pickle``, and pages half written but newer than
their sources. :func:`repair` looks at what is cheap to look at on every build -- the
catalogues, ``.buildinfo``, the environment's first and last bytes -- and, when the last
Sphinx run of the language did not finish (:mod:`polybook.stage.interrupted` marks a run from
before it starts until its stamp is written), has every document read and every page written
again.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.files import atomic_write, display_path
from polybook.stage import interrupted

BUILDINFO = ".buildinfo"
ENVIRONMENT = "environment.pickle"
_BUILDINFO_VERSION = "# Sphinx build info version 1"
#: A ``.buildinfo`` no configuration matches: Sphinx writes every page again (keeping this one
#: as ``.buildinfo.bak``, which is never published).
STALE_BUILDINFO = (
    f"{_BUILDINFO_VERSION}\n# polybook: the last build of these pages did not finish: all are written again\n"
    "config: \ntags: \n"
)


@dataclass(slots=True)
class Repair:
    """What :func:`repair` found and did: ``fresh``, the environment is to be made anew."""

    fresh: bool = False
    notes: list[str] = field(default_factory=list)


def repair(outdir: Path, doctreedir: Path, locale_dirs: Iterable[Path], workdir: Path) -> Repair:
    """Make Sphinx's state in ``outdir`` (the pages), ``doctreedir`` and ``locale_dirs`` safe to
    build on; ``workdir`` (``build/.sphinx/<lang>``) says whether its last run finished."""
    done = Repair(notes=repair_catalogs(locale_dirs))
    finished = not interrupted.running(workdir)
    buildinfo = outdir / BUILDINFO
    if buildinfo.is_file() and not (finished and buildinfo_readable(buildinfo)):
        atomic_write(buildinfo, STALE_BUILDINFO)
        why = "left it damaged" if finished else "did not finish"
        done.notes.append(f"the last build of {display_path(outdir)} {why}: every page is written again")
    environment = doctreedir / ENVIRONMENT
    if environment.is_file() and not (finished and pickle_complete(environment)):
        environment.unlink(missing_ok=True)
        done.fresh = True
        done.notes.append(f"{display_path(environment)} cannot be trusted: every document is read again")
    return done


def locale_dirs(root: Path, overrides: dict[str, Any], sphinx: dict[str, Any]) -> list[Path]:
    """The folders Sphinx compiles catalogues in for a build with ``overrides`` of the book at
    ``root`` whose conf.py sets ``sphinx`` (Sphinx's default: ``locales``)."""
    return [root / folder for folder in overrides.get("locale_dirs") or sphinx.get("locale_dirs") or ["locales"]]


def repair_catalogs(locale_dirs: Iterable[Path]) -> list[str]:
    """Remove the compiled catalogues that do not read (Sphinx compiles a missing one from its
    ``.po``; an empty one newer than its ``.po`` it never compiles again); what was removed."""
    notes = []
    for catalog in damaged_catalogs(locale_dirs):
        catalog.unlink(missing_ok=True)
        notes.append(f"{display_path(catalog)} was damaged: compiled again")
    return notes


def damaged_catalogs(locale_dirs: Iterable[Path]) -> list[Path]:
    """The compiled catalogues (``.mo`` beside their ``.po``) below ``locale_dirs`` that do not read."""
    found = []
    for folder in locale_dirs:
        for root, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".mo") and name[:-3] + ".po" in names:
                    path = Path(root) / name
                    if not catalog_readable(path):
                        found.append(path)
    return found


def catalog_readable(path: Path) -> bool:
    """Whether ``path`` reads as a compiled gettext catalogue (an empty or cut one does not)."""
    try:
        with path.open("rb") as handle:
            gettext.GNUTranslations(handle)
    except Exception:  # OSError (bad magic number), struct.error, UnicodeDecodeError...: damaged
        return False
    return True


def buildinfo_readable(path: Path) -> bool:
    """Whether Sphinx reads ``.buildinfo`` (its ``BuildInfo.load`` raises ``IndexError`` on a short one)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return (
        len(lines) >= 4
        and lines[0].rstrip() == _BUILDINFO_VERSION
        and lines[2].startswith("config: ")
        and lines[3].startswith("tags: ")
    )


def pickle_complete(path: Path) -> bool:
    """Whether ``path`` looks like a whole pickle: it opens with the protocol opcode and ends with
    STOP (a file the disk cut short does not), read without unpickling its megabytes."""
    try:
        with path.open("rb") as handle:
            first = handle.read(1)
            handle.seek(-1, os.SEEK_END)
            last = handle.read(1)
    except OSError:
        return False
    return first == b"\x80" and last == b"."
