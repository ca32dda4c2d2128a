"""Rewriting a translation's cell from the source while keeping the translation's comments.

Code lines are matched by their comment-free text (indentation included). A matched line
keeps the translation's own line, trailing comment and the comment lines above it; every
other line comes from the source, with the source's comments. So a translated comment
survives exactly where the code around it is still the same.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from polybook.dialect.builder import DialectSettings
from polybook.dialect.normalize import strip_comment


def _key(line: str) -> str:
    code = strip_comment(line)
    if not code.strip():
        return ""
    return f"{len(code) - len(code.lstrip())}:{' '.join(code.split())}"


def rewrite_code(translation: str, source: str) -> str:
    t_lines, s_lines = translation.split("\n"), source.split("\n")
    t_code = [i for i, line in enumerate(t_lines) if _key(line)]
    s_code = [i for i, line in enumerate(s_lines) if _key(line)]
    matcher = SequenceMatcher(
        None, [_key(t_lines[i]) for i in t_code], [_key(s_lines[i]) for i in s_code], autojunk=False
    )
    matched: dict[int, int] = {}  # source line -> translation line
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            matched[s_code[b + k]] = t_code[a + k]
    t_prev_of = {t: (t_code[k - 1] if k else -1) for k, t in enumerate(t_code)}
    out: list[str] = []
    s_prev = -1
    for s_i in s_code:
        t_i = matched.get(s_i)
        if t_i is not None:
            above = t_lines[t_prev_of[t_i] + 1 : t_i]
            # the translation's comments above the line; without comments, the source's layout
            out += above if any(line.strip() for line in above) else s_lines[s_prev + 1 : s_i]
            line = t_lines[t_i]
            out.append(s_lines[s_i] if "#@" in s_lines[s_i] and s_lines[s_i] != line else line)
        else:
            out += s_lines[s_prev + 1 : s_i]
            out.append(s_lines[s_i])
        s_prev = s_i
    last_matched = bool(s_code and t_code and matched.get(s_code[-1]) == t_code[-1])
    out += t_lines[t_code[-1] + 1 :] if last_matched else s_lines[s_prev + 1 :]
    return "\n".join(out)


def tab_marker(frameworks: tuple[str, ...], spec: str | None, settings: DialectSettings) -> str | None:
    """The ``#@tab`` line that gives ``frameworks`` in a language with ``settings``."""
    if tuple(frameworks) == (settings.default_tab,):
        return None
    if spec == "all" and set(frameworks) == set(settings.frameworks):
        return "#@tab all"
    return "#@tab " + ", ".join(frameworks)
