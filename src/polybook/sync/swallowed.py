"""A heading that swallowed its paragraph, split the one way its base's structure shows.

A translator's tool that lost the blank line after a heading writes heading and paragraph as
one line -- ``## ポアソンさっそく思考実験をしてみよう。...`` for 0.17's ``## Poisson`` and the
paragraph below it (46 in d2l-ja). Kept whole, the page shows the paragraph as a heading and,
below it, the source's paragraph untranslated. The base says what the line holds: a heading
and the block after it. Where the line shows where the title ends -- a list's first mark
(``## まとめ * ...`` before a list) or a space soon after a title as long as the base's
(``## Gaussian さて、...``) -- the heading is split there; where it does not (Japanese writes no
space between them), the title cannot be told from the paragraph: the heading is the base's
again, marked untranslated, and the whole text is the paragraph's translation behind a review
mark holding the base's paragraph (its translator is shown both). Nothing is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from polybook.dialect.marks import MarkKind, holding, untranslated
from polybook.dialect.nodes import Block, Document, Heading, Node, Paragraph

#: Longer than this many times the base's title (and than :data:`_LONG` characters): a title
#: holding more than a title.
_TIMES = 3
_LONG = 40
_LIST_MARK = re.compile(r"\s+(?=(?:[*+-]|\d+[.)])\s*\S)")


def swallowed(base: Document, text: str, translated: Mapping[int, Node]) -> tuple[str, int]:
    """``text`` (the translation as written) with every heading that swallowed the
    block after its base heading split, and how many did; ``translated``: base node id ->
    translation node."""
    lines = text.split("\n")
    changed = 0
    for index, old in enumerate(base.nodes[:-1]):
        mine = translated.get(id(old))
        after = base.nodes[index + 1]
        if not (isinstance(old, Heading) and isinstance(mine, Heading) and isinstance(after, (Paragraph, Block))):
            continue
        title = lines[mine.line - 1].lstrip("#").strip()
        if not _holds_more(title, old.text):
            continue
        marks = lines[mine.line - 1][: len(lines[mine.line - 1]) - len(lines[mine.line - 1].lstrip("#"))]
        at = _split_at(title, old.text, after)
        if at is not None:
            lines[mine.line - 1] = f"{marks} {title[:at].rstrip()}\n\n{title[at:].strip()}"
        else:
            own = after.source
            head = f"{untranslated()}\n{marks} {old.text}"
            lines[mine.line - 1] = f"{head}\n\n{holding(MarkKind.REVIEW, own)}\n{title}"
        changed += 1
    return ("\n".join(lines) if changed else text), changed


def _holds_more(title: str, base_title: str) -> bool:
    """Whether a translated title holds more than a title: a long one holding a sentence's end
    (``。``), or one far longer than its base's holding a sentence's end, a formula or a role
    its base does not (a short title with a stray sentence is a damaged title: set aside)."""
    if "。" in title and len(title) > _LONG:  # a Chinese or Japanese sentence, ended in a long title
        return True
    if len(title) <= max(_LONG, _TIMES * len(base_title)):
        return False
    return any(mark in title and mark not in base_title for mark in _MORE)


_MORE = ("。", ". ", "? ", "！", "？", "$", ":`")


def _split_at(title: str, base_title: str, after: Node) -> int | None:
    """Where the title ends in ``title``: before a list's first mark when a list follows, else
    at the first space after at most twice the base title's length when what is before it is
    in a script that writes spaces between words (a space in Japanese is no title's end); None
    when the line does not show it."""
    room = max(12, 2 * len(base_title))
    if isinstance(after, Block) and after.kind in ("bullet_list", "ordered_list", "list"):
        found = _LIST_MARK.search(title)
        if found and 0 < found.start() <= room:
            return found.start()
    spaces = [m.start() for m in re.finditer(r"\s", title)]
    first = next((k for k in spaces if k > 0), None)
    if first is None or first > room or len(title[:first].split()) > len(base_title.split()) + 2:
        return None
    return first if not _WITHOUT_SPACES.search(title[:first]) else None


#: Scripts written without spaces between words: a space there is no title's end.
_WITHOUT_SPACES = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
