"""Where two versions of a cell's code differ: changed places (:class:`Hunk`), each widened to
a readable unit (the call or subscript around the changed tokens), at its lines in each cell."""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from cydifflib import SequenceMatcher  # difflib's, compiled: the same opcodes (see pyproject.toml)

from polybook.check.align import align
from polybook.check.code_keys import _CODE_THEN_COMMENT, Token, code_tokens

_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_OPEN, _CLOSE = ("(", "[", "{"), (")", "]", "}")
_DEPTH = {**dict.fromkeys(_OPEN, 1), **dict.fromkeys(_CLOSE, -1)}  # what a token adds to the brackets open


@dataclass(frozen=True, slots=True)
class Hunk:
    """One changed place: the texts and their 0-based lines within each cell's code."""

    translation: str
    source: str
    t_line: int
    s_line: int


def token_diff(translation: str, source: str) -> list[Hunk]:
    """Changed places, e.g. ``Hunk("range(1000)", "range(10000)", 1, 1)``.

    Logical lines are aligned first (so a moved or added line shows as that line); inside
    a pair of similar lines only the changed tokens are shown, widened to the call or
    subscript around them.
    """
    t_lines, s_lines = [toks for _, toks in code_tokens(translation)], [toks for _, toks in code_tokens(source)]
    t_src, s_src = translation.split("\n"), source.split("\n")
    t_keys = [" ".join(x.text for x in toks) for toks in t_lines]
    s_keys = [" ".join(x.text for x in toks) for toks in s_lines]
    out: list[Hunk] = []
    t_at = s_at = 0  # line of the last aligned line on each side, for insertions
    for pair in align(s_keys, t_keys):
        t_toks = t_lines[pair.target] if pair.target is not None else []
        s_toks = s_lines[pair.source] if pair.source is not None else []
        t_at = t_toks[0].line if t_toks else t_at
        s_at = s_toks[0].line if s_toks else s_at
        if pair.kind == "equal":
            continue
        if pair.kind == "similar":
            # each at the line of its first changed token: a statement's changed line, not its first
            out.extend(Hunk(a, b, t_at + dt, s_at + ds) for a, b, dt, ds in _token_pairs(t_toks, s_toks, t_src, s_src))
        else:
            out.append(Hunk(_render(t_toks, t_src), _render(s_toks, s_src), t_at, s_at))
    return [h for h in out if h.translation or h.source]


def line_diff(translation: str, source: str) -> list[Hunk] | None:
    """The changed places of code that does not parse where the source's does (a line of a
    statement deleted: its logical lines run on into the next, so :func:`token_diff` sees the
    whole rest changed), by physical lines without their comments; None when both parse alike
    in that respect (the token diff is right then)."""
    if _parses(translation) or not _parses(source):
        return None
    t_lines, s_lines = _code_lines(translation), _code_lines(source)
    out = []
    matcher = SequenceMatcher(None, [text for _, text in s_lines], [text for _, text in t_lines], autojunk=False)
    for op, s0, s1, t0, t1 in matcher.get_opcodes():
        if op == "equal":
            continue
        t_at = t_lines[t0][0] if t0 < len(t_lines) else (t_lines[-1][0] if t_lines else 0)
        s_at = s_lines[s0][0] if s0 < len(s_lines) else (s_lines[-1][0] if s_lines else 0)
        shown_t = " ".join(text for _, text in t_lines[t0:t1])
        shown_s = " ".join(text for _, text in s_lines[s0:s1])
        out.append(Hunk(shown_t, shown_s, t_at, s_at))
    return out


def _parses(code: str) -> bool:
    try:
        ast.parse(textwrap.dedent(code).strip())
    except (SyntaxError, ValueError):
        return False
    return True


def _code_lines(code: str) -> list[tuple[int, str]]:
    """(0-based line, text without its comment and spaces at its ends) of the lines holding code."""
    out = []
    for k, line in enumerate(code.split("\n")):
        m = _CODE_THEN_COMMENT.match(line) if "#" in line else None
        text = (m[1] if m else line).strip()
        if text and not text.startswith("#"):
            out.append((k, text))
    return out


def parses_alike(translation: str, source: str) -> bool:
    """Whether two pieces of code Python reads as the same program (``return (a, b)`` and
    ``return a, b``, a call's arguments wrapped otherwise): a difference of spelling only, which
    the library and the reader get alike. Pieces that do not parse on their own are not alike."""
    dumps = []
    for code in (translation, source):
        code = textwrap.dedent(code).strip()
        try:
            dumps.append(ast.dump(ast.parse(code)))
        except (SyntaxError, ValueError):
            return False
    return dumps[0] == dumps[1]


def _token_pairs(
    t_toks: list[Token], s_toks: list[Token], t_src: list[str], s_src: list[str]
) -> list[tuple[str, str, int, int]]:
    """The changed regions of two similar logical lines, widened (:func:`_widen`), with how many
    lines after each line's first the region starts."""
    t_text, s_text = [x.text for x in t_toks], [x.text for x in s_toks]
    regions: list[list[int]] = []
    for op, t0, t1, s0, s1 in SequenceMatcher(None, t_text, s_text, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        last = regions[-1] if regions else None
        if last and t0 - last[1] <= 2 and s0 - last[3] <= 2:
            last[1], last[3] = t1, s1
        else:
            regions.append([t0, t1, s0, s1])
    out = []
    for t0, t1, s0, s1 in regions:
        t0, t1, s0, s1 = _widen(t_toks, s_toks, t0, t1, s0, s1)
        pair = (_render(t_toks[t0:t1], t_src), _render(s_toks[s0:s1], s_src))
        if any(side and not (side[0].isalnum() or side[0] in "_([{'\"") for side in pair):
            return [(_render(t_toks, t_src), _render(s_toks, s_src), 0, 0)]  # a fragment: show the lines
        out.append((*pair, _offset(t_toks, t0), _offset(s_toks, s0)))
    return out


def _offset(tokens: list[Token], at: int) -> int:
    """How many lines after the logical line's first the token ``at`` (or the one before an
    insertion there) stands."""
    if not tokens:
        return 0
    return tokens[min(at, len(tokens) - 1)].line - tokens[0].line


def _widen(t: list[Token], s: list[Token], t0: int, t1: int, s0: int, s1: int) -> tuple[int, int, int, int]:
    """Grow a changed region to a readable unit: the call or subscript around it."""

    def text(toks: list[Token], i: int) -> str:
        return toks[i].text if 0 <= i < len(toks) else ""

    # left: a keyword argument's name (``gradient_clip_val=5``, not ``5``)
    keyword = text(t, t0 - 1) == "=" == text(s, s0 - 1) and text(t, t0 - 3) in (",", "(")
    if keyword and _IDENT.match(text(t, t0 - 2)) and text(t, t0 - 2) == text(s, s0 - 2) and t1 - t0 <= 1 >= s1 - s0:
        return t0 - 2, t1, s0 - 2, s1
    # left: an opening bracket, then the dotted name before it
    if text(t, t0 - 1) in _OPEN and text(t, t0 - 1) == text(s, s0 - 1):
        t0, s0 = t0 - 1, s0 - 1
    while _IDENT.match(text(t, t0 - 1)) and text(t, t0 - 1) == text(s, s0 - 1) and text(t, t0 - 2) in (".", ""):
        t0, s0 = t0 - 1, s0 - 1
        if text(t, t0 - 1) == "." and text(s, s0 - 1) == ".":
            t0, s0 = t0 - 1, s0 - 1
        else:
            break
    if text(t, t0) == "." and _IDENT.match(text(t, t0 - 1)) and text(t, t0 - 1) == text(s, s0 - 1):
        t0, s0 = t0 - 1, s0 - 1  # the head of a dotted name (``tf`` of ``tf.keras.initializers.Constant``)
    if _IDENT.match(text(t, t0 - 1)) and text(t, t0) in _OPEN and text(t, t0 - 1) == text(s, s0 - 1):
        t0, s0 = t0 - 1, s0 - 1
    # right: close what the region opened, and a call's parentheses right after a name
    t_open = sum(_DEPTH.get(text(t, i), 0) for i in range(t0, t1))  # the brackets each region leaves open,
    s_open = sum(_DEPTH.get(text(s, i), 0) for i in range(s0, s1))  # kept up to date as it grows
    for _ in range(12):
        ends_with_name = _IDENT.match(text(t, t1 - 1)) and text(t, t1) == "(" == text(s, s1)
        if (t_open > 0 or s_open > 0 or ends_with_name) and text(t, t1) == text(s, s1) and text(t, t1):
            t_open, s_open = t_open + _DEPTH.get(text(t, t1), 0), s_open + _DEPTH.get(text(s, s1), 0)
            t1, s1 = t1 + 1, s1 + 1
        else:
            break
    return t0, t1, s0, s1


def _render(tokens: list[Token], lines: list[str]) -> str:
    """The original text of a run of tokens (one logical line; continuation lines joined)."""
    if not tokens:
        return ""
    first, last = tokens[0], tokens[-1]
    if first.line == last.line:
        return lines[first.line][first.start : last.end]
    middle = [lines[i].strip() for i in range(first.line + 1, last.line)]
    return " ".join([lines[first.line][first.start :].rstrip(), *middle, lines[last.line][: last.end].strip()])
