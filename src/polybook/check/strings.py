"""Which string literals of a cell differ in a way that matters (``code.strings``).

A cell whose code differs from the source's only in its string literals is compared string by
string. No difference: the same value written another way (``"x.npy"`` for ``'x.npy'``), and
text shown to the reader that a translation translated -- what ``print``, a plot's labels and
legend, a benchmark's name, an assertion's message, a cell's lone string or a sentence a helper
returns say -- when any ``{…}`` of an f-string
and any ``%d`` of a format is kept. What stays is a string the code uses: a file name, a URL,
a separator (``' '.join`` for ``''.join``), a key, or a label whose placeholders changed
(f-string expressions may be reordered, written with other spaces). An f-string whose words are
the same and whose expressions differ is code changed (:func:`expressions_only`).
"""

from __future__ import annotations

import ast
import re

from polybook.check.code_keys import Token, code_tokens

#: Calls whose string arguments are shown to the reader (by the last part of their name).
DISPLAY_CALLS = frozenset({
    "print", "plot", "Animator", "show_heatmaps", "show_images", "show_trace_2d", "show_list_len_pair_hist",
    "xlabel", "ylabel", "title", "suptitle", "set_xlabel", "set_ylabel", "set_title", "legend", "annotate",
    "text", "figtext", "Benchmark", "set_figsize", "hist", "bar",
})  # fmt: skip
#: Keyword arguments whose strings are shown to the reader.
DISPLAY_KEYWORDS = frozenset({"xlabel", "ylabel", "zlabel", "legend", "label", "labels", "title", "titles", "names"})
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdifgexr%]")
_PREFIX = re.compile(r"^[A-Za-z]*")


def _tokens(code: str) -> list[Token]:
    return [token for _, tokens in code_tokens(code) for token in tokens]


def differing_strings(translation: str, source: str) -> list[tuple[str, str]]:
    """The string literals (as written) that differ in a way that matters, translation's first;
    for two cells whose code differs only in string literals."""
    t_lines, s_lines = code_tokens(translation), code_tokens(source)
    out = []
    for (_, t_toks), (_, s_toks) in zip(t_lines, s_lines, strict=False):
        for k, (t, s) in enumerate(zip(t_toks, s_toks, strict=False)):
            if t.is_string and s.is_string and t.text != s.text and not _alike(t.text, s.text, _shown(s_toks, k)):
                out.append((t.text, s.text))
    return out


def expressions_only(translation: str, source: str) -> bool:
    """Whether two f-strings differ only in the code of their ``{…}`` (``{len(all_centers)}``
    for ``{sum(len(c) for c in all_contexts)}``, ``line`` for ``l`` in a comprehension): a
    change of code, not of a string."""
    t_prefix, s_prefix = _PREFIX.match(translation)[0].lower(), _PREFIX.match(source)[0].lower()  # type: ignore[index]
    if "f" not in t_prefix or t_prefix != s_prefix:
        return False
    return _PLACEHOLDER.sub("{}", translation) == _PLACEHOLDER.sub("{}", source)


def _alike(translation: str, source: str, shown: bool) -> bool:
    """The same string written another way, or -- ``shown`` to the reader -- translated with its
    prefix (``f``, ``r``) and placeholders kept."""
    t_prefix, s_prefix = _PREFIX.match(translation)[0].lower(), _PREFIX.match(source)[0].lower()  # type: ignore[index]
    if t_prefix != s_prefix:
        return False
    if "f" not in s_prefix:
        try:
            if ast.literal_eval(translation) == ast.literal_eval(source):
                return True
        except (ValueError, SyntaxError):
            pass
    if not shown:
        return False
    return _placeholders(translation) == _placeholders(source)


def _placeholders(literal: str) -> tuple[list[str], list[str]]:
    """A format's ``{…}`` expressions (in any order: a translation may reorder its words, and
    they are named) and its ``%d`` specifiers (in order: they are positional)."""
    found = [p for p in _PLACEHOLDER.findall(literal) if p not in ("{{", "}}")]
    braces = sorted("".join(p.split()) for p in found if p.startswith("{"))
    return braces, [p for p in found if p.startswith("%")]


def _shown(tokens: list[Token], index: int) -> bool:
    """Whether the string at ``tokens[index]`` is text shown to the reader: an argument (or in a
    list argument) of a display call, a display keyword's value, an assertion's or exception's
    message."""
    texts = [t.text for t in tokens]
    if texts and texts[0] == "assert" and "," in texts[:index]:
        return True
    if all(t.is_string or t.text in "()" for t in tokens):
        return True  # a string standing alone: the cell shows it as its result
    if texts[0] == "return" and all(t.is_string or t.text in "()" for t in tokens[1:]):
        return any(c.isspace() for c in tokens[index].text)  # a sentence a helper returns to be shown
    depth = 0
    argument = True  # no comma yet between the string and what may be its keyword
    at = index
    while at > 0:
        at -= 1
        text = texts[at]
        if text in (")", "]", "}"):
            depth += 1
        elif text in ("(", "[", "{") and depth:
            depth -= 1
        elif depth:
            continue
        elif text == ",":
            argument = False
        elif text == "=" and argument and at > 0 and texts[at - 1] in DISPLAY_KEYWORDS:
            return True
        elif text in ("(", "[", "{"):
            callee = texts[at - 1] if at > 0 and text == "(" else ""
            if callee in DISPLAY_CALLS or callee.endswith(("Error", "Exception", "Warning")):
                return True
            argument = True  # one level out: the bracket is itself an argument
    return False
