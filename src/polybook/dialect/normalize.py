"""Code as the checker and the execution cache compare it.

Comments and docstrings are dropped (translators translate them) and whitespace is
folded, so two cells that differ only in those compare equal. Built on :mod:`tokenize`
rather than :mod:`ast` so that cells with IPython magics (``%matplotlib inline``,
``!pip``) or unfinished code still normalise.
"""

from __future__ import annotations

import io
import tokenize

_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}


def normalize_code(code: str) -> str:
    """One line per logical line, indentation as depth, tokens joined by one space."""
    try:
        lines = _by_tokens(code + "\n")
    except (tokenize.TokenError, IndentationError, SyntaxError):
        lines = _by_lines(code.split("\n"))
    return "\n".join(lines)


def _by_tokens(source: str) -> list[str]:
    out: list[str] = []
    depth = 0
    current: list[tokenize.TokenInfo] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.INDENT:
            depth += 1
        elif tok.type == tokenize.DEDENT:
            depth -= 1
        elif tok.type == tokenize.NEWLINE:
            if current and not (len(current) == 1 and current[0].type == tokenize.STRING):
                out.append("    " * depth + " ".join(t.string for t in current))
            current = []
        elif tok.type not in _SKIP and tok.string.strip():
            current.append(tok)
    if current:
        out.append("    " * depth + " ".join(t.string for t in current))
    return out


def _by_lines(lines: list[str]) -> list[str]:
    """Fallback for code that does not tokenize: drop comments, fold spaces."""
    out = []
    for line in lines:
        code = _strip_comment(line)
        if code.strip():
            indent = len(code) - len(code.lstrip())
            out.append(" " * indent + " ".join(code.split()))
    return out


def _strip_comment(line: str) -> str:
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
