"""markdown-it's inline tokenizer for the text most paragraphs hold: prose, math, code spans,
roles, escapes and line breaks, and nothing else a rule reacts to.

markdown-it's tokenizer tries every inline rule, in order, at every character that may start
one -- each ``:``, ``-``, ``=``, ``$`` or line break of the prose -- through a state whose every
push flushes pending text, and then runs the post-processing rules (emphasis pairs, link
pairs, fragments) over the tokens. In text whose only such characters are line breaks,
backslashes, ``$``, ``:`` and backticks, one rule can react to each: markdown-it's ``newline``
and ``escape``, the dollarmath plugin's ``math_inline`` (as the dialect sets it up: spaces and
digits allowed, ``$$`` inline), the dialect's role rule and markdown-it's ``backticks``. The
scan does what each of them does there, in one loop, and leaves every other character in the
text, as markdown-it does when no rule matches; the post-processing rules have nothing to do
(no delimiter is ever pushed, no two text tokens are ever adjacent). Where the text reaches a
character another rule reacts to (a ``<`` or ``&``, or ``[``, ``*`` and ``_`` where a link can
be) it gives up and markdown-it's tokenizer parses the text. The tokens are markdown-it's,
field for field (tests/test_shortcuts.py compares them on generated text; markdown-it-py and
mdit-py-plugins are pinned). Written by hand because markdown-it-py's tokenizer has no way to
skip the rules that cannot match.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType

from polybook.dialect.shortcuts import Scan, emphasis_rule, image_rule, link_rule, new_token

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
#: What the scan stops at: its rules' characters and those it gives up on (autolink and HTML
#: ``<``, entity ``&``); elsewhere a ``[``, ``*``, ``_`` or ``!`` stays text, as no rule matches.
_STOPS = re.compile(r"[\n\\$:`<&]")
#: The same where the text may hold a link (see shortcuts.link_rule), where the dialect's link,
#: image and emphasis rules are on.
_STOPS_WHERE_LINKS = re.compile(r"[\n\\$:`<&\[*_]")
#: What a backslash escapes (markdown-it's ``escape`` rule): ASCII punctuation.
_ASCII_PUNCTUATION = frozenset(string.punctuation)
_BACKTICKS = re.compile("`+")


def scanner(md: MarkdownIt, role: re.Pattern[str]) -> Scan | None:
    """The scan for the inline rules of ``md`` (``role``: the dialect's role pattern), or None
    when they are not the dialect's."""
    names = md.inline.ruler.get_active_rules()
    if tuple(names) != EXPECTED_RULES or tuple(md.inline.ruler2.get_active_rules()) != EXPECTED_POST_RULES:
        return None
    rules = {rule.name: rule.fn for rule in md.inline.ruler.__rules__ if rule.enabled}  # getRules may dispatch
    if (rules["emphasis"], rules["link"], rules["image"]) != (emphasis_rule, link_rule, image_rule):
        return None  # markdown-it's own: emphasis and links where the scan takes text
    return functools.partial(_scan, role=role.match)


def _scan(src: str, env: EnvType, tokens: list[Token], role: Callable[[str, int], re.Match[str] | None]) -> bool:
    """Tokenize ``src`` into ``tokens`` as markdown-it would; False (``tokens`` left empty)
    where the text needs a rule the scan does not have."""
    search = (_STOPS_WHERE_LINKS if "](" in src or env.get("references") else _STOPS).search
    end, pos, first = len(src), 0, len(tokens)
    start = 0  # where the pending text begins: it runs to the next token (characters no rule matches stay in it)
    unclosed: dict[int, int] = {}  # see _code
    while pos < end:
        found = search(src, pos)
        if found is None:
            break
        at = found.start()
        char = src[at]
        if char == "\n":
            # markdown-it's ``newline`` rule: the text before without the spaces that end it
            # (two or more make a hard break), then the break; the next line's indent is no text
            text = src[start:at]
            kept = text.rstrip(" ")
            if kept:
                tokens.append(new_token("text", "", 0, kept))
            tokens.append(new_token("hardbreak" if len(text) - len(kept) > 1 else "softbreak", "br", 0))
            pos = at + 1
            while pos < end and src[pos] in " \t":
                pos += 1
            start = pos
            continue
        if char == "\\":
            token, after = _escape(src, at)
        elif char == "$":
            token, after = _math(src, at)
        elif char == ":":
            token, after = _role(src, at, role)
        elif char == "`":
            token, after = _code(src, at, unclosed)
        else:
            del tokens[first:]
            return False
        if token is not None:
            if at > start:
                tokens.append(new_token("text", "", 0, src[start:at]))
            tokens.append(token)
            if token.tag == "br":  # an escaped line break: the next line's indent is no text
                while after < end and src[after] in " \t":
                    after += 1
            start = after
        pos = after
    if start < end:
        tokens.append(new_token("text", "", 0, src[start:]))
    return True


def _escape(src: str, at: int) -> tuple[Token | None, int]:
    """markdown-it's ``escape`` rule at the backslash at ``at``: a hard break before a line
    break, else the next character as a ``text_special`` token (itself when it is ASCII
    punctuation, else with its backslash), which markdown-it's ``text_join`` makes text."""
    if at + 1 >= len(src):
        return None, at + 1
    escaped = src[at + 1]
    if escaped == "\n":
        return new_token("hardbreak", "br", 0), at + 2
    if "\ud800" <= escaped <= "\udbff" and at + 2 < len(src) and "\udc00" <= src[at + 2] <= "\udfff":
        escaped += src[at + 2]  # a surrogate pair is one character
    content = escaped if escaped in _ASCII_PUNCTUATION else "\\" + escaped
    return new_token("text_special", "", 0, content, "\\" + escaped, "escape"), at + 1 + len(escaped)


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


def _math(src: str, at: int) -> tuple[Token | None, int]:
    """The dollarmath plugin's ``math_inline`` at the ``$`` at ``at`` (spaces and digits
    around the dollars allowed, ``$$`` math inline): the token and where it ends, or None and
    ``at + 1``."""
    if at + 1 >= len(src) or ("\\" in src and _escaped(src, at)):
        return None, at + 1
    double = src[at + 1] == "$"
    search = at + 2 if double else at + 1
    while True:
        close = src.find("$", search)
        if close < 0:
            return None, at + 1
        search = close + 1
        if "\\" in src and _escaped(src, close):
            continue
        if not double:
            break
        if close + 1 >= len(src):
            return None, at + 1
        if src[close + 1] == "$":
            close += 1
            break
    content = src[at + 2 : close - 1] if double else src[at + 1 : close]
    if not content:
        return None, at + 1
    if double:
        return new_token("math_inline_double", "math", 0, content, "$$"), close + 1
    return new_token("math_inline", "math", 0, content, "$"), close + 1


def _role(src: str, at: int, role: Callable[[str, int], re.Match[str] | None]) -> tuple[Token | None, int]:
    """The dialect's role rule (markdown._role_rule) at the ``:`` at ``at``."""
    found = role(src, at)
    if found is None:
        return None, at + 1
    token = new_token("d2l_role", "", 0, found["target"])
    token.meta["name"] = found["name"]
    return token, found.end()


def _code(src: str, at: int, unclosed: dict[int, int]) -> tuple[Token | None, int]:
    """markdown-it's ``backticks`` rule at the run of backticks at ``at``: a code span up to
    the next run as long, or None and the end of the run (which stays text). ``unclosed``:
    run length -> a place after which the text has no run that long (searched once)."""
    opening = _BACKTICKS.match(src, at)
    assert opening is not None
    after = opening.end()
    length = after - at
    if unclosed.get(length, len(src) + 1) <= after:
        return None, after
    for closing in _BACKTICKS.finditer(src, after):
        if closing.end() - closing.start() == length:
            content = src[after : closing.start()].replace("\n", " ")
            if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
                content = content[1:-1]
            return new_token("code_inline", "code", 0, content, src[at:after]), closing.end()
    unclosed[length] = after
    return None, after
