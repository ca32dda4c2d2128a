"""The default report, read from the top: a table of every language's findings by code
(:mod:`.overview`), then each language's findings grouped by document -- the documents with an
error first, errors first in each -- then the migration plans and the summary line.

The migration plan's notes -- a paragraph, cell or formula the source changed since a
translation's base (``stale.source``), a document's row (``stale.plan``) -- of a language that is
behind the source are summed up in its plan's table, not listed one by one: the 0.17
translations against the 1.0 source have 14,000 of them, which buried the errors and warnings
among 68,000 lines. ``notes=True`` (``polybook check --notes``) lists them; JSON and SARIF always do.
Without ``--notes`` the check does not even work out the notes of a document the source changed
(its plan's row sums it up: :attr:`CheckResult.notes`), and the report says so.
What is counted but not listed (those notes, what ``--top`` leaves out) is said above the summary
line with the option that lists it, so the totals never silently disagree with the listing."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from polybook.check.findings import CheckResult, Finding
from polybook.check.report.common import MAX_DIFF, languages, one_line, plural
from polybook.check.report.overview import overview
from polybook.check.report.plan_table import render_plans
from polybook.diagnostics import RANK, Code, Level

RESET, BOLD = "\x1b[0m", "\x1b[1m"
RED, GREEN, YELLOW, BLUE = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[34m"
LEVEL_COLOR = {Level.ERROR: RED, Level.WARNING: YELLOW, Level.INFO: BLUE}


_PLAN_NOTES = (Code.STALE_SOURCE, Code.STALE_PLAN)  # what a plan's table sums up


def render(result: CheckResult, *, color: bool = False, notes: bool = False, top: int | None = None) -> str:
    """The table; each language's errors and warnings by document, then each language's info
    (but the notes a plan's table sums up, unless ``notes``; at most ``top`` findings a language,
    errors first); each language's migration plan (when it is behind the source); what each
    language is checked against; what is counted but not listed; the summary line."""
    active = result.active
    if not active:
        return summary_line(result)
    plans = result.plans()  # (made from every finding: once)
    behind = {lang for lang, plan in plans.items() if plan.behind}
    langs = languages(result)
    listed = [f for f in active if notes or not (f.code in _PLAN_NOTES and f.lang in behind)]
    faults, infos, left_out = [], [], 0
    for lang in langs:
        mine = [f for f in listed if f.lang == lang]
        problems = by_document([f for f in mine if f.level is not Level.INFO])
        info = by_document([f for f in mine if f.level is Level.INFO])
        shown = [*problems, *info][:top]
        left_out += len(mine) - len(shown)
        name = f"{lang} (the source's own)" if lang == result.source_language else lang
        faults += [section(name, shown[: len(problems)], problems, color)] if problems else []
        infos += [section(name, shown[len(problems) :], info, color)] if len(shown) > len(problems) else []
    tables = render_plans(plans.values(), top)
    follows = [f"{lang} follows {what}" for lang, what in result.follows.items() if lang in behind]
    unlisted = _unlisted(len(active) - len(listed), left_out, top, result.notes)
    parts = [overview(result, active, langs), *faults, *infos, *([tables] if tables else [])]
    return "\n\n".join(parts) + "\n\n" + "\n".join([*follows, *unlisted, summary_line(result)])


def by_document(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` in the order they are read: the documents with an error first, then those with
    a warning, then the rest; the translation's own before the source's files it is told at (a
    chapter not translated yet), each group by path; in a document, errors first, each level by line."""
    worst: dict[str, int] = {}
    elsewhere: dict[str, bool] = {}
    for f in findings:
        path = f.primary.path
        worst[path] = max(worst.get(path, 0), RANK[f.level])
        elsewhere[path] = elsewhere.get(path, True) and f.location is None

    def key(f: Finding) -> tuple[int, bool, str, int, int, str]:
        path, line, code = f.order
        return -worst[path], elsewhere[path], path, -RANK[f.level], line, code

    return sorted(findings, key=key)


def section(name: str, shown: Sequence[Finding], counted: Sequence[Finding], color: bool) -> str:
    """A heading that counts ``counted`` (a language's errors and warnings, or its info), then
    ``shown`` (the first of them), a block a finding, under a line a document with its counts."""
    documents: dict[str, list[Finding]] = {}
    for f in counted:
        documents.setdefault(f.primary.path, []).append(f)
    head = f"{name}: {_counts(counted)} in {plural(len(documents), 'document')}"
    if len(shown) < len(counted):
        head += f"; the first {len(shown):,} listed"
    lines = [_paint(head, color, BOLD)]
    for path, group in groupby(shown, key=lambda f: f.primary.path):  # (by_document: a path's are together)
        lines += ["", f"{path} ({_counts(documents[path])})"]
        lines += [block(f, color=color) for f in group]
    return "\n".join(lines)


def _counts(findings: Sequence[Finding]) -> str:
    n = {level: sum(f.level is level for f in findings) for level in Level}
    said = [plural(n[Level.ERROR], "error"), plural(n[Level.WARNING], "warning"), f"{n[Level.INFO]:,} info"]
    return ", ".join(word for word, level in zip(said, Level, strict=True) if n[level])


def _unlisted(folded: int, left_out: int, top: int | None, worked_out: bool = True) -> list[str]:
    """What the totals count that the report does not list, and how to list it (``worked_out``:
    whether the check worked out a note for each change the source made, :attr:`CheckResult.notes`)."""
    lines = []
    if folded and not worked_out:
        lines.append(
            f"what the source changed since the translations' bases is summed up in the plans above ({folded:,} "
            f"{'row or note' if folded == 1 else 'rows and notes'}): --notes works out and lists a note for each "
            "change (JSON and SARIF always do)"
        )
    elif folded:
        lines.append(
            f"{folded:,} {'note' if folded == 1 else 'notes'} of what the source changed since the translations' bases "
            "are summed up in the plans above: --notes lists them (JSON and SARIF always do)"
        )
    if left_out:
        lines.append(
            f"{left_out:,} more {'finding is' if left_out == 1 else 'findings are'} past --top {top} "
            "a language: a larger --top, --code or --lang lists them"
        )
    return lines


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
        if i == 0:  # name the two sides once, lined up (not when one is empty: a blank line as long as the other)
            width = max(len(translation), len(source)) if translation and source else 0
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
