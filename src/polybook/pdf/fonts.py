r"""Font fallback for the PDFs: every character of the book set in a font that has it.

xelatex has no font fallback: a character the main font lacks prints as a blank. The
characters of a book are known when it is staged, and fontconfig knows which installed
font has which character (one ``fc-list`` call). So each character the main fonts lack
is given a font chosen by what the character is, not by the book's language: a letter
takes a font named after its script (Noto Serif Devanagari, then Noto Sans Devanagari),
a symbol the symbol fonts (Noto Sans Math, Symbols, Symbols2, DejaVu); CJK characters in
a non-CJK book take the Noto CJK face of their script (kana: JP, hangul: KR, else SC).
The preamble declares those fonts (``\newfontfamily\polybookfontA{Noto Sans Symbols2}``) and
makes each such character switch to its font wherever it is written (``\newunicodechar``).
A character no font has stays as it is: the log reports it, and the build names its
chapter line (:mod:`polybook.pdf.log`).
"""

from __future__ import annotations

import functools
import string
import subprocess
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Fonts that would print nothing or not through xdvipdfmx (colour bitmaps), or are for
#: another purpose (MathJax's web fonts).
_SKIPPED = ("Noto Color Emoji", "MathJax_")
_REGULAR = ("Regular", "Book", "Medium", "Roman")
#: The font of code blocks (:data:`polybook.pdf.languages.LATIN_FONTS`).
MONO_FONT = "DejaVu Sans Mono"


@functools.cache
def font_charsets() -> dict[str, frozenset[int]]:
    """Family -> the code points its regular face has, for every installed font."""
    try:
        run = subprocess.run(
            ["fc-list", "--format", "%{family[0]}\t%{style[0]}\t%{charset}\n"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return {}
    found: dict[str, set[int]] = {}
    for line in run.stdout.splitlines():
        family, style, charset = [*line.split("\t"), "", ""][:3]
        if not family or family.startswith(_SKIPPED) or style not in _REGULAR:
            continue
        points = found.setdefault(family, set())
        for part in charset.split():
            low, _, high = part.partition("-")
            points.update(range(int(low, 16), int(high or low, 16) + 1))
    return {family: frozenset(points) for family, points in found.items()}


#: For symbols, punctuation and math (characters of no script): these first, in order.
SYMBOL_FONTS = ("Noto Sans Math", "Noto Sans Symbols", "Noto Sans Symbols2", "DejaVu Serif", "DejaVu Sans")


def candidates(char: str, main: str, families: list[str]) -> list[str]:
    """The families to try for ``char``, best first: for a letter of a script, the fonts
    named after that script (the main font's style first: Noto Serif Devanagari before
    Noto Sans Devanagari); for a symbol, the symbol fonts; then every other font but CJK."""
    name = unicodedata.name(char, "")
    script = name.split(" ")[0].title() if name else ""
    style = main.split()[:2]
    rest = sorted((f for f in families if "CJK" not in f), key=lambda f: (f.split()[:2] != style, f))
    if unicodedata.category(char)[0] in "LMN" and script:
        own = [f for f in rest if script in f.split()]
        return [*own, *rest]
    return [*(f for f in SYMBOL_FONTS if f in families), *rest]


def cjk_face(char: str, text: str) -> str:
    """The Noto CJK region for a CJK character: by its script, kana in ``text`` for Han."""
    name = unicodedata.name(char, "")
    if "HANGUL" in name:
        return "KR"
    if "HIRAGANA" in name or "KATAKANA" in name:
        return "JP"
    if any("\u3040" <= c <= "\u30ff" for c in text):
        return "JP"
    return "SC"


def is_cjk(char: str) -> bool:
    return unicodedata.name(char, "").startswith(("CJK ", "HIRAGANA", "KATAKANA", "HANGUL"))


@dataclass(slots=True)
class FontPlan:
    """The fallback fonts of one PDF: command -> family, character -> command."""

    families: dict[str, str] = field(default_factory=dict)
    chars: dict[str, str] = field(default_factory=dict)
    mono: set[str] = field(default_factory=set)  # characters the code font has: kept in code

    def preamble(self) -> str:
        r"""The fonts, and each character made to switch to its font wherever it is written
        (text, headings, code blocks, ``\text`` in math): ``\newunicodechar``, which gives
        the glyph by its code (``\symbol``) so the definition does not call itself."""
        if not self.chars:
            return ""
        lines = [r"\usepackage{newunicodechar}", _KEEP_IN_CODE]
        lines += [rf"\newfontfamily\{command}{{{family}}}" for command, family in self.families.items()]
        for char, command in sorted(self.chars.items()):
            code = f'"{ord(char):X}'
            if char in self.mono:  # box drawing in outputs stays in the code font, aligned
                lines.append(rf"\newunicodechar{{{char}}}{{\polybookchar{{{code}}}{{\{command}}}}}")
            else:
                lines.append(rf"\newunicodechar{{{char}}}{{{{\{command}\symbol{{{code}}}}}}}")
        return "\n".join(lines)

    def add(self, char: str, family: str) -> None:
        command = next((c for c, f in self.families.items() if f == family), None)
        if command is None:
            command = f"polybookfont{_letters(len(self.families))}"
            self.families[command] = family
        self.chars[char] = command


def _letters(number: int) -> str:
    """0 -> A, 25 -> Z, 26 -> BA: a TeX command name has letters only."""
    out = ""
    while True:
        number, rest = divmod(number, 26)
        out = string.ascii_uppercase[rest] + out
        if not number:
            return out


#: ``\polybookchar{"2500}{\polybookfontA}``: the character in the code font when it is the
#: current font (a code block), else in the fallback font.
_KEEP_IN_CODE = (
    r"\makeatletter\newcommand\polybookchar[2]{\ifx\f@family\ttdefault\symbol{#1}\else{#2\symbol{#1}}\fi}"
    r"\makeatother"
)


def plan_fonts(
    texts: Iterable[str], main: str, cjk: str | None = None, mono: str = MONO_FONT, run: str | None = None
) -> FontPlan:
    """Fallback fonts for the characters of ``texts`` that neither the main font nor, for a
    CJK book (``cjk``: its CJK font), xeCJK's font has, nor the font the book's script is set
    in run by run (``run``: a character made a command there would break its runs); ``mono``:
    the code font."""
    charsets = font_charsets()
    plan = FontPlan()
    if not charsets:
        return plan
    covered = charsets.get(main, frozenset()) | (charsets.get(run, frozenset()) if run else frozenset())
    in_code = charsets.get(mono, frozenset())
    cjk_covered = charsets.get(cjk, frozenset()) if cjk else frozenset()
    families = sorted(charsets)
    seen: set[str] = set()
    for text in texts:
        for char in set(text) - seen:
            seen.add(char)
            point = ord(char)
            if char.isascii() or point in covered or unicodedata.category(char) in ("Cc", "Cf", "Mn", "Zl", "Zp"):
                continue
            if cjk and point in cjk_covered and (is_cjk(char) or point >= 0x2E80):
                continue
            if is_cjk(char):
                region = cjk_face(char, text)
                options = [f"Noto Serif CJK {region}", f"Noto Sans CJK {region}"]
            else:
                options = candidates(char, main, families)
            family = next((f for f in options if point in charsets.get(f, frozenset())), None)
            if family is not None:
                plan.add(char, family)
                if point in in_code:
                    plan.mono.add(char)
    return plan
