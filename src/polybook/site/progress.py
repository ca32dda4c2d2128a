"""How far each translation is from the source, in documents and prose blocks: untranslated,
stale, to review, machine drafts and up to date -- what the translation-status page shows first.

Counted as ``polybook check`` counts them: a ported translation's marks (:func:`marked`, the
check's ``stale.marked`` notes), a document wholly the source's text (``untranslated document``:
never up to date) and, for a translation not ported yet, its migration plan (a document the
source added: all its blocks untranslated; one the source changed: its changed blocks stale, its
added ones untranslated). A document counts once, under the first state it has blocks in.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from polybook.book import Book
from polybook.check.plan import DocumentState, LanguagePlan
from polybook.check.staleness import prose_blocks
from polybook.dialect.marks import MarkKind, document_mark, marked
from polybook.dialect.nodes import Document

#: The states, the first a document is counted under first.
STATES = ("untranslated", "stale", "review", "draft", "current")
_KINDS = {kind: str(kind) for kind in (MarkKind.UNTRANSLATED, MarkKind.STALE, MarkKind.REVIEW, MarkKind.DRAFT)}


@dataclass(slots=True)
class Progress:
    """One language's documents and prose blocks by state."""

    lang: str
    documents: Counter[str] = field(default_factory=Counter)
    blocks: Counter[str] = field(default_factory=Counter)

    def add(self, blocks: Counter[str]) -> None:
        """A document with ``blocks`` by state (none: an empty document, up to date)."""
        self.blocks.update(blocks)
        self.documents[next((state for state in STATES if blocks[state]), "current")] += 1

    def said(self) -> str:
        """One line, as the bench prints it."""
        shown = [state for state in STATES if state != "draft" or self.blocks[state]]
        return "; ".join(
            f"{state}: {self.documents[state]} documents, {self.blocks[state]:,} blocks" for state in shown
        )


def document_blocks(doc: Document) -> Counter[str]:
    """A translated document's prose blocks by state, from its marks."""
    total = len(prose_blocks(doc))
    if document_mark(doc) is not None:
        return Counter(untranslated=total)
    out: Counter[str] = Counter(_KINDS[mark.kind] for mark in marked(doc).values() if mark.kind in _KINDS)
    out["current"] = max(0, total - sum(out.values()))
    return out


def language_progress(book: Book, lang: str, plan: LanguagePlan | None = None) -> Progress:
    """``lang``'s progress: its documents' marks, and what its migration plan (``plan``) says the
    source changed or added since its base."""
    progress = Progress(lang)
    rows = {row.name: row for row in plan.rows} if plan is not None else {}
    docs = book.chapters.get(lang, {})
    for name, doc in docs.items():
        blocks = document_blocks(doc)
        row = rows.get(name)
        if row is not None and row.state in (DocumentState.CHANGED, DocumentState.RENAMED):
            changed, added = row.changes.paragraphs.changed, row.changes.paragraphs.added
            moved = min(blocks["current"], changed + added)  # the plan's blocks are the source's
            blocks["current"] -= moved
            blocks["stale"] += min(changed, moved)
            blocks["untranslated"] += moved - min(changed, moved)
        if row is None or row.state is not DocumentState.GONE:
            progress.add(blocks)
    source = book.chapters.get(book.config.source_language, {})
    for name, doc in source.items():
        row = rows.get(name)
        missing = name not in docs and (row is None or row.state is DocumentState.NEW)
        if missing and not any(r.source_name == name for r in rows.values() if r.state is DocumentState.RENAMED):
            progress.add(Counter(untranslated=len(prose_blocks(doc))))
    return progress


Translate = Callable[..., str]


def progress_table(progress: dict[str, Progress], lang: str, t: Translate, names: dict[str, str]) -> str:
    """Every translation's progress: a row per language, documents then blocks by state (drafts
    only when some language has any); ``data-progress`` cells for scripts and tests."""
    states = [state for state in STATES if state != "draft" or any(p.blocks["draft"] for p in progress.values())]
    head = "".join(f"<th>{t('progress_' + state)}</th>" for state in states)
    out = [
        f'<h2 id="progress">{t("progress_title")}</h2>',
        f'<table class="table polybook-status-progress"><thead><tr><th rowspan="2">{t("status_language")}</th>'
        f'<th colspan="{len(states)}">{t("progress_documents")}</th>'
        f'<th colspan="{len(states)}">{t("progress_blocks")}</th></tr><tr>{head}{head}</tr></thead><tbody>',
    ]
    for other, mine in progress.items():
        current = ' class="current"' if other == lang else ""
        cells = [_cell(mine.documents[state], state, "documents") for state in states]
        cells += [_cell(mine.blocks[state], state, "blocks") for state in states]
        out.append(
            f'<tr data-progress-lang="{other}"{current}><td>{html.escape(names[other])}</td>{"".join(cells)}</tr>'
        )
    out.append("</tbody></table>")
    return "\n".join(out)


def _cell(n: int, state: str, unit: str) -> str:
    css = "n zero" if n == 0 else f"n {'ok' if state == 'current' else 'behind'}"
    return f'<td class="{css}" data-progress="{unit}-{state}">{n:,}</td>'
