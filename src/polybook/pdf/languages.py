r"""How each language is typeset: fonts, hyphenation and the words LaTeX writes itself.

Everything is xelatex + fontspec with fonts from Debian (``scripts/setup-pdf.sh``):
Noto Serif/Sans for Latin-script languages (Turkish and Portuguese included), DejaVu Sans
Mono for code (box drawing, arrows), and for Japanese and Chinese xeCJK with the Noto CJK
face *of that language* -- the JP and SC faces draw shared ideographs differently.
Latin-script languages get their captions ("Bölüm", "Şekil", "İçindekiler") from babel
(which works with xelatex and, unlike polyglossia, knows the language names Sphinx uses:
Sphinx's own "Fig." would miss polyglossia's ``\captionsportuguese``); babel has no
Japanese or Chinese captions for xelatex, so those are set here.
"""

from __future__ import annotations

import functools
import subprocess
from dataclasses import dataclass

from polybook.pdf.fonts import MONO_FONT, FontPlan, font_charsets
from polybook.pdf.scripts import Script
from polybook.stage.i18n import text

#: The text font of every PDF; characters it lacks fall back (:mod:`polybook.pdf.fonts`).
MAIN_FONT = "Noto Serif"
LATIN_FONTS = r"""
\setmainfont{Noto Serif}
\setsansfont{Noto Sans}
\setmonofont{DejaVu Sans Mono}[Scale=MatchLowercase]
"""

# \tracinglostchars=2: every glyph a font lacks is logged as "Missing character", which
# the build turns into an error (a silent blank would reach the readers).
# \polybooksecnumdepth: the numbering depth Sphinx sets, so a chapter the toc leaves unnumbered
# (d2l's preface, notation, references) can switch numbering off and the next one back on.
COMMON_PREAMBLE = r"""
\tracinglostchars=2
\AtBeginDocument{\edef\polybooksecnumdepth{\the\value{secnumdepth}}}
"""


@dataclass(frozen=True, slots=True)
class CJKFonts:
    serif: str
    sans: str
    mono: str


@dataclass(frozen=True, slots=True)
class RunFont:
    """A script set in a font of its own, run by run (a run of Devanagari is shaped whole):
    the main script of a book whose fonts for it have no Latin letters."""

    family: str
    ranges: tuple[tuple[int, int], ...]
    rtl: bool = False  # written right to left: each run is set so (TeX--XeT's \beginR ... \endR)
    script: str = ""  # fontspec's name of the script: its shaping (joining, conjuncts) is the font's


@dataclass(frozen=True, slots=True)
class Words:
    """What LaTeX writes itself in a language whose babel does not say it (or is not used)."""

    chapter: tuple[str, str] | None = None  # CJK chapter heading: before and after the number
    contents: str | None = None
    figure: str | None = None  # "Figure %s" when Sphinx's own translation is missing or wrong


@dataclass(frozen=True, slots=True)
class Typesetting:
    """One PDF's LaTeX settings: fonts by the script its text is written in, words by its
    language, babel only for a language babel knows."""

    script: Script = Script.LATIN
    cjk: CJKFonts | None = None
    run: RunFont | None = None
    babel: str = ""  # babel's name of the language, "" when babel is not told about it
    words: Words = Words()


#: Words LaTeX writes, by language (not fonts: those follow the script).
WORDS: dict[str, Words] = {
    "pt": Words(figure="Figura %s"),  # Sphinx's Portuguese is "Fig. %s"
    "ja": Words(chapter=("第", "章"), contents="目次", figure="図 %s"),
    "zh": Words(chapter=("第", "章"), contents="目录", figure="图 %s"),
    "ko": Words(chapter=("제", "장"), contents="목차", figure="그림 %s"),
}
#: The Noto CJK region of a CJK script; Han is Simplified unless the language says Traditional.
_CJK_REGION = {Script.KANA: "JP", Script.HANGUL: "KR", Script.HAN: "SC"}
_TRADITIONAL = ("_tw", "-tw", "_hk", "-hk", "_mo", "-mo", "hant")
#: Scripts set run by run in a font of their own (their Noto faces have no Latin letters).
_RUNS = {
    Script.DEVANAGARI: ((0x0900, 0x097F), (0xA8E0, 0xA8FF)),
    Script.THAI: ((0x0E00, 0x0E7F),),
    Script.HEBREW: ((0x0590, 0x05FF),),
    Script.ARABIC: ((0x0600, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)),
}
_RTL = (Script.HEBREW, Script.ARABIC)
#: Faces of a script whose Noto name is not "Noto Serif <script>" (Arabic's serif is Naskh).
_FACES = {Script.ARABIC: ("Noto Naskh Arabic", "Noto Sans Arabic")}


def typesetting(lang: str, script: Script = Script.LATIN) -> Typesetting:
    """How ``language``'s PDF is set, its text being written in ``script`` (:mod:`.scripts`)."""
    words = WORDS.get(lang, WORDS.get(lang.replace("-", "_").split("_")[0], Words()))
    if script in _CJK_REGION:
        region = _CJK_REGION[script]
        if script is Script.HAN and lang.lower().endswith(_TRADITIONAL):
            region = "TC"
        fonts = CJKFonts(f"Noto Serif CJK {region}", f"Noto Sans CJK {region}", f"Noto Sans Mono CJK {region}")
        return Typesetting(script, cjk=fonts, words=words)
    run = None
    if script in _RUNS:
        installed = font_charsets()
        names = _FACES.get(script, tuple(f"Noto {style} {script}" for style in ("Serif", "Sans")))
        family = next((name for name in names if name in installed), None)
        run = RunFont(family, _RUNS[script], script in _RTL, str(script)) if family else None
    return Typesetting(script, run=run, babel=babel_name(lang), words=words)


@functools.cache
def babel_name(lang: str) -> str:
    """babel's name of ``language`` when babel knows it here (its ``.ldf`` is installed), else
    "": babel is then not told about the language at all (Sphinx would pass it a name babel
    does not have, and the build would stop on it)."""
    from sphinx.builders.latex.util import ExtBabel

    babel = ExtBabel(lang.replace("-", "_"))
    name = babel.get_language()
    if not babel.is_supported_language():
        return ""
    try:
        found = subprocess.run(["kpsewhich", f"{name}.ldf"], capture_output=True, text=True, check=False)
    except OSError:
        return name  # no kpsewhich: as Sphinx would
    return name if found.stdout.strip() else ""


def main_fonts(spec: Typesetting) -> tuple[str, str | None, str, str | None]:
    """(text font, CJK font or None, code font, the script's run font or None): what needs no
    fallback in the PDF (:func:`polybook.pdf.fonts.plan_fonts`'s arguments)."""
    return MAIN_FONT, spec.cjk.serif if spec.cjk else None, MONO_FONT, spec.run.family if spec.run else None


def _bibliography_title(lang: str) -> str:
    r"""The bibliography's heading in the language (babel would say "Bibliography"); set
    after babel's captions, which it sets at ``\begin{document}``."""
    return r"\AtBeginDocument{\renewcommand{\bibname}{" + text(lang, "references") + "}}"


def latex_elements(lang: str, spec: Typesetting, fonts: FontPlan | None = None) -> dict[str, str]:
    """Sphinx ``latex_elements`` for ``language`` (xelatex) set as ``spec`` says; ``fonts``:
    the fallback fonts."""
    extra = [_bibliography_title(lang), _run_fonts(spec.run), fonts.preamble() if fonts else ""]
    elements = {
        "papersize": "a4paper",
        "pointsize": "10pt",
        "extraclassoptions": "openany,oneside",  # read on screens: no blank pages
        "fontpkg": LATIN_FONTS,
        # No index: the site has search; makeindex/xindy would cost a LaTeX run.
        "makeindex": "",
        "printindex": "",
        # Long code lines wrap, even inside a long identifier, instead of leaving the page.
        "sphinxsetup": "verbatimwrapslines=true, verbatimforcewraps=true, verbatimmaxunderfull=2",
        "preamble": "\n".join([COMMON_PREAMBLE, *extra]),
    }
    if spec.cjk is None:
        elements.update({"polyglossia": "", "babel": r"\usepackage{babel}" if spec.babel else ""})
        elements["preamble"] = "\n".join([COMMON_PREAMBLE, *_words(spec.words, with_babel=bool(spec.babel)), *extra])
        return elements
    fonts = spec.cjk
    elements.update(
        {
            "polyglossia": "",
            "babel": "",
            "fontenc": "\n".join(
                [
                    r"\usepackage{fontspec}",
                    r"\usepackage{xeCJK}",
                    rf"\setCJKmainfont{{{fonts.serif}}}",
                    rf"\setCJKsansfont{{{fonts.sans}}}",
                    rf"\setCJKmonofont{{{fonts.mono}}}",
                    # Korean writes a space between words; xeCJK drops spaces between CJK letters
                    *([r"\xeCJKsetup{CJKspace=true}"] if spec.script is Script.HANGUL else []),
                ]
            ),
            # xeCJK adds spaces in fancyvrb's Verbatim unless told not to.
            "fvset": r"\fvset{fontsize=auto,formatcom=\xeCJKVerbAddon}",
            # fncychap's "Chapter 1" has no CJK form; titlesec writes 第1章.
            "fncychap": "",
        }
    )
    elements["preamble"] = "\n".join([COMMON_PREAMBLE, *_words(spec.words, with_babel=False), *extra])
    return elements


def _words(words: Words, with_babel: bool) -> list[str]:
    """The chapter heading and contents title in the language, where babel does not set them."""
    out = []
    if words.chapter and not with_babel:
        before, after = words.chapter
        out.append(
            r"\titleformat{\chapter}[display]{\normalfont\bfseries\Huge}"
            rf"{{{before}\thechapter{{}}{after}}}{{16pt}}{{\Huge}}"
        )
    if words.contents and not with_babel:
        out.append(rf"\renewcommand{{\contentsname}}{{{words.contents}}}")
    return out


def _run_fonts(run: RunFont | None) -> str:
    r"""A script set in its own font, switched at the edges of each of its runs (xelatex's
    inter-character classes, as xeCJK does for CJK): a run stays whole, so it is shaped."""
    if run is None:
        return ""
    lines = [
        rf"\newfontfamily\polybookrunfont{{{run.family}}}[Script={run.script}]",
        r"\XeTeXinterchartokenstate=1",
        r"\newXeTeXintercharclass\polybookrunclass",
    ]
    lines += [
        rf"\XeTeXcharclass\numexpr{point}\relax=\polybookrunclass"
        for low, high in run.ranges
        for point in range(low, high + 1)
    ]
    begin, end = (r"\beginR", r"\endR") if run.rtl else ("", "")
    lines += [r"\TeXXeTstate=1"] if run.rtl else []
    lines += [
        rf"\XeTeXinterchartoks 0 \polybookrunclass={{\begingroup\polybookrunfont{begin}}}",
        rf"\XeTeXinterchartoks 4095 \polybookrunclass={{\begingroup\polybookrunfont{begin}}}",
        rf"\XeTeXinterchartoks \polybookrunclass 0={{{end}\endgroup}}",
        rf"\XeTeXinterchartoks \polybookrunclass 4095={{{end}\endgroup}}",
    ]
    return "\n".join(lines)


def numfig_format(spec: Typesetting) -> dict[str, str] | None:
    """``numfig_format`` when Sphinx has no translation of "Fig. %s" for the language."""
    return {"figure": spec.words.figure} if spec.words.figure else None
