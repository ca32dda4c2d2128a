"""A display equation or a figure that ends a paragraph, split off so a label can follow it.

d2l writes ``… in expanded form as`` and, on the next line and in the same paragraph,
``$$…$$`` then ``:eqlabel:`eq_ftc```; or a sentence and, on the next line, an image then
``:label:`fig_x```. d2lbook sees a labelled equation or figure there (pandoc makes the
``$$`` line display math), so the document model does too: the paragraph is cut in two at
the line where the equation or image starts, each part keeping its own lines.
"""

from __future__ import annotations

import re

from polybook.dialect.nodes import DisplayMath, Figure, Inline, Paragraph

# The last $$…$$ of a paragraph, alone up to its end; slide marks may wrap it: (**$$…$$**).
_TRAILING_MATH_RE = re.compile(
    r"(?P<open>\(\*\*|\[\*\*)?\$\$(?P<tex>(?:(?!\$\$).)+?)\$\$(?P<close>\*\*\)|\*\*\])?\s*\Z", re.DOTALL
)
_CLOSES = {"(**": "**)", "[**": "**]"}


def _rest(paragraph: Paragraph, cut: int, inlines: list[Inline]) -> Paragraph | None:
    """The paragraph's text before offset ``cut``, or None when there is none."""
    text = paragraph.source[:cut].rstrip()
    if not text.strip():
        return None
    end = paragraph.line + text.count("\n")
    kept = [i for i in inlines if i.line <= end]
    return Paragraph(paragraph.path, paragraph.line, end, text, kept)


def split_math(paragraph: Paragraph) -> tuple[Paragraph | None, DisplayMath] | None:
    """(the text before, the equation) when the paragraph ends with display math."""
    m = _TRAILING_MATH_RE.search(paragraph.source)
    if m is None or _CLOSES.get(m["open"] or "", "") != (m["close"] or ""):
        return None
    line = paragraph.line + paragraph.source[: m.start()].count("\n")
    maths = [k for k, i in enumerate(paragraph.inlines) if i.kind == "math"]
    inlines = [i for k, i in enumerate(paragraph.inlines) if not maths or k != maths[-1]]
    math = DisplayMath(paragraph.path, line, paragraph.end_line, m["tex"].strip())
    return _rest(paragraph, m.start(), inlines), math


def split_figure(paragraph: Paragraph) -> tuple[Paragraph | None, Figure] | None:
    """(the text before, the figure) when the paragraph's last line(s) are one image."""
    source = paragraph.source.rstrip()
    start = source.rfind("![")
    images = [k for k, i in enumerate(paragraph.inlines) if i.kind == "image"]
    if start < 0 or not images or not source.endswith(")"):
        return None
    if source[source.rfind("\n", 0, start) + 1 : start].strip():  # text before it on its line
        return None
    image = paragraph.inlines[images[-1]]
    caption_roles = paragraph.inlines[images[-1] + 1 :]
    if any(i.kind != "role" for i in caption_roles) or f"]({image.value}" not in source[start:]:
        return None
    line = paragraph.line + source[:start].count("\n")
    roles = [Inline(i.kind, line, i.value, i.name) for i in caption_roles]
    figure = Figure(paragraph.path, line, paragraph.end_line, image.value, image.name, inlines=roles)
    return _rest(paragraph, start, paragraph.inlines[: images[-1]]), figure
