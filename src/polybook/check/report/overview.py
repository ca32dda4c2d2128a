"""The table the text report opens with: for each language, its errors, warnings and info by
code and how many documents have an error or a warning.

One column a language, so a translator finds theirs and the languages compare at a glance (four
translations and the source fit in 60 columns); a row a code, under the level it is reported at.
It counts every active finding -- the notes a migration plan sums up too -- so its totals are the
summary line's (a check that did not work out the notes of the documents the source changed says
so in the row of those notes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from polybook.check.findings import CheckResult, Finding
from polybook.diagnostics import Code, Level

#: What a zero is written as: a dash leaves the numbers standing out.
NONE = "-"


def overview(result: CheckResult, active: Sequence[Finding], langs: Sequence[str]) -> str:
    """The table of ``active``, ``result``'s active findings, a column for each of ``langs``."""
    counts: Counter[tuple[str, Level, str]] = Counter()
    documents: dict[str, set[str]] = {}  # lang -> the paths with an error or warning
    for f in active:  # (one pass: the 1.0 book has 17,000 findings)
        counts[f.lang, f.level, f.code] += 1
        if f.level is not Level.INFO:
            documents.setdefault(f.lang, set()).add(f.primary.path)
    # every translation (a clean one is a column of dashes); the source when it has findings
    has = {lang for lang, _, _ in counts}
    shown = [lang for lang in langs if lang in has or lang != result.source_language]
    rows: list[tuple[str, ...]] = [("", *shown)]
    for level in Level:
        codes = sorted({code for (_, lvl, code) in counts if lvl is level})
        if not codes:
            continue
        rows.append((_level_title(level), *(_n(sum(counts[lang, level, c] for c in codes)) for lang in shown)))
        rows += [(f"  {_name(code, result)}", *(_n(counts[lang, level, code]) for lang in shown)) for code in codes]
    rows.append(("documents with an error or warning", *(_n(len(documents.get(lang, ()))) for lang in shown)))
    width = max(len(row[0]) for row in rows)
    widths = [max(len(row[i]) for row in rows) for i in range(1, len(shown) + 1)]
    lines = [
        "  ".join([row[0].ljust(width), *(v.rjust(w) for v, w in zip(row[1:], widths, strict=True))]) for row in rows
    ]
    title = "Findings by language and code"
    if result.source_language in shown:
        title += f" ({result.source_language}: the source's own)"
    return "\n".join([title, *(line.rstrip() for line in lines)])


def _name(code: str, result: CheckResult) -> str:
    """A row's code; the notes of what the source changed say when a changed document's were not
    worked out (:attr:`CheckResult.notes`): the count is not all of them."""
    return f"{code} (all: --notes)" if code == Code.STALE_SOURCE and not result.notes else code


def _level_title(level: Level) -> str:
    return {Level.ERROR: "errors", Level.WARNING: "warnings", Level.INFO: "info"}[level]


def _n(count: int) -> str:
    return f"{count:,}" if count else NONE
