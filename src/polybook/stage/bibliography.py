"""Where a language's cited works are listed, the d2l way, for the HTML and the PDF stage.

A book with a references page (a document with ``:bibliography:`../d2l.bib```, d2l's
``chapter_references/zreferences``) lists there every work it cites, once; citations on
every page link to it. A book without one lists each cited work at the end of the first
page (in book order) that cites it, so no work is listed twice (sphinxcontrib-bibtex
warns of "duplicate citation" and "duplicate label" otherwise, and a reader finds two
entries). A citation whose key cannot be a BibTeX key (``Van- Gool``) is shown as written:
the parser reported it, and sphinxcontrib-bibtex would stop the whole build on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.markdown import CITE_ROLES, bad_citations
from polybook.dialect.nodes import Bibliography, Document
from polybook.stage.i18n import text
from polybook.stage.myst import CiteHandler


def cited_keys(doc: Document) -> list[str]:
    """The BibTeX keys a document cites, in order, each once (malformed ones left out)."""
    keys: dict[str, None] = {}
    for node in doc.walk():
        for inline in getattr(node, "inlines", []):
            if inline.kind == "role" and inline.name in CITE_ROLES and not bad_citations(inline.value):
                keys.update((key.strip(), None) for key in inline.value.split(","))
    return list(keys)


@dataclass(slots=True)
class BibliographyPlan:
    """Which page lists which works, for one language (and one framework, for a PDF)."""

    language: str
    bibfiles: list[Path]
    references_pages: list[str] = field(default_factory=list)  # documents with a Bibliography node
    listed_on: dict[str, list[str]] = field(default_factory=dict)  # page -> keys listed at its end
    style: str | None = None  # the directive's :style: where the page lists its own (None: conf.py's)

    @classmethod
    def make(cls, lang: str, docs: dict[str, Document], bibfiles: list[Path], style: Any) -> BibliographyPlan:
        """``style``: conf.py's ``bibtex_default_style`` (None when unset)."""
        plan = cls(lang, bibfiles)
        plan.references_pages = [
            name for name, doc in docs.items() if any(isinstance(n, Bibliography) for n in doc.walk())
        ]
        if plan.references_pages or not bibfiles:
            return plan
        # Numbered labels restart in every list ("duplicate label"): per-page lists use alpha
        # labels (GBC16) unless the book chose a style.
        plan.style = None if style else "alpha"
        seen: set[str] = set()
        for name, doc in docs.items():
            mine = [key for key in cited_keys(doc) if key.lower() not in seen]
            seen.update(key.lower() for key in mine)
            if mine:
                plan.listed_on[name] = mine
        return plan

    def references(self) -> list[str] | None:
        """MyST of a Bibliography node: every work the book cites (None without a .bib)."""
        return ["```{bibliography}", "```", ""] if self.bibfiles else None

    def page_end(self, name: str) -> list[str]:
        """MyST appended to page ``name``: its references, when it lists some."""
        keys = self.listed_on.get(name)
        if not keys:
            return []
        wanted = ", ".join(json.dumps(key.lower()) for key in keys)
        lines = ["", f"```{{rubric}} {text(self.language, 'references')}", "```", "", "```{bibliography}"]
        if self.style:
            lines.append(f":style: {self.style}")
        return [*lines, f":filter: key in {{{wanted}}}", "```"]

    def cite_handler(self, doc: Document, diagnostics: list[Diagnostic], code: Code) -> CiteHandler:
        """The stage's ``cite``: the MyST role when the language has a .bib, else the keys as
        text and a warning (``code``); a malformed target as text (the parser reported it)."""

        def cite(role: str, keys: str, line: int) -> str | None:
            if bad_citations(keys):
                return f"\\[{keys}\\]"
            if self.bibfiles:
                return None
            message = f":{role}:`{keys}` but no bibliography: set polybook.bibfile (or bibtex_bibfiles) in conf.py"
            diagnostics.append(Diagnostic.make(doc.path, line, code, message))
            return f"\\[{keys}\\]"

        return cite
