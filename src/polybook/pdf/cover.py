"""A PDF's first page: the book's title, the framework as conf.py labels it, the release, the
authors and the date -- every line wrapped inside the page, however long.

Sphinx's own title page (``\\sphinxmaketitle``) sets the authors in one ``tabular`` row, which
never breaks: d2l's "Aston Zhang, Zachary C. Lipton, Mu Li, and Alexander J. Smola" runs past the
page's edge in ``\\LARGE``. This one keeps Sphinx's layout (flush right, the logo, the header
font, the PDF's title and author in its information) with the authors as a paragraph, and says
what the reader holds: "PyTorch", "Release 1.0.3".
"""

from __future__ import annotations

#: ``latex_elements["maketitle"]``; ``{subtitle}`` is filled in, the rest is LaTeX.
_COVER = r"""\makeatletter
\let\sphinxrestorepageanchorsetting\relax
\ifHy@pageanchor\def\sphinxrestorepageanchorsetting{\Hy@pageanchortrue}\fi
\hypersetup{pageanchor=false}%
\begin{titlepage}%
  \let\footnotesize\small
  \let\footnoterule\relax
  \noindent\rule{\textwidth}{1pt}\par
  \begingroup % the PDF's information
    \def\endgraf{ }\def\and{\& }%
    \pdfstringdefDisableCommands{\def\\{, }}%
    \hypersetup{pdfauthor={\@author}, pdftitle={\@title}}%
  \endgroup
  \begin{flushright}%
    \emergencystretch=1em \hyphenpenalty=500
    \sphinxlogo
    \py@HeaderFamily
    {\Huge \@title \par}%
    \vspace{0.5em}%
    {\itshape\LARGE <<subtitle>>\par}%
    {\itshape\Large \py@release\releaseinfo \par}%
    \vfill
    {\LARGE \DeclareRobustCommand{\and}{\unskip, }\@author \par}%
    \vfill\vfill
    {\large \@date \par \vfill \py@authoraddress \par}%
  \end{flushright}%
  \@thanks
\end{titlepage}%
\setcounter{footnote}{0}%
\let\thanks\relax\let\maketitle\relax
\clearpage
\ifdefined\sphinxbackoftitlepage\sphinxbackoftitlepage\fi
\if@openright\cleardoublepage\else\clearpage\fi
\sphinxrestorepageanchorsetting
\makeatother
"""


def tex_text(text: str) -> str:
    """Plain text as LaTeX text (``&``, ``_``, ``%``... escaped), as Sphinx escapes a project's name."""
    from sphinx.util import texescape

    texescape.init()
    return texescape.escape(text, "xelatex")


def cover(subtitle: str) -> str:
    """The title page of one framework's book; ``subtitle``: the framework as readers see it."""
    return _COVER.replace("<<subtitle>>", tex_text(subtitle))
