"""A number said instead of the source's, read in its sentence: advice that keeps the sentence true.

``numbers.missing`` tells "the source's text says 32 where this says 16: write the source's
number". Two cases make that advice wrong or unusable, and are told otherwise here:

* the sentence follows an older text of the source -- it says ``PCIe 3.0 … 16 GB/s`` where the
  source now says ``PCIe 4.0 … 32 GB/s``: writing 32 alone makes it false. When the sentence
  also says another number the source's does not (any number, the small ones the number check
  leaves aside too), it is told to be translated anew -- a warning: the sentence is stale, not wrong;
* the sentence says the number twice (``16x lanes … 16 GB/s``): which one is meant is shown by
  the words around the source's number.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from polybook.check.findings import Finding
from polybook.check.segments import sentences
from polybook.diagnostics import Code, Level
from polybook.dialect.nodes import Block, Document, Heading, Paragraph

_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\d])")
_AROUND = 24  # characters of the source's sentence shown either side of its number


def in_context(findings: list[Finding], source: Document, translation: Document) -> list[Finding]:
    """``findings`` with each number said instead of the source's told in its sentence (see the
    module's text)."""
    if not any(f.code is Code.NUMBERS_MISSING and f.diff and all(f.diff[0]) for f in findings):
        return findings
    return [_told(f, source, translation) if f.code is Code.NUMBERS_MISSING else f for f in findings]


def _told(finding: Finding, source: Document, translation: Document) -> Finding:
    if not finding.diff or not all(finding.diff[0]) or finding.location is None or finding.source is None:
        return finding
    other, said = finding.diff[0]
    values = said.split(", ")
    mine = _sentences(_line(translation, finding.location.line), other)
    theirs = _sentences(_line(source, finding.source.line), values[0])
    if not mine or not theirs:
        return finding
    here, there = Counter(_numbers(" ".join(mine))), Counter(_numbers(" ".join(theirs)))
    only_here = [n for n in here - there if n != other]
    only_there = [n for n in there - here if n not in values]
    if only_here and only_there:
        message = (
            f"the source's text says {' and '.join(values)} where this says {other}, and {only_there[0]} where this "
            f"says {only_here[0]}: this sentence follows an older text of the source; translate it anew"
        )
        return replace(finding, message=message, level=Level.WARNING)  # only stale: not wrong against today's
    if here[other] > 1:
        quote = _quote(theirs, values[0])
        said_here = f"where this says {other}:"
        meant = f"(`{quote}`) where this says {other}, one of its {here[other]} {other}s (the one those words say):"
        return replace(finding, message=finding.message.replace(said_here, meant, 1))
    return finding


def _line(doc: Document, line: int) -> str:
    """The text of ``line`` of ``doc``'s prose ("" when no paragraph holds it)."""
    for node in doc.walk():
        if isinstance(node, Paragraph | Block | Heading) and node.line <= line <= node.end_line:
            text = node.text if isinstance(node, Heading) else node.source
            lines = text.split("\n")
            return lines[line - node.line] if line - node.line < len(lines) else ""
    return ""


def _sentences(text: str, number: str) -> list[str]:
    """The sentences of ``text`` that say ``number``."""
    return [s for s in sentences(text) if number in _numbers(s)]


def _numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def _quote(sentences: list[str], number: str) -> str:
    """The words around ``number`` in the source's sentence, for telling which of two is meant."""
    for sentence in sentences:
        for found in _NUMBER.finditer(sentence):
            if found.group() == number:
                start, end = max(0, found.start() - _AROUND), min(len(sentence), found.end() + _AROUND)
                return ("…" if start else "") + sentence[start:end].strip() + ("…" if end < len(sentence) else "")
    return number
