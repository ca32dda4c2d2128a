"""Prose as written in the dialect -> MyST: roles, image and link targets, code spans untouched.

The dialect's prose nodes keep their raw Markdown. Only a few things differ from MyST in
it: d2lbook's roles (``:numref:`x``` -> ``{numref}`x```), and the paths of images and
local links, which are made relative to the staged source folder -- or refused, when
they leave the book (the resolver returns None and the image or link becomes its text).
Code spans are skipped, so ``:ref:`` written inside backticks stays literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from polybook.dialect.slides import strip_slide_marks

# One alternation, scanned left to right: a code span is consumed whole before a role, an
# image or a link inside it could match. Link text may hold one level of brackets
# (``[a[0]](x)``) and images (``[![logo](a.png)](b)``).
_INLINE_RE = re.compile(
    r"(?P<code>(?P<ticks>`+)(?:(?!(?P=ticks)).)+?(?P=ticks))"
    r"|:(?P<role>[A-Za-z][\w-]*):`(?P<target>[^`\n]+)`"
    r"|!\[(?P<alt>[^\]\n]*)\]\((?P<src>[^)\s]+)(?P<image_title>\s+\"[^\"\n]*\")?\)"
    r"|(?<!!)\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]*\](?:\([^)\s]*\))?)*)\]\((?P<href>[^)\s]+)(?P<link_title>\s+\"[^\"\n]*\")?\)",
    re.DOTALL,
)

#: d2lbook role -> MyST role (None: the role needs a bibliography, see ``cite``).
ROLES = {"numref": "numref", "ref": "ref", "eqref": "eq", "cite": "cite:p", "citet": "cite:t"}

#: ``resolve(target)`` -> the target to write in MyST, or None to render the image or link as
#: its text (a path that leaves the book).
Resolver = Callable[[str], "str | None"]


def convert(
    source: str,
    image: Resolver | None = None,
    cite: Callable[[str, str], str] | None = None,
    link: Resolver | None = None,
    role: Callable[[str, str], str | None] | None = None,
) -> str:
    """``source`` with d2lbook roles as MyST roles; ``image(src)`` and ``link(href)`` rewrite
    targets, ``cite(role, keys)`` replaces citations (e.g. when no bibliography is configured),
    ``role(name, target)`` any role (None: as above; a notebook writes links instead).
    Slide marks are taken out as the book shows them (:mod:`polybook.dialect.slides`)."""

    def replace(m: re.Match[str]) -> str:
        if m["code"]:
            return m["code"]
        if m["src"] is not None:
            src = image(m["src"]) if image else m["src"]
            if src is None:  # refused: its alt text; a remote image (in a PDF) a link to it
                return f"[{m['alt']}]({m['src']})" if "://" in m["src"] and m["alt"] else m["alt"]
            return f"![{m['alt']}]({src}{m['image_title'] or ''})"
        if m["href"] is not None:
            inner = convert(m["text"], image, cite, link, role)
            href = link(m["href"]) if link else m["href"]
            if href is None:
                return inner
            return f"[{inner}]({href}{m['link_title'] or ''})"
        name, target = m["role"], m["target"]
        if role is not None and (replaced := role(name, target)) is not None:
            return replaced
        if name in ("cite", "citet") and cite is not None:
            return cite(name, target)
        if name in ROLES:
            return f"{{{ROLES[name]}}}`{target}`"
        return m[0]

    return _INLINE_RE.sub(replace, strip_slide_marks(source))


def fence(body: str, char: str = "`") -> str:
    """A fence longer than any run of ``char`` in ``body`` (at least three)."""
    longest = max((len(run) for run in re.findall(f"{re.escape(char)}+", body)), default=0)
    return char * max(3, longest + 1)
