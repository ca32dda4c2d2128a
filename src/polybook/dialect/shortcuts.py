"""markdown-it's work that the dialect's parser skips, or does with ``str`` methods at C speed.

Parsing the book was half the CPU time of a cold ``polybook check``, and markdown-it-py spent
much of it on work whose result the builder never reads: inline tokens of plain prose, rules
tried on lines they cannot match, emphasis outside links, a Python loop per line. Each piece
here is markdown-it-py's own rule or state with a test in front that says what it leaves out,
or does what markdown-it-py's does with less Python (the paragraph rule, a token's making; the
roles, math and code spans of the inline text most paragraphs hold are read by the builder with
:mod:`polybook.dialect.inline_scan`, that text's tokens left unmade); the document the builder
makes is the same, node for node and diagnostic for diagnostic (tests/test_shortcuts.py
compares it, and the tokens made, with markdown-it-py's own parser).
Written by hand because markdown-it-py has no switch for any of it.
"""

from __future__ import annotations

import functools
import gc
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import accumulate, repeat
from operator import add, sub
from typing import Literal, TypeAlias

from markdown_it import MarkdownIt
from markdown_it.common.normalize_url import normalizeLink as markdown_it_normalize_link
from markdown_it.common.utils import mdTrim
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_core.block import block as markdown_it_block
from markdown_it.rules_core.text_join import text_join as markdown_it_text_join
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline import image as markdown_it_image
from markdown_it.rules_inline import link as markdown_it_link
from markdown_it.rules_inline.emphasis import tokenize as markdown_it_emphasis
from markdown_it.token import Token
from markdown_it.utils import EnvType

from polybook.dialect.fences import fence_rule

BlockRule: TypeAlias = Callable[[StateBlock, int, int, bool], bool]
Scannable: TypeAlias = Callable[[str, EnvType], bool]


def may_hold_inlines(text: str) -> bool:
    """Whether ``text`` holds what every inline token the builder reads needs: a role or a code
    span (a backtick), math (``$``), an autolink (``<``), a link or an image (``](``). Text with
    none of them gives only text and line breaks, which nothing reads (see :func:`inline_rule`)."""
    return "`" in text or "$" in text or "<" in text or "](" in text


def _may_hold_inlines_or_references(text: str) -> bool:
    """:func:`may_hold_inlines` where the document defines link references: ``[ref]`` is a link."""
    return "`" in text or "$" in text or "<" in text or "[" in text


# Two searches, each for one character first: three times as fast as one for either of them.
_DASH_AT_END = re.compile(r"-[ \t]*$", re.MULTILINE).search
_EQUALS_AT_END = re.compile(r"=[ \t]*$", re.MULTILINE).search

#: The block rules tried on every line whatever its first character (see
#: :func:`dispatch_block_rules`) that a text can only use when it holds what they need:
#: ``rule -> test``, a necessary condition checked over the whole text.
_BLOCK_RULE_NEEDS: dict[str, Callable[[str], object]] = {
    "front_matter": lambda text: text.startswith("-"),
    "table": lambda text: "|" in text,  # a table's header row holds one
    # a line that ends in - or = (and spaces), as a setext heading's underline does
    "lheading": lambda text: _DASH_AT_END(text) or _EQUALS_AT_END(text),
}


def unused_block_rules(text: str) -> frozenset[str]:
    """The block rules that cannot match anywhere in ``text`` (with LF line ends).

    A block rule is tried at the start of every block and on every line of a paragraph, list
    or quote (whether that line ends it); a rule that does not match changes nothing, so
    leaving these out changes no token. Most chapters have no setext heading and no table.
    """
    return frozenset(name for name, needed in _BLOCK_RULE_NEEDS.items() if not needed(text))


#: The character each block rule needs first on its line (at ``bMarks + tShift``, where every one
#: of them looks): a rule returns False, changing nothing, on a line that starts with another.
#: Not here, so tried on every line: table, code, lheading, paragraph (any text) and
#: front_matter (which reads the text's first character, not the line's).
_BLOCK_RULE_FIRST = {
    "math_block": "$",
    "fence": "`~",
    "blockquote": ">",
    "hr": "*-_",
    "list": "*-+0123456789",
    "reference": "[",
    "html_block": "<",
    "heading": "#",
    "d2l_directive": ":",
}
#: The rule chains markdown-it's block rules ask for: the main one and the rules that may end
#: a paragraph, reference, quote, list or table.
_BLOCK_CHAINS = ("", "paragraph", "reference", "blockquote", "list", "table")


def dispatch_block_rules(md: MarkdownIt) -> None:
    """Give each block rule chain of ``md`` as one rule that tries only the rules a line's first
    character allows, in their order. markdown-it tries every rule on every line: eight rules that
    look at the first character and give up on each line of prose, and the code rule on lines
    not indented for it. The paragraph rule becomes :func:`_paragraph_rule`, which asks the
    rules that may end a paragraph only about the lines they may end, the table rule
    :func:`_table_rule` and the fence rule :func:`polybook.dialect.fences.fence_rule`. Call once
    ``md`` is set up."""
    ruler = md.block.ruler
    names = dict(zip(ruler.getRules(""), ruler.get_active_rules(), strict=True))
    replaced = {rule: _table_rule(rule) for rule, name in names.items() if name == "table"}
    replaced.update({rule: fence_rule(rule) for rule, name in names.items() if name == "fence"})
    names.update({new: names[rule] for rule, new in replaced.items()})  # each is dispatched as the rule it stands for

    def chain(name: str) -> list[BlockRule]:
        return [replaced.get(rule, rule) for rule in ruler.getRules(name)]

    ends_paragraph, chars, others = _first_char_rule(chain("paragraph"), names)
    paragraph = _paragraph_rule(ends_paragraph, chars, others)
    replaced.update({rule: paragraph for rule, name in names.items() if name == "paragraph"})
    chains = {name: [_first_char_rule(chain(name), names)[0]] for name in _BLOCK_CHAINS}
    plain_rules = ruler.getRules
    ruler.getRules = lambda chain="": chains[chain] if chain in chains else plain_rules(chain)  # type: ignore[method-assign]


def _first_char_rule(rules: list[BlockRule], names: dict[BlockRule, str]) -> tuple[BlockRule, frozenset[str], bool]:
    """One rule that tries, in order, those of ``rules`` the line's first character allows; the
    characters some rule needs first, and whether any rule is tried whatever the character."""
    chars = {char for name in names.values() for char in _BLOCK_RULE_FIRST.get(name, "")}
    by_char = {c: [r for r in rules if c in _BLOCK_RULE_FIRST.get(names.get(r, ""), c)] for c in chars}
    others = [rule for rule in rules if names.get(rule, "") not in _BLOCK_RULE_FIRST]
    # the code rule matches only a line indented 4 columns more than the block: not tried elsewhere
    by_char_at_margin = {c: [r for r in chain if names.get(r) != "code"] for c, chain in by_char.items()}
    others_at_margin = [r for r in others if names.get(r) != "code"]

    def first_char_rule(state: StateBlock, line: int, end: int, silent: bool) -> bool:
        pos = state.bMarks[line] + state.tShift[line]
        if state.sCount[line] - state.blkIndent < 4:
            table, rest = by_char_at_margin, others_at_margin
        else:
            table, rest = by_char, others
        for rule in table.get(state.src[pos], rest) if pos < len(state.src) else rest:
            if rule(state, line, end, silent):
                return True
        return False

    return first_char_rule, frozenset(c for c, chain in by_char.items() if chain), bool(others)


#: The character each inline rule needs at its place (every one returns False elsewhere); the
#: ``text`` rule takes any character but markdown-it's terminators, which all of these are.
_INLINE_RULE_FIRST = {
    "newline": "\n",
    "math_inline": "$",
    "escape": "\\",
    "d2l_role": ":",
    "backticks": "`",
    "emphasis": "*_",
    "link": "[",
    "image": "!",
    "autolink": "<",
    "html_inline": "<",
    "entity": "&",
}


def dispatch_inline_rules(md: MarkdownIt) -> None:
    """Give the inline rule chain of ``md`` as one rule that tries only the rules the
    character at the place allows, in their order (the text rule for any other): markdown-it
    tries the dozen rules at every ``:``, ``-`` or line break. Left as it is when ``md`` has a
    rule not in :data:`_INLINE_RULE_FIRST`. Call once ``md`` is set up."""
    ruler = md.inline.ruler
    names, rules = ruler.get_active_rules(), ruler.getRules("")
    if not names or names[0] != "text" or any(name not in _INLINE_RULE_FIRST for name in names[1:]):
        return
    text = rules[0]
    chars = {char for name in names[1:] for char in _INLINE_RULE_FIRST[name]}
    by_char = {c: [r for n, r in zip(names, rules, strict=True) if c in _INLINE_RULE_FIRST.get(n, "")] for c in chars}

    def first_char_rule(state: StateInline, silent: bool) -> bool:
        chain = by_char.get(state.src[state.pos])
        if chain is None:
            return text(state, silent)
        for rule in chain:  # noqa: SIM110 -- a loop, not any() over a generator: this runs at every stop
            if rule(state, silent):
                return True
        return False

    plain_rules = ruler.getRules
    ruler.getRules = lambda chain="": [first_char_rule] if chain == "" else plain_rules(chain)  # type: ignore[method-assign]


def _table_rule(table: BlockRule) -> BlockRule:
    """markdown-it's ``table`` rule where it can match: the line after a table's first one (its
    delimiter row) starts with ``|``, ``-`` or ``:``, as the rule checks after a few other things.
    Where a text holds a ``|``, the rule is tried at every block and on every line of a paragraph."""

    def table_rule(state: StateBlock, line: int, end: int, silent: bool) -> bool:
        below = line + 1
        if below < end:
            pos = state.bMarks[below] + state.tShift[below]
            if pos < state.eMarks[below] and state.src[pos] in "|-:":
                return table(state, line, end, silent)
        return False

    return table_rule


def _paragraph_rule(ends_paragraph: BlockRule, chars: frozenset[str], others: bool) -> BlockRule:
    """markdown-it's ``paragraph`` rule, asking ``ends_paragraph`` (the rules that may end a
    paragraph, :func:`_first_char_rule`) only about the lines whose first character one of them
    needs (``chars``), or about every line when some rule needs none (``others``)."""

    def paragraph(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        line, last = start + 1, state.lineMax
        begins, ends, shifts, columns, src = state.bMarks, state.eMarks, state.tShift, state.sCount, state.src
        parent, state.parentType = state.parentType, "paragraph"
        while line < last:
            first = begins[line] + shifts[line]
            if first >= ends[line]:  # a blank line
                break
            # further indented (a lazy continuation), or a quote's line that rule has read
            if columns[line] - state.blkIndent > 3 or columns[line] < 0:
                line += 1
                continue
            if (others or src[first] in chars) and ends_paragraph(state, line, last, True):
                break
            line += 1
        content = mdTrim(state.getLines(start, line, state.blkIndent, False))
        state.line = line
        state.push("paragraph_open", "p", 1).map = [start, line]
        token = state.push("inline", "", 0)
        token.content, token.map, token.children = content, [start, line], []
        state.push("paragraph_close", "p", -1)
        state.parentType = parent
        return True

    return paragraph


#: The fields :meth:`_LineState.push` sets, markdown-it's Token's own (tests/test_shortcuts.py checks).
TOKEN_FIELDS = ("type", "tag", "nesting", "attrs", "map", "level", "children", "content", "markup", "info", "meta")
TOKEN_FIELDS += ("block", "hidden")


_new_object = object.__new__


def normalize_rule(state: StateCore) -> None:
    """markdown-it's ``normalize`` (CRLF and CR to LF, NUL to U+FFFD), with its two regex
    passes over the whole text run only when the text has something to replace."""
    src = state.src
    if "\r" in src:
        src = src.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in src:
        src = src.replace("\0", "\ufffd")
    state.src = src


def inline_rule(scannable: Scannable | None) -> Callable[[StateCore], None]:
    """markdown-it's ``inline`` core rule, skipping the text that holds no inline element the
    builder reads (:func:`may_hold_inlines`): most of a book's paragraphs and headings, whose
    children are then left empty instead of holding only text and soft breaks. The text that
    ``scannable`` accepts is left so too: the builder reads its roles, math and code spans
    itself (:mod:`polybook.dialect.inline_scan`); markdown-it tokenizes the rest."""

    def inline(state: StateCore) -> None:
        md = state.md
        may_hold = _may_hold_inlines_or_references if state.env.get("references") else may_hold_inlines
        for token in state.tokens:
            if token.type == "inline":
                if token.children is None:
                    token.children = []
                content = token.content
                if not may_hold(content) or (scannable is not None and scannable(content, state.env)):
                    continue
                md.inline.parse(content, md, state.env, token.children)

    return inline


def emphasis_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it's emphasis rule in text that may hold a link or an image (as
    :func:`link_rule`): the one place the builder reads what emphasis changes, the text of a
    link. Elsewhere ``*`` and ``_`` stay in the text around them, as unpaired ones do; no code
    span, math or role moves."""
    if silent or state.src[state.pos] not in "*_":  # silent: markdown-it's says no too
        return False
    if "](" not in state.src and not state.env.get("references"):
        return False
    return markdown_it_emphasis(state, silent)


def link_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it's link rule where a link can be: a ``](`` in the text, or link references
    in the document. Elsewhere every ``[`` (a slide mark ``[**``, a bracket) has the rule read
    up to its ``]`` before giving up. The character at the rule's place is looked at first:
    inside a link's text every place is tried with every rule."""
    if state.src[state.pos] != "[" or ("](" not in state.src and not state.env.get("references")):
        return False
    return markdown_it_link(state, silent)


def image_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it's image rule where an image can be (as :func:`link_rule`)."""
    if state.src[state.pos] != "!" or ("](" not in state.src and not state.env.get("references")):
        return False
    return markdown_it_image(state, silent)


def normalized_link(url: str) -> str:
    """markdown-it's ``normalizeLink`` (parse, punycode, percent-encode, format: a tenth of the
    inline parse), once per destination: a book links to the same pages and images in every
    language. Each link gets a string of its own, as from markdown-it, so a document pickles
    byte for byte as it did (pickle writes a string two links share once)."""
    known = _normalized_link(url)
    return known[:1] + known[1:]


_normalized_link = functools.lru_cache(maxsize=4096)(markdown_it_normalize_link)


def text_join_rule(state: StateCore) -> None:
    """markdown-it's ``text_join`` (escaped characters and entities joined into the text around
    them) on the inline tokens that can hold one: those with a backslash or an ampersand. In
    the others the inline parser's ``fragments_join`` has already joined all adjacent text."""
    escaped = [t for t in state.tokens if t.type == "inline" and t.children and ("\\" in t.content or "&" in t.content)]
    if escaped:
        markdown_it_text_join(StateCore("", state.md, state.env, escaped))


#: The key of the parse's ``env`` that may hold its text's lines (``text.split("\\n")``, which the
#: builder makes too): taken out by :func:`block_rule`, so no other rule sees it.
LINES_KEY = "polybook.lines"


def block_rule(state: StateCore) -> None:
    """markdown-it's ``block`` core rule, with the line tables made by :class:`_LineState`
    (from the text's lines in ``env``, when the caller gave them: :data:`LINES_KEY`)."""
    lines = state.env.pop(LINES_KEY, None)
    if state.inlineMode or not state.src:
        markdown_it_block(state)
        return
    block = _LineState(state.src, state.md, state.env, state.tokens, lines)
    state.md.block.tokenize(block, block.line, block.lineMax)


class _LineState(StateBlock):
    """markdown-it's block state, whose per-line tables (where each line begins and ends, its
    indent) come from ``str.split`` and ``str.lstrip`` instead of a Python loop over the
    indent of every line -- half of a chapter's lines are indented code."""

    def __init__(
        self, src: str, md: MarkdownIt, env: EnvType, tokens: list[Token], lines: list[str] | None = None
    ) -> None:
        super().__init__("", md, env, tokens)  # every other field, for an empty text
        self.src = src
        self.bMarks, self.eMarks, self.tShift, self.sCount, self.bsCount = _line_tables(src, lines)
        self.lineMax = len(self.bMarks) - 1  # the last entry is the end of the text
        self._begins = list(self.bMarks)  # as the text has them: quotes and lists move some

    def push(self, ttype: str, tag: str, nesting: Literal[-1, 0, 1]) -> Token:
        """markdown-it's, its token made here field by field, at a third of the cost: the
        dataclass ``__init__`` of markdown-it's Token calls two field factories and
        ``__post_init__``, and the parser makes 216,000 tokens for the 1.0 book. Made in this
        method, not by a function it calls: that call was 1.6 % of the parse's instructions."""
        token = _new_object(Token)
        level = self.level
        if nesting < 0:
            level = self.level = level - 1
        elif nesting > 0:
            self.level = level + 1
        token.type, token.tag, token.nesting, token.attrs, token.map, token.level = ttype, tag, nesting, {}, None, level
        token.children, token.content, token.markup, token.info, token.meta = None, "", "", "", {}
        token.block, token.hidden = True, False
        self.tokens.append(token)
        return token

    def getLines(self, begin: int, end: int, indent: int, keepLastLF: bool) -> str:
        """markdown-it's, as one slice of the text when no indent is taken off and no line
        begins elsewhere than in the text (a paragraph or code cell at the margin): the lines
        then follow each other there. markdown-it's cuts each line and joins them. Outside
        every quote and list (level 0) every line begins where the text has it: those rules
        move a line's beginning only while they parse what they hold, and put it back."""
        if indent == 0 and begin < end and (self.level == 0 or self.bMarks[begin:end] == self._begins[begin:end]):
            return self.src[self.bMarks[begin] : self.eMarks[end - 1] + (1 if keepLastLF else 0)]
        return super().getLines(begin, end, indent, keepLastLF)


def _line_tables(
    src: str, lines: list[str] | None = None
) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """StateBlock's bMarks, eMarks, tShift, sCount and bsCount of ``src``, each with the
    entry for the end of the text after the last line; ``lines``: ``src.split("\\n")`` (or of
    a text that differs from it in no line's length or indent), only read."""
    if lines is None:
        lines = src.split("\n")
    if not lines[-1].strip(" \t"):  # "" after a last newline, or a last line of spaces only: no line
        lines = lines[:-1]
    # map() over the lines rather than comprehensions: a chapter has thousands of lines
    lengths = list(map(len, lines))
    begins = list(accumulate(map(add, lengths, repeat(1)), initial=0))
    ends = list(map(add, begins, lengths))
    ends.append(len(src))
    begins[-1] = len(src)
    shifts = list(map(sub, lengths, map(len, map(str.lstrip, lines, repeat(" \t")))))
    shifts.append(0)
    if "\t" in src:
        columns = [_columns(line, shift) for line, shift in zip(lines, shifts, strict=False)] + [0]
    else:
        columns = list(shifts)  # its own list: the block rules change the two apart
    return begins, ends, shifts, columns, [0] * len(begins)


def _columns(line: str, shift: int) -> int:
    """The width of the indent (its first ``shift`` characters), tabs to the next multiple of 4."""
    width = 0
    for char in line[:shift]:
        width += 4 - width % 4 if char == "\t" else 1
    return width


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Python's cycle collector off inside the block: while a document is parsed (and while a
    book is checked, :mod:`polybook.check`). The parse makes a hundred thousand short-lived
    tokens, and the collector, started by their count, scans them and every object the program
    holds (all the documents parsed before, in ``polybook check``): a tenth to a fifth of the
    parse's time, for no cycle -- the tokens are freed by their reference counts. Turned back on
    after (when it was on), so any cycle is collected then."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
