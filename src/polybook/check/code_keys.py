"""Code as the checker compares it: comments, docstrings and blank lines dropped, whitespace
folded (:func:`cell_key`), with a quick cut of comments first (:func:`without_comments`)."""

from __future__ import annotations

import re
import tokenize
from functools import lru_cache

from polybook.dialect.normalize import normalize_code

_CODE_THEN_COMMENT = re.compile(r"""^([^'"#]*?)\s*#.*$""")  # a comment after code without quotes


@lru_cache(maxsize=65536)
def without_comments(code: str) -> str:
    """The code with its comments and blank lines cut where that is safe (no quote before the
    ``#``): equal results mean equal :func:`cell_key`, without the tokenizer's slow work."""
    lines = [m[1] if (m := _CODE_THEN_COMMENT.match(line)) else line.rstrip() for line in code.split("\n")]
    return "\n".join(line for line in lines if line.strip())


@lru_cache(maxsize=65536)
def cell_key(code: str) -> str:
    """The code as compared: comments and docstrings dropped, whitespace folded."""
    code = without_comments(code)
    key = _plain_key(code)
    return key if key is not None else normalize_code(code)


# Why by hand: :func:`normalize_code` runs Python's tokenizer (:mod:`tokenize`), which makes a
# named tuple per token and a model object per token after it; the checker asks for the key of
# every distinct cell of every language and base (book17: some 5,000 cells, 450,000 tokens, a
# tenth of a cold check's CPU time). :func:`_plain_key` gives the same text with the tokenizer's
# own token pattern, one match per token and nothing else, for the cells that are plain (no string
# over lines, no backslash continuation, no tab or form feed in the indentation, nothing the
# tokenizer calls an error); for any other cell it gives None and the tokenizer is asked.
_TOKEN = re.compile(tokenize.PseudoToken)
_TRIPLE_END = {quote: re.compile(tokenize.endpats[quote]) for quote in tokenize.triple_quoted}
_QUOTED = tokenize.single_quoted  # a string's start, its prefix included
_NOT_PLAIN = re.compile(r"[\t\f\r]|\\$", re.M)  # what only the tokenizer itself handles


def _plain_key(code: str) -> str | None:
    """:func:`normalize_code`'s result for plain code (see above), else None."""
    if _NOT_PLAIN.search(code):
        return None
    out: list[str] = []
    indents = [0]
    parens = 0
    statement: list[tuple[str, bool]] = []  # the logical line's tokens: text, is a string
    body_starts = True  # the next statement is the first of a body (the cell's, a def's or class's)
    cell_docstring = False  # the cell's first statement is a lone string
    for line in code.split("\n"):
        rest = line.lstrip(" ")
        if parens == 0:  # a new statement: its indentation, or a blank or comment line
            if not rest or rest[0] == "#":
                continue
            column = len(line) - len(rest)
            if column > indents[-1]:
                indents.append(column)
            while column < indents[-1]:
                if column not in indents:
                    return None  # the tokenizer's IndentationError
                indents.pop()
        found = _line_tokens(rest)
        if found is None or parens + found[2] < 0:
            return None  # an error token, a string over lines, more closed than opened
        statement += found[0]
        parens += found[1]
        if parens == 0 and statement:
            body_starts, cell_docstring = _ended(out, statement, len(indents) - 1, body_starts, cell_docstring)
            statement = []
    if parens != 0:
        return None  # the tokenizer's error: the code ends inside brackets
    if cell_docstring and len(out) > 1:
        del out[0]
    return "\n".join(out)


@lru_cache(maxsize=65536)
def _line_tokens(rest: str) -> tuple[tuple[tuple[str, bool], ...], int, int] | None:
    """The tokens of one line (its indentation cut): text and whether a string, comments left
    out; the brackets it opens less those it closes, and the lowest that count falls to on the
    way. None when the tokenizer would read it otherwise (a string it does not close, an error
    token). Memoised: cells that differ mostly share their lines."""
    line = rest + "\n"
    tokens: list[tuple[str, bool]] = []
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
            tokens.append((line[start:pos], True))
        elif first in _QUOTED or token[:2] in _QUOTED or token[:3] in _QUOTED:
            tokens.append((token, True))
        else:
            if first in "([{":
                balance += 1
            elif first in ")]}":
                balance -= 1
                lowest = min(lowest, balance)
            tokens.append((token, False))
    return tuple(tokens), balance, lowest


def _ended(
    out: list[str], statement: list[tuple[str, bool]], depth: int, body_starts: bool, cell_docstring: bool
) -> tuple[bool, bool]:
    """Add a logical line to ``out`` unless it is a docstring; the new ``body_starts`` and
    ``cell_docstring`` (as :func:`polybook.dialect.normalize.logical_lines` decides them)."""
    line = "    " * depth + " ".join(text for text, _ in statement)
    if not (body_starts and _lone_string(statement)):
        out.append(line)
    elif not out and depth == 0:
        cell_docstring = True
        out.append(line)
    words = [text for text, _ in statement[:2]]
    return statement[-1][0] == ":" and (words[0] in ("def", "class") or words == ["async", "def"]), cell_docstring


def _lone_string(statement: list[tuple[str, bool]]) -> bool:
    """A statement made of string literals only, no f-string or bytes."""
    return all(string and not {"f", "b"} & set(text[: text.index(text[-1])].lower()) for text, string in statement)
