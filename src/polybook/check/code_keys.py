"""Code as the checker compares it: comments, docstrings and blank lines dropped, whitespace
folded (:func:`cell_key`), with a quick cut of comments first (:func:`without_comments`)."""

from __future__ import annotations

import re
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
    return normalize_code(without_comments(code))
