"""What every reporter shares: finding order, plurals, the one-line diff, the language list, the
codes ``--code`` names."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from polybook.check.findings import CheckResult, Finding
from polybook.diagnostics import RANK, Code

#: Diff pairs shown per finding before "… N more".
MAX_DIFF = 6


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """By path, line and code of the place each finding is shown at."""
    return sorted(findings, key=lambda f: f.order)


def by_importance(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then warnings, then info; each by path and line."""
    return sorted(findings, key=lambda f: (-RANK[f.level], *f.order))


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


def languages(result: CheckResult) -> list[str]:
    """The checked translations in config order, plus any other language a finding is about."""
    langs = [lang for lang in result.languages if lang != result.source_language]
    return langs + sorted({f.lang for f in result.findings} - set(langs))


def inline_diff(finding: Finding) -> str:
    """The diff on one line, translation first: ```range(1000)` → `range(10000)`, …``."""
    pairs = [f"`{one_line(t)}` → `{one_line(s)}`" for t, s in finding.diff[:MAX_DIFF]]
    if len(finding.diff) > MAX_DIFF:
        pairs.append(f"… {len(finding.diff) - MAX_DIFF} more")
    return ", ".join(pairs)


def one_line(text: str) -> str:
    """Diff tokens are short, but a newline in one would break every line-based format."""
    return text.replace("\r\n", "\n").replace("\n", "⏎")


_ITEMS = "\x00items\x00"  # where json_listing puts the list (a NUL: no text of a report is one)


def json_listing(document: dict[str, Any], place: list[Any], items: list[Any]) -> str:
    """``document`` as indented JSON with ``items`` -- the findings, to be put in the list
    ``place`` of ``document`` -- one compact object a line. What the json module indents it
    encodes in Python, not in C: bookmix's 15,922 findings took 0.85 s to write indented and
    0.16 s compact; a line each keeps the report readable and diffable."""
    place.append(_ITEMS)
    try:
        head = json.dumps(document, ensure_ascii=False, indent=2)
    finally:
        place.pop()
    token = json.dumps(_ITEMS)
    at = head.index(token)
    if not items:  # an empty list, as json writes it
        start, end = head.rindex("[", 0, at), head.index("]", at)
        return head[:start] + "[]" + head[end + 1 :]
    pad = ",\n" + head[head.rindex("\n", 0, at) + 1 : at]  # the list's own indentation
    return head[:at] + pad.join(json.dumps(item, ensure_ascii=False) for item in items) + head[at + len(token) :]


def codes_named(patterns: Iterable[str]) -> frozenset[Code]:
    """The codes ``--code`` names: a whole code (``ref.label``, ``polybook.ref.label``) or every
    code under a prefix (``ref`` or ``ref.``). A pattern that names no code is a ValueError that
    lists the codes, so a typo never passes as "no findings"."""
    chosen: set[Code] = set()
    for pattern in patterns:
        name = pattern.strip().removeprefix("polybook.").rstrip(".")
        named = {code for code in Code if code == name or code.startswith(name + ".")} if name else set()
        if not named:
            groups = sorted({code.split(".")[0] + "." for code in Code if "." in code})
            raise ValueError(f"no code is {pattern!r} or starts with it; prefixes are {', '.join(groups)}")
        chosen |= named
    return frozenset(chosen)


def with_codes(result: CheckResult, codes: frozenset[Code]) -> CheckResult:
    """``result`` with only the findings of ``codes`` (suppressed ones included, as in any result)."""
    return replace(result, findings=[f for f in result.findings if f.code in codes])
