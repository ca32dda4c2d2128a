"""How a Turkish rendering is found in a translation (:mod:`.term_forms`): as the language
writes it before the suffixes it adds, which change a rendering's last letters, and a compound
written together or apart."""

from __future__ import annotations

import re
from functools import lru_cache


def turkish_found(way: str, plain: str) -> bool:
    """A Turkish rendering in one of its forms (:func:`_turkish`), also as a compound written
    together (``ön bellek`` -> ``önbelleğinde``) or apart (``veriyolu`` -> ``veri yolları``).
    ``plain``: the translation as :func:`.term_forms.normalized` gives it."""
    if _turkish(way).search(plain):
        return True
    if " " in way:
        return _turkish(way.replace(" ", "")).search(plain) is not None
    return len(way) >= 7 and _turkish_apart(way).search(plain) is not None


@lru_cache(maxsize=4096)
def _turkish_apart(way: str) -> re.Pattern[str]:
    """A one-word rendering written as two words, each part of three letters or more, as
    :func:`_turkish` finds them: one pattern for every place it may be split (one compiled)."""
    return re.compile("|".join(_turkish_written(f"{way[:i]} {way[i:]}") for i in range(3, len(way) - 2)))


#: Turkish's hard consonants, softened before a suffix that starts with a vowel.
_SOFTENED = {"p": "b", "ç": "c", "t": "d", "k": "ğ"}
_VOWELS = "aeıioöuü"


@lru_cache(maxsize=4096)
def _turkish(way: str) -> re.Pattern[str]:
    """A Turkish rendering as the language writes it before suffixes: each word but the last
    with a suffix of its own (``geri yayma`` -> ``geriye yayma``) and maybe an article after it
    (``yinelemeli bir sinir ağı``), the last as one of
    :func:`_turkish_stems` or itself."""
    return re.compile(_turkish_written(way))


def _turkish_written(way: str) -> str:
    """:func:`_turkish`'s pattern, as written."""
    *words, last = way.split(" ")
    lead = "".join(re.escape(word) + r"\w{0,4} (?:bir )?" for word in words)  # yinelemeli bir sinir ağı
    stems = [stem for stem in _turkish_stems(last) if len(stem) >= (2 if words else 4)]
    return lead + "(?:" + "|".join(re.escape(stem) for stem in [last, *stems]) + ")"


def _turkish_stems(last: str) -> list[str]:
    """The forms a Turkish word takes before a suffix: its final consonant softened (``geçit``
    -> ``geçid``, ``renk`` -> ``reng``), its final vowel dropped (``sönümü`` -> ``sönüm``) and
    the consonant before it hard again (``parçacığı`` -> ``parçacık``), a compound's ``-sI``
    dropped (``kümesi`` -> ``küme``), a plural's ending (``fonksiyonları`` -> ``fonksiyon``), a
    verb's infinitive or a verbal noun's ending dropped (``işlemek`` -> ``işle``, ``bitiştirme``
    -> ``bitiştir``) and its ``-leştir`` as ``-le`` (``melezleştirme`` -> ``melezle``, which
    ``melezleme`` says too)."""
    stems = []
    if last[-1:] in _SOFTENED:
        stems.append(last[:-2] + "ng" if last.endswith("nk") else last[:-1] + _SOFTENED[last[-1]])
    for ending in ("mek", "mak", "me", "ma"):
        if last.endswith(ending):
            stems.append(last[: -len(ending)])
            made = next((made for made in ("ştir", "ştır") if stems[-1].endswith(made)), "")
            if made and len(stems[-1]) - len(made) >= 5:
                stems.append(stems[-1][: -len(made)])  # melezleştirme -> melezle(me): made X, X-ed
            break
    else:
        if last[-1:] in _VOWELS:
            stems.append(last[:-1])
            if last[-3:-2] in _VOWELS and last[-2:-1] == "s":
                stems.append(last[:-2])  # veri kümesi -> küme
            if last[-2:-1] in _HARDENED:
                stems.append(last[:-2] + _HARDENED[last[-2]])
    plural = next((ending for ending in ("ları", "leri", "lar", "ler") if last.endswith(ending)), "")
    if plural and len(last) - len(plural) >= 3:
        stems.append(last[: -len(plural)])
    return stems


_HARDENED = {soft: hard for hard, soft in _SOFTENED.items()}
