"""What a translation writes its own way inside math, kept when sync copies the source's.

``polybook sync`` repairs a formula that really changed by copying the source's TeX. The
copy keeps what the check does not count as drift: the words the translator put in
``\\text{}`` (and ``\\mathrm{bias}``), the language's number format (pt and tr: ``0,5`` and
``10.000``), and whether the sentence's punctuation sits inside the math or after it.
"""

from __future__ import annotations

import re

from polybook.check.tex import TEXT_CMD, is_words

_DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d+,\d{1,2}(?![\d,])|(?<![\d.,])\d{1,3}(?:\.\d{3})+(?![\d.,])")
_DECIMAL_POINT = re.compile(r"(?<![\d.,])\d+\.\d{1,2}(?![\d.])|(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d.,])")
_SOURCE_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+\.\d+)(?![\w.,])")
_INLINE_MATH = re.compile(r"\$[^$\n]+\$")
_TRAILING = re.compile(r"\s*(?<!\\)([.,;:?。，、；：？]+)\s*$")


def keep_text_words(translation: str, source: str) -> str:
    """The source's TeX, with the words inside its ``\\text{}`` (and ``\\mathrm{bias}``) taken from
    the translation when both have the same ``\\text``-like commands in the same order."""
    theirs = TEXT_CMD.findall(translation)  # (command, words)
    if [command for command, _ in theirs] != [command for command, _ in TEXT_CMD.findall(source)]:
        return source
    kept = iter(theirs)

    def put(match: re.Match[str]) -> str:
        command, words = next(kept)
        return match[1] + words + "}" if is_words(command, words) and is_words(match[1], match[2]) else match[0]

    return TEXT_CMD.sub(put, source)


def uses_decimal_comma(tex: str, document: str = "") -> bool:
    """Whether a translation writes ``0,5`` and ``10.000``: told by the formula being replaced,
    else by the math of its whole chapter."""
    for text in (tex, " ".join(_INLINE_MATH.findall(document))):
        comma, point = len(_DECIMAL_COMMA.findall(text)), len(_DECIMAL_POINT.findall(text))
        if comma != point:
            return comma > point
    return False


def in_decimal_comma(tex: str) -> str:
    """The source's numbers (``0.5``, ``10,000``) as a decimal-comma language writes them."""

    def swap(match: re.Match[str]) -> str:
        return match[1].translate(str.maketrans(".,", ",."))

    return _SOURCE_NUMBER.sub(swap, tex)


def keep_punctuation(translation: str, source: str) -> str:
    """The source's TeX with the translation's choice of sentence punctuation at its end."""
    theirs, mine = _TRAILING.search(translation), _TRAILING.search(source)
    if mine and not theirs:
        return source[: mine.start()]
    if theirs and not mine:
        return source.rstrip() + theirs[1]
    return source


def in_translation_style(translation: str, source: str, document: str = "") -> str:
    """The source's formula as the translation writes math: its words, number format and
    punctuation (``document``: the translation's text, to tell its number format)."""
    new = keep_punctuation(translation, keep_text_words(translation, source))
    return in_decimal_comma(new) if uses_decimal_comma(translation, document) else new
