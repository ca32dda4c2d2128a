"""Code as the checker and the execution cache compare it.

Comments and docstrings are dropped (translators translate them) and whitespace is
folded, so two cells that differ only in those compare equal. Built on :mod:`tokenize`
rather than :mod:`ast` so that cells with IPython magics (``%matplotlib inline``,
``!pip``) or unfinished code still normalise.

A docstring is a string literal standing alone as the *first* statement of a body: of a
``def`` or ``class``, or of the cell. Any other lone string is code: it may be shown. In
particular a cell whose only statement is a string (``"Hello, world"``) displays it as
the cell's result, so that string is kept: translating it changes the output, and two
such cells must not share a cache entry (nor look equal to the checker).
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from dataclasses import dataclass

_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_WORD_RE = re.compile(r"\w+|'[^']*'|\"[^\"]*\"|\S")


@dataclass(frozen=True, slots=True)
class CodeToken:
    """A token of a logical line: its text and where it sits in the cell (0-based line)."""

    text: str
    line: int
    start: int
    end: int
    is_string: bool = False


@functools.lru_cache(maxsize=16384)
def logical_lines(code: str) -> list[tuple[int, list[CodeToken]]]:
    """``(indent depth, tokens)`` per logical line, without comments or docstrings.

    Memoised (the checker compares one source cell with every translation's, and most
    translated cells are the source's code): the result is shared, never mutate it.
    """
    try:
        return _by_tokens(code + "\n")
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return _by_words(code.split("\n"))


@functools.lru_cache(maxsize=16384)
def normalize_code(code: str) -> str:
    """One line per logical line, indentation as depth, tokens joined by one space."""
    return "\n".join("    " * depth + " ".join(t.text for t in toks) for depth, toks in logical_lines(code))


def _by_tokens(source: str) -> list[tuple[int, list[CodeToken]]]:
    out: list[tuple[int, list[CodeToken]]] = []
    depth = 0
    current: list[CodeToken] = []
    body_starts = True  # the next statement is the first of a body (the cell's, then a def's or class's)
    cell_docstring = False  # the cell's first statement is a lone string: a docstring unless it is also its last
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.INDENT:
            depth += 1
        elif tok.type == tokenize.DEDENT:
            depth -= 1
        elif tok.type == tokenize.NEWLINE:
            if current:
                if not (body_starts and _lone_string(current)):
                    out.append((depth, current))
                elif not out and depth == 0:
                    cell_docstring = True
                    out.append((depth, current))
                body_starts = _opens_body(current)
            current = []
        elif tok.type not in _SKIP and tok.string.strip():
            line, col = tok.start
            end = tok.end[1] if tok.end[0] == line else len(tok.line)
            current.append(CodeToken(tok.string, line - 1, col, end, tok.type == tokenize.STRING))
    if current:
        out.append((depth, current))
    if cell_docstring and len(out) > 1:
        del out[0]
    return out


def _lone_string(tokens: list[CodeToken]) -> bool:
    """A statement made of string literals only (``"a" "b"`` too), no f-string or bytes."""
    return all(t.is_string and not {"f", "b"} & set(t.text[: t.text.index(t.text[-1])].lower()) for t in tokens)


def _opens_body(tokens: list[CodeToken]) -> bool:
    """Is this the header of a ``def`` or ``class`` whose body starts on the next line?"""
    words = [t.text for t in tokens[:2]]
    return tokens[-1].text == ":" and (words[0] in ("def", "class") or words == ["async", "def"])


def _by_words(lines: list[str]) -> list[tuple[int, list[CodeToken]]]:
    """Fallback for code that does not tokenize: drop comments, split into words."""
    out = []
    for number, line in enumerate(lines):
        code = strip_comment(line)
        words = [
            CodeToken(m.group(), number, m.start(), m.end(), m.group()[0] in "'\"") for m in _WORD_RE.finditer(code)
        ]
        if words:
            out.append(((len(code) - len(code.lstrip())) // 4, words))
    return out


def strip_comment(line: str) -> str:
    """``line`` up to a ``#`` that is not inside a quoted string."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line
