r"""Unicode characters in math, as LaTeX's math fonts can set them.

MathJax reads ``$H = −E$`` with a U+2212 minus; LaTeX's math fonts have no slot for it
and xelatex would print a blank (``\tracinglostchars=2`` makes it an error). Each
character LaTeX math has a command for (− × ≤ → ∈ α ℝ …) becomes that command; any
other non-ASCII character is set as text (``\text{…}``), where the book's font fallback
(:mod:`polybook.pdf.fonts`) finds it a font. Only the PDF's math is rewritten: the site's
MathJax and the document model keep what the author wrote.
"""

from __future__ import annotations

import unicodedata

SYMBOLS: dict[str, str] = {
    "−": "-", "∓": r"\mp", "±": r"\pm", "×": r"\times", "÷": r"\div", "·": r"\cdot", "⋅": r"\cdot",
    "∗": r"\ast", "∘": r"\circ", "⋆": r"\star", "†": r"\dagger", "∖": r"\setminus",
    "≤": r"\leq", "≥": r"\geq", "≦": r"\leqq", "≧": r"\geqq", "≠": r"\neq", "≈": r"\approx",
    "≡": r"\equiv", "∼": r"\sim", "≃": r"\simeq", "≅": r"\cong", "∝": r"\propto", "≪": r"\ll",
    "≫": r"\gg", "≺": r"\prec", "≻": r"\succ", "⪯": r"\preceq", "⪰": r"\succeq", "≔": ":=",
    "→": r"\rightarrow", "←": r"\leftarrow", "↔": r"\leftrightarrow", "⇒": r"\Rightarrow",
    "⇐": r"\Leftarrow", "⇔": r"\Leftrightarrow", "↦": r"\mapsto", "↑": r"\uparrow",
    "↓": r"\downarrow", "⟶": r"\longrightarrow", "⟹": r"\Longrightarrow",
    "∈": r"\in", "∉": r"\notin", "∋": r"\ni", "⊂": r"\subset", "⊃": r"\supset",
    "⊆": r"\subseteq", "⊇": r"\supseteq", "∪": r"\cup", "∩": r"\cap", "∅": r"\emptyset",
    "∀": r"\forall", "∃": r"\exists", "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee",
    "⊕": r"\oplus", "⊗": r"\otimes", "⊙": r"\odot", "⊤": r"\top", "⊥": r"\bot", "⊢": r"\vdash",
    "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "∬": r"\iint", "∮": r"\oint", "∂": r"\partial",
    "∇": r"\nabla", "∞": r"\infty", "√": r"\surd", "∠": r"\angle", "△": r"\triangle",
    "□": r"\square", "∎": r"\blacksquare", "°": r"^{\circ}",
    "…": r"\ldots", "⋯": r"\cdots", "⋮": r"\vdots", "⋱": r"\ddots", "′": "'", "″": "''",
    "‖": r"\|", "∣": r"\mid", "⟨": r"\langle", "⟩": r"\rangle", "⌈": r"\lceil", "⌉": r"\rceil",
    "⌊": r"\lfloor", "⌋": r"\rfloor", "ℓ": r"\ell", "ℏ": r"\hbar", "ℵ": r"\aleph",
    "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}", "ℂ": r"\mathbb{C}",
    "\u00a0": "~", "\u2009": r"\,", "\u200a": r"\,", "\u2002": r"\enspace", "\u2003": r"\quad",
}  # fmt: skip
#: Greek letters LaTeX writes differently from their Unicode names (the others: \alpha...).
_GREEK_NAMES = {"lamda": "lambda", "final sigma": "varsigma", "epsilon": "varepsilon"}
_GREEK_COMMANDS = {
    "gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "upsilon", "phi", "psi", "omega",
}  # capital letters with a command of their own (\Gamma ...)  # fmt: skip
_GREEK_SYMBOLS = {"ϵ": r"\epsilon", "ϑ": r"\vartheta", "ϕ": r"\phi", "ϖ": r"\varpi", "ϱ": r"\varrho"}


def greek(char: str) -> str | None:
    """``\\alpha`` for α, ``\\Gamma`` for Γ, ``A`` for a capital alpha; None for other characters."""
    if char in _GREEK_SYMBOLS:
        return _GREEK_SYMBOLS[char]
    name = unicodedata.name(char, "")
    for prefix, capital in (("GREEK SMALL LETTER ", False), ("GREEK CAPITAL LETTER ", True)):
        if name.startswith(prefix):
            letter = _GREEK_NAMES.get(name[len(prefix) :].lower(), name[len(prefix) :].lower())
            if " " in letter:
                return None  # a letter with a diacritic
            if letter == "omicron":
                return "O" if capital else "o"
            if not capital:
                return f"\\{letter}"
            if letter in _GREEK_COMMANDS:
                return f"\\{letter.capitalize()}"
            return unicodedata.lookup(f"LATIN CAPITAL LETTER {_LATIN_LOOKALIKE.get(letter, 'A')}")
    return None


#: The Latin letter a capital Greek letter without a LaTeX command looks like.
_LATIN_LOOKALIKE = {
    "alpha": "A", "beta": "B", "varepsilon": "E", "zeta": "Z", "eta": "H", "iota": "I", "kappa": "K",
    "mu": "M", "nu": "N", "rho": "P", "tau": "T", "chi": "X",
}  # fmt: skip


def math_command(char: str) -> str | None:
    """What LaTeX math writes for ``char``, or None when it has nothing."""
    return SYMBOLS.get(char) or greek(char)


def latex_math(tex: str) -> str:
    """``tex`` with its non-ASCII characters as LaTeX math can set them; the others as text,
    where the preamble gives each the font that has it."""
    if tex.isascii():
        return tex
    out: list[str] = []
    for char in tex:
        if char.isascii():
            out.append(char)
            continue
        command = math_command(char)
        if command is not None:
            out.append(command + (" " if command[-1].isalpha() else ""))
        else:
            out.append(f"\\text{{{char}}}")
    return "".join(out)
