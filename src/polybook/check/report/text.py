"""The default report: one compiler-style block per finding, then a summary line.

The migration plan's notes -- a paragraph, cell or formula the source changed since a
translation's base (``stale.source``), a document's row (``stale.plan``) -- of a language that is
behind the source are summed up in its plan's table, not listed one by one: the 0.17
translations against the 1.0 source have 14,000 of them, which buried the errors and warnings
among 68,000 lines. ``notes=True`` (``polybook check --notes``) lists them; JSON and SARIF always do."""

from __future__ import annotations

from polybook.check.findings import CheckResult, Finding
from polybook.check.report.common import MAX_DIFF, languages, one_line, ordered, plural
from polybook.check.report.plan_table import render_plans
from polybook.diagnostics import Code, Level

RESET, BOLD = "\x1b[0m", "\x1b[1m"
RED, GREEN, YELLOW, BLUE = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[34m"
LEVEL_COLOR = {Level.ERROR: RED, Level.WARNING: YELLOW, Level.INFO: BLUE}


_PLAN_NOTES = (Code.STALE_SOURCE, Code.STALE_PLAN)  # what a plan's table sums up


def render(result: CheckResult, *, color: bool = False, notes: bool = False) -> str:
    """Every finding (but the notes a plan's table sums up, unless ``notes``), then each
    language's migration plan (when it is behind the source), what each language is checked
    against, and the summary line."""
    plans = result.plans()  # (made from every finding: once)
    behind = {lang for lang, plan in plans.items() if plan.behind}
    active = result.active
    if not notes and behind:  # (left out before the rest is sorted: most of a book's findings)
        shown = ordered(f for f in active if not (f.code in _PLAN_NOTES and f.lang in behind))
    else:
        shown = ordered(active)
    folded = len(active) - len(shown)
    blocks = [block(f, color=color) for f in shown]
    tables = render_plans(plans.values())
    follows = [f"{lang} follows {what}" for lang, what in result.follows.items() if lang in behind]
    if folded:
        follows.append(
            f"{folded:,} {'note' if folded == 1 else 'notes'} of what the source changed since the translations' bases "
            "are summed up in the plans above: --notes lists them (JSON and SARIF always do)"
        )
    return "\n".join([*blocks, *([tables, ""] if tables else []), *follows, summary_line(result)])


def block(finding: Finding, *, color: bool = False) -> str:
    """``finding.format()``, the source location when it is elsewhere, then the diff."""
    head = finding.format()
    if color:  # only the level word, as compilers do
        level = str(finding.level)
        head = head.replace(f": {level}: ", f": {_paint(level, color, BOLD, LEVEL_COLOR[finding.level])}: ", 1)
    lines = [head]
    if finding.source is not None and finding.source != finding.primary:
        lines.append(f"  source: {finding.source}")
    for i, (translation, source) in enumerate(finding.diff[:MAX_DIFF]):
        translation, source = one_line(translation), one_line(source)
        if i == 0:  # name the two sides once
            width = max(len(translation), len(source))
            left, right = finding.sides
            translation, source = f"{translation:<{width}}  <- {left}", f"{source:<{width}}  <- {right}"
        lines += [_paint(f"  - {translation}", color, RED), _paint(f"  + {source}", color, GREEN)]
    if len(finding.diff) > MAX_DIFF:
        lines.append(f"  … {len(finding.diff) - MAX_DIFF} more")
    return "\n".join(lines)


def summary_line(result: CheckResult) -> str:
    """``2 errors, 1 warning, 0 info in 4 translations of 1 chapter (1 suppressed) — 0.42 s``."""
    n_langs = len([lang for lang in languages(result) if lang != result.source_language])  # its own findings aside
    scope = f"{plural(n_langs, 'translation')} of {plural(result.chapters, 'chapter')}"
    suppressed = len(result.findings) - len(result.active)
    tail = (f" ({suppressed} suppressed)" if suppressed else "") + f" — {result.seconds:.2f} s"
    if not result.active:
        verb = "is" if n_langs == 1 else "are"
        return f"No findings: {scope} {verb} consistent with {result.source_language}{tail}"
    counts = [
        plural(result.count(Level.ERROR), "error"),
        plural(result.count(Level.WARNING), "warning"),
        f"{result.count(Level.INFO)} info",
    ]
    return f"{', '.join(counts)} in {scope}{tail}"


def _paint(text: str, color: bool, *codes: str) -> str:
    return "".join(codes) + text + RESET if color else text
