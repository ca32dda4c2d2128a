"""The roles, math, code spans and links of the text most paragraphs hold, found without
markdown-it's inline tokenizer: prose, math, code spans, roles, escapes, line breaks and plain
links, and nothing else a rule reacts to.

markdown-it's tokenizer tries every inline rule, in order, at every character that may start
one -- each ``:``, ``-``, ``=``, ``$`` or line break of the prose -- through a state whose every
push flushes pending text, and then runs the post-processing rules (emphasis pairs, link
pairs, fragments) over the tokens; a paragraph of five lines and one formula is ten tokens
(text and line breaks) the builder only counts. In text with no ``<`` or ``&`` and no emphasis where
a link can be (:func:`scannable` says which), one rule can react to each character that matters:
markdown-it's ``escape``, the dollarmath plugin's ``math_inline`` (as the dialect sets it up:
spaces and digits allowed, ``$$`` inline), the dialect's role rule and markdown-it's
``backticks``; every other character (line breaks too) stays in the text. The parser leaves
such a text's children empty, and the builder reads its pieces here (:func:`pieces`), each
where markdown-it's tokens have it, its lines counted on the text. Where the text holds a link
(a ``](``), the links and images whose label and destination hold nothing a rule reads apart
are read too (:data:`_LINK`): most are a chapter's "Discussions" link or a figure. The 1.0
book: 19,907 of the 20,763 texts with an inline element are read so, and its 1,006 chapter and
edition files were parsed in 1.22 CPU-s, 1.04 so (the text and break tokens, the builder's walk over them,
and markdown-it's inline tokenizer for every text with a link). The pieces
are what the builder makes of markdown-it's tokens, inline for inline and diagnostic for
diagnostic (tests/test_shortcuts.py compares them on generated text; markdown-it-py and
mdit-py-plugins are pinned). Written by hand because markdown-it-py's tokenizer has no way to
skip the rules that cannot match.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.common.normalize_url import validateLink
from markdown_it.utils import EnvType

from polybook.dialect.shortcuts import Scannable, emphasis_rule, image_rule, link_rule, normalized_link

#: The inline rules of the dialect's parser, in their order (markdown-it's CommonMark ones, the
#: dollarmath plugin's ``math_inline`` and the dialect's ``d2l_role``), emphasis, links and
#: images being :mod:`polybook.dialect.shortcuts`' rules: the scan stands for markdown-it's
#: tokenizer only with exactly these on.
EXPECTED_RULES = (
    "text",
    "newline",
    "math_inline",
    "escape",
    "d2l_role",
    "backticks",
    "emphasis",
    "link",
    "image",
    "autolink",
    "html_inline",
    "entity",
)
EXPECTED_POST_RULES = ("balance_pairs", "emphasis", "fragments_join")
#: What the scan stops at: the characters of its rules. A line break ends no piece: the builder
#: counts the text's lines (markdown-it makes each a break token, the indent after it no text).
_STOPS = re.compile(r"[\\$:`]")
#: The same where the text holds a link (a ``](``): the link rule's ``[`` and the image rule's ``!`` too.
_STOPS_WHERE_LINKS = re.compile(r"[\\$:`\[!]")
#: A link the scan reads: ``[label](destination)``, no character in the label that a rule
#: reacts to (nor a line break or bracket: the label is its text), none in the destination that
#: markdown-it's ``parseLinkDestination`` reads apart (spaces, parentheses, escapes, entities,
#: ``<``) or that another rule would take first (a code span's or math's). Anything else
#: between brackets leaves the text to markdown-it (:func:`scannable`).
_LINK = re.compile(r"\[([^\[\]\\`$*_<>&\n]*)\]\(([^()\s<>\\&`$\x00-\x1f\x7f]+)\)")
#: What a backslash escapes (markdown-it's ``escape`` rule): ASCII punctuation.
_ASCII_PUNCTUATION = frozenset(string.punctuation)
_ESCAPED = re.compile(r"\\(.)")
_BACKTICKS = re.compile("`+")
#: One piece of a text: its kind (role, math, code), its value (role target, TeX, code), its
#: name (a role's, a code span's backticks), and where it begins and ends in the text.
Piece = tuple[str, str, str, int, int]


def scanner(md: MarkdownIt) -> Scannable | None:
    """Whether the pieces of a text (the text, the parse's ``env``) are read by :func:`pieces`,
    for the inline rules of ``md``; None when they are not the dialect's."""
    names = md.inline.ruler.get_active_rules()
    if tuple(names) != EXPECTED_RULES or tuple(md.inline.ruler2.get_active_rules()) != EXPECTED_POST_RULES:
        return None
    rules = {rule.name: rule.fn for rule in md.inline.ruler.__rules__ if rule.enabled}  # getRules may dispatch
    if (rules["emphasis"], rules["link"], rules["image"]) != (emphasis_rule, link_rule, image_rule):
        return None  # markdown-it's own: emphasis and links where the scan takes text
    validates = getattr(md.validateLink, "__func__", None)
    if md.normalizeLink is not normalized_link or validates is not MarkdownIt.validateLink:
        return None  # the links' destinations are read as :func:`_link` reads them
    return scannable


def scannable(text: str, env: EnvType) -> bool:
    """Whether ``text`` holds nothing :func:`pieces` leaves to markdown-it: an autolink or HTML
    (``<``), an entity (``&``), and where a link can be (a ``](``, or link references in the
    document: see shortcuts.link_rule) emphasis (``*``, ``_``) or a ``[`` that does not begin
    a link :data:`_LINK` reads (so every ``[`` does)."""
    if "<" in text or "&" in text:
        return False
    if env.get("references"):
        return "[" not in text and "*" not in text and "_" not in text
    if "](" not in text:
        return True
    if "*" in text or "_" in text:
        return False
    at = text.find("[")
    while at >= 0:
        if _LINK.match(text, at) is None:
            return False
        at = text.find("[", at + 1)
    return True


def pieces(src: str, role: Callable[[str, int], re.Match[str] | None]) -> list[Piece]:
    """The roles, math, code spans, links and images of ``src`` (a text :func:`scannable`
    accepts), in order, as markdown-it's tokenizer finds them (``role``: the dialect's role
    pattern's ``match``). A link is its destination as markdown-it makes it (``name``: its
    label, which is its text)."""
    search = (_STOPS_WHERE_LINKS if "](" in src else _STOPS).search
    found: list[Piece] = []
    pos, unclosed = 0, {}  # see _code
    while (stop := search(src, pos)) is not None:
        at = stop.start()
        char = src[at]
        if char == "\\":  # markdown-it's ``escape``: the next character is text (a line break a break)
            pos = at + 2
            continue
        if char == "$":
            piece = _math(src, at)
        elif char == ":":
            piece = _role(src, at, role)
        elif char == "`":
            piece = _code(src, at, unclosed)
        elif char == "[":
            piece = _link(src, at, at, "link")
        else:  # ``!``: an image when a link follows
            piece = _link(src, at + 1, at, "image") if src.startswith("[", at + 1) else ("", "", "", at, at + 1)
        if piece[0]:
            found.append(piece)
        pos = piece[4]
    return found


def _link(src: str, at: int, begins: int, kind: str) -> Piece:
    """markdown-it's ``link`` (or ``image``) rule at the ``[`` at ``at`` (the piece beginning at
    ``begins``), for a text :func:`scannable` accepts: every ``[`` there begins a :data:`_LINK`.
    A destination markdown-it does not allow (``javascript:``) makes no link: the ``[`` stays text."""
    found = _LINK.match(src, at)
    assert found is not None
    href = normalized_link(found[2])
    if not validateLink(href):
        return "", "", "", begins, begins + 1
    return kind, href, found[1], begins, found.end()


def text_before(src: str, since: int, at: int) -> str:
    """The text markdown-it's tokens hold right before the piece at ``at`` (``since``: where the
    piece before it ends, or 0): from the last line break on (without the next line's indent),
    escapes resolved as its ``text_join`` does; "" when no text token is there."""
    begin = src.rfind("\n", since, at)
    if begin < 0:
        begin = since
    else:
        begin += 1
        while begin < at and src[begin] in " \t":
            begin += 1
    raw = src[begin:at]
    if "\\" not in raw:
        return raw
    return _ESCAPED.sub(lambda m: m[1] if m[1] in _ASCII_PUNCTUATION else m[0], raw)


def only_blank(part: str) -> bool:
    """Whether markdown-it's tokens of ``part`` of a text (from its start or the end of a piece
    to the next piece or its end) are only blank text and soft breaks: no line there ends in two
    spaces (a hard break), the indent after a line break being no text."""
    if part.strip():
        return False
    lines = part.split("\n")
    return not any((line.lstrip(" \t") if index else line).endswith("  ") for index, line in enumerate(lines[:-1]))


def _escaped(src: str, pos: int) -> bool:
    """The dollarmath plugin's test of a ``$``: an odd number of backslashes before it. Like
    the plugin, a ``$`` that the backslashes reach back to the start of the text from also
    counts the text's last character (its index -1)."""
    count, back = 0, pos
    while back >= 0:
        back -= 1
        if src[back] != "\\":
            break
        count += 1
    return count % 2 == 1


def _math(src: str, at: int) -> Piece:
    """The dollarmath plugin's ``math_inline`` at the ``$`` at ``at`` (spaces and digits
    around the dollars allowed, ``$$`` math inline): the piece, or one of no kind ending at
    ``at + 1``."""
    none = ("", "", "", at, at + 1)
    if at + 1 >= len(src) or ("\\" in src and _escaped(src, at)):
        return none
    double = src[at + 1] == "$"
    search = at + 2 if double else at + 1
    while True:
        close = src.find("$", search)
        if close < 0:
            return none
        search = close + 1
        if "\\" in src and _escaped(src, close):
            continue
        if not double:
            break
        if close + 1 >= len(src):
            return none
        if src[close + 1] == "$":
            close += 1
            break
    content = src[at + 2 : close - 1] if double else src[at + 1 : close]
    if not content:
        return none
    return "math", content, "", at, close + 1


def _role(src: str, at: int, role: Callable[[str, int], re.Match[str] | None]) -> Piece:
    """The dialect's role rule (markdown._role_rule) at the ``:`` at ``at``."""
    found = role(src, at)
    if found is None:
        return "", "", "", at, at + 1
    return "role", found["target"], found["name"], at, found.end()


def _code(src: str, at: int, unclosed: dict[int, int]) -> Piece:
    """markdown-it's ``backticks`` rule at the run of backticks at ``at``: a code span up to
    the next run as long, or no piece, ending where the run ends (it stays text). ``unclosed``:
    run length -> a place after which the text has no run that long (searched once)."""
    opening = _BACKTICKS.match(src, at)
    assert opening is not None
    after = opening.end()
    length = after - at
    if unclosed.get(length, len(src) + 1) <= after:
        return "", "", "", at, after
    for closing in _BACKTICKS.finditer(src, after):
        if closing.end() - closing.start() == length:
            content = src[after : closing.start()].replace("\n", " ")
            if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
                content = content[1:-1]
            return "code", content, src[at:after], at, closing.end()
    unclosed[length] = after
    return "", "", "", at, after
