"""markdown-it-py configured for the d2lbook dialect.

CommonMark block structure, tables, ``$``/``$$`` math and front matter come from
markdown-it-py and mdit-py-plugins. What no plugin covers is written here, because
it is d2lbook's own syntax:

* directive lines -- ``:begin_tab:`mxnet```, ``:end_tab:``, and the attribute lines
  ``:label:``, ``:eqlabel:``, ``:width:``, ``:height:`` that follow a heading, figure
  or equation. They sit on lines of their own and may end a paragraph or list without
  a blank line, so they are a block rule that also interrupts paragraphs and lists.
  Damaged forms (``:begin_tab: `pytorch``` with a space, missing backticks) are
  recognised too and flagged, so one typo does not shift every later tab.
* inline roles -- ``:numref:`fig_x```, ``:ref:``, ``:eqref:``, ``:cite:``, ``:citet:``.
* ``:bibliography:`../d2l.bib``` on a line of its own: where the book lists its references.
"""

from __future__ import annotations

import functools
import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from polybook.dialect.inline_scan import Piece, pieces, scanner
from polybook.dialect.shortcuts import (
    LINES_KEY,
    block_rule,
    dispatch_block_rules,
    dispatch_inline_rules,
    emphasis_rule,
    image_rule,
    inline_rule,
    link_rule,
    normalize_rule,
    normalized_link,
    text_join_rule,
    unused_block_rules,
)

#: Directive names that live on a line of their own.
TAB_DIRECTIVES = ("begin_tab", "end_tab")
ATTRIBUTE_DIRECTIVES = ("label", "eqlabel", "width", "height")
BLOCK_DIRECTIVES = ("bibliography",)

# Loose on purpose: spaces around the colons and missing backticks still match, and the
# canonical spelling is compared afterwards to tell intact from damaged directives.
_DIRECTIVE_RE = re.compile(
    r"^:\s*(?P<name>begin_tab|end_tab|label|eqlabel|width|height|bibliography)\s*:\s*"
    r"(?:`(?P<quoted>[^`]*)`|(?P<bare>[^`\s][^`]*?))?\s*$"
)
_ROLE_RE = re.compile(r":(?P<name>[A-Za-z][\w-]*):`(?P<target>[^`\n]+)`")
#: One citation of a ``:cite:`` target as sphinxcontrib-bibtex reads it: ``{pre} key {post}``.
_CITATION_RE = re.compile(r"\s*(?:\{[^{}]+\})?\s*[^{}\s,]+\s*(?:\{[^{}]+\})?\s*")
#: The roles whose target is a list of BibTeX keys.
CITE_ROLES = ("cite", "citet", "citep")


def bad_citations(target: str) -> list[str]:
    """The comma-separated parts of a ``:cite:`` target that are no BibTeX key (a space
    inside, ``Van- Gool``): sphinxcontrib-bibtex would stop the whole build on them."""
    return [part.strip() for part in target.split(",") if not _CITATION_RE.fullmatch(part)]


def match_directive(line: str) -> dict[str, object] | None:
    """Parse one source line as a directive line, or return None."""
    m = _DIRECTIVE_RE.match(line.strip())
    if not m:
        return None
    name = m["name"]
    value = m["quoted"] if m["quoted"] is not None else (m["bare"] or "")
    canonical = f":{name}:" if name == "end_tab" else f":{name}:`{value}`"
    wants_value = name != "end_tab"
    damaged = line.strip() != canonical or (wants_value and not value.strip())
    return {
        "name": name,
        "value": value.strip(),
        "raw": line.strip(),
        "canonical": canonical,
        "damaged": damaged,
    }


#: A directive line read once: the rule reads one that ends a paragraph twice (asked whether it
#: does, then as a block), and a book writes each in every language. Its dict is only read.
_directive = functools.lru_cache(maxsize=8192)(match_directive)


def _directive_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if state.is_code_block(start):
        return False
    pos = state.bMarks[start] + state.tShift[start]
    if pos >= state.eMarks[start] or state.src[pos] != ":":
        return False
    found = _directive(state.src[pos : state.eMarks[start]])
    if found is None:
        return False
    if silent:
        return True
    token = state.push("d2l_directive", "", 0)
    token.map = [start, start + 1]
    token.meta = dict(found)  # its own: ``found`` is the cache's
    token.content = str(found["value"])
    state.line = start + 1
    return True


def _role_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != ":":
        return False
    m = _ROLE_RE.match(state.src, state.pos)
    if not m:
        return False
    if not silent:
        token = state.push("d2l_role", "", 0)
        token.meta = {"name": m["name"]}
        token.content = m["target"]
    state.pos = m.end()
    return True


@functools.cache
def _parser(unused: frozenset[str] = frozenset(), plain: bool = False) -> MarkdownIt:
    """The dialect's parser, without the block rules in ``unused``; ``plain``: without the
    shortcuts (markdown-it's own core rules), which the tests compare it with."""
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    if not plain:
        md.core.ruler.at("normalize", normalize_rule)
        md.core.ruler.at("block", block_rule)
        md.core.ruler.at("text_join", text_join_rule)
        md.inline.ruler.at("emphasis", emphasis_rule)
        md.inline.ruler.at("link", link_rule)
        md.inline.ruler.at("image", image_rule)
    front_matter_plugin(md)
    dollarmath_plugin(md, allow_labels=True, allow_space=True, allow_digits=True, double_inline=True)
    md.block.ruler.before(
        "paragraph",
        "d2l_directive",
        _directive_rule,
        {"alt": ["paragraph", "reference", "blockquote", "list", "table"]},
    )
    md.inline.ruler.before("backticks", "d2l_role", _role_rule)
    if unused:
        md.block.ruler.disable(sorted(unused))
    if not plain:
        md.normalizeLink = normalized_link  # type: ignore[method-assign]
        dispatch_block_rules(md)
        md.core.ruler.at("inline", inline_rule(scanner(md)))
        dispatch_inline_rules(md)
    return md


def tokenize(text: str, lines: list[str] | None = None) -> list:
    """Block and inline tokens of ``text`` (markdown-it ``Token`` objects), with the shortcuts
    of :mod:`polybook.dialect.shortcuts`: the block rules ``text`` cannot use are left out.
    ``lines``: ``text.split("\\n")`` when the caller has it (see :func:`shortcuts.block_rule`)."""
    if "\r" in text:  # the rules' needs are read on the lines as the parser sees them
        text, lines = text.replace("\r\n", "\n").replace("\r", "\n"), None
    return _parser(unused_block_rules(text)).parse(text, {LINES_KEY: lines} if lines is not None else None)


def inline_pieces(text: str) -> list[Piece]:
    """The roles, math and code spans of a text the parser left to the builder (its children
    empty: :func:`polybook.dialect.inline_scan.scannable`)."""
    return pieces(text, _ROLE_MATCH)


_ROLE_MATCH = _ROLE_RE.match


def code_span_breaks(raw: str, content: str, fence: str, cursor: int) -> tuple[int, int]:
    """Line breaks inside a code span (its ``content``, between its ``fence`` of backticks), and
    where it ends in ``raw`` (the paragraph's text).

    markdown-it turns a code span's line breaks into spaces (CommonMark), so they are
    counted on the raw text: the first place from ``cursor`` on where the span's fence, its
    content (each space free to be a break) and its fence again are written, each fence
    neither preceded nor followed by another backtick. Written by hand because markdown-it
    keeps no source positions for inline tokens.
    """
    if "\n" not in raw[cursor:]:  # a one-line rest holds no break: skip the search
        found_at = raw.find(content, cursor)
        if found_at < 0:
            return 0, cursor
        end = found_at + len(content)
        closing = raw.find(fence, end)
        return 0, (closing + len(fence) if closing >= 0 else end)
    found = _find_span(raw.replace("\n", " "), content, fence, cursor)
    if found is None:
        return 0, cursor
    return raw.count("\n", found[0], found[1]), found[1]


def _find_span(flat: str, content: str, fence: str, cursor: int) -> tuple[int, int] | None:
    """(start, end) of the first ``fence``, optional space, ``content``, optional space,
    ``fence`` in ``flat`` (the text with its line breaks as spaces), the spaces taken when they
    can be, as a regular expression would; no backtick just before or after the fences."""
    start = flat.find(fence, cursor)
    while start >= 0:
        if start == 0 or flat[start - 1] != "`":
            for inner in _spaced(flat, start + len(fence)):
                if flat.startswith(content, inner):
                    for closing in _spaced(flat, inner + len(content)):
                        end = closing + len(fence)
                        if flat.startswith(fence, closing) and flat[end : end + 1] != "`":
                            return start, end
        start = flat.find(fence, start + 1)
    return None


def _spaced(flat: str, at: int) -> tuple[int, ...]:
    """Where the text goes on after an optional space at ``at``: past it first, when it is one."""
    return (at + 1, at) if flat[at : at + 1] == " " else (at,)
