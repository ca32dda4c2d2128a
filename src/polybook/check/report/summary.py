"""The Markdown summary of a run, for ``$GITHUB_STEP_SUMMARY``: counts, then the top findings."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from polybook.check.findings import CheckResult, Finding
from polybook.check.report.common import by_importance, inline_diff, languages, plural
from polybook.check.report.text import summary_line
from polybook.diagnostics import Level

#: Findings listed per language; the rest are counted.
LIMIT = 20


def step_summary(result: CheckResult, *, limit: int = LIMIT) -> str:
    langs = languages(result)
    lines = [
        "## polybook check",
        "",
        _markdown(summary_line(result)),
        "",
        "| Translation | Errors | Warnings | Info | Suppressed |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for lang in langs:
        mine = [f for f in result.findings if f.lang == lang]
        counts = [sum(f.level is level and f.suppressed is None for f in mine) for level in Level]
        suppressed = sum(f.suppressed is not None for f in mine)
        lines.append(f"| {lang} | {' | '.join(map(str, counts))} | {suppressed} |")
    for lang in langs:
        active = by_importance(f for f in result.active if f.lang == lang)
        if not active:
            continue
        lines += ["", f"### {lang}", ""]
        lines += [_item(f) for f in active[:limit]]
        if len(active) > limit:
            rest = plural(len(active) - limit, "more finding")
            lines += ["", f"_{rest} in {lang} not listed here: see the code scanning results or the job log._"]
    return "\n".join(lines) + "\n"


def write_step_summary(result: CheckResult, environ: Mapping[str, str] = os.environ) -> Path | None:
    """Append the summary to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions set it; return that path."""
    target = environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    with open(target, "a", encoding="utf-8") as out:
        out.write(step_summary(result))
    return Path(target)


def _item(finding: Finding) -> str:
    """``- **error** `path:line` message `polybook.code` (source `path:line`) `a` → `b```."""
    text = f"- **{finding.level}** `{finding.primary}` {_markdown(finding.message)} `polybook.{finding.code}`"
    if finding.source is not None and finding.source != finding.primary:
        text += f" (source `{finding.source}`)"
    if finding.diff:
        text += f": {inline_diff(finding)}"
    return text


_CODE_SPAN = re.compile(r"(`[^`\n]*`)")
_SPECIAL = re.compile(r"([\\*_\[\]<>|#])")


def _markdown(text: str) -> str:
    """Escape Markdown outside the message's own `code spans`, which render as code."""
    parts = _CODE_SPAN.split(text.replace("\n", " "))
    return "".join(part if i % 2 else _SPECIAL.sub(r"\\\1", part) for i, part in enumerate(parts))
