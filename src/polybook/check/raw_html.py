"""Raw HTML (eval_rst, a formula) a translation adds that would run on its page: ``html.active``.

The site cleans every translation's raw HTML (:mod:`polybook.stage.safe_html`), so nothing a
translation writes runs there; the check tells the translator and the reviewer of a pull request
first, at the line: a ``<script>``, an event handler (``onerror=``), a ``javascript:`` URL, a
frame, an object, a form, a style; in eval_rst, a link to a ``javascript:`` URL or a ``.. meta::``
redirect; in a formula, a ``\\href{javascript:…}``. What the source writes the same, piece for
piece, is the source's and not said again.
"""

from __future__ import annotations

import re
from collections import Counter

from polybook.check.findings import Finding, Location
from polybook.diagnostics import Code
from polybook.dialect.nodes import DisplayMath, Document, EvalRst, Node
from polybook.dialect.raw_html import Active, active_parts, math_links, raw_html

_SPACES = re.compile(r"\s+")
#: What to do about it: said by every finding.
ADVICE = (
    "the site takes it out of a translation's page; remove it, and write what it shows in Markdown (a link, "
    "an image) or ask for it in the source"
)


#: reStructuredText that puts a script URL or a redirect on the page: an embedded URI or a target
#: (`` `x <javascript:…>`_ ``, ``.. _x: javascript:…``, ``:target: javascript:…``), a ``.. meta::``
#: ``:http-equiv=refresh:``.
_RST_ACTIVE = re.compile(
    r"(?:<|^\s*\.\.\s+_[^:\n]*:\s*|:target:\s*)\s*(?P<url>(?:javascript|vbscript|data):)|^\s*:(?P<meta>http-equiv)",
    re.IGNORECASE | re.MULTILINE,
)


def _same(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _active(doc: Document) -> list[tuple[str, int, list[Active], str]]:
    """``(text, line, active parts, what it is)`` of each piece of ``doc`` that has some: raw HTML,
    and eval_rst lines with a script URL or a redirect (which the site takes out too)."""
    out = [
        (piece.html, piece.line, parts, "raw HTML") for piece in raw_html(doc) if (parts := active_parts(piece.html))
    ]
    for node in doc.walk():
        for tex, line in _formulas(node):
            out += [(tex, line, [Active(f"formula link to `{scheme}:`", 0)], "math") for scheme in math_links(tex)]
        if isinstance(node, EvalRst):
            for offset, line in enumerate(node.source.split("\n")):
                for m in _RST_ACTIVE.finditer(line):
                    what = f"link to `{m['url']}`" if m["url"] else "`.. meta:: :http-equiv:` (a redirect)"
                    out.append((line, node.line + 1 + offset, [Active(what, 0)], "eval_rst"))
    return out


def _formulas(node: Node) -> list[tuple[str, int]]:
    if isinstance(node, DisplayMath):
        return [(node.tex, node.line)]
    inlines = getattr(node, "inlines", ())
    return [(inline.value, inline.line) for inline in inlines if inline.kind == "math"]


def check_raw_html(lang: str, name: str, source: Document, translation: Document) -> list[Finding]:
    """An ``html.active`` error for each active part of the translation's raw HTML (or eval_rst)
    whose piece (a block, a tag, an eval_rst raw block or line) the source does not write as it is."""
    pieces = _active(translation)
    if not pieces:
        return []
    theirs = Counter(_same(text) for text, _, _, _ in _active(source))
    out = []
    for text, line, parts, kind in pieces:
        same = _same(text)
        if theirs[same] > 0:
            theirs[same] -= 1
            continue
        for part in parts:
            where = Location(translation.path, line + part.offset)
            message = f"{kind} {part.what} the source has not here: {ADVICE}"
            out.append(
                Finding.make(Code.HTML_ACTIVE, message, lang, name, where, subject=(f"{part.what} in {same}", ""))
            )
    return out
