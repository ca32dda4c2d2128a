"""A word is compared as :func:`polybook.check.word_diff._normal` makes it, whichever way it is worked out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.check.word_diff import _key, _normal


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" \taIİßﬁ²1_*-'’—…#>cannotCANNOTΣ\u200b,.()[]~:;!?\"“", min_size=1, max_size=10))
def test_a_word_is_keyed_as_normal_makes_it(word: str) -> None:
    assert _key.__wrapped__(word) == (_normal.__wrapped__(word) or word)
