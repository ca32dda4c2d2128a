"""A word is compared as :func:`polybook.check.word_diff._normal` makes it, whichever way it is worked out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.check.word_diff import _key, _normal


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" \taIİßﬁ²1_*-'’—…#>cannotCANNOTΣ\u200b,.()[]~:;!?\"“", min_size=1, max_size=10))
def test_a_word_is_keyed_as_normal_makes_it(word: str) -> None:
    assert _key.__wrapped__(word) == (_normal.__wrapped__(word) or word)


def _normal_by_every_pattern(text: str) -> str:
    """:func:`_normal` as it was written: every pattern over every text, emphasis as two alternatives."""
    import re

    from polybook.check.word_diff import _DASHES, _LEADING, _SLIDES, _TYPOGRAPHY

    plain = _LEADING.sub("", _SLIDES.sub("", text.translate(_TYPOGRAPHY)))
    plain = _DASHES.sub("-", re.sub(r"(?<![\w*])[*_]+|[*_]+(?![\w*])", "", plain)).casefold()
    for pattern, spelled in [
        (r"\b(let)'s\b", r"\1 us"),
        (r"\bcan't\b|\bcannot\b", "can not"),
        (r"\bwon't\b", "will not"),
        (r"\b(\w+)n't\b", r"\1 not"),
        (r"\b(it|that|there|what|here)'s\b", r"\1 is"),
        (r"\b(we|you|they)'re\b", r"\1 are"),
        (r"\b(we|you|they|i)'ve\b", r"\1 have"),
        (r"\b(we|you|they|i|it)'ll\b", r"\1 will"),
        (r"\bi'm\b", "i am"),
    ]:
        plain = re.sub(pattern, spelled, plain)
    return plain


_PIECES = st.sampled_from(
    ["*", "**", "_", "__", "a", "B", "x_1", " ", "\n", "- ", "> ", "# ", "--", "—", "[**", "**]", "(~~", "’",
     "'", "let's", "can't", "cannot", "won't", "don't", "it's", "we're", "I've", "they'll", "I'm", "Σ", "1"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=12))
def test_a_text_is_made_plain_as_every_pattern_makes_it(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _normal.__wrapped__(text) == _normal_by_every_pattern(text)
