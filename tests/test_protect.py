"""What :func:`polybook.dialect.protect.mask` protects does not depend on how its pattern is
searched: the pieces' pattern guarded by where a piece can start finds the same pieces; and the
prose read without the tokens is the masked text's prose."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.dialect.protect import _PIECES, _PROTECTED, mask, masked_prose

_BARE = re.compile(_PIECES, re.S)
_WRITTEN = st.text(alphabet='ab h:`~$|#-*+1.)>[]()!<>/\\\n\t_{}"=', max_size=40)
_PIECE_LIKE = st.sampled_from(
    ["```\nx\n```", ":label:`a`", "|---|", "# ", "- ", "1. ", "$$x$$", "$a$", "`c`", ":ref:`x`", "](u)",
     "[t](", "<!-- c -->", "<b>", "https://a.b", "\\*", "[**", "**)", "| ", "\n", " ", "word"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_WRITTEN, _PIECE_LIKE), max_size=8))
def test_the_guarded_pattern_finds_what_the_pieces_find(parts: list[str]) -> None:
    text = "".join(parts)
    assert [m.span() for m in _PROTECTED.finditer(text)] == [m.span() for m in _BARE.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_WRITTEN, _PIECE_LIKE, st.sampled_from(["⟦0⟧", "⟦", "⟧", "12", "http"])), max_size=8))
def test_the_prose_is_the_masked_texts_prose(parts: list[str]) -> None:
    text = "".join(parts)
    assert masked_prose(text) == mask(text).prose
