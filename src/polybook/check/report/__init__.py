"""Reporters of ``polybook check``: one module per output format, one entry point.

Every reporter gets the whole :class:`CheckResult`, suppressed findings included, and decides
how to show them: never as problems (text counts them, json and sarif carry the reason, github
leaves them out, junit skips them). ``render`` returns the report without a trailing newline.
"""

from __future__ import annotations

from polybook.check.findings import CheckResult
from polybook.check.report import github, json_report, junit, sarif, text
from polybook.check.report.summary import step_summary, write_step_summary

FORMATS = ("text", "json", "sarif", "github", "junit")

__all__ = ["FORMATS", "render", "step_summary", "write_step_summary"]


def render(result: CheckResult, fmt: str, *, color: bool = False, notes: bool = False, top: int | None = None) -> str:
    """The report of ``result`` in format ``fmt`` (one of :data:`FORMATS`); ``color``, ``notes``
    (list every note of the migration plans) and ``top`` (list at most so many findings a
    language) are for text only."""
    if fmt == "text":
        return text.render(result, color=color, notes=notes, top=top)
    renderers = {"json": json_report.render, "sarif": sarif.render, "github": github.render, "junit": junit.render}
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderers[fmt](result)
