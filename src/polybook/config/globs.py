"""conf.py's ``exclusions`` as one regular expression of the relative paths they match.

``BookConfig.excluded`` asks pathlib's glob, which walks a language's folder once per pattern
(bookmix: 8 patterns, 5 languages, 18 ms before every check could start its workers); the
listing of a language's documents walks it anyway, and asks this of each file instead. By
hand because Python 3.11 has no glob-to-regex translation (``glob.translate`` is 3.13's) and
``fnmatch.translate`` lets ``*`` cross folders. Only what reads plainly is translated: a
pattern with a character class, ``..``, an absolute path or ``**`` inside a name gives None,
and the caller asks pathlib as before (tests/test_config.py compares the two).
"""

from __future__ import annotations

import functools
import os
import re

_PLAIN = re.compile(r"[^\[\]]*")  # no character class


@functools.lru_cache(maxsize=32)
def exclusion_regex(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """A regex whose ``fullmatch`` of a file's path (relative to a language folder, ``/``
    between folders) says whether one of ``patterns`` matches it as ``Path.glob`` does; None
    when a pattern is beyond this translation (see above)."""
    alternatives = []
    for pattern in patterns:
        found = _translate(pattern)
        if found is None:
            return None
        if found:
            alternatives.append(found)
    if not alternatives:
        return re.compile(r"(?!)")  # matches nothing
    flags = re.IGNORECASE if os.path.normcase("A") == "a" else 0
    return re.compile("|".join(f"(?:{a})" for a in alternatives), flags)


def _translate(pattern: str) -> str | None:
    """One pattern's regex ("" when it matches no file: it ends in ``**``, which matches folders)."""
    if pattern.startswith("/") or not _PLAIN.fullmatch(pattern):
        return None
    parts = [part for part in pattern.split("/") if part not in ("", ".")]  # as pathlib parses it
    if not parts or any(part == ".." or ("**" in part and part != "**") for part in parts):
        return None
    if parts[-1] == "**":
        return ""
    out = []
    for part in parts[:-1]:
        out.append("(?:[^/]+/)*" if part == "**" else _component(part) + "/")
    return "".join(out) + _component(parts[-1])


def _component(part: str) -> str:
    """One path component's pattern: ``*`` and ``?`` stay inside it."""
    return "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
