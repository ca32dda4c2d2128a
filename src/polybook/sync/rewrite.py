"""Rewriting a translation's cell from the source while keeping the translation's comments.

Code lines are matched by their comment-free text (indentation included): equal lines, and
in between, lines that changed only in some tokens (``range(1000)`` -> ``range(10000)``).
A matched line keeps the translation's comment lines above it; an equal line keeps the
translation's own line, a changed one becomes the source's code with the translation's
trailing comment. Every other line comes from the source, with the source's comments. So
a translated comment survives exactly where the code around it still corresponds; d2l
markers (``#@save``) always come from the source.
"""

from __future__ import annotations

from polybook.check.align import align, token_ratio
from polybook.dialect.builder import DialectSettings
from polybook.dialect.normalize import strip_comment


def _key(line: str) -> str:
    code = strip_comment(line)
    if not code.strip():
        return ""
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


def rewrite_code(translation: str, source: str) -> str:
    t_lines, s_lines = translation.split("\n"), source.split("\n")
    t_code = [i for i, line in enumerate(t_lines) if _key(line)]
    s_code = [i for i, line in enumerate(s_lines) if _key(line)]
    pairs = align([_key(s_lines[i]) for i in s_code], [_key(t_lines[i]) for i in t_code], token_ratio, 0.5)
    matched: dict[int, tuple[int, bool]] = {}  # source line -> (translation line, equal)
    for pair in pairs:
        if pair.source is not None and pair.target is not None:
            matched[s_code[pair.source]] = (t_code[pair.target], pair.kind == "equal")
    t_prev_of = {t: (t_code[k - 1] if k else -1) for k, t in enumerate(t_code)}
    out: list[str] = []
    s_prev = -1
    for s_i in s_code:
        s_above = s_lines[s_prev + 1 : s_i]
        if s_i in matched:
            t_i, equal = matched[s_i]
            t_above = t_lines[t_prev_of[t_i] + 1 : t_i]
            # the translation's comments above the line; without comments, the source's layout
            keep = any(line.strip() for line in t_above) and _markers(t_above) == _markers(s_above)
            out += t_above if keep else s_above
            line = t_lines[t_i]
            if equal:
                out.append(s_lines[s_i] if "#@" in s_lines[s_i] and s_lines[s_i] != line else line)
            else:
                out.append(_changed_line(line, s_lines[s_i]))
        else:
            out += s_above
            out.append(s_lines[s_i])
        s_prev = s_i
    last_matched = bool(s_code and t_code and matched.get(s_code[-1], (None,))[0] == t_code[-1])
    out += t_lines[t_code[-1] + 1 :] if last_matched else s_lines[s_prev + 1 :]
    return "\n".join(out)


def tab_marker(frameworks: tuple[str, ...], spec: str | None, settings: DialectSettings) -> str | None:
    """The ``#@tab`` line that gives ``frameworks`` in a language with ``settings``."""
    if tuple(frameworks) == (settings.default_tab,):
        return None
    if spec == "all" and set(frameworks) == set(settings.frameworks):
        return "#@tab all"
    return "#@tab " + ", ".join(frameworks)
