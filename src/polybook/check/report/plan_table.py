"""The migration plan as the terminal shows it: one table per language that is behind the
source, a row per document to work on, then the language's totals."""

from __future__ import annotations

from collections.abc import Iterable

from polybook.check.plan import DocumentPlan, DocumentState, LanguagePlan

HEADER = ("state", "document", "paragraphs", "cells", "formulas", "words")


def render_plans(plans: Iterable[LanguagePlan], top: int | None = None) -> str:
    """The tables of the plans of languages behind the source (an empty string when none is);
    ``top``: the first rows of each (``polybook check --top``), and how many more there are."""
    return "\n\n".join(table(plan, top) for plan in plans if plan.behind)


#: The terminal's order of :data:`HEADER`'s columns: the document last, unpadded (a rename's
#: ``old -> new`` is some 140 characters; in the second column it padded every row of the table).
_TERMINAL = (0, 2, 3, 4, 5, 1)
_NUMERIC = {2, 3, 4, 5}


def table(plan: LanguagePlan, top: int | None = None) -> str:
    changed = [row for row in plan.rows if row.state is not DocumentState.UNCHANGED]
    shown = changed[:top]
    rows = [HEADER, *(_cells(row) for row in shown)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines = [f"Migration plan for {plan.lang} (behind the source; `polybook port {plan.lang}` carries it forward)"]
    for row in rows:
        cells = [row[i].rjust(widths[i]) if i in _NUMERIC else row[i].ljust(widths[i]) for i in _TERMINAL]
        lines.append("  " + "  ".join(cells).rstrip())
    if len(shown) < len(changed):
        lines.append(f"  … {len(changed) - len(shown):,} more documents past --top {top} (without it: every one)")
    lines.append("  " + plan.summary())
    return "\n".join(lines)


def document_name(row: DocumentPlan) -> str:
    """The document as the plan names it: ``old -> new`` for a rename."""
    if row.state is DocumentState.RENAMED:
        return f"{row.name} -> {row.source_name}"
    return row.name


def _cells(row: DocumentPlan) -> tuple[str, ...]:
    changes = row.changes
    return (
        str(row.state),
        document_name(row),
        changes.paragraphs.short(),
        changes.cells.short(),
        changes.formulas.short(),
        f"{changes.words:,}",
    )
