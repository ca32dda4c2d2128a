"""Markup a translation damaged, mended the one way the checker's message names (``polybook port``).

Machine translation breaks the dialect's markup in ways a parser tells but Markdown does not
show: ``: numref: `x``` (spaces inside a role), ``:cite:`Bay.Tuytelaars.Van- Gool.2006``` (a
space inside a BibTeX key), a heading ``[概要`` keeping one bracket of the source's
``[**Summary**]``. The parser reports each with the one repair it allows (``did you mean``);
``polybook port`` rewrites every translated block it carries anyway, so it makes that repair too
-- in the diff it shows, never to the words. Only a block the parser found damaged is touched,
and for one damage the parser cannot see, a TeX command split from its backslash (``\\ mathbf``,
which TeX reads as a space and a word), only to a command the source's block writes.
"""

from __future__ import annotations

import re

from polybook.dialect.inlines import glued_to
from polybook.dialect.markdown import CITE_ROLES, bad_citations
from polybook.dialect.nodes import Heading, Node, TextTab

#: A role with spaces around its colons or inside its backticks, as the parser recovers it
#: (:data:`polybook.dialect.inlines._DAMAGED_ROLE_RE` followed by a code span).
_SPACED_ROLE = re.compile(r":\s*(?P<name>numref|ref|eqref|cite|citet)\s*:\s*`(?P<target>[^`\n]+)`")
_CITATION = re.compile(r":(?P<name>" + "|".join(CITE_ROLES) + r"):`(?P<target>[^`\n]+)`")
_PAIRS = ("[]", "()", "{}")
#: A backslash, a space, a word: ``\\ mathbf`` -- a TeX command a translation tool split (TeX reads a
#: control space, then letters). Mended only to a command the source's block writes.
_SPLIT_COMMAND = re.compile(r"\\ ([A-Za-z]+)")
_COMMAND = re.compile(r"\\([A-Za-z]+)")


def _mended_role(found: re.Match[str]) -> str:
    """The role written whole, after a space when it was glued to a word or a comma
    (``capítulo,: numref:`` -- docutils reads no role there)."""
    role = f":{found['name']}:`{found['target'].strip()}`"
    return f" {role}" if glued_to(found.string[found.start() - 1] if found.start() else "") else role


def mended(node: Node, text: str, source: Node | None = None, source_text: str = "") -> str:
    """``text`` (the translated block ``node`` as written) with its damaged roles, citation keys,
    TeX commands split from their backslash (``\\ mathbf`` for the ``\\mathbf`` of ``source_text``,
    the source's block) and -- a heading -- brackets the source's heading does not have mended."""
    inlines = [*getattr(node, "inlines", ())]
    if isinstance(node, TextTab):
        inlines += [inline for child in node.children for inline in getattr(child, "inlines", ())]
    if any(inline.damaged for inline in inlines):
        text = _SPACED_ROLE.sub(_mended_role, text)
    if any(inline.kind == "role" and inline.name in CITE_ROLES and bad_citations(inline.value) for inline in inlines):
        text = _CITATION.sub(_citation, text)
    if "\\ " in text and "\\" in source_text:
        written = set(_COMMAND.findall(source_text))
        text = _SPLIT_COMMAND.sub(lambda m: "\\" + m[1] if m[1] in written else m[0], text)
    if isinstance(node, Heading) and isinstance(source, Heading):
        first, *rest = text.split("\n")
        text = "\n".join([_heading(first, source.text), *rest])
    return text


def _citation(found: re.Match[str]) -> str:
    target = found["target"]
    for bad in bad_citations(target):
        if bad.strip():
            target = target.replace(bad, "".join(bad.split()))
    return f":{found['name']}:`{target}`"


def _heading(line: str, source: str) -> str:
    """A heading line without the brackets its title holds unpaired when the source's holds none
    of that kind (what is left of a markup the translation lost half of)."""
    marks, _, title = line.partition(" ")
    for opener, closer in _PAIRS:
        if title.count(opener) != title.count(closer) and opener not in source and closer not in source:
            title = title.replace(opener, "").replace(closer, "")
    return f"{marks} {title}" if title.strip() else line
