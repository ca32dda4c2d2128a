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

from dataclasses import dataclass

from polybook.pdf.fonts import FontPlan
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
# \py@release: the framework ("PyTorch") under the title and in the header, without
# Sphinx's "Release" word in front of it.
# \polybooksecnumdepth: the numbering depth Sphinx sets, so a chapter the toc leaves unnumbered
# (d2l's preface, notation, references) can switch numbering off and the next one back on.
COMMON_PREAMBLE = r"""
\tracinglostchars=2
\makeatletter\renewcommand{\py@release}{\version}\makeatother
\AtBeginDocument{\edef\polybooksecnumdepth{\the\value{secnumdepth}}}
"""


@dataclass(frozen=True, slots=True)
class CJKFonts:
    serif: str
    sans: str
    mono: str


@dataclass(frozen=True, slots=True)
class Typesetting:
    """One language's LaTeX settings (Latin script and babel unless ``cjk`` is set)."""

    cjk: CJKFonts | None = None
    chapter: tuple[str, str] | None = None  # CJK chapter heading: before and after the number
    contents: str | None = None
    figure: str | None = None  # "Figure %s" when Sphinx's own translation is missing or wrong


TYPESETTING: dict[str, Typesetting] = {
    "en": Typesetting(),
    "pt": Typesetting(figure="Figura %s"),  # Sphinx's Portuguese is "Fig. %s"
    "tr": Typesetting(),
    "ja": Typesetting(
        cjk=CJKFonts("Noto Serif CJK JP", "Noto Sans CJK JP", "Noto Sans Mono CJK JP"),
        chapter=("第", "章"),
        contents="目次",
        figure="図 %s",
    ),
    "zh": Typesetting(
        cjk=CJKFonts("Noto Serif CJK SC", "Noto Sans CJK SC", "Noto Sans Mono CJK SC"),
        chapter=("第", "章"),
        contents="目录",
        figure="图 %s",
    ),
}


def typesetting(language: str) -> Typesetting:
    return TYPESETTING.get(language, TYPESETTING.get(language.split("_")[0], Typesetting()))


def main_fonts(language: str) -> tuple[str, str | None]:
    """(text font, CJK font or None): what needs no fallback in ``language``'s PDF."""
    spec = typesetting(language)
    return MAIN_FONT, spec.cjk.serif if spec.cjk else None


def _bibliography_title(language: str) -> str:
    r"""The bibliography's heading in the language (babel would say "Bibliography"); set
    after babel's captions, which it sets at ``\begin{document}``."""
    return r"\AtBeginDocument{\renewcommand{\bibname}{" + text(language, "references") + "}}"


def latex_elements(language: str, fonts: FontPlan | None = None) -> dict[str, str]:
    """Sphinx ``latex_elements`` for ``language`` (xelatex); ``fonts``: the fallback fonts."""
    spec = typesetting(language)
    extra = [_bibliography_title(language), fonts.preamble() if fonts else ""]
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
        elements.update({"polyglossia": "", "babel": r"\usepackage{babel}"})
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
                ]
            ),
            # xeCJK adds spaces in fancyvrb's Verbatim unless told not to.
            "fvset": r"\fvset{fontsize=auto,formatcom=\xeCJKVerbAddon}",
            # fncychap's "Chapter 1" has no CJK form; titlesec writes 第1章.
            "fncychap": "",
        }
    )
    preamble = [COMMON_PREAMBLE]
    if spec.chapter:
        before, after = spec.chapter
        preamble.append(
            r"\titleformat{\chapter}[display]{\normalfont\bfseries\Huge}"
            rf"{{{before}\thechapter{{}}{after}}}{{16pt}}{{\Huge}}"
        )
    if spec.contents:
        preamble.append(rf"\renewcommand{{\contentsname}}{{{spec.contents}}}")
    elements["preamble"] = "\n".join([*preamble, *extra])
    return elements


def numfig_format(language: str) -> dict[str, str] | None:
    """``numfig_format`` when Sphinx has no translation of "Fig. %s" for ``language``."""
    spec = typesetting(language)
    return {"figure": spec.figure} if spec.figure else None
