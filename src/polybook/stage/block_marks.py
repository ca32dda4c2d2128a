"""What a reader sees of the marks a port (and ``polybook translate``) leaves in a translation:
one notice a page, the detail where it is.

A page with blocks not translated yet, translated from an older source text, to review or drafted
by a machine says so once, under its title, with how many of each (:func:`page_notice`); a page
that is wholly the source's text says that instead. Each marked block carries a small mark
(:func:`mark_html`): a label, which for a stale block opens -- ``<details>``, no script -- onto the
source's text now and the words that changed since the translation was made, and for a block to
review onto the source's text. A block not translated yet shows the source's text itself; a
draft's mark says only that it is one. The HTML site and the notebooks show these marks; the PDF
typesets a marked block once, plainly, under the one notice.
"""

from __future__ import annotations

import html
import re
from collections import Counter

from polybook.check.word_diff import Step, word_runs
from polybook.dialect.marks import Mark, MarkKind, document_mark, marked
from polybook.dialect.nodes import Document
from polybook.stage.i18n import text

#: The class of what holds a block's mark on the site (the search index skips it: the source's
#: text is not the page's).
BLOCK_MARK = "polybook-block-mark"
PAGE_NOTICE = "polybook-page-notice"
#: The kinds of marks a reader is told of, in the order the notice counts them (an aside is for
#: translators: never shown).
SHOWN = (MarkKind.UNTRANSLATED, MarkKind.STALE, MarkKind.REVIEW, MarkKind.DRAFT)


def block_counts(doc: Document) -> Counter[MarkKind]:
    """How many blocks each kind of mark stands before."""
    return Counter(mark.kind for mark in marked(doc).values() if mark.kind in SHOWN)


def page_notice(lang: str, doc: Document) -> tuple[str, str] | None:
    """The page's one notice, ``(class, text)``: wholly the source's text, or how many blocks are
    behind it and how; None when nothing is."""
    if document_mark(doc) is not None:
        return "polybook-untranslated", text(lang, "untranslated_page")
    counts = block_counts(doc)
    if not counts:
        return None
    parts = [text(lang, f"marked_{kind}", n=str(counts[kind])) for kind in SHOWN if counts[kind]]
    return PAGE_NOTICE, text(lang, "marked_page", parts=text(lang, "marked_separator").join(parts))


def mark_html(lang: str, mark: Mark) -> str | None:
    """A block's small mark, as one line of HTML (no blank line: it stays one HTML block in a
    notebook's Markdown too); None for a mark readers are not shown."""
    if mark.kind not in SHOWN or mark.document:
        return None
    label = html.escape(text(lang, f"mark_{mark.kind}"))
    classes = f"polybook-mark polybook-mark-{mark.kind}"
    if mark.kind not in (MarkKind.STALE, MarkKind.REVIEW):
        return f'<div class="{classes}"><small class="polybook-mark-label">{label}</small></div>'
    body = [_titled(lang, "mark_source_now", _text(mark.text))]
    if mark.kind is MarkKind.STALE and mark.was is not None:
        body.append(_titled(lang, "mark_changes", _diff(mark.was, mark.text)))
    return (
        f'<div class="{classes}"><details><summary><small class="polybook-mark-label">{label}</small></summary>'
        f'<div class="polybook-mark-body {_NO_MATH}">{"".join(body)}</div></details></div>'
    )


def _titled(lang: str, key: str, inner: str) -> str:
    return f'<p class="polybook-mark-title">{html.escape(text(lang, key))}</p>{inner}'


def _text(source: str) -> str:
    """The source's Markdown as written, a paragraph's lines joined (d2l writes a line a clause),
    a list's or a table's kept (``&#10;``: the HTML stays one line)."""
    paragraphs = [part if _LINED.search(part) else " ".join(part.split("\n")) for part in source.split("\n\n")]
    shown = _escaped("\n\n".join(paragraphs))
    return f'<div class="polybook-mark-text" style="white-space:pre-wrap">{shown}</div>'


#: A line that starts a list item, a table row, a quote or a heading: its lines stay apart.
_LINED = re.compile(r"^[ \t]*(?:[-*+>|#]|\d+[.)])", re.M)


def _diff(then: str, now: str) -> str:
    """The words of ``now`` with those removed since ``then`` struck out and those added underlined."""
    parts = []
    for run in word_runs(then, now):
        words = _escaped(run.text)
        parts.append(words if run.step is Step.SAME else f"<{_TAGS[run.step]}>{words}</{_TAGS[run.step]}>")
    return f'<div class="polybook-mark-diff">{" ".join(parts)}</div>'


_TAGS = {Step.GONE: "del", Step.ADDED: "ins"}
_NO_MATH = "tex2jax_ignore mathjax_ignore"  # the source's ``$x$`` shown as written, not typeset


def _escaped(words: str) -> str:
    return html.escape(words).replace("\n", "&#10;")
