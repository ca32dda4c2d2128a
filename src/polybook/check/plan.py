"""A migration plan: how far a translation is behind the source, document by document.

The second of the two questions ``polybook check`` answers apart (the first, whether the
translation is faithful to its base, is its findings). Each translated document's row says
whether the source renamed, dropped or changed it since the translation's base, or added a
document the translation lacks, with the blocks changed and the words left to translate. The
rows travel as ``stale.plan`` notes (one per document, :attr:`Finding.plan`), so JSON, SARIF and
GitHub show them at note level and kept findings keep them; :func:`language_plans` puts them
together for the terminal's table and the translation-status page. Computed in
:mod:`.migration`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class DocumentState(StrEnum):
    RENAMED = "renamed"  # the source moved it (a new name; found by the labels both share)
    NEW = "new"  # in the source, not in the translation
    GONE = "gone"  # in the translation, no longer in the source
    CHANGED = "changed"  # the source changed it since the base
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class Counts:
    """Blocks of one kind between the base and the source today."""

    unchanged: int = 0
    changed: int = 0
    added: int = 0
    removed: int = 0

    @property
    def touched(self) -> int:
        return self.changed + self.added + self.removed

    def said(self, one: str, many: str) -> str:
        kinds = ((self.changed, "changed"), (self.added, "added"), (self.removed, "removed"))
        parts = [f"{n} {what}" for n, what in kinds if n]
        return f"{many if self.touched != 1 else one}: " + ", ".join(parts) if parts else ""

    def short(self) -> str:
        """``~3 +1 -2`` as the table shows it."""
        parts = [f"{sign}{n}" for sign, n in (("~", self.changed), ("+", self.added), ("-", self.removed)) if n]
        return " ".join(parts) or "-"

    def to_json(self) -> dict[str, int]:
        return {"unchanged": self.unchanged, "changed": self.changed, "added": self.added, "removed": self.removed}


@dataclass(frozen=True, slots=True)
class Changes:
    """What the source changed in one document since a base: paragraphs (prose: paragraphs,
    headings, lists, tables), code cells and display formulas, and the words of the source's
    changed and added prose (what is left to translate)."""

    paragraphs: Counts = Counts()
    cells: Counts = Counts()
    formulas: Counts = Counts()
    words: int = 0

    @property
    def any(self) -> bool:
        return bool(self.paragraphs.touched or self.cells.touched or self.formulas.touched)

    def said(self) -> str:
        parts = [
            self.paragraphs.said("paragraph", "paragraphs"),
            self.cells.said("code cell", "code cells"),
            self.formulas.said("formula", "formulas"),
        ]
        return "; ".join(p for p in parts if p)

    def to_json(self) -> dict[str, Any]:
        return {
            "paragraphs": self.paragraphs.to_json(),
            "cells": self.cells.to_json(),
            "formulas": self.formulas.to_json(),
            "words": self.words,
        }


@dataclass(frozen=True, slots=True)
class DocumentPlan:
    """One row of a language's plan. ``chapter``: the translation's document name (for a NEW
    row, the source's); ``source_chapter``: the source's name today (None when GONE);
    ``base``: how the base is named (``0.17.6``, ``parameters_origin.md``); ``labels``: the
    document's labels (the translation's, or the source's for a NEW row), for finding renames."""

    state: DocumentState
    name: str
    source_name: str | None
    base: str
    base_kind: str = ""  # :class:`polybook.check.bases.BaseKind`'s value
    changes: Changes = Changes()
    labels: frozenset[str] = field(default_factory=frozenset)
    base_file: str | None = None  # the base's file, when there is one (for a rename's changes)
    shared: tuple[str, ...] = ()  # RENAMED: the labels that tell it

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "state": str(self.state),
            "chapter": self.name,
            "source_chapter": self.source_name,
            "base": self.base,
            **self.changes.to_json(),
        }
        if self.shared:
            out["shared_labels"] = list(self.shared)
        return out


@dataclass(slots=True)
class LanguagePlan:
    """Every row of one language, and what the language follows."""

    lang: str
    follows: str  # "0.17.6 (editions/en-0.17.6); documents: 120 against the edition, ..."
    rows: list[DocumentPlan] = field(default_factory=list)

    def count(self, state: DocumentState) -> int:
        return sum(1 for row in self.rows if row.state is state)

    @property
    def words(self) -> int:
        return sum(row.changes.words for row in self.rows)

    @property
    def behind(self) -> bool:
        return any(row.state is not DocumentState.UNCHANGED for row in self.rows)

    def paragraphs(self) -> Counts:
        total = [0, 0, 0, 0]
        for row in self.rows:
            if row.state is not DocumentState.NEW:
                c = row.changes.paragraphs
                for i, n in enumerate((c.unchanged, c.changed, c.added, c.removed)):
                    total[i] += n
        return Counts(*total)

    def summary(self) -> str:
        behind = [state for state in DocumentState if state is not DocumentState.UNCHANGED and self.count(state)]
        states = ", ".join(f"{self.count(state)} {state}" for state in behind)
        p = self.paragraphs()
        base_paragraphs = p.unchanged + p.changed + p.removed
        return (
            f"{self.lang}: {states or 'up to date'}; "
            f"{p.unchanged:,} of {base_paragraphs:,} paragraphs unchanged; {self.words:,} words to translate"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "lang": self.lang,
            "follows": self.follows,
            "documents": {str(state): self.count(state) for state in DocumentState},
            "words": self.words,
            "rows": [row.to_json() for row in self.rows if row.state is not DocumentState.UNCHANGED],
        }


_ORDER = list(DocumentState)


def language_plans(
    languages: list[str], follows: dict[str, str], rows: list[tuple[str, DocumentPlan]]
) -> dict[str, LanguagePlan]:
    """One plan per language, its rows by state (renamed, new, gone, changed...) then name."""
    plans = {lang: LanguagePlan(lang, follows.get(lang, "the source")) for lang in languages}
    for lang, row in rows:
        if lang in plans:
            plans[lang].rows.append(row)
    for plan in plans.values():
        plan.rows.sort(key=lambda row: (_ORDER.index(row.state), row.name))
    return plans
