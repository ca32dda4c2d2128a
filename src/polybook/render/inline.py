"""Prose as written in the dialect -> MyST: roles and image paths, code spans untouched.

The dialect's prose nodes keep their raw Markdown. Only two things differ from MyST in it:
d2lbook's roles (``:numref:`x``` -> ``{numref}`x```) and image paths, which are made
relative to the staged source folder. Code spans are skipped, so ``:ref:`` written inside
backticks stays literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# One alternation, scanned left to right: a code span is consumed whole before a role or
# an image inside it could match.
_INLINE_RE = re.compile(
    r"(?P<code>(?P<ticks>`+)(?:(?!(?P=ticks)).)+?(?P=ticks))"
    r"|:(?P<role>[A-Za-z][\w-]*):`(?P<target>[^`\n]+)`"
    r"|(?P<image>!\[[^\]\n]*\]\()(?P<src>[^)\s]+)",
    re.DOTALL,
)

#: d2lbook role -> MyST role (None: the role needs a bibliography, see ``cite``).
ROLES = {"numref": "numref", "ref": "ref", "eqref": "eq", "cite": "cite:p", "citet": "cite:t"}


def convert(
    source: str,
    image: Callable[[str], str] | None = None,
    cite: Callable[[str, str], str] | None = None,
) -> str:
    """``source`` with d2lbook roles as MyST roles; ``image(src)`` rewrites image paths,
    ``cite(role, keys)`` replaces citations (e.g. when no bibliography is configured)."""

    def replace(m: re.Match[str]) -> str:
        if m["code"]:
            return m["code"]
        if m["image"]:
            return m["image"] + (image(m["src"]) if image else m["src"])
        name, target = m["role"], m["target"]
        if name in ("cite", "citet") and cite is not None:
            return cite(name, target)
        if name in ROLES:
            return f"{{{ROLES[name]}}}`{target}`"
        return m[0]

    return _INLINE_RE.sub(replace, source)


def fence(body: str, char: str = "`") -> str:
    """A fence longer than any run of ``char`` in ``body`` (at least three)."""
    longest = max((len(run) for run in re.findall(f"{re.escape(char)}+", body)), default=0)
    return char * max(3, longest + 1)
