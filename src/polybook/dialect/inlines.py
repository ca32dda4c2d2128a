"""The inline elements of prose -- roles, math, code spans, links, images -- as the builder makes
them (a part of :class:`polybook.dialect.builder._Builder`, kept apart to keep that module
readable): from markdown-it's inline tokens, or, for the text the parser left to it, from the
pieces :mod:`polybook.dialect.inline_scan` finds."""

from __future__ import annotations

import re

from markdown_it.token import Token

from polybook.diagnostics import Code, Level
from polybook.dialect.inline_scan import text_before
from polybook.dialect.markdown import CITE_ROLES, bad_citations, code_span_breaks, inline_pieces
from polybook.dialect.nodes import Inline
from polybook.dialect.shortcuts import may_hold_inlines

_DAMAGED_ROLE_RE = re.compile(r":\s*(?P<name>numref|ref|eqref|cite|citet)\s*:\s*$")
_OPENING = "([（「"  # what a role may follow with no space between


def glued_to(before: str) -> bool:
    """Whether a role right after the character ``before`` ("" at the start) is glued to a word
    or a comma (``capítulo,:numref:``): docutils reads no role there, so it needs a space."""
    return bool(before) and not before.isspace() and before not in _OPENING


class InlineBuilder:
    """Makes the inline elements of one inline token, reporting damaged roles and citation keys."""

    def report(self, line: int, code: Code, message: str, level: Level | None = None) -> None:
        raise NotImplementedError  # the builder's

    def inlines(self, token: Token) -> list[Inline]:
        """Roles, math, code and links of one inline token, each with its own line."""
        assert token.map is not None
        children = token.children
        if not children:  # no inline element, or left to the scan (see shortcuts.inline_rule)
            content = token.content
            return self.scanned(content, token.map[0] + 1) if may_hold_inlines(content) else []
        line = token.map[0] + 1
        out: list[Inline] = []
        link: list[str] | None = None
        cursor = 0  # where the last code span ended in the raw text (see code_span_breaks)
        for i, child in enumerate(children):
            kind = child.type
            if kind == "text":  # text and line breaks first: most children are
                if link is not None:
                    link.append(child.content)
                continue
            if kind == "softbreak" or kind == "hardbreak":
                line += 1
                continue
            # a damaged role is text then code: the code span is its target
            if (
                kind == "code_inline"
                and i
                and children[i - 1].type == "text"
                and self.damaged_role(children[i - 1].content, child.content, child.markup, line, out)
            ):
                line += child.content.count("\n")
                continue
            if kind == "d2l_role":
                self.role(child.meta["name"], child.content, line, out)
            elif kind == "math_inline" or kind == "math_inline_double":
                out.append(Inline("math", line, child.content))
            elif kind == "code_inline":
                out.append(Inline("code", line, child.content))
                breaks, cursor = code_span_breaks(token.content, child.content, child.markup, cursor)
                line += breaks
            elif kind == "image":
                out.append(Inline("image", line, str(child.attrGet("src") or ""), child.content))
                out.extend(Inline(x.kind, line, x.value, x.name) for x in self._image_roles(child))
            elif kind == "link_open":
                link = [str(child.attrGet("href") or "")]
            elif kind == "link_close" and link is not None:
                out.append(Inline("link", line, link[0], "".join(link[1:])))
                link = None
            line += child.content.count("\n")
        return out

    def scanned(self, text: str, line: int) -> list[Inline]:
        """:meth:`inlines` of a text the parser left to the scan (its first line at ``line``):
        the same elements at the same lines, read from :func:`markdown.inline_pieces`. Each line
        break of the text between two pieces is a break token of markdown-it's; a piece's own
        are counted as :meth:`inlines` counts that token's."""
        out: list[Inline] = []
        counted = cursor = 0  # where the text's line breaks are counted to; see code_span_breaks
        for kind, value, name, at, end in inline_pieces(text):
            line += text.count("\n", counted, at)
            if kind == "math":
                out.append(Inline("math", line, value))
                line += value.count("\n")
            elif kind == "role":
                self.role(name, value, line, out)
            elif kind == "link" or kind == "image":  # their text, which is their label, holds no line break
                out.append(Inline(kind, line, value, name))
            elif not (
                text.rfind(":", counted, at) >= 0
                and self.damaged_role(text_before(text, counted, at), value, name, line, out)
            ):
                out.append(Inline("code", line, value))
                breaks, cursor = code_span_breaks(text, value, name, cursor)
                line += breaks
            counted = end
        return out

    def role(self, name: str, target: str, line: int, out: list[Inline]) -> None:
        out.append(Inline("role", line, target, name))
        if name in CITE_ROLES:
            self.check_citation(name, target, line)

    def damaged_role(self, text: str, code: str, ticks: str, line: int, out: list[Inline]) -> bool:
        """``: numref: `x``` -- ``text`` (a text token's) ending in a role's name, then a code span
        (``code`` between ``ticks``): the role, reported; whether it is one (the code span is
        then no code)."""
        damaged = _DAMAGED_ROLE_RE.search(text)
        if not damaged:
            return False
        name = damaged["name"]
        ticks = ticks or "`"
        raw = f"{damaged.group(0)}{ticks}{code}{ticks}"
        before = text[damaged.start() - 1] if damaged.start() else ""
        space = ", with a space before it (a role glued to a word or comma is none)" if glued_to(before) else ""
        if len(ticks) > 1:
            space += f" (one backtick each side, not {len(ticks)})"
        message = f"damaged role {raw.strip()!r}; did you mean ':{name}:`{code.strip()}`'{space}?"
        self.report(line, Code.ROLE_DAMAGED, message)
        out.append(Inline("role", line, code, name, damaged=True))
        return True

    def check_citation(self, role: str, target: str, line: int) -> None:
        for bad in bad_citations(target):
            hint = f"; did you mean {''.join(bad.split())!r}?" if bad.strip() else ""
            self.report(line, Code.CITE_KEY, f":{role}:`{target}`: {bad!r} is not a citation key{hint}")

    @staticmethod
    def _image_roles(image: Token) -> list[Inline]:
        return [Inline("role", 0, c.content, c.meta["name"]) for c in image.children or [] if c.type == "d2l_role"]
