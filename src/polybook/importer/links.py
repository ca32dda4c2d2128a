"""Links a language has its own of, found when it is imported: conf.py's ``localised_links``.

A translation often links to its own copy of a numbered page where the source links to its:
d2l-zh's discussion threads are ``https://discuss.d2l.ai/t/1745`` where d2l-en's are
``https://discuss.d2l.ai/t/26``. Compared link by link, every one of them is "missing" and
"not in the source"; as ``localised_links`` (``https://discuss.d2l.ai/t/*``) ``polybook check``
asks only that each section of the source that has one still has one. A family of numbered
links is a language's own when, in the chapters where both languages have links of it, the
translation has none of the source's in nearly all of them -- a consistent habit, not a slip
(a translation that copies the source's threads, as d2l-ja does, shares them and is compared
link by link).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_LINK = re.compile(r"\]\(\s*<?(https?://[^)\s>]+)")
_NUMBERED = re.compile(r"^(https?://[^?#]*/)\d+/?$")
_ORIGIN = "_origin.md"
MIN_CHAPTERS = 3  # fewer chapters with links of a family on both sides are no habit
SHARE = 0.8  # the translation has its own links (none of the source's) in this share of them


@dataclass(frozen=True, slots=True)
class OwnLinks:
    """A family of numbered links (``https://discuss.d2l.ai/t/*``) and in how many of the
    chapters where both languages have links of it the translation's are all its own."""

    pattern: str
    own: int
    chapters: int

    def note(self, lang: str, source: str) -> str:
        return (
            f"links like {self.pattern} are {lang}'s own (none of {source}'s in {self.own} of {self.chapters} "
            f"chapters): polybook.localised_links, so check asks for one per section"
        )


def family(url: str) -> str | None:
    """The glob of a numbered link's family: ``https://x.org/t/26`` -> ``https://x.org/t/*``."""
    found = _NUMBERED.match(url)
    return f"{found[1]}*" if found else None


def _families(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for url in _LINK.findall(text):
        if (glob := family(url)) is not None:
            out.setdefault(glob, set()).add(url.rstrip("/"))
    return out


def documents(folder: Path, exclusions: Iterable[str] = ()) -> dict[str, Path]:
    """The Markdown documents of a language folder by relative path: not ``X_origin.md``, not
    what ``exclusions`` match (globs as conf.py's)."""
    excluded = {p for pattern in exclusions for p in folder.glob(pattern)}
    return {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*.md"))
        if not path.name.endswith(_ORIGIN)
        and path not in excluded
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    }


def own_links(source: dict[str, Path], translation: dict[str, Path]) -> list[OwnLinks]:
    """The families of numbered links the translation has its own of (see the module's text)."""
    counts: dict[str, list[int]] = {}  # glob -> [chapters where all are its own, chapters with both]
    for name in sorted(source.keys() & translation.keys()):
        mine = _families(_read(source[name]))
        theirs = _families(_read(translation[name]))
        for glob in mine.keys() & theirs.keys():
            seen = counts.setdefault(glob, [0, 0])
            seen[1] += 1
            seen[0] += not (mine[glob] & theirs[glob])
    return [
        OwnLinks(glob, own, both)
        for glob, (own, both) in sorted(counts.items())
        if both >= MIN_CHAPTERS and own >= SHARE * both
    ]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def add_own_links(polybook: dict, chapters: Path, lang: str, fresh: Path) -> list[str]:
    """Add to ``polybook["localised_links"]`` the families a translation has its own of: the
    language being imported (its files in ``fresh``) against the source language's folder, or --
    when it is the source -- each translation already in ``chapters`` against it. The import's
    notes, one per family added."""
    source = polybook.get("source_language")
    exclusions = list(polybook.get("exclusions") or [])
    languages = polybook.get("languages") or {}
    folder = {other: chapters / other for other in languages if other != lang}
    folder[lang] = fresh
    if source not in folder or not folder[source].is_dir():
        return []
    pairs = [lang] if lang != source else [other for other in languages if other != source and folder[other].is_dir()]
    present = list(polybook.get("localised_links") or [])
    notes = []
    source_docs = documents(folder[source], exclusions)
    for other in pairs:
        for found in own_links(source_docs, documents(folder[other], exclusions)):
            if found.pattern not in present:
                present.append(found.pattern)
                notes.append(found.note(other, source))
    if notes:
        polybook["localised_links"] = present
    return notes
