"""The translation-status page: a fixed frame for Sphinx, its tables filled in afterwards.

The page's content -- ``polybook check``'s findings and git's commit counts, from
:mod:`polybook.site.status` -- changes with every edit of any language. Staged as a
document it would enter every language's digest, and one edit of the source prose would
rebuild all of them. So Sphinx sees only the frame (title, explanation, an empty slot
with a fixed id), which never changes, and :func:`fill` writes the tables into the built
page after Sphinx, or into the page already there when the language is up to date.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from polybook.files import atomic_write
from polybook.stage.i18n import text

#: The status page's docname in every language (a chapter of that name would hide it).
DOCNAME = "polybook-status"

SLOT_ID = "polybook-status-content"
_START, _END = "<!-- polybook-status -->", "<!-- /polybook-status -->"
_SLOT_RE = re.compile(re.escape(_START) + ".*?" + re.escape(_END), re.DOTALL)


def intro(lang: str, source_name: str) -> str:
    return f"<p>{html.escape(text(lang, 'status_intro', source=source_name))}</p>"


def frame(lang: str, source_name: str) -> str:
    """The MyST Sphinx builds: the same on every run, so it never rebuilds a language."""
    title = text(lang, "status")
    # orphan: the page is in no toctree; the sidebar links it (polybook-toc.html).
    return (
        f"---\norphan: true\n---\n\n# {title}\n\n```{{raw}} html\n{intro(lang, source_name)}\n"
        f'<div id="{SLOT_ID}">{_START}{_END}</div>\n```\n'
    )


def fill(page: Path, content: str) -> bool:
    """Put ``content`` into the slot of a built page; False when the page has no slot."""
    try:
        built = page.read_text(encoding="utf-8")
    except OSError:
        return False
    if not _SLOT_RE.search(built):
        return False
    filled = _SLOT_RE.sub(lambda m: f"{_START}\n{content}\n{_END}", built, count=1)
    if filled != built:
        atomic_write(page, filled)  # never half a page: the next fill would find no slot in it
    return True
