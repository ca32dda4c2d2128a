"""``--format github``: workflow commands that GitHub Actions turns into annotations.

GitHub shows at most 10 error, 10 warning and 10 notice annotations per step and drops the
rest silently, so this emits the 10 most important of each level and then says how many were
left out. The full list belongs in the step summary and the SARIF upload.
"""

from __future__ import annotations

from polybook.check.findings import CheckResult, Finding
from polybook.check.report.common import by_importance, inline_diff
from polybook.check.report.text import summary_line
from polybook.diagnostics import Level

COMMAND = {Level.ERROR: "error", Level.WARNING: "warning", Level.INFO: "notice"}
#: Annotations GitHub shows per level and step.
LIMIT = 10


def render(result: CheckResult) -> str:
    findings = by_importance(result.active)
    per_level = {level: [f for f in findings if f.level is level] for level in Level}
    left_out = sum(max(0, len(fs) - LIMIT) for fs in per_level.values())
    if left_out and len(per_level[Level.INFO]) >= LIMIT:
        left_out += 1  # the notice about the rest takes the last notice slot
    limit = {level: LIMIT - 1 if level is Level.INFO and left_out else LIMIT for level in Level}
    lines = [annotation(f) for level in Level for f in per_level[level][: limit[level]]]
    if left_out:
        rest = f"{left_out} more finding is" if left_out == 1 else f"{left_out} more findings are"
        lines.append(
            f"::notice title=polybook::{rest} not annotated (GitHub shows 10 per level): "
            "see the step summary or the code scanning results"
        )
    lines.append(summary_line(result))  # plain text, for whoever reads the log
    return "\n".join(lines)


def annotation(finding: Finding) -> str:
    """``::error file=PATH,line=N,title=polybook.CODE::message (source: path:line) `a` → `b```."""
    where = finding.primary
    props = f"file={escape_property(where.path)},line={where.line},title={escape_property(f'polybook.{finding.code}')}"
    message = finding.message
    if finding.source is not None and finding.source != where:
        message += f" (source: {finding.source})"
    if finding.diff:
        message += f" {inline_diff(finding)}"
    return f"::{COMMAND[finding.level]} {props}::{escape_data(message)}"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
