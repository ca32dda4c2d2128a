"""The script a language's text is written in, decided from the text itself.

A PDF's main and heading fonts follow the script of the book's words, not a list of language
codes: a Korean translation is set in Noto Serif CJK KR through xeCJK because its letters are
Hangul, whatever its language is called. Letters are counted by the script Unicode names them
after; marks, digits, symbols and punctuation do not count, and neither does code (its words
are Latin in every language: the caller passes prose).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable
from enum import StrEnum


class Script(StrEnum):
    LATIN = "Latin"
    CYRILLIC = "Cyrillic"
    GREEK = "Greek"
    HAN = "Han"  # CJK ideographs without kana or Hangul: Chinese
    KANA = "Kana"  # Hiragana or Katakana with them: Japanese
    HANGUL = "Hangul"
    DEVANAGARI = "Devanagari"
    ARABIC = "Arabic"
    HEBREW = "Hebrew"
    THAI = "Thai"
    OTHER = "Other"


_BY_NAME = {
    "LATIN": Script.LATIN,
    "CYRILLIC": Script.CYRILLIC,
    "GREEK": Script.GREEK,
    "CJK": Script.HAN,
    "HIRAGANA": Script.KANA,
    "KATAKANA": Script.KANA,
    "HANGUL": Script.HANGUL,
    "DEVANAGARI": Script.DEVANAGARI,
    "ARABIC": Script.ARABIC,
    "HEBREW": Script.HEBREW,
    "THAI": Script.THAI,
}
#: A script is the text's when this share of its letters are that script's (Latin aside):
#: a Japanese text's ideographs outnumber its kana, an English text quotes a few words.
_SHARE = 0.2
#: Japanese is told from Chinese by any kana at all, beyond a few quoted words.
_KANA = 0.02


def script_of(char: str) -> Script | None:
    """The script of a letter; None for what is no letter (digits, symbols, marks)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    first = unicodedata.name(char, "").split(" ")[0]
    return _BY_NAME.get(first, Script.OTHER)


def letters(texts: Iterable[str]) -> Counter[Script]:
    counts: Counter[Script] = Counter()
    for text in texts:
        counts.update(script for char in text if not char.isascii() and (script := script_of(char)))
        counts[Script.LATIN] += sum(char.isascii() and char.isalpha() for char in text)
    return counts


def main_script(texts: Iterable[str]) -> Script:
    """The script most of the text's letters are written in (Latin when no other reaches
    :data:`_SHARE`; kana, not Han, when the text has any: Japanese writes both)."""
    counts = letters(texts)
    total = sum(counts.values())
    if not total:
        return Script.LATIN
    cjk = counts[Script.HAN] + counts[Script.KANA]
    if counts[Script.KANA] >= _KANA * total and cjk >= _SHARE * total:
        return Script.KANA
    others = [(n, script) for script, n in counts.items() if script is not Script.LATIN and n >= _SHARE * total]
    return max(others)[1] if others else Script.LATIN
