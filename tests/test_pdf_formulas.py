"""Finding a book's formulas in its .tex and setting aside those LaTeX cannot set: the
replacement keeps every line where it was (the source markers still point right) and shows
the formula's own text, whatever characters it holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.pdf import formulas as formulas_module
from polybook.pdf.formulas import Unset, failing_formulas, formulas, set_aside, set_aside_block

TEX = r"""\documentclass{report}
\begin{document}
% polybook-src tiny:3
Inline \(a_{1} + b\) and \(\undefined x\) here.
% polybook-src tiny:5
\begin{equation*}
\begin{split}\begin{bmatrix} 1 & 2 \end{pmatrix} & 3\end{split}
\end{equation*}
\begin{align}x &= 1\end{align}
The end.
\end{document}
"""


def test_formulas_are_found_inline_and_displayed_with_their_lines() -> None:
    found = formulas(TEX)
    assert [(f.line, f.display, f.text.split("\n")[0]) for f in found] == [
        (4, False, r"\(a_{1} + b\)"),
        (4, False, r"\(\undefined x\)"),
        (6, True, r"\begin{equation*}"),
        (9, True, r"\begin{align}x &= 1\end{align}"),
    ]


def test_a_matrix_myst_took_as_a_block_of_its_own_is_a_formula_too() -> None:
    """d2l-zh's ``$$\\mathbf{A} \\odot \\mathbf{B} =\n\n\\begin{bmatrix}…$$``: MyST makes the matrix
    an amsmath block, which Sphinx writes outside math; LaTeX stops there unless it is set aside."""
    tex = "\\begin{document}\nText\n\\label{eq:x}\\begin{bmatrix}\n a & b \\\\\n c & d\n\\end{bmatrix}\nEnd.\n"
    (matrix,) = formulas(tex)
    assert matrix.display and matrix.line == 3 and matrix.text.endswith("\\end{bmatrix}")


def test_a_formula_set_aside_keeps_the_lines_and_shows_its_text() -> None:
    found = formulas(TEX)
    unset = [Unset(found[1], "Undefined control sequence."), Unset(found[2], "Misplaced alignment tab character &.")]
    out = set_aside(TEX, unset)
    assert out.count("\n") == TEX.count("\n")
    lines = out.split("\n")
    assert lines[3].startswith(
        r"Inline \(a_{1} + b\) and \fbox{\textbf{[formula not set]} \texttt{\textbackslash{}undefined x}}"
    )
    assert lines[3].endswith(" here.")
    assert r"\textbackslash{}begin\{bmatrix\} 1 \& 2" in lines[5] and lines[5].startswith(r"\par\noindent\fbox")
    assert lines[8] == r"\begin{align}x &= 1\end{align}" and lines[9] == "The end."
    assert formulas(out)[-1].text == r"\begin{align}x &= 1\end{align}"


def test_formulas_set_once_are_not_set_again_with_the_same_preamble(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other frameworks' PDFs of a language (another title and release line) and a rebuild
    set only the formulas not set before; a failing one is set again every time."""
    batches: list[list[str]] = []

    def batch(preamble: str, found: list, workdir: Path) -> dict[int, str]:
        batches.append([f.text for f in found])
        return {i: "Undefined control sequence." for i, f in enumerate(found) if "undefined" in f.text}

    monkeypatch.setattr(formulas_module, "_batch", batch)
    found = formulas(TEX)
    first = failing_formulas(TEX, found, tmp_path, tmp_path / "kept")
    assert [u.formula.text for u in first] == [r"\(\undefined x\)"] and len(batches[0]) == 4
    other = TEX.replace(r"\documentclass{report}", "\\documentclass{report}\n\\release{mxnet}")
    again = failing_formulas(other, formulas(other), tmp_path, tmp_path / "kept")
    assert [u.formula.text for u in again] == [r"\(\undefined x\)"] and batches[1] == [r"\(\undefined x\)"]


def test_a_block_latex_stops_on_is_set_aside_from_its_marker_to_the_next() -> None:
    tex = "\\begin{document}\n% polybook-src tiny:3\nGood.\n% polybook-src tiny:5\nBad \\x{\nmore\n"
    tex += "% polybook-src tiny:9\nEnd.\n"
    out = set_aside_block(tex, 5, "Undefined control sequence.")
    assert out is not None and out.count("\n") == tex.count("\n")
    lines = out.split("\n")
    assert lines[2] == "Good." and lines[4].startswith(r"\par\noindent\fbox") and "[not set]" in lines[4]
    assert lines[5] == "%" and lines[6] == "% polybook-src tiny:9" and lines[7] == "End."
    assert set_aside_block("\\begin{document}\nno markers\n", 2, "x") is None
