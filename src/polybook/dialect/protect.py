"""What an engine may not change, out of its sight: everything in a block that is not prose --
inline code, math, roles (``:numref:``, ``:cite:``...), links' and images' targets, labels and
figure options, HTML, slide marks, a line's list or heading marker, a table's pipes -- replaced
by opaque tokens ``⟦0⟧``, ``⟦1⟧``... before a block is sent, and put back after.

An answer whose tokens do not come back exactly once each is no translation of the block:
:func:`restore` says what went wrong and the draft is refused. In the dialect's package because
what is prose is the dialect's to say: ``polybook translate`` sends it, the checker's
``terms.*`` looks for glossary terms in it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from polybook.dialect.slides import PAIRS


def _whole_line(pattern: str) -> str:
    """A line that is ``pattern`` alone, with the line break that joins it to the text (before
    it; after it, for the text's first line): nothing an engine writes can land on that line."""
    line = rf"[ \t]*{pattern}[ \t]*"
    return rf"(?:\A{line}(?:\n|\Z)|\n{line}(?=\n|\Z))"


_SLIDES = "|".join(re.escape(mark) for pair in PAIRS for mark in pair)
#: Each alternative is one protected piece, tried left to right.
_PIECES = "|".join(
    [
        r"(?m:^[ \t]*(`{3,}|~{3,})[^\n]*\n(?:.*?\n)?[ \t]*\1[ \t]*$)",  # a fenced block inside a list
        _whole_line(r"(?::(?:label|eqlabel|width|height|begin_tab):`[^`\n]*`|:end_tab:)"),  # labels, options, tabs
        _whole_line(r"\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?"),  # a table's rule
        r"(?:^|\n)[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]?)",  # a line's marker
        r"\$\$.+?\$\$",  # display math inside a paragraph
        r"(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$",  # inline math
        r"(`+)[^`].*?(?<!`)\2(?!`)",  # inline code
        r":[A-Za-z][\w-]*:`[^`\n]+`",  # a role: :numref:`x`, :cite:`a,b`, :eqref:`e`
        r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)",  # a link's or an image's target
        r"!?\[(?=[^\[\]]*\]\()",  # a link's or an image's opening (its text is prose)
        r"<!--.*?-->",  # a comment
        r"</?[A-Za-z][^<>]*>",  # an HTML tag, an autolink
        r"https?://[^\s<>()]+",  # a bare address
        r"\\[\\`*_{}\[\]()#+\-.!$]",  # a Markdown escape
        _SLIDES,  # slide marks
        r"\|",  # a table's pipe
    ]
)
#: Where a piece can start: a line's start, a character one of them starts with, or a bare
#: address's scheme. Put in front of the pieces, it finds the same pieces (it holds wherever one
#: of them matches), and Python's ``re``, which tries each of the 16 alternatives at every
#: character, then passes most characters at one test: masking the 1.0 book's prose took half
#: the time (and a seventh less again with the scheme, not every ``h``, let through).
_STARTS = r"(?:(?<=\n)|\A|(?=[\n$`:\]!\[<\\|(*~]|https?://))"
_PROTECTED = re.compile(f"{_STARTS}(?:{_PIECES})", re.S)
_TOKEN = re.compile(r"⟦(\d+)⟧")


@dataclass(frozen=True, slots=True)
class Masked:
    """A block's text with what is not prose replaced by tokens (``pieces[n]`` is ``⟦n⟧``)."""

    text: str
    pieces: tuple[str, ...]

    @property
    def prose(self) -> str:
        """The words an engine is asked to translate (the tokens left out)."""
        return _TOKEN.sub(" ", self.text)


def masked_prose(text: str) -> str:
    """``mask(text).prose`` without the tokens written and taken out again (a space for each
    piece at once: the checker's ``terms.*`` reads the prose of every block of the book)."""
    spaced = _PROTECTED.sub(" ", text)
    return _TOKEN.sub(" ", spaced) if "⟦" in text else spaced  # (a token the text itself writes)


def token(index: int) -> str:
    return f"⟦{index}⟧"


def mask(text: str) -> Masked:
    """``text`` with every protected piece replaced by a token."""
    pieces: list[str] = []

    def replaced(found: re.Match[str]) -> str:
        pieces.append(found.group(0))
        return token(len(pieces) - 1)

    return Masked(_PROTECTED.sub(replaced, text), tuple(pieces))


class TokensLost(ValueError):
    """An answer that lost, repeated or invented a protected piece."""


def restore(answer: str, masked: Masked) -> str:
    """The engine's ``answer`` with the protected pieces back in place; :class:`TokensLost` when
    its tokens are not the block's, each exactly once."""
    counts = Counter(int(n) for n in _TOKEN.findall(answer))
    wanted = range(len(masked.pieces))
    lost = [n for n in wanted if counts[n] == 0]
    twice = [n for n in wanted if counts[n] > 1]
    foreign = [n for n in counts if n not in wanted]
    if lost or twice or foreign:
        said = []
        if lost:
            said.append(
                "lost " + ", ".join(repr(masked.pieces[n]) for n in lost[:3]) + (" ..." if len(lost) > 3 else "")
            )
        if twice:
            said.append("repeated " + ", ".join(repr(masked.pieces[n]) for n in twice[:3]))
        if foreign:
            said.append("invented " + ", ".join(token(n) for n in foreign[:3]))
        raise TokensLost("the engine " + "; ".join(said))
    return _TOKEN.sub(lambda found: masked.pieces[int(found.group(1))], answer)
