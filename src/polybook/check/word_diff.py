"""What really changed between two texts of one source block: the words, not the white space,
the typography or the markup around them.

d2l 1.0 rewrapped lines, straightened quotes, turned ``--`` into dashes and ``*x*`` into ``_x_``
in hundreds of paragraphs whose words stayed the same; a translation of such a paragraph is still
right. ``polybook port`` keeps it (:func:`same_words`), the migration plan counts only the words a
translator has to look at (:func:`changed_words`), and a reader of a stale block is shown the
words that changed (:func:`word_runs`). Words are compared after :func:`_normal`; what is shown
are the source's own words.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum

from cydifflib import SequenceMatcher  # difflib's, compiled: the same opcodes

from polybook.dialect.slides import PAIRS

#: Typography with one plain spelling: quotes, dashes, spaces that do not break, ellipses.
_TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u200b": "",
        "\u2026": "...",
    }
)
#: Emphasis marks (``*``, ``_`` at a word's edge), a list item's bullet, a quote's ``>``, a
#: heading's ``#``s: markup that says nothing a translation keeps.
#: ``(?<![\w*])[*_]+|[*_]+(?![\w*])`` -- a run of marks with no letter or ``*`` before it, else
#: one with none after it -- written to start with its first mark, so that ``re`` looks for a
#: ``*`` or ``_`` the way it looks for a character, not by trying both alternatives at every
#: place: the same runs, a fifth of the time.
_EMPHASIS = re.compile(r"[*_](?:(?<![\w*].)[*_]*|[*_]*(?![\w*]))")
_LEADING = re.compile(r"^[ \t]*(?:[-*+]|>|#{1,6})[ \t]+", re.M)
_DASHES = re.compile(r"-{2,}")
#: d2l's slide marks (``[**shown on a slide**]``): markup for the slides, not words.
_SLIDES = re.compile("|".join(re.escape(mark) for pair in PAIRS for mark in pair))
#: English contractions, one way of writing the same words (d2l 1.0 wrote "let's" for 0.17's
#: "let us" in some 250 paragraphs): no translation says them otherwise.
_CONTRACTIONS = (
    (("let's",), re.compile(r"\b(let)'s\b"), r"\1 us"),
    (("can't", "cannot"), re.compile(r"\bcan't\b|\bcannot\b"), "can not"),
    (("won't",), re.compile(r"\bwon't\b"), "will not"),
    (("n't",), re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (("'s",), re.compile(r"\b(it|that|there|what|here)'s\b"), r"\1 is"),
    (("'re",), re.compile(r"\b(we|you|they)'re\b"), r"\1 are"),
    (("'ve",), re.compile(r"\b(we|you|they|i)'ve\b"), r"\1 have"),
    (("'ll",), re.compile(r"\b(we|you|they|i|it)'ll\b"), r"\1 will"),
    (("i'm",), re.compile(r"\bi'm\b"), "i am"),
)  # each with what it needs written: a text without it is left as it is, unsearched


@functools.lru_cache(maxsize=4096)
def _normal(text: str) -> str:
    """``text`` with its typography, emphasis, slide marks, bullets, case and contractions made
    plain (its words stay). Kept for the last few thousand texts: a check compares one source
    paragraph with the base of every language that has the chapter, in the migration plan and in
    the staleness notes, which the check asks for chapter by chapter."""
    plain = text if text.isascii() else text.translate(_TYPOGRAPHY)  # (ASCII has none of it: a flag read)
    if "**" in plain or "~~" in plain:  # (every slide mark has one of the two)
        plain = _SLIDES.sub("", plain)
    plain = _LEADING.sub("", plain)
    if "*" in plain or "_" in plain:
        plain = _EMPHASIS.sub("", plain)
    if "--" in plain:
        plain = _DASHES.sub("-", plain)
    plain = plain.casefold()
    if "'" in plain or "cannot" in plain:  # (every contraction has one of the two)
        for needs, pattern, spelled in _CONTRACTIONS:
            if any(part in plain for part in needs):
                plain = pattern.sub(spelled, plain)
    return plain


@functools.lru_cache(maxsize=1 << 16)
def _key(word: str) -> str:
    """A word as it is compared. Kept for the last 65,536 words, apart from :func:`_normal`'s
    texts (a long-lived process that checks again keeps no more): a book's words repeat (the
    migration plans of the 1.0 book compared some 300,000 words, 14 regular expressions each, a
    fifth of a cold check)."""
    if _MARKED.isdisjoint(word):  # most words: nothing of _normal's to do but the case
        plain = word.casefold()
        if "cannot" not in plain:
            return plain
    return _normal.__wrapped__(word) or word


#: The characters :func:`_normal` changes or reads in a word (its typography, emphasis and slide
#: marks, dashes, contractions' apostrophe; white space, which a bullet needs): a word with none of
#: them is only casefolded.
_MARKED = frozenset("*_~-' \t").union(map(chr, _TYPOGRAPHY))


@functools.lru_cache(maxsize=1024)
def same_words(old: str, new: str) -> bool:
    """Whether two texts differ only in white space, typography (quotes, dashes, spaces that do
    not break, hyphens between words, case, contractions) or markup. Kept for the last pairs: the
    staleness notes and the migration plan ask it of the same base and source paragraphs."""
    return _joined(old) == _joined(new)


def _joined(text: str) -> str:
    """:func:`_normal`'s text without what separates words in one text and not in the other (white
    space, hyphens: ``fully-connected``, ``fully connected``). By ``str.split``, which cuts at the
    very characters ``re``'s ``\\s`` matches (both ask ``Py_UNICODE_ISSPACE``): the pattern
    ``[\\s-]+`` took 0.05 CPU-s of the 1.0 book's check, this a sixth of it."""
    return "".join(_normal(text).replace("-", " ").split())


class Step(StrEnum):
    SAME = "same"
    GONE = "gone"  # words of the old text the new one does not have
    ADDED = "added"  # words of the new text


@dataclass(frozen=True, slots=True)
class Words:
    """A run of words of one kind, as the texts write them (one space apart)."""

    step: Step
    text: str


def _opcodes(before: list[str], after: list[str]) -> list[tuple[str, int, int, int, int]]:
    """How to turn the words ``before`` into ``after``, each word compared as :func:`_key` makes it."""
    return SequenceMatcher(None, list(map(_key, before)), list(map(_key, after)), autojunk=False).get_opcodes()


def word_runs(old: str, new: str) -> list[Words]:
    """The words of ``old`` and ``new`` as runs kept, gone and added (a replacement: gone then
    added), compared as :func:`_normal` makes them: a word whose quotes or emphasis alone
    changed is the same word, shown as ``new`` writes it."""
    before, after = old.split(), new.split()
    out: list[Words] = []
    for tag, i1, i2, j1, j2 in _opcodes(before, after):
        if tag == "equal":
            out.append(Words(Step.SAME, " ".join(after[j1:j2])))
            continue
        if i2 > i1:
            out.append(Words(Step.GONE, " ".join(before[i1:i2])))
        if j2 > j1:
            out.append(Words(Step.ADDED, " ".join(after[j1:j2])))
    return out


@functools.lru_cache(maxsize=4096)
def changed_words(old: str, new: str) -> int:
    """How many words of ``new`` a translator has to look at: those added or replaced (0 when
    only white space, typography or markup changed); a change that only drops words counts one.
    Counted on :func:`word_runs`' opcodes, without making its runs; kept for the last pairs: the
    languages whose bases are alike ask for the same (the 1.0 book: 2,703 asks, 1,807 pairs)."""
    if same_words(old, new):
        return 0
    added = gone = 0
    for tag, i1, i2, j1, j2 in _opcodes(old.split(), new.split()):
        if tag != "equal":
            added, gone = added + j2 - j1, gone + i2 - i1
    return added or (1 if gone else 0)
