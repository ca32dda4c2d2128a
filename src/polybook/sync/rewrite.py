"""Rewriting a translation's cell from the source while keeping the translation's comments.

Code lines are matched by their comment-free text (indentation included): equal lines, and
in between, lines that changed only in some tokens (``range(1000)`` -> ``range(10000)``).
A matched line keeps the translation's comment lines above it; an equal line (translated
strings aside, which the checker excuses too) keeps the translation's own line, a changed
one becomes the source's code with the translation's trailing comment. Every other line
comes from the source, with the source's comments -- but a line the translation lost comes
back under the translation's comment, not the source's beside it. So a translated comment
survives exactly where the code around it still corresponds; d2l markers (``#@save``) always
come from the source.
"""

from __future__ import annotations

import re

from polybook.check.align import align, token_ratio
from polybook.check.strings import differing_strings
from polybook.dialect.builder import DialectSettings
from polybook.dialect.normalize import strip_comment

#: A string literal on one line (its prefix, quotes and text), whose text the key leaves out.
_STRING = re.compile(r"""([rRbBfFuU]{0,2})("{3}|'{3}|"|')(.*?)\2""")


def _key(line: str) -> str:
    """A code line's indentation and tokens, its string literals' text left out: a line whose
    only difference is a translated string (a docstring, a plot's label) is the same line."""
    code = strip_comment(line)
    if not code.strip():
        return ""
    code = _STRING.sub(lambda m: m[1] + m[2] + m[2], code)
    return f"{len(code) - len(code.lstrip())}:{' '.join(code.split())}"


def _markers(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines if "#@" in line]


def _changed_line(translation: str, source: str) -> str:
    """The source's line, with the translation's trailing comment when it has one."""
    t_code, s_code = strip_comment(translation), strip_comment(source)
    t_comment, s_comment = translation[len(t_code) :], source[len(s_code) :]
    if not t_comment or "#@" in t_comment or "#@" in s_comment:
        return source
    return s_code.rstrip() + translation[len(t_code.rstrip()) :]


def _above(lines: list[str]) -> list[str]:
    """The lines after the last code line of ``lines`` (all of them when none is code)."""
    code = [i for i, line in enumerate(lines) if _key(line)]
    return lines[code[-1] + 1 :] if code else lines


def _in_place(s_part: list[str], t_part: list[str]) -> list[str] | None:
    """``s_part`` (source lines, some of them code the translation lost) with the translation's
    comments (``t_part``, no code) in place of the source's: one for one when they are as many,
    else together where the source's first comment stands. None when either has no comment or
    their d2l markers differ."""
    s_comments = [i for i, line in enumerate(s_part) if line.strip().startswith("#")]
    t_comments = [line for line in t_part if line.strip().startswith("#")]
    if not s_comments or not t_comments or _markers(s_part) != _markers(t_part):
        return None
    if len(s_comments) == len(t_comments):
        out = list(s_part)
        for i, line in zip(s_comments, t_comments, strict=True):
            out[i] = line
        return out
    first = s_comments[0]
    return [*s_part[:first], *t_comments, *(line for i, line in enumerate(s_part) if i > first and i not in s_comments)]


def _gap(s_part: list[str], t_part: list[str]) -> list[str]:
    """The lines before a matched code line, back to the previous matched one.

    The source's code lines the translation has no counterpart for come back; where the
    translation has no code of its own there (a line of it was deleted), its comments take the
    places of the source's (:func:`_in_place`), so a restored line does not bring the source's
    English comment beside the translated one. Otherwise the translation's comments right above
    the matched line stay; without comments there, the source's layout.
    """
    s_above, t_above = _above(s_part), _above(t_part)
    head = s_part[: len(s_part) - len(s_above)]
    if head and len(t_above) == len(t_part) and (placed := _in_place(s_part, t_part)) is not None:
        return placed
    keep = any(line.strip() for line in t_above) and _markers(t_above) == _markers(s_above)
    return head + (t_above if keep else s_above)


def rewrite_code(translation: str, source: str) -> str:
    t_lines, s_lines = translation.split("\n"), source.split("\n")
    t_code = [i for i, line in enumerate(t_lines) if _key(line)]
    s_code = [i for i, line in enumerate(s_lines) if _key(line)]
    pairs = align([_key(s_lines[i]) for i in s_code], [_key(t_lines[i]) for i in t_code], token_ratio, 0.5)
    out: list[str] = []
    s_prev = t_prev = -1  # the last matched lines
    for pair in pairs:
        if pair.source is None or pair.target is None:
            continue
        s_i, t_i = s_code[pair.source], t_code[pair.target]
        out += _gap(s_lines[s_prev + 1 : s_i], t_lines[t_prev + 1 : t_i])
        line = t_lines[t_i]
        if pair.kind == "equal" and differing_strings(strip_comment(line), strip_comment(s_lines[s_i])):
            out.append(_changed_line(line, s_lines[s_i]))  # a string the code uses (a path), not a translated one
        elif pair.kind == "equal":
            out.append(s_lines[s_i] if "#@" in s_lines[s_i] and s_lines[s_i] != line else line)
        else:
            out.append(_changed_line(line, s_lines[s_i]))
        s_prev, t_prev = s_i, t_i
    s_tail, t_tail = s_lines[s_prev + 1 :], t_lines[t_prev + 1 :]
    if not any(_key(line) for line in s_tail + t_tail):
        out += t_tail
    elif any(_key(line) for line in t_tail):
        out += s_tail
    else:
        out += _in_place(s_tail, t_tail) or s_tail
    return "\n".join(out)


def tab_marker(frameworks: tuple[str, ...], spec: str | None, settings: DialectSettings) -> str | None:
    """The ``#@tab`` line that gives ``frameworks`` in a language with ``settings``."""
    if tuple(frameworks) == (settings.default_tab,):
        return None
    if spec == "all" and set(frameworks) == set(settings.frameworks):
        return "#@tab all"
    return "#@tab " + ", ".join(frameworks)
