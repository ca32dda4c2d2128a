"""A formula LaTeX cannot set costs that formula, not the book.

Before the book's one LaTeX run, every formula of its ``.tex`` -- inline ``\\(...\\)`` and the
display environments Sphinx writes -- is set once in a small batch document with the book's own
preamble, each in a box of its own so that one broken formula cannot take the next with it
(:func:`failing_formulas`). A formula that fails there is replaced in the book by its source text
in a visibly marked box (:func:`set_aside`), and reported as an error at its chapter's line, so
the rest of the book is built and can be read.

Written by hand because no library sets a LaTeX document's formulas one by one; the batch is an
ordinary xelatex run, its errors read from ``-file-line-error`` lines.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from polybook.files import atomic_write, read_kept, store_bytes, swept

#: The display environments a formula of the book is written in: Sphinx's wrapping, and the
#: amsmath environments MyST takes as a block of their own when a line starts with one (a
#: matrix among them, which LaTeX then meets outside math: d2l-zh's ``\begin{bmatrix}``).
_DISPLAY = (
    r"equation\*?|align\*?|alignat\*?|gather\*?|multline\*?|flalign\*?|eqnarray\*?|displaymath"
    r"|matrix|pmatrix|bmatrix|Bmatrix|vmatrix|Vmatrix"
)
_FORMULA_RE = re.compile(
    r"(?P<inline>(?<!\\)\\\((?P<body>.*?)\\\))|(?P<display>\\begin\{(?P<env>" + _DISPLAY + r")\}.*?\\end\{(?P=env)\})",
    re.S,
)
_ERROR_RE = re.compile(r"^\.?/?(?P<file>[^\s:]+\.tex):(?P<line>\d+): (?P<message>.+)$", re.M)
#: Formulas failing together are confirmed one by one (a runaway one can spill into the next)
#: up to this many; beyond, the batch's word is taken.
_CONFIRM_AT_MOST = 40
_BATCH = "polybook-formulas"


@dataclass(frozen=True, slots=True)
class Formula:
    start: int  # offsets in the book's .tex
    end: int
    line: int  # the .tex line it starts on
    text: str
    display: bool


@dataclass(frozen=True, slots=True)
class Unset:
    """A formula LaTeX could not set, and what it said."""

    formula: Formula
    message: str


def formulas(tex: str) -> list[Formula]:
    """The formulas of the book's ``.tex`` body, in order."""
    body = tex.find("\\begin{document}")
    out = []
    for m in _FORMULA_RE.finditer(tex, max(body, 0)):
        line = tex.count("\n", 0, m.start()) + 1
        out.append(Formula(m.start(), m.end(), line, m.group(0), m["display"] is not None))
    return out


def failing_formulas(tex: str, found: list[Formula], workdir: Path, store: Path | None = None) -> list[Unset]:
    """The formulas of ``found`` that xelatex cannot set with the book's preamble (``workdir``:
    the book's LaTeX folder, where the classes and styles its preamble loads are). ``store``: a
    folder where the formulas set once are kept, by preamble, and not set again -- the other
    frameworks' PDFs of a language share nearly all of them, a rebuild all but the edited ones."""
    if not found:
        return []
    preamble = tex[: tex.find("\\begin{document}")]
    kept = _Kept(store, preamble)
    todo = [i for i, formula in enumerate(found) if not kept.has(formula.text)]
    failing = _batch(preamble, [found[i] for i in todo], workdir) if todo else {}
    if 1 < len(failing) <= _CONFIRM_AT_MOST:  # each on its own: a runaway one may have spilled over
        failing = {j: message for j in failing if (message := _batch(preamble, [found[todo[j]]], workdir).get(0))}
    kept.add(found[todo[j]].text for j in range(len(todo)) if j not in failing)
    return [Unset(found[todo[j]], message) for j, message in sorted(failing.items())]


class _Kept:
    """The formulas set without error with one preamble (its lines that name the PDF's title,
    date and framework aside), as digests in one file per preamble."""

    def __init__(self, store: Path | None, preamble: str) -> None:
        lines = [line for line in preamble.split("\n") if not line.startswith(_NAMING)]
        key = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]
        self.file = swept(store) / f"{key}.txt" if store else None  # swept as every store is
        try:
            self.known = set(read_kept(self.file).decode("ascii").split()) if self.file else set()
        except (OSError, UnicodeDecodeError):
            self.known = set()

    def has(self, text: str) -> bool:
        return _digest(text) in self.known

    def add(self, texts: Iterable[str]) -> None:
        new = {_digest(text) for text in texts} - self.known
        if self.file is None or not new:
            return
        self.known |= new
        store_bytes(self.file, "\n".join(sorted(self.known)).encode("ascii") + b"\n")


_NAMING = ("\\title{", "\\date{", "\\release{", "\\author{")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def _batch(preamble: str, found: list[Formula], workdir: Path) -> dict[int, str]:
    """Set ``found`` in one document; index -> the first error of each formula that failed."""
    lines = [*preamble.rstrip("\n").split("\n"), r"\begin{document}"]
    spans: list[tuple[int, int]] = []
    for formula in found:
        first = len(lines) + 1
        # no "=": babel makes it a shorthand in some languages (Turkish), which breaks \setbox0=
        lines += [r"\setbox0\vbox{\hsize\textwidth\noindent", *formula.text.split("\n"), r"\par}"]
        spans.append((first, len(lines)))
    lines.append(r"\end{document}")
    atomic_write(workdir / f"{_BATCH}.tex", "\n".join(lines) + "\n")
    run = subprocess.run(
        ["xelatex", "-no-pdf", "-interaction=nonstopmode", "-file-line-error", f"{_BATCH}.tex"],
        cwd=workdir,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
        env=_env(),
    )
    log = workdir / f"{_BATCH}.log"
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else run.stdout
    out: dict[int, str] = {}
    for m in _ERROR_RE.finditer(text):
        if m["file"] != f"{_BATCH}.tex":
            continue
        line = int(m["line"])
        if line < spans[0][0]:
            return {}  # the preamble itself fails here: the book's own LaTeX run says why
        index = next((i for i, (first, last) in enumerate(spans) if first <= line <= last), None)
        if index is None and line > spans[-1][1]:
            index = len(spans) - 1  # the document ended inside the last formula
        if index is not None:
            out.setdefault(index, m["message"].strip())
    return out


def _env() -> dict[str, str]:
    return {**os.environ, "max_print_line": "100000"}  # long lines unwrapped: one error, one line


def set_aside(tex: str, unset: list[Unset]) -> str:
    """``tex`` with each unset formula replaced by its source text in a marked box; the line
    count stays, so the book's line numbers (and its source markers) still hold."""
    out, at = [], 0
    for item in sorted(unset, key=lambda u: u.formula.start):
        formula = item.formula
        out += [tex[at : formula.start], _boxed(formula)]
        at = formula.end
    out.append(tex[at:])
    return "".join(out)


_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
}


def _boxed(formula: Formula) -> str:
    r"""The formula's text as LaTeX cannot misread it, framed, with a mark the reader sees; each
    line of the formula stays a line (ended by ``%``)."""
    source = formula.text
    if not formula.display:
        source = source[2:-2]  # \( ... \)
    shown = [" ".join("".join(_SPECIAL.get(c, c) for c in line).split()) for line in source.split("\n")]
    mark = r"\textbf{[formula not set]}"
    if formula.display:
        body = r"\newline ".join(line for line in shown if line)
        width = r"\dimexpr\linewidth-2\fboxsep-2\fboxrule"
        text = rf"\par\noindent\fbox{{\parbox{{{width}}}{{{mark} \texttt{{{body}}}}}}}\par"
    else:
        text = rf"\fbox{{{mark} \texttt{{{' '.join(line for line in shown if line)}}}}}"
    return text + "%\n" * source.count("\n")


#: The source markers :mod:`polybook.pdf.sphinx_ext` writes before every block of a section.
_MARKER_RE = re.compile(r"^% polybook-src \S+:\d+$")


def set_aside_block(tex: str, line: int, message: str) -> str | None:
    """``tex`` with the block holding ``line`` -- from the source marker above it to the next
    one -- replaced by a marked notice (a formula that runs over the paragraphs after it, a
    table LaTeX cannot set...), every line kept; None when no marker encloses ``line``."""
    lines = tex.split("\n")
    above = next((i for i in range(min(line, len(lines)) - 1, -1, -1) if _MARKER_RE.match(lines[i])), None)
    if above is None:
        return None
    below = next((i for i in range(line, len(lines)) if _MARKER_RE.match(lines[i])), len(lines))
    end_document = next((i for i in range(above, below) if lines[i].startswith("\\end{document}")), None)
    below = end_document if end_document is not None else below
    said = "".join(_SPECIAL.get(c, c) for c in message)
    notice = (
        r"\par\noindent\fbox{\parbox{\dimexpr\linewidth-2\fboxsep-2\fboxrule}{\textbf{[not set]} "
        rf"LaTeX could not set this part of the chapter: \texttt{{{said}}}}}}}\par"
    )
    count = below - above - 1
    return "\n".join([*lines[: above + 1], notice, *(["%"] * (count - 1)), *lines[below:]]) if count > 0 else None
