"""Code as the checker and the execution cache compare it.

Comments and docstrings are dropped (translators translate them) and whitespace is
folded, so two cells that differ only in those compare equal. Built on :mod:`tokenize`
rather than :mod:`ast` so that cells with IPython magics (``%matplotlib inline``,
``!pip``) or unfinished code still normalise.
"""

from __future__ import annotations

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


def logical_lines(code: str) -> list[tuple[int, list[CodeToken]]]:
    """``(indent depth, tokens)`` per logical line, without comments or docstrings."""
    try:
        return _by_tokens(code + "\n")
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return _by_words(code.split("\n"))


def normalize_code(code: str) -> str:
    """One line per logical line, indentation as depth, tokens joined by one space."""
    return "\n".join("    " * depth + " ".join(t.text for t in toks) for depth, toks in logical_lines(code))


def _by_tokens(source: str) -> list[tuple[int, list[CodeToken]]]:
    out: list[tuple[int, list[CodeToken]]] = []
    depth = 0
    current: list[CodeToken] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.INDENT:
            depth += 1
        elif tok.type == tokenize.DEDENT:
            depth -= 1
        elif tok.type == tokenize.NEWLINE:
            if current and not (len(current) == 1 and current[0].is_string):  # a docstring
                out.append((depth, current))
            current = []
        elif tok.type not in _SKIP and tok.string.strip():
            line, col = tok.start
            end = tok.end[1] if tok.end[0] == line else len(tok.line)
            current.append(CodeToken(tok.string, line - 1, col, end, tok.type == tokenize.STRING))
    if current:
        out.append((depth, current))
    return out


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
