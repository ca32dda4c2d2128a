"""``--format json``: every finding, suppressed ones included, for scripts and dashboards."""

from __future__ import annotations

from typing import Any

from polybook.check.findings import CheckResult
from polybook.check.report.common import json_listing, ordered
from polybook.diagnostics import Level

#: Bumped when a key changes meaning or disappears; new keys may appear at any time.
VERSION = 1


def render(result: CheckResult) -> str:
    found = document(result, with_findings=False)
    return json_listing(found, found["findings"], [f.to_dict() for f in ordered(result.findings)])


def document(result: CheckResult, with_findings: bool = True) -> dict[str, Any]:
    return {
        "version": VERSION,
        "tool": "polybook",
        "source_language": result.source_language,
        "languages": list(result.languages),
        "chapters": result.chapters,
        "seconds": round(result.seconds, 3),
        "summary": {
            **{str(level): result.count(level) for level in Level},
            "suppressed": len(result.findings) - len(result.active),
        },
        "follows": dict(result.follows),
        "migration": {lang: plan.to_json() for lang, plan in result.plans().items() if plan.behind},
        "findings": [f.to_dict() for f in ordered(result.findings)] if with_findings else [],
    }
