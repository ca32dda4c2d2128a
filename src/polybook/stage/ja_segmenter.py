"""Sphinx's Japanese word segmenter (TinySegmenter, ``sphinx.search.ja.DefaultSplitter``),
evaluated faster, with the same words.

TinySegmenter decides a word boundary before each character from a score: a sum of about forty
weights looked up by the characters around it, their character classes, and the decisions
before it. Sphinx's evaluation makes forty method calls and builds forty strings a character,
and matches every character against six patterns for its class: a Japanese d2l language spends
a fifth of its Sphinx build there. Here the same weights, from the same tables of the installed
Sphinx, are summed in two parts:

* what depends only on the text -- characters and classes -- for every position at once; a
  character's class is looked up once per character seen;
* what depends on the decisions before (``p1``..``p3``) with the classes, memoised: there are
  few such combinations.

Integers summed in another order give the same score, so the same boundaries: the test compares
the two on generated texts.
"""

from __future__ import annotations

from itertools import repeat
from operator import add
from typing import Any

#: The text's edges, as TinySegmenter pads a text: three marks before, three after.
_BEFORE, _AFTER = ("B3", "B2", "B1"), ("E1", "E2", "E3")


class FastSegmentation:
    """A segmenter reading its weights from a ``DefaultSplitter`` (its class attributes)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.classes: dict[str, str] = {}
        self.decided: dict[tuple[str, ...], int] = {}

    def character_class(self, char: str) -> str:
        found = self.classes.get(char)
        if found is None:
            found = self.classes[char] = self.model.ctype_(char)
        return found

    def text_scores(self, seg: list[str], ctype: list[str]) -> list[int]:
        """The part of each position's score that the text alone decides (positions 4..n-4),
        a table at a time over every position."""
        m = self.model
        words, classes = _columns(seg), _columns(ctype)
        tables = [
            *zip([m.UW1__, m.UW2__, m.UW3__, m.UW4__, m.UW5__, m.UW6__], words, strict=True),
            *zip([m.BW1__, m.BW2__, m.BW3__], _joined(words, 2), strict=True),
            *zip([m.TW1__, m.TW2__, m.TW3__, m.TW4__], _joined(words, 3), strict=True),
            *zip([m.UC1__, m.UC2__, m.UC3__, m.UC4__, m.UC5__, m.UC6__], classes, strict=True),
            *zip([m.BC1__, m.BC2__, m.BC3__], _joined(classes, 2), strict=True),
            *zip([m.TC1__, m.TC2__, m.TC3__, m.TC4__], _joined(classes, 3), strict=True),
        ]
        terms = [list(map(table.get, column, repeat(0))) for table, column in tables]
        return [m.BIAS__ + sum(position) for position in zip(*terms, strict=True)]

    def decision_score(self, p1: str, p2: str, p3: str, c1: str, c2: str, c3: str, c4: str) -> int:
        """The part of a score that the decisions before decide (with the classes), memoised."""
        key = (p1, p2, p3, c1, c2, c3, c4)
        found = self.decided.get(key)
        if found is not None:
            return found
        m = self.model
        found = (
            m.UP1__.get(p1, 0) + m.UP2__.get(p2, 0) + m.UP3__.get(p3, 0)
            + m.BP1__.get(p1 + p2, 0) + m.BP2__.get(p2 + p3, 0)
            + m.UQ1__.get(p1 + c1, 0) + m.UQ2__.get(p2 + c2, 0) + m.UQ1__.get(p3 + c3, 0)  # UQ1 twice, as Sphinx
            + m.BQ1__.get(p2 + c2 + c3, 0) + m.BQ2__.get(p2 + c3 + c4, 0)
            + m.BQ3__.get(p3 + c2 + c3, 0) + m.BQ4__.get(p3 + c3 + c4, 0)
            + m.TQ1__.get(p2 + c1 + c2 + c3, 0) + m.TQ2__.get(p2 + c2 + c3 + c4, 0)
            + m.TQ3__.get(p3 + c1 + c2 + c3, 0) + m.TQ4__.get(p3 + c2 + c3 + c4, 0)
        )  # fmt: skip
        self.decided[key] = found
        return found

    def split(self, text: str) -> list[str]:
        """The words ``DefaultSplitter.split`` gives for ``text``."""
        if not text:
            return []
        seg = [*_BEFORE, *text, *_AFTER]
        ctype = ["O", "O", "O", *map(self.character_class, text), "O", "O", "O"]
        words: list[str] = []
        word = seg[3]
        p1 = p2 = p3 = "U"
        decided, decide = self.decided, self.decision_score
        for i, score in enumerate(self.text_scores(seg, ctype), start=4):
            key = (p1, p2, p3, ctype[i - 3], ctype[i - 2], ctype[i - 1], ctype[i])
            score += decided[key] if key in decided else decide(*key)
            p = "O"
            if score > 0:
                words.append(word.strip())
                word, p = "", "B"
            p1, p2, p3 = p2, p3, p
            word += seg[i]
        words.append(word.strip())
        return words


def _columns(padded: list[str]) -> list[list[str]]:
    """For each of the six places around a position (three before it, itself, two after), what
    stands there, for every position of a padded text."""
    end = len(padded) - 3
    return [padded[4 + offset : end + offset] for offset in range(-3, 3)]


def _joined(columns: list[list[str]], width: int) -> list[list[str]]:
    """``width`` neighbouring columns joined, from the second (pairs) or the first (triples) on,
    as TinySegmenter's bigram and trigram features join them."""
    if width == 2:
        return [list(map(add, columns[k], columns[k + 1])) for k in range(1, 4)]
    return [list(map(add, map(add, columns[k], columns[k + 1]), columns[k + 2])) for k in range(4)]
