"""Raw HTML a translation adds that would run on its page: ``html.active`` errors.

The site cleans every translation's raw HTML (:mod:`polybook.stage.safe_html`), so nothing a
translation writes runs there; the check tells the translator and the reviewer of a pull request
first, at the line: a ``<script>``, an event handler (``onerror=``), a ``javascript:`` URL, a
frame, an object, a form, a style. What the source writes the same, piece for piece, is the
source's and not said again.
"""

from __future__ import annotations

import re
from collections import Counter

from polybook.check.findings import Finding, Location
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document
from polybook.dialect.raw_html import RawHtml, active_parts, raw_html

_SPACES = re.compile(r"\s+")
#: What to do about it: said by every finding.
ADVICE = (
    "the site takes it out of a translation's page; remove it, and write what it shows in Markdown (a link, "
    "an image) or ask for it in the source"
)


def _same(piece: RawHtml) -> str:
    return _SPACES.sub(" ", piece.html).strip()


def check_raw_html(lang: str, name: str, source: Document, translation: Document) -> list[Finding]:
    """An ``html.active`` error for each active part of the translation's raw HTML whose piece
    (a block, a tag, an eval_rst raw block) the source does not write as it is."""
    pieces = [piece for piece in raw_html(translation) if active_parts(piece.html)]
    if not pieces:
        return []
    theirs = Counter(_same(piece) for piece in raw_html(source))
    out = []
    for piece in pieces:
        same = _same(piece)
        if theirs[same] > 0:
            theirs[same] -= 1
            continue
        for part in active_parts(piece.html):
            where = Location(translation.path, piece.line + part.offset)
            message = f"raw HTML {part.what} the source has not here: {ADVICE}"
            out.append(
                Finding.make(Code.HTML_ACTIVE, message, lang, name, where, subject=(f"{part.what} in {same}", ""))
            )
    return out
