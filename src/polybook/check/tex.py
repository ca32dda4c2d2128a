"""Math and numbers as compared: what a translation may write its own way is normalised away.

Math is language-neutral, but not every difference in its TeX is drift. A translation
writes its language's number format (pt and tr: ``0,5`` for ``0.5``, ``10.000`` for
``10,000``; tr: ``\\%95`` for ``95\\%``), moves sentence punctuation into or out of the math,
translates the words inside ``\\text{}``, and spaces its TeX its own way. :func:`normalize_tex`
removes exactly those differences, so equal keys mean "nothing for the translator to do".
:func:`numbers_of` does the same for the numbers of prose (``60,000``, ``60.000``,
``6万`` and ``60 thousand`` are one number).
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal

# ``\text{words}`` and the like; ``\mathrm{words}`` counts when it holds words (groups: command, words)
TEXT_CMD = re.compile(r"(\\(?:text|textrm|textit|textbf|mbox|mathrm|operatorname)\s*\{)((?:[^{}]|\{[^{}]*\})*)\}")
_NOT_WORD = re.compile(r"\\[{}, ]|\\[`'^\"~=.c]\{?|[{}~,\s-]")  # what else words in TeX may hold
# an ordinal: English ``i^\mathrm{th}``, and pt's ``i^\mathrm{a}`` (a letter in roman type is no exponent)
_ORDINAL = re.compile(
    r"\^\s*\{?\s*(?:(?:\\(?:mathrm|text|textrm|rm)\s*)?\{?\s*(?:th|st|nd|rd)|\\(?:mathrm|text|textrm)\s*\{\s*[aoªº])"
    r"\s*\}?\s*\}?(?![A-Za-z])"
)
# spacing commands (``\\,``, ``\\;``, ``\\ ``, ``~``, ``\\quad``); a line break ``\\\\`` is kept
_SPACING = re.compile(r"(\\\\)|\\[,;:!> ]|~|\\q?quad(?![A-Za-z])")
# full-width punctuation, and characters that render as TeX commands do (zh writes ``$1×1$``)
_WIDE = str.maketrans(
    {"，": ", ", "：": ":", "；": ";", "（": "(", "）": ")", "！": "!", "。": ".", "′": "'", "−": "-", "　": " "}
    | {"×": r" \times ", "·": r" \cdot ", "÷": r" \div ", "≤": r" \leq ", "≥": r" \geq ", "≠": r" \neq "}
    | {"∈": r" \in ", "→": r" \rightarrow ", "∞": r" \infty ", "…": r" \ldots "}
)
_DEFINED = re.compile(
    r"\\(?:stackrel|overset)\s*\{\s*\\(?:mathrm|text)\s*\{\s*def\s*\}\s*\}\s*\{\s*=\s*\}|\\(?:triangleq|coloneqq)"
)
_ORDINAL_BASE = re.compile(r"\(([^()]*)\)(\s*\^\s*\{?\s*\\(?:mathrm|text|textrm)\s*\{\s*(?:th|st|nd|rd)\b)")
_ALIAS = re.compile(r"\\(le|ge|ne|to|dots|gets|lvert|rvert|lVert|rVert)(?![A-Za-z])")
_ALIASES = {"le": r"\leq", "ge": r"\geq", "ne": r"\neq", "to": r"\rightarrow", "dots": r"\ldots", "gets": r"\leftarrow"}
_ALIASES |= {"lvert": "|", "rvert": "|", "lVert": r"\|", "rVert": r"\|"}
_NEEDED_SPACE = re.compile(r"(\\[A-Za-z]+)\s+(?=[A-Za-z])")  # ``\mathbf x``: this space is meaning
_ONE_CHAR_ARG = re.compile(r"(\\[A-Za-z]+)\s*\{\s*([A-Za-z0-9])\s*\}")  # ``\mathbf{x}`` is ``\mathbf x``
# numbers in math: a separator between digits is dropped, whichever it is (``0.5``, ``0,5``;
# ``10,000``, ``10.000``, ``10{,}000``, ``10\,000``; ``(1, 2)`` and zh's ``(1,2)``), so a language's
# own format is never drift; only ``1.5`` becoming ``15`` would go unseen
_DIGIT_SEPARATOR = re.compile(r"(?<=\d)(?:\{[.,]\}|\\,|[.,]\s*)(?=\d)")
_CURRENCY_FIRST = re.compile(r"\\\$\s*(\d[\d.,]*)")  # ``\$10`` is tr's ``10\$``
_SUFFIX = re.compile(r"(?<=[A-Za-z}])'[a-zçğıöşü]{1,3}$")
_PRODUCT = re.compile(r"(?<=\d)\\(?:cdot|times)(?=\d)")
_OUTER_PARENS = re.compile(r"\((?P<inner>[^()]*)\)")
_LONE_BRACES = re.compile(r"(?<![A-Za-z\\}])\{(\w)\}")
_PERCENT_FIRST = re.compile(r"\\%(\d[\d.]*)")  # tr: ``\%95``
# sentence punctuation at the end of the math, also before closing ``\\`` and ``\end{...}``
_TRAILING_PUNCT = re.compile(r"[.,;:?。、]+((?:\\\\)?(?:\\end\{[A-Za-z*]+\})*)$")
_PUNCT_ENDS = frozenset(".,;:?。、\\}")  # what math ends on when _TRAILING_PUNCT has something to drop
_PURE_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:\\%)?")

# prose numbers: ``60,000``, ``60.000``, ``60 000``, ``0,5``; a unit may follow without a space
# (zh and pt write ``40ms``, ``2080Ti``), but a name that ends in digits (``VOC2012``) is no number
# (written digit first, what may not stand before it looked behind from there: the regex engine then
# skips to the next digit instead of trying every character; the same matches as
# ``(?<![A-Za-z0-9_.,])(\d{1,3}(?:[.,\u00a0\u202f]\d{3})+|\d+(?:[.,]\d+)?)(?![0-9_])``, three times faster)
_NUMBER = re.compile(r"(\d(?<![A-Za-z0-9_.,]\d)(?:\d{0,2}(?:[.,\u00a0\u202f]\d{3})+|\d*(?:[.,]\d+)?))(?![0-9_])")
_ANY_NUMBER = re.compile(r"(\d(?<![0-9_.,]\d)(?:\d{0,2}(?:[.,\u00a0\u202f]\d{3})+|\d*(?:[.,]\d+)?))(?![0-9_])")
_GRAMMAR = re.compile(r"(?:st|nd|rd|th)\b")  # an ordinal (``19th``)
_NUMBER_MATH = re.compile(r"\$\s*(?:\\%\s*)?(\d[\d.,]*)\s*(?:\\%)?\s*\$")  # ``$10.000$``, ``$95\%$``
# what may follow a number and scales it: words, and the CJK units (``1億1000万`` is one number)
_SCALE = re.compile(
    r"\s*(thousand|million|billion|mil\b|milh(?:ão|ões)|bilh(?:ão|ões)|bin\b|milyon|milyar|百万|千万|万|萬|亿|億|千)"
    r"(?:\s*(\d+)\s*[万萬])?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 10**3, "mil": 10**3, "bin": 10**3, "千": 10**3, "万": 10**4, "萬": 10**4}
_SCALES |= {"million": 10**6, "milhão": 10**6, "milhões": 10**6, "milyon": 10**6, "百万": 10**6, "千万": 10**7}
_SCALES |= {"billion": 10**9, "bilhão": 10**9, "bilhões": 10**9, "milyar": 10**9, "亿": 10**8, "億": 10**8}
_DECADE = re.compile(r"s\b|年代")  # the 1990s: zh and ja write 90年代
_NOT_PROSE = re.compile(
    r"`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|:[\w-]+:`[^`]*`|<[^>]*>|https?://\S+|\[[^\]]*\]\[[^\]]*\]", re.S
)
_NOT_PROSE_BUT_CODE = re.compile(
    r"\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|:[\w-]+:`[^`]*`|<[^>]*>|https?://\S+|\[[^\]]*\]\[[^\]]*\]", re.S
)
# numbers a translation writes as words (only looked in, never asked for)
_NUMBER_WORDS = {"cem": 100, "cento": 100, "mil": 1000, "yüz": 100, "bin": 1000, "百": 100, "千": 1000}
_NUMBER_WORDS |= {"一百": 100, "一千": 1000, "一万": 10**4, "十万": 10**5, "百万": 10**6, "一百万": 10**6}
_NUMBER_WORDS |= {"千万": 10**7, "一千万": 10**7, "一亿": 10**8, "百分之百": 100}
_NUMBER_WORD = re.compile("|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)))
# the number words no other one holds: prose holds a number word when it holds one of these (``in``
# looks for each faster than the regex's one scan; with numbers written as math replaced only where
# there is one: the 1.0 book's 22,638 texts read in 1.19 -> 1.03 G instructions, callgrind)
_WORD_CORES = tuple(
    word for word in _NUMBER_WORDS if not any(other != word and other in word for other in _NUMBER_WORDS)
)
# what plain text leaves out: math, link targets, roles, html (inline code stays: it is shown as written)
_NOT_PLAIN = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|:[\w-]+:`[^`]*`|<[^>]*>|https?://\S+", re.S)
_SIMPLE = re.compile(r"[A-Za-z0-9(),.+=°\-]{1,20}")
_DIGIT = re.compile(r"\d")
# three words in a row (letter first, the same matches as ``(?<![\\A-Za-z])[A-Za-z]{2,} +[A-Za-z]{2,} +…``)
_WORDS = re.compile(r"[A-Za-z](?<![\\A-Za-z][A-Za-z])[A-Za-z]+ +[A-Za-z]{2,} +[A-Za-z]{2,}(?![A-Za-z])")
# (digit first, as _NUMBER: the same matches as
# ``(?<![\d.])\d{1,3}(?:[.,]\d{3})+(?![\d])|(?<![\d.])\d+(?:[.,]\d+)?(?![\d])``, without trying every character)
_MATH_NUMBER = re.compile(r"\d(?<![\d.]\d)(?:\d{0,2}(?:[.,]\d{3})+(?!\d)|\d*(?:[.,]\d+)?(?!\d))")
_GROUPED = re.compile(r"\d{1,3}(?:[.,\u00a0\u202f]\d{3})+")  # ``60,000``: digits in groups of three
_NOT_DIGIT = re.compile(r"\D")
SMALL = 12  # numbers up to this are too common to compare ("two", "3 steps")


def number_value(raw: str) -> str:
    """``60.000``, ``60,000`` and ``60000`` are one number; ``0,5`` is ``0.5``."""
    if raw.isdigit():  # (most: nothing to do)
        return raw
    if _GROUPED.fullmatch(raw):
        return _NOT_DIGIT.sub("", raw)
    return raw.replace(",", ".")


def is_words(command: str, words: str) -> bool:
    """Whether a ``\\text``-like command holds words a translation translates: always for
    ``\\text{}``, for ``\\mathrm{}`` when it holds two letters or more and nothing else
    (``\\mathrm{bias}``, ``\\mathrm{\\{cat, dog\\}}``; not ``\\mathrm{d}``)."""
    if not command.startswith(("\\mathrm", "\\operatorname")):
        return True
    letters = _NOT_WORD.sub("", words)
    return len(letters) >= 2 and letters.isalpha()


def _drop_words(match: re.Match[str]) -> str:
    return "\\text{}" if is_words(match[1], match[2]) else match[0]


@functools.lru_cache(maxsize=131072)
def normalize_tex(tex: str) -> str:
    """Math as compared: words inside ``\\text{}`` (and ``\\mathrm{}``) and English ordinals
    (``i^\\mathrm{th}``) dropped, spacing and whitespace removed, numbers without separators,
    the percent and currency signs after their number, sentence punctuation at the end and
    parentheses around the whole dropped (memoised: a source formula is compared once for every
    translation)."""
    tex = tex.translate(_WIDE)
    if "\\" not in tex:  # (most inline math: ``x_i``) no command, so no step that adds one
        return _without_commands(tex)
    return _with_commands(tex)


def _with_commands(tex: str) -> str:
    """:func:`normalize_tex`'s steps, each only where what it looks for may be."""
    tex = _ALIAS.sub(lambda m: _ALIASES[m[1]], tex)  # ``\le`` is ``\leq``
    tex = _DEFINED.sub(":=", tex)  # ``\stackrel{\mathrm{def}}{=}`` is ``:=``
    if "^" in tex:
        tex = _ORDINAL.sub("", _ORDINAL_BASE.sub(_joined, tex))  # ``(2j)^\mathrm{th}`` is ``2j``
    tex = TEXT_CMD.sub(_drop_words, tex)
    tex = _DIGIT_SEPARATOR.sub("", tex)
    tex = _SPACING.sub(lambda m: m[1] or " ", tex)
    tex = _ONE_CHAR_ARG.sub(lambda m: f"{m[1]} {m[2]}", tex)
    tex = "".join(_NEEDED_SPACE.sub(lambda m: m[1] + "\0", tex).split()).replace("\0", " ")
    tex = _LONE_BRACES.sub(_first, tex)  # ``{E}_{x}`` is ``E_x``
    if "\\$" in tex or "\\%" in tex:
        tex = _CURRENCY_FIRST.sub(lambda m: m[1] + "\\$", _PERCENT_FIRST.sub(lambda m: m[1] + "\\%", tex))
    if "\\cdot" in tex or "\\times" in tex:
        tex = _PRODUCT.sub(lambda m: "\\times", tex)
    tex = tex.replace("\\div", "/")  # ``2 \cdot 160`` is ``2 \times 160``
    if "'" in tex:
        tex = _SUFFIX.sub("", tex)  # tr: ``X'i`` is X with a case ending
    return _without_trailing_punctuation(tex)


def _without_commands(tex: str) -> str:
    """:func:`_with_commands` of math without a TeX command: the steps that need none."""
    if "^" in tex:
        tex = _ORDINAL.sub("", tex)
    tex = _DIGIT_SEPARATOR.sub("", tex)
    if "~" in tex:
        tex = _SPACING.sub(lambda m: m[1] or " ", tex)
    tex = "".join(tex.split()).replace("\0", " ")
    if "{" in tex:
        tex = _LONE_BRACES.sub(_first, tex)
    if "'" in tex:
        tex = _SUFFIX.sub("", tex)
    return _without_trailing_punctuation(tex)


def _without_trailing_punctuation(tex: str) -> str:
    """Sentence punctuation at the end, and parentheses around the whole, dropped (of math
    without line breaks: its white space was taken out)."""
    for _ in range(3):  # ``c.\end{aligned},``: the punctuation around the environment's end too
        if tex[-1:] not in _PUNCT_ENDS:
            break  # (most: no sentence punctuation, ``\\`` or ``\end{...}`` to end on)
        tex, found = _TRAILING_PUNCT.subn(_first, tex)
        if not found:
            break
    return without_parens(tex)


# The steps' replacements are functions, not templates (``r"\1"``): a template is looked up and
# expanded in Python for every call, a function is called only where something is replaced (with
# _PUNCT_ENDS: the 1.0 book's 3,941 formulas normalised in 450 -> 311 M instructions, callgrind).
def _first(match: re.Match[str]) -> str:
    return match[1]


def _joined(match: re.Match[str]) -> str:
    return match[1] + match[2]


def without_parens(key: str) -> str:
    """A formula without the parentheses around the whole: ``($x, y$)`` for ``$(x, y)$``."""
    whole = _OUTER_PARENS.fullmatch(key)
    return whole["inner"] if whole else key


def pure_number(key: str) -> str | None:
    """The value of math that is only a number (``$10.000$``, ``$95\\%$``): it is prose's number
    written as math, compared with the numbers of the text, not as a formula."""
    if _PURE_NUMBER.fullmatch(key):
        return key.removesuffix("\\%").lstrip("-")
    return None


def looks_like_prose(tex: str) -> bool:
    """Whether "math" holds running words (``$ for all discrete $``): a ``$`` missing or stray
    in the text around it, which is that text's problem, not the formula's."""
    return bool(_WORDS.search(TEXT_CMD.sub(" ", tex)))


@functools.lru_cache(maxsize=65536)
def numbers_in_math(tex: str) -> tuple[str, ...]:
    """The numbers above :data:`SMALL` in math as written (``1/32``, ``10000 t_2``, ``(13, 17)``)."""
    values = (number_value(m[0]) for m in _MATH_NUMBER.finditer(tex))
    return tuple(v for v in values if float(v) > SMALL)


def plain_text(prose: str) -> str:
    """Prose as a reader sees its words: without math, link targets, roles and html."""
    return _NOT_PLAIN.sub(" ", prose)


@functools.lru_cache(maxsize=16384)
def as_plain(tex: str) -> re.Pattern[str] | None:
    """How simple math (``x``, ``(4, 4)``, ``n-1``) reads when a language writes it as plain
    text; None for other math, and for a lone vowel (``a``, ``e``, ``o`` are words too)."""
    bare = "".join(re.sub(r"\^\s*\{?\\circ\}?", "°", tex).translate(_WIDE).split())  # ``52^\circ F`` is 52°F
    bare = re.sub(r"[_^{}]", "", bare)  # ``L_2`` reads L2
    if not _SIMPLE.fullmatch(bare) or (len(bare) == 1 and bare in "aeiouAEIOU"):
        return None
    # its first character first, what may not stand before it looked behind from there: the regex
    # engine skips to each occurrence of that character instead of trying every one of the chapter's
    # (the same matches as ``(?<![A-Za-z0-9_$\\])x\s*y…``)
    first = re.escape(bare[0])
    rest = "".join(rf"\s*{re.escape(c)}" for c in bare[1:])
    return re.compile(rf"{first}(?<![A-Za-z0-9_$\\]{first}){rest}(?![A-Za-z0-9_])")


def _blank(match: re.Match[str]) -> str:
    """What :func:`numbers_of` leaves out, as a space and the line breaks it held."""
    return " " + "\n" * match[0].count("\n")


def _has_number_word(prose: str) -> bool:
    """Whether prose holds a number word (:data:`_NUMBER_WORDS`): most of a translation's hold none."""
    for core in _WORD_CORES:  # noqa: SIM110 -- a loop, not any() over a generator: this runs for every paragraph
        if core in prose:
            return True
    return False


@functools.lru_cache(maxsize=65536)
def numbers_of(prose: str, translation: bool = False) -> tuple[tuple[tuple[str, ...], int], ...]:
    """``(values, line offset)`` of the numbers above :data:`SMALL` in a piece of prose (code,
    math, links and roles left out; a number written as math, ``$10.000$``, is prose's number).
    ``values`` is the number as written and the other ways a language may write it: scaled by
    the word after it (``110 million``, ``1.1亿``, ``$10$万``), a decade (the ``1990s`` are
    ``90年代``). A ``translation``'s numbers are only looked in, so they are taken generously:
    ``250,250`` is also the source's ``(250, 250)``, inline code counts, and so do number words
    (``mil``, ``一千万``: the word, and its value).
    Memoised: a source paragraph is read once for every translation."""
    words = translation and _has_number_word(prose)
    if not words and not _DIGIT.search(prose):
        return ()  # (what is left out below is replaced by spaces: it joins no number word)
    if "$" in prose:  # ``\$10`` is money, not math
        prose = prose.replace("\\$", "＄")
        if _NUMBER_MATH.search(prose):  # (most math is no number: no substitution to make)
            prose = _NUMBER_MATH.sub(lambda m: f" {m[1]} ", prose)
    # what is left out keeps its line breaks, so a number's line can be counted; a translation's
    # numbers in inline code count (pt writes the source's 768 as ``768``)
    left_out = _NOT_PROSE_BUT_CODE if translation else _NOT_PROSE
    text = left_out.sub(_blank if "\n" in prose else " ", prose)
    out = []
    if words:  # as written first: a word is no number said instead of another
        found = _NUMBER_WORD.finditer(text)
        out += [((w[0], str(_NUMBER_WORDS[w[0]])), text.count("\n", 0, w.start())) for w in found]
    at = 0
    pattern = _ANY_NUMBER if translation else _NUMBER  # ``FTSE100`` for the source's ``FTSE 100``
    lines = "\n" in text
    while m := pattern.search(text, at):
        at = m.end()
        if not translation and (_GRAMMAR.match(text, at) or (m[1].endswith("00") and text[at : at + 1] == "s")):
            continue  # an ordinal, a century (``the 1700s``: pt writes ``século XVIII``, zh 世纪)
        value = number_value(m.group(1))
        values = [value] if float(value) > SMALL else []
        scale = _SCALE.match(text, m.end())
        if scale:
            at = scale.end()
            full = Decimal(value) * _SCALES[scale[1].lower()] + Decimal(scale[2] or 0) * 10**4
            values.append(str(full.normalize().quantize(1)) if full == full.to_integral() else str(full.normalize()))
        if len(value) == 4 and _DECADE.match(text, m.end()):
            values.append(value[2:])
        if values:
            out.append((tuple(values), text.count("\n", 0, m.start()) if lines else 0))
        if translation and "," in m.group(1) and value == _NOT_DIGIT.sub("", m.group(1)):
            line = text.count("\n", 0, m.start()) if lines else 0
            out += [((part,), line) for part in m.group(1).split(",") if float(part) > SMALL]
    return tuple(out)
