"""A book's glossary: how each term of the source is rendered in a language.

``chapters/<lang>/glossary``, one term a line::

    # comments and blank lines are skipped
    attention pooling = 注意プーリング
    token = トークン | 字句          # the rendering, then variants a translation may use instead
    softmax = =                      # kept as the source writes it

``polybook import d2lbook`` writes it from a project's ``TERMINOLOGY.md`` (d2l-zh's
``中文，english`` lines, d2l-tr's ``english; türkçe``). ``polybook translate`` gives it to every
engine; ``polybook check`` looks for its terms in translations (``terms.missing``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

GLOSSARY_NAME = "glossary"
_KEEP = "="


class GlossaryError(Exception):
    """A glossary line that does not parse: ``path:line: message``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = path, line, message


@dataclass(frozen=True, slots=True)
class Term:
    source: str  # the term as the source language writes it
    rendering: str  # how the language renders it (the term itself when kept)
    variants: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class Glossary:
    terms: tuple[Term, ...] = ()
    path: str = ""

    def mapping(self) -> dict[str, str]:
        """``term -> rendering``, what an engine is given."""
        return {term.source: term.rendering for term in self.terms}

    def digest(self) -> str:
        """What the glossary says, as a key (an engine's answer depends on it)."""
        text = "\n".join(f"{t.source}\t{t.rendering}\t{'|'.join(t.variants)}" for t in self.terms)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(slots=True)
class _Lines:
    terms: list[Term] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)


def parse_glossary(text: str, path: str) -> Glossary:
    """The glossary in ``text``; :class:`GlossaryError` at the first line that does not parse."""
    out = _Lines()
    for number, raw in enumerate(text.splitlines(), 1):
        line = _comment_free(raw).strip()
        if not line:
            continue
        term, sep, rest = line.partition(" = ")
        if not sep and line.endswith(" ="):
            term, sep, rest = line[:-2], " =", ""
        if not sep:
            raise GlossaryError(path, number, f"{raw.strip()!r} is not `term = rendering` (or `term = =` to keep it)")
        term = term.strip()
        parts = [part.strip() for part in rest.split("|")]
        if not term or not parts[0] or any(not part for part in parts[1:]):
            raise GlossaryError(path, number, f"{raw.strip()!r}: a term, a rendering and variants may not be empty")
        if term.lower() in out.seen:
            raise GlossaryError(path, number, f"{term!r} is given already at line {out.seen[term.lower()]}")
        out.seen[term.lower()] = number
        rendering = term if parts[0] == _KEEP else parts[0]
        out.terms.append(Term(term, rendering, tuple(parts[1:]), number))
    return Glossary(tuple(out.terms), path)


def _comment_free(line: str) -> str:
    """A line without its ``#`` comment (a ``#`` that starts the line or follows a space)."""
    found = re.search(r"(?:^|\s)#", line)
    return line[: found.start()] if found else line


def read_glossary(chapters: Path, lang: str, shown: str | None = None) -> Glossary:
    """``chapters/<lang>/glossary`` (an empty glossary when there is none)."""
    path = chapters / lang / GLOSSARY_NAME
    if not path.is_file():
        return Glossary()
    return parse_glossary(path.read_text(encoding="utf-8"), shown or str(path))


_FULLWIDTH_COMMA = "，"
#: Words that join two renderings of one term in a TERMINOLOGY.md line (d2l-tr's ``kayıp veya
#: yitim fonksiyonu``: "loss or yitim function").
_OR = re.compile(r"\s+(?:veya|ya da|or|或)\s+")


def from_terminology(text: str) -> str:
    """A glossary's text from a d2lbook project's ``TERMINOLOGY.md``: ``中文，english`` (d2l-zh)
    or ``english; türkçe, variant`` (d2l-tr) lines; headings, labels and other lines skipped.

    A rendering's alternatives become variants: d2l-zh's ``实例/示例``, d2l-tr's ``bağlanım veya
    regresyon`` (``kayıp veya yitim fonksiyonu``: ``kayıp fonksiyonu``, ``yitim fonksiyonu``) and a
    term given twice (d2l-tr's two ``bias`` lines). A parenthesis is left out of a term (``long
    short-term memory (LSTM)``: the source says the words) and of a rendering (``(matrisin)
    sağlamlık sayısı``)."""
    renderings: dict[str, list[str]] = {}
    terms: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ":", "<", "|", "`")):
            continue
        if _FULLWIDTH_COMMA in line:  # 中文，english: the rendering first
            rendering, _, term = line.partition(_FULLWIDTH_COMMA)
            parts = [rendering]
        elif ";" in line:  # english; türkçe, variant
            term, _, rest = line.partition(";")
            parts = rest.split(",")
        else:
            continue
        term = _clean(_term_words(term))
        ways = [_clean(_unbracketed(way)) for part in parts for way in _alternatives(part)]
        ways = [way for way in ways if way]
        if term and ways:
            key = term.lower()
            terms.setdefault(key, term)
            known = renderings.setdefault(key, [])
            known += [way for way in ways if way not in known]
    head = "# term = rendering | variant ...   (written by polybook import d2lbook from TERMINOLOGY.md)\n"
    return head + "".join(f"{terms[key]} = {' | '.join(ways)}\n" for key, ways in renderings.items())


def _alternatives(part: str) -> list[str]:
    """``A veya B`` -> A, B; when A is one word and B more (``kayıp veya yitim fonksiyonu``), A
    takes B's last word too. A rendering that says where it holds (d2l-tr's ``sinir ağlarında ek
    girdi``, "in neural networks: ek girdi") gives what follows as a variant."""
    ways = [way.strip() for way in _OR.split(part.strip())]
    if len(ways) == 2 and " " not in ways[0] and " " in ways[1]:
        ways[0] = f"{ways[0]} {ways[1].rsplit(' ', 1)[1]}"
    ways = [alternative for way in ways for alternative in _slashed(way)]
    for way in list(ways):
        where = _WHERE.match(way)
        if where:
            ways.append(way[where.end() :])
    return ways


def _slashed(way: str) -> list[str]:
    """``A/B rest`` -> ``A rest``, ``B rest`` (d2l-tr's ``veri/komut işleme hattı``, d2l-zh's ``实例/示例``)."""
    words = way.split(" ")
    for index, word in enumerate(words):
        if "/" in word:
            return [" ".join([*words[:index], choice, *words[index + 1 :]]) for choice in word.split("/") if choice]
    return [way]


#: Leading words that end in a locative (Turkish ``-(n)da``, ``-daki``...), then the rendering.
_WHERE = re.compile(r"^(?:\S+\s+)*?\S+(?:ında|inde|unda|ünde|daki|deki|taki|teki)\s+(?=\S)")


def _term_words(term: str) -> str:
    """A term without a parenthesis that is its abbreviation (``long short-term memory (LSTM)``,
    ``independent and identically distributed (i.i.d.)``) or spells out an abbreviation
    (``api (application programming interface)``); with the words of another (``momentum
    (method)``: d2l-zh's 动量法 is the momentum method)."""
    found = re.search(r"\s*[(（]([^)）]*)[)）]\s*", term)
    if found is None:
        return term
    inner, outer = found.group(1).strip(), (term[: found.start()] + " " + term[found.end() :]).strip()
    if _abbreviation(inner) or _abbreviation(outer):
        return outer
    return f"{outer} {inner}"


def _abbreviation(words: str) -> bool:
    return " " not in words and (words.upper() == words or "." in words or len(words) <= 4)


def _unbracketed(part: str) -> str:
    return re.sub(r"\s*[(（][^)）]*[)）]\s*", " ", part)


def _clean(part: str) -> str:
    """A term without Markdown emphasis, ``#`` (a comment here), ``|`` and ``=`` (separators)."""
    return re.sub(r"\s+", " ", re.sub(r"[*_#|=]", "", part)).strip()
