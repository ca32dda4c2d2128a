#!/usr/bin/env bash
# System packages the PDF books need (Debian bookworm, as root):
#   texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended latexmk
#                      Sphinx's LaTeX builder with xelatex via latexmk (pifont's Zapf Dingbats for sphinx.sty)
#   texlive-lang-cjk texlive-lang-chinese texlive-lang-japanese   xeCJK (needs ctexhook.sty) for ja/zh
#   texlive-lang-european texlive-lang-portuguese   babel's Turkish and Portuguese ("Bölüm", "Capítulo")
#   fonts-noto-cjk     Noto Serif/Sans CJK JP and SC: Japanese and Chinese glyph forms
#   fonts-noto-core fonts-noto-mono fonts-dejavu   Latin (Turkish, Portuguese) text and code
#   librsvg2-bin       rsvg-convert: SVG figures -> PDF for LaTeX
#   poppler-utils      pdftotext/pdffonts/pdftoppm for the tests
# Idempotent: a fast no-op when everything is installed already.
set -euo pipefail
packages=(
    texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended latexmk
    texlive-lang-cjk texlive-lang-chinese texlive-lang-japanese texlive-lang-european texlive-lang-portuguese
    fonts-noto-cjk fonts-noto-core fonts-noto-mono fonts-dejavu-core fonts-dejavu-extra
    librsvg2-bin poppler-utils
)
exec "$(dirname "$0")/apt-ensure.sh" "${packages[@]}"
