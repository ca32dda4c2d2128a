"""How a glossary term's rendering is found in a translation (how the term is found in the
source: :mod:`.term_source`).

The rendering, a variant or the term itself as written, whatever the case, the line breaks and the
hyphens; in Turkish also with the suffixes the language adds, which change a rendering's last
letters (``geçit`` -> ``geçidi``, ``ağırlık sönümü`` -> ``ağırlık sönümlemesi``, ``ön işlemek`` ->
``ön işlenmiş``, ``iş parçacığı`` -> ``iş parçacıkları``), and its compounds written together or
apart (``ön bellek`` -> ``önbelleğinde``, ``veriyolu`` -> ``veri yolları``: :mod:`.term_turkish`);
in Chinese and Japanese with one more character inside a rendering of three or more, or one other
(``学习率`` -> ``学习速率``, ``端到端`` -> ``端对端``), or one of six or more without its last two
(``长短期记忆网络`` -> ``长短期记忆``), or one of a word and ``量`` (a quantity) without it (``偏移量`` ->
``偏移``); in a language written with spaces a long rendering misspelt by one letter inside it
(``kodçüzücü``: a typo is no other term), or a longer one with one or two letters inside it left
out (``düzenleştirme``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from polybook.check.term_source import composed
from polybook.check.term_turkish import turkish_found
from polybook.config.glossary import Term


class Haystack:
    """A text renderings are looked for in, as :func:`normalized`, the same without its spaces and
    its words (:data:`_LETTERS`; each worked out when first asked: only some renderings need them,
    and a text is asked of every way of every term its source uses)."""

    __slots__ = ("_unspaced", "_words", "plain")

    def __init__(self, plain: str) -> None:
        self.plain = plain
        self._unspaced: str | None = None
        self._words: list[str] | None = None

    @property
    def unspaced(self) -> str:
        if self._unspaced is None:
            self._unspaced = self.plain.replace(" ", "")
        return self._unspaced

    @property
    def words(self) -> list[str]:
        if self._words is None:
            self._words = _LETTERS.findall(self.plain)
        return self._words


#: A word, as a misspelt rendering is looked for: its letters, without the punctuation or the
#: slide mark's bracket written against it (``[düzenleştirmesiz``).
_LETTERS = re.compile(r"\w+")


class Written:
    """A translation's text as :func:`rendered` reads it: as written (``raw``, its letters composed
    as :func:`normalized` composes them), normalised as its language is (``plain``) and as English
    is (``kept``: the term as the source writes it), each worked out when first asked: most
    renderings are found in the text as written, and the normalised texts (a fifth of the terms
    check's time) are then never needed."""

    __slots__ = ("_kept", "_lang", "_plain", "_raw", "_texts")

    def __init__(self, texts: Sequence[str], lang: str) -> None:
        self._texts, self._lang = texts, lang
        self._raw: str | None = None
        self._plain: Haystack | None = None
        self._kept: Haystack | None = None

    @property
    def raw(self) -> str:
        if self._raw is None:
            self._raw = composed("\n".join(self._texts))
        return self._raw

    @property
    def plain(self) -> Haystack:
        if self._plain is None:
            self._plain = Haystack(_joined([normalized(text, self._lang) for text in self._texts]))
        return self._plain

    @property
    def kept(self) -> Haystack:
        if not self._lang.startswith("tr"):  # normalised alike: only Turkish's i differs
            return self.plain
        if self._kept is None:
            self._kept = Haystack(_joined([normalized(text, "") for text in self._texts]))
        return self._kept

    def says(self, way: str) -> bool:
        """Whether the text as written holds ``way`` (as :func:`normalized`): then the normalised
        text does too (what normalising takes out or changes is none of a normalised way's
        characters), so ``way in self.plain.plain`` without normalising. Not a way that a word's
        optional letters, ``bağ(lantı)lı``, could hold: a word of Latin letters, where the
        text has a parenthesis."""
        if not way or way[0] == " " or way[-1] == " " or _UNSAID.search(way):
            return False
        raw = self.raw
        return way in raw and ("(" not in raw or _ANOTHER_LETTER.search(way) is not None)


#: What a normalised way holds that the text as written may hold otherwise (marks, parentheses).
_UNSAID = re.compile(r"[()*_~]")
#: A character that no word's optional letters are (:data:`_OPTIONAL`).
_ANOTHER_LETTER = re.compile(r"[^a-zà-ɏ]")


def written(texts: Sequence[str], lang: str) -> Written:
    """``"\\n".join(texts)`` as :func:`rendered` reads it, each text normalised once when asked
    (memoised: a block is read with the one before it and the one after it too) and the pieces
    joined as normalising the joined text would join them."""
    return Written(texts, lang)


def _joined(pieces: list[str]) -> str:
    """``normalized("\\n".join(texts))`` from ``normalized(text)`` of each: a line break joins
    them, and the spaces and hyphens either side of it are one space with it (nothing else
    :func:`normalized` does reaches across a line break)."""
    out = pieces[0] if pieces else ""
    for piece in pieces[1:]:
        out = out.removesuffix(" ") + " " + piece.removeprefix(" ")
    return out


def rendered(term: Term, text: str | Written, lang: str) -> bool:
    """Whether a translation's ``text`` renders ``term``: its rendering, a variant or the term
    itself, in one of the forms the language writes them (``text`` as :func:`written` reads it,
    for one asked of many terms)."""
    seen = text if isinstance(text, Written) else written([text], lang)
    ways = (term.rendering, *term.variants)
    if any(seen.says(normalized(way, lang)) for way in ways) or seen.says(normalized(term.source, "")):
        return True
    return any(_found(way, seen.plain, lang) for way in ways) or _found(term.source, seen.kept, "")


@lru_cache(maxsize=4096)
def normalized(text: str, lang: str) -> str:
    """Its letters composed (NFC: an ``ü`` written as ``u`` and a combining diaeresis, as d2l-tr's
    glossary writes ``ömürlü`` once, is the text's ``ü``), lowercased (Turkish's dotted and dotless
    i as Turkish lowercases them), a word's optional letters in parentheses left out (``tam
    bağ(lantı)lı``: ``tam bağlı``), emphasis marks dropped, hyphens and line breaks as spaces.
    Memoised: a block is looked at once for every term its source uses, with its neighbours."""
    text = composed(text)
    if lang.startswith("tr"):
        text = text.replace("I", "ı").replace("İ", "i")
    text = text.lower()
    if "(" in text:
        text = _OPTIONAL.sub("", text)
    if "*" in text or "_" in text or "~~" in text:  # (what every mark has: most blocks have none)
        text = _MARKS.sub("", text)
    return spaced(text)


#: A word's letters written in parentheses inside it (Latin letters: not a slide mark's ``(**``),
#: looked for from its ``(`` (the letter before it looked behind for from there): a pattern that
#: starts with the look behind is tried at every character, this one only where a ``(`` is.
_OPTIONAL = re.compile(r"\((?<=[a-zà-ɏ]\()[a-zà-ɏ]{1,12}\)(?=[a-zà-ɏ])")
#: Slide marks and emphasis, ``\((?:\*\*|~~)|(?:\*\*|~~)\)|[*_]``, each alternative written to start
#: with its first character, so that ``re`` looks for one of them the way it looks for a character.
_MARKS = re.compile(r"\((?:\*\*|~~)|\*(?:\*\))?|~~\)|_")


def spaced(text: str) -> str:
    """Every run of white space and hyphens (``-``, ``‐``, the full-width ``－``) as one space:
    ``re.sub(r"[\\s\\-‐－]+", " ", text)``, with ``str.split`` (the same white space as ``\\s``) at a
    fifth of its cost."""
    text = text.replace("-", " ").replace("‐", " ").replace("－", " ")
    words = text.split()
    if not words:
        return " " if text else ""
    joined = " ".join(words)
    if text[0].isspace():
        joined = " " + joined
    return joined + " " if text[-1].isspace() else joined


def _found(way: str, seen: Haystack, lang: str) -> bool:
    way = normalized(way, lang)
    plain = seen.plain
    if way in plain or (" " in way and way.replace(" ", "") in seen.unspaced):
        return True  # written together or apart (kodçözücü, kod çözücü)
    if (
        " " not in way
        and len(way) >= 6
        and any(way == plain[i : i + len(way) + 1].replace(" ", "") for i in _everywhere(plain, way[:2], 2))
    ):
        return True
    if lang.startswith("tr") and turkish_found(way, plain):
        return True
    if lang.startswith(("zh", "ja")) and len(way) >= 2 and all(_cjk(char) for char in way):
        # a space between two ideographs (a line break in the source) parts no word: 长 短期记忆网络
        return way in seen.unspaced or _cjk_variant(way, plain) or _cjk_shortened(way, seen.unspaced)
    if " " in way or len(way) < _TYPO_FROM:
        return False
    return _misspelt(way, seen.words) or (len(way) >= _SLIP_FROM and _slipped(way, seen.words))


#: How long a one-word rendering is for a word one letter off to be it misspelt (``kodçüzücü``
#: for ``kodçözücü``): shorter ones have other words that near.
_TYPO_FROM = 8
#: ... and for a word with one or two of its letters inside left out to be it (``düzenleştirme``
#: for ``düzenlileştirme``): a root and its derivations differ at their ends, not inside a long word.
_SLIP_FROM = 12


def _slipped(way: str, words: list[str]) -> bool:
    """Whether one of ``words`` starts with ``way`` with one letter, or two side by side, left out
    after its first four and before its last three (the suffixes a language adds may change those)."""
    head = way[:4]
    candidates = [word for word in words if word.startswith(head)]
    if not candidates:
        return False
    for cut in (1, 2):
        for at in range(4, len(way) - 3 - cut + 1):
            slipped = way[:at] + way[at + cut :]
            if any(word.startswith(slipped) for word in candidates):
                return True
    return False


def _misspelt(way: str, words: list[str]) -> bool:
    """Whether one of ``words`` starts with ``way`` with one letter inside it another (a
    suffix may follow). Not one letter more or fewer: in a language that adds suffixes that
    is another word of the same root (``örneklenme``, being sampled, for ``örneklem``, a sample)."""
    size = len(way)
    return any(
        word[:1] == way[:1] and word[size - 1 : size] == way[-1:] and _one_other(way, word[:size])
        for word in words
        if len(word) >= size
    )


def _one_other(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with exactly one letter another."""
    return sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _cjk_variant(way: str, plain: str) -> bool:
    """A rendering with one or two more characters inside it (``学习率`` -> ``学习速率``, ``精度``
    -> ``精确度``, ``跳元模型`` -> ``跳元语法模型``), of three characters or more with one of them
    another (``端到端`` -> ``端对端``, ``准确率`` -> ``准确性``), or of four or more with one inside it
    left out (``二元分类`` -> ``二分类``): the same word, segmented or abbreviated otherwise.

    Looked for by hand, where the rendering's first part is written: as patterns, the
    characters' class is compiled anew for each (a table of 21,000 characters, some milliseconds
    per rendering and worker), for a search of a few hundred characters."""
    size = len(way)
    if size >= 4 and any(way[:i] + way[i + 1 :] in plain for i in range(1, size - 1)):
        return True
    more = 2 if size >= 3 else 1  # characters inside it
    for i in range(1, size):
        head, tail = way[:i], way[i:]
        for at in _everywhere(plain, head):
            end = at + i
            for extra in range(1, more + 1):
                if not _cjk(plain[end + extra - 1 : end + extra]):
                    break
                if plain.startswith(tail, end + extra):
                    return True
    if size < 3:
        return False
    for i in range(size):  # one of them another
        head, tail = way[:i], way[i + 1 :]
        if not head:
            if any(_cjk(plain[at - 1 : at]) for at in _everywhere(plain, tail) if at > 0):
                return True
            continue
        for at in _everywhere(plain, head):
            if _cjk(plain[at + i : at + i + 1]) and plain.startswith(tail, at + i + 1):
                return True
    return False


def _cjk_shortened(way: str, unspaced: str) -> bool:
    """A long rendering written without its last two characters, as Chinese shortens a long
    compound's head: ``长短期记忆网络`` -> ``长短期记忆`` (the model without its "network"), of six
    characters or more. Not a shorter one's: ``学习`` (learning) is no ``学习率`` (its rate). And a
    word's quantity, ``量``, left out: ``偏移量`` -> ``偏移`` (an offset, the amount shifted)."""
    if len(way) == 3 and way[-1] == "量":
        return way[:-1] in unspaced
    return len(way) >= 6 and way[:-2] in unspaced


def _everywhere(plain: str, part: str, step: int = 1) -> Iterator[int]:
    """Every place ``part`` is written in ``plain``, overlapping ones too; with ``step`` its
    length, each after the end of the one before (as ``re.finditer`` finds them)."""
    at = plain.find(part)
    while at >= 0:
        yield at
        at = plain.find(part, at + step)


def _cjk(char: str) -> bool:
    """Whether ``char`` is one kana or CJK ideograph (an empty one is not)."""
    return "\u3040" <= char <= "\u30ff" or "\u4e00" <= char <= "\u9fff"
