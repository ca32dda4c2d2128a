"""Code as the checker compares it: comments, docstrings and blank lines dropped, whitespace
folded (:func:`cell_key`), with a quick cut of comments first (:func:`without_comments`)."""

from __future__ import annotations

import re
import tokenize
from functools import lru_cache, partial
from operator import itemgetter
from typing import NamedTuple

from polybook.dialect.normalize import logical_lines, normalize_code

_CODE_THEN_COMMENT = re.compile(r"""^([^'"#]*?)\s*#.*$""")  # a comment after code without quotes


@lru_cache(maxsize=65536)
def without_comments(code: str) -> str:
    """The code with its comments and blank lines cut where that is safe (no quote before the
    ``#``): equal results mean equal :func:`cell_key`, without the tokenizer's slow work."""
    if "#" not in code:  # no comment: the pattern matches no line (most cells of most books)
        lines = [line.rstrip() for line in code.split("\n")]
    else:
        lines = [
            m[1] if "#" in line and (m := _CODE_THEN_COMMENT.match(line)) else line.rstrip()
            for line in code.split("\n")
        ]
    return "\n".join(line for line in lines if line.strip())


@lru_cache(maxsize=65536)
def cell_key(code: str) -> str:
    """The code as compared: comments and docstrings dropped, whitespace folded."""
    return uncommented_key(without_comments(code))


@lru_cache(maxsize=65536)
def uncommented_key(code: str) -> str:
    """:func:`cell_key` of code :func:`without_comments`: once per text, which every language's
    cell with its own translated comments shares."""
    key = _plain_key(code)
    return key if key is not None else normalize_code(code)


class Token(NamedTuple):
    """A token of a logical line as :func:`code_tokens` gives it: :class:`CodeToken`'s fields in
    :func:`_quick_lines`' order, as a tuple, so that C code makes it (``tuple.__new__``): a frozen
    dataclass's ``__init__`` cost a third of the tokens' reading (bookmix: some 100,000 tokens)."""

    text: str
    is_string: bool
    line: int  # from 0
    start: int
    end: int


_as_token = partial(tuple.__new__, Token)  # a :func:`_quick_lines` token tuple as a Token, made in C


@lru_cache(maxsize=16384)
def code_tokens(code: str) -> list[tuple[int, list[Token]]]:
    """:func:`logical_lines` (``(indent depth, tokens)`` per logical line, without comments or
    docstrings), by the quick reading when the code is plain, each token a :class:`Token`.
    Memoised: shared, never mutate it."""
    found = _quick_lines(code)
    if found is None:
        return [(depth, [Token(t.text, t.is_string, t.line, t.start, t.end) for t in toks])
                for depth, toks in logical_lines(code)]  # fmt: skip
    return [(depth, list(map(_as_token, toks))) for depth, toks in found]


# Why by hand: :func:`normalize_code` and :func:`logical_lines` run Python's tokenizer
# (:mod:`tokenize`), which makes a named tuple per token; the checker asks for the key of every
# distinct cell of every language and base (book17: some 5,000 cells, 450,000 tokens, a tenth of
# a cold check's CPU time). :func:`_quick_lines` reads the same logical lines with the tokenizer's
# own token pattern, each distinct line once, for the cells that are plain (no string over lines,
# no backslash continuation, no tab or form feed, nothing the tokenizer calls an error); for any
# other cell it gives None and the tokenizer is asked.
_TOKEN = re.compile(tokenize.PseudoToken)
_TRIPLE_END = {quote: re.compile(tokenize.endpats[quote]) for quote in tokenize.triple_quoted}
_QUOTED = tokenize.single_quoted  # a string's start, its prefix included
_NOT_PLAIN = re.compile(r"[\t\f\r]|\\$", re.M)  # what only the tokenizer itself handles

_Token = tuple[str, bool, int, int, int]  # text, is a string, line (from 0), start and end column
_text = itemgetter(0)  # a token's text


def _plain_key(code: str) -> str | None:
    """:func:`normalize_code`'s result for plain code (see above), else None."""
    found = _quick_lines(code, places=False)
    if found is None:
        return None
    return "\n".join(["    " * depth + " ".join(map(_text, toks)) for depth, toks in found])


def _quick_lines(code: str, places: bool = True) -> list[tuple[int, list[_Token]]] | None:
    """:func:`logical_lines`'s lines for plain code (see above), tokens as tuples; else None.
    Without ``places`` (for a key: only each token's text and whether it is a string count),
    the tokens are the line's own, memoised, with their columns in the line: none made anew."""
    if _NOT_PLAIN.search(code):
        return None
    out: list[tuple[int, list[_Token]]] = []
    indents = [0]
    parens = 0
    statement: list[_Token] = []  # the logical line's tokens
    body_starts = True  # the next statement is the first of a body (the cell's, a def's or class's)
    cell_docstring = False  # the cell's first statement is a lone string
    for number, line in enumerate(code.split("\n")):
        rest = line.lstrip(" ")
        column = len(line) - len(rest)
        if parens == 0:  # a new statement: its indentation, or a blank or comment line
            if not rest or rest[0] == "#":
                continue
            if column > indents[-1]:
                indents.append(column)
            while column < indents[-1]:
                if column not in indents:
                    return None  # the tokenizer's IndentationError
                indents.pop()
        found = _line_tokens(rest)
        if found is None or parens + found[2] < 0:
            return None  # an error token, a string over lines, more closed than opened
        if places:
            statement += [(text, string, number, start + column, end + column) for text, string, start, end in found[0]]
        else:
            statement += found[0]  # type: ignore[arg-type]
        parens += found[1]
        if parens == 0 and statement:
            body_starts, cell_docstring = _ended(out, statement, len(indents) - 1, body_starts, cell_docstring)
            statement = []
    if parens != 0:
        return None  # the tokenizer's error: the code ends inside brackets
    if cell_docstring and len(out) > 1:
        del out[0]
    return out


@lru_cache(maxsize=65536)
def _line_tokens(rest: str) -> _Tokens | None:
    """The tokens of one line (its indentation cut): text, whether a string, start and end
    column, comments left out; the brackets it opens less those it closes, and the lowest that
    count falls to on the way. None when the tokenizer would read it otherwise (a string it does
    not close, an error token). Memoised: cells that differ mostly share their lines."""
    line = rest + "\n"
    return _scanned_tokens(line) if _QUOTE_OR_COMMENT.search(rest) else _unquoted_tokens(line)


_Tokens = tuple[tuple[tuple[str, bool, int, int], ...], int, int]


def _scanned_tokens(line: str) -> _Tokens | None:
    """:func:`_line_tokens` of ``line`` (newline included), token by token."""
    tokens: list[tuple[str, bool, int, int]] = []
    balance = lowest = pos = 0
    while pos < len(line):
        found = _TOKEN.match(line, pos)
        if found is None:
            return None  # an error token
        start, pos = found.span(1)
        if start == pos:
            continue
        token, first = line[start:pos], line[start]
        if first == "\n":
            break
        if first == "#":
            continue
        if token in _TRIPLE_END:
            end = _TRIPLE_END[token].match(line, pos)
            if end is None:
                return None  # a string over lines
            pos = end.end()
            tokens.append((line[start:pos], True, start, pos))
        elif first in _QUOTED or token[:2] in _QUOTED or token[:3] in _QUOTED:
            tokens.append((token, True, start, pos))
        else:
            if first in "([{":
                balance += 1
            elif first in ")]}":
                balance -= 1
                lowest = min(lowest, balance)
            tokens.append((token, False, start, pos))
    return tuple(tokens), balance, lowest


_QUOTE_OR_COMMENT = re.compile(r"""['"#]""")
#: :data:`_TOKEN` less what needs a quote or a ``#`` (strings, comments): for a line with neither,
#: the same match at every place (the alternatives left keep their order), at a fraction of the work
_UNQUOTED_TOKEN = re.compile(
    tokenize.Whitespace + tokenize.group(r"\\\r?\n|\Z", tokenize.Number, tokenize.Funny, tokenize.Name)
)


def _unquoted_tokens(line: str) -> _Tokens | None:
    """:func:`_line_tokens` of a line with no quote and no ``#`` (no string, no comment: most
    lines), read in one pass of the pattern: the same tokens, at the same places."""
    tokens: list[tuple[str, bool, int, int]] = []
    balance = lowest = pos = 0
    for found in _UNQUOTED_TOKEN.finditer(line):
        if found.start() != pos:
            return None  # the pattern does not match where the last token ended: an error token
        start, pos = found.span(1)
        if start == pos:
            continue
        first = line[start]
        if first == "\n":
            break
        if first in "([{":
            balance += 1
        elif first in ")]}":
            balance -= 1
            lowest = min(lowest, balance)
        tokens.append((line[start:pos], False, start, pos))
    return tuple(tokens), balance, lowest


def _ended(
    out: list[tuple[int, list[_Token]]], statement: list[_Token], depth: int, body_starts: bool, cell_docstring: bool
) -> tuple[bool, bool]:
    """Add a logical line to ``out`` unless it is a docstring; the new ``body_starts`` and
    ``cell_docstring`` (as :func:`polybook.dialect.normalize.logical_lines` decides them)."""
    if not (body_starts and _lone_string(statement)):
        out.append((depth, statement))
    elif not out and depth == 0:
        cell_docstring = True
        out.append((depth, statement))
    if statement[-1][0] != ":":
        return False, cell_docstring
    words = [token[0] for token in statement[:2]]
    return words[0] in ("def", "class") or words == ["async", "def"], cell_docstring


def _lone_string(statement: list[_Token]) -> bool:
    """A statement made of string literals only, no f-string or bytes."""
    return all(t[1] and not {"f", "b"} & set(t[0][: t[0].index(t[0][-1])].lower()) for t in statement)


def without_strings(code: str) -> list[str]:
    """Tokens with every string literal blanked: equal lists mean only strings differ."""
    return ["''" if t.is_string else t.text for _, toks in code_tokens(code) for t in toks]
