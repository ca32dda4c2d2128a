"""What of a translation's text is translation: the lines ``polybook port`` must never lose.

A line is *translated* when a translator wrote it, not the source: compared with the lines of the
source and of the base it was translated from (``known``), whitespace folded,

* a line of prose, not markup alone (a fence, ``:label:`x```, ``:end_tab:``, ``#@tab``, a
  polybook mark's first or last line), that holds a letter outside ASCII (Chinese, Japanese,
  ``ç``, ``ş``) or a word (three ASCII letters or more, any case) that no known line holds (a
  Portuguese sentence in ASCII) -- not a line the known ones hold, nor a formula or a sentence
  of theirs rewrapped (``$$y = Xw$$`` out of ``(**$$y = Xw$$**)``: no word of its own);
* a line of code whose comment and strings -- what a translator translates in code -- hold a
  letter outside ASCII (``print(f'w的估计误差')``, a translated comment) or such a word; the
  code itself, and a ``#@`` or ``%%`` marker, is the source's, old or new, never translation.

So an old copy of the source (0.17's English code a translation kept, a directive whose blank
line differed) is no translation: an aside holding only that holds nothing to keep. The same
definition is what ``bench/port_loss.py`` proves is not lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*(```|~~~)")
#: Lines that are markup alone: a directive or attribute line, a tab's end, ``#@`` markers, a
#: polybook mark's first or last line.
_MARKUP = re.compile(r"^(?::[\w-]+:`[^`]*`|:[\w-]+:.*|:end_tab:|#@.*|<!-- polybook:\S*( document)?( -->)?|-->)$")


@dataclass(frozen=True, slots=True)
class Known:
    """The lines of the source and base texts (folded), and their code lines' comments and strings."""

    lines: frozenset[str]
    words: frozenset[str]  # lower case


def fold(line: str) -> str:
    return " ".join(line.split())


def known(texts: Iterable[str]) -> Known:
    lines: set[str] = set()
    words: set[str] = set()
    for text in texts:
        lines.update(fold(line) for line in text.split("\n"))
        words.update(word.lower() for word in _WORD.findall(text))
    return Known(frozenset(lines), frozenset(words))


_WORD = re.compile(r"[A-Za-z]{3,}")


def _new_word(text: str, found: Known) -> bool:
    return any(word.lower() not in found.words for word in _WORD.findall(text))


def foreign(line: str) -> bool:
    """Whether the line holds a letter outside ASCII."""
    return not line.isascii() and any(not c.isascii() and c.isalpha() for c in line)


def _has_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)


def translatable(code_line: str) -> str:
    """A code line's comment and string contents, what a translator translates (a plain scanner:
    quotes and ``#``, no tokenizer -- a line of code alone may not tokenize)."""
    out: list[str] = []
    quote = ""
    k = 0
    while k < len(code_line):
        c = code_line[k]
        if quote:
            if c == "\\":
                out.append(code_line[k : k + 2])
                k += 2
                continue
            if code_line.startswith(quote, k):
                quote = ""
                out.append(" ")
                k += 1
                continue
            out.append(c)
        elif c in "\"'":
            quote = c
        elif c == "#":
            out.append(code_line[k + 1 :])
            break
        k += 1
    return fold("".join(out))


def is_translated(line: str, found: Known, code: bool) -> bool:
    """Whether ``line`` (of code when ``code``) is translation, as the module says."""
    folded = fold(line)
    if not folded or not _has_letter(folded) or folded in found.lines:
        return False
    if code:
        if folded.startswith(("#@", "%%")):
            return False
        part = translatable(folded)
        return foreign(part) or _new_word(part, found)
    if _MARKUP.match(folded):
        return False
    return foreign(folded) or _new_word(folded, found)


def translated_lines(text: str, found: Known) -> list[str]:
    """The translated lines of a Markdown text (code inside fences read as code)."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if opened and (not fence or opened[1] == fence):
            fence = "" if fence else opened[1]
            continue
        if is_translated(line, found, bool(fence)):
            out.append(line)
    return out
