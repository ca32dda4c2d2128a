"""Where the language switch takes a page: its counterpart in the other language.

A page of the same name is its counterpart. A translation may keep the names of an older edition
of the source (d2l-ja keeps 0.17's ``chapter_deep-learning-computation/parameters`` where the
source, 1.0, has ``chapter_builders-guide/parameters``): the pages share their ``:label:``s, so
the counterpart is the other language's page sharing the most labels with it, among the pages
the first language has no page of that name for, or else the page with its file name (d2l-ja's
unlabelled ``parameters``). A page with no counterpart in a language
(nor a page of its name in the source language, which the switch shows with a notice) goes to
the nearest part of the book that language has: its toc parent, or that one's, up to the front
page, with a notice.

What it needs of every language -- each page's labels and toc parent (:class:`LanguagePages`)
-- is kept in the language's stamp, so a build that parses only the languages that changed
still knows the others'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from polybook.dialect import Document
from polybook.toc import Toc

ROOT = "index"


@dataclass(frozen=True, slots=True)
class Counterpart:
    """The page a language switch goes to in another language."""

    page: str  # the other language's document
    nearest: bool = False  # the nearest part of the book it has, the page itself it has not

    def to_json(self) -> list[Any]:
        return [self.page, self.nearest]

    @classmethod
    def from_json(cls, data: list[Any]) -> Counterpart:
        return cls(str(data[0]), bool(data[1]))


#: language -> its document -> another language -> where the switch goes, for the pages that
#: language has no page of the same name for.
Switch = dict[str, dict[str, dict[str, Counterpart]]]


@dataclass(frozen=True, slots=True)
class LanguagePages:
    """A language's documents as the switch sees them: each one's labels and toc parent."""

    labels: dict[str, tuple[str, ...]]  # every document, with its labels
    parents: dict[str, str]  # document -> its toc parent

    @classmethod
    def of(cls, docs: Mapping[str, Document], toc: Toc | None) -> LanguagePages:
        labels = {name: tuple(sorted(doc.labels)) for name, doc in docs.items()}
        parents = {child: parent for child, parent in (toc.parents if toc else {}).items() if child in labels}
        return cls(labels, parents)

    def to_json(self) -> dict[str, Any]:
        return {"labels": {name: list(found) for name, found in self.labels.items()}, "parents": self.parents}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LanguagePages | None:
        if not isinstance(data, dict) or "labels" not in data:
            return None
        labels = {str(name): tuple(found) for name, found in data["labels"].items()}
        return cls(labels, {str(child): str(parent) for child, parent in data.get("parents", {}).items()})


def switch_targets(pages: Mapping[str, LanguagePages], source: str) -> Switch:
    """Where every page of every language switches to in each other language it has no page of
    its name in (the source's page of that name aside: the switch shows it with a notice)."""
    switch: Switch = {}
    for lang, mine in pages.items():
        for other, theirs in pages.items():
            if other == lang:
                continue
            found = _counterparts(mine, theirs)
            for name in mine.labels:
                if name in theirs.labels:
                    continue
                if name in found:
                    target = Counterpart(found[name])
                elif source in pages and name in pages[source].labels and other != source:
                    continue  # the source's page, with a notice (polybook.render.sphinx_ext)
                else:
                    target = Counterpart(_nearest(name, mine, theirs, found), nearest=True)
                switch.setdefault(lang, {}).setdefault(name, {})[other] = target
    return switch


def _counterparts(mine: LanguagePages, theirs: LanguagePages) -> dict[str, str]:
    """Each of ``mine``'s pages ``theirs`` has no page of its name for -> its page in ``theirs``,
    among those ``mine`` has no page of that name for: paired as the checker pairs a document
    the source renamed (:func:`polybook.check.migration.pair_renames`), by the labels they share,
    the most first, then by a file name only one page of each has."""
    from polybook.check.migration import pair_renames  # the checker, loaded once a build needs it

    gone = {name: frozenset(labels) for name, labels in mine.labels.items() if name not in theirs.labels}
    new = {name: frozenset(labels) for name, labels in theirs.labels.items() if name not in mine.labels}
    return pair_renames(gone, new)


def _nearest(name: str, mine: LanguagePages, theirs: LanguagePages, found: dict[str, str]) -> str:
    """The nearest toc parent of ``name`` that ``theirs`` has (by name or counterpart); its front page."""
    seen = {name}
    parent = mine.parents.get(name)
    while parent is not None and parent not in seen:
        if parent in theirs.labels:
            return parent
        if parent in found:
            return found[parent]
        seen.add(parent)
        parent = mine.parents.get(parent)
    return ROOT


def language_switch(switch: Switch, lang: str) -> dict[str, dict[str, list[Any]]]:
    """``lang``'s part of ``switch``, as JSON (what its pages and its stamp hold)."""
    return {
        name: {other: target.to_json() for other, target in targets.items()}
        for name, targets in sorted(switch.get(lang, {}).items())
    }


def switch_from_json(data: dict[str, Any]) -> dict[str, dict[str, Counterpart]]:
    return {
        name: {other: Counterpart.from_json(target) for other, target in targets.items()}
        for name, targets in data.items()
    }
