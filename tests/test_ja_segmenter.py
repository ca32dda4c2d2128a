"""The fast Japanese segmenter gives Sphinx's TinySegmenter's words, text for text: on
sentences of our own and on generated ones mixing every character class TinySegmenter tells
apart (hiragana, katakana, kanji, numerals, Latin letters, full-width forms, punctuation)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sphinx.search.ja import DefaultSplitter

from polybook.stage import sphinx_speed
from polybook.stage.ja_segmenter import FastSegmentation

SPLITTER = DefaultSplitter({})
FAST = FastSegmentation(SPLITTER)
ALPHABET = (
    "あいうえおかがきくけこさしすせそたちつてとなにぬねのはばぱひふへほまみむめもやゆよらりるれろわをんっゃゅょー"
    "アイウエオカガキクケコサシスセソタチツテトナニヌネノハバパヒフヘホマミムメモヤユヨラリルレロワヲンッャュョ"
    "学習深層行列勾配関数確率分布計算機械翻訳注意一二三十百千万円年月日本語文章"
    "０１２３４５６７８９ＡＢＣａｂｃ0123456789abcXYZ、。・「」（）！？ ,.ｱｲｳﾙﾝ"
)
SENTENCES = [
    "深層学習では、勾配降下法を使ってモデルのパラメータを更新します。",
    "この章では行列の積と確率分布について学びます（第3章を参照）。",
    "ミニバッチのサイズを２５６にすると、計算は速くなりますが、メモリを多く使います。",
    "ソフトマックス関数は、出力を確率に変換する。",
]


@pytest.mark.parametrize("text", SENTENCES)
def test_our_sentences_split_as_sphinx_splits_them(text: str) -> None:
    assert FAST.split(text) == SPLITTER.split(text)
    assert len(FAST.split(text)) > 3  # segmented, not one word


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=60))
def test_any_text_splits_as_sphinx_splits_it(text: str) -> None:
    assert FAST.split(text) == SPLITTER.split(text)


def test_the_search_splitter_segments_japanese_runs_and_splits_ascii_into_words() -> None:
    splitter = sphinx_speed.JapaneseSplitter({})
    text = "関数 d2l.train_ch3 は、エポックごとに loss を表示します。"
    words = splitter.split(text)
    assert words[1:3] == ["d2l", "train_ch3"] and "loss" in words
    assert [w for w in words if not w.isascii()] == [
        w for run in ("関数", "は、エポックごとに", "を表示します。") for w in SPLITTER.split(run)
    ]
