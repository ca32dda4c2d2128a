"""A document's *shape*: what of it reaches beyond its own page when a language is staged.

Staging a page reads, of the language's other documents, only their shapes -- headings (the
navigation, anchors other languages link to), toc blocks, labels, citations (which page lists a
work), numbered figures and equations, front matter, tabs -- and their code when it is to run. An
edit that leaves a document's shape as it was changes its own page alone: ``polybook serve``
rebuilds it warm (:mod:`polybook.site.warm`), and ``build html`` stages it alone
(:mod:`polybook.render.kept_stage`).
"""

from __future__ import annotations

from typing import Any

from polybook.dialect.nodes import DisplayMath, Document, Figure, Heading, TocBlock
from polybook.stage.bibliography import cited_keys


def shape(doc: Document, code: bool = True) -> tuple[Any, ...]:
    """What of a document reaches beyond its own page's text, or needs its code run: its
    headings (the navigation, other languages' anchors), toc, labels, citations, front matter,
    and with ``code`` its code cells (without evaluation, ``--no-eval``, a code edit is staged with the
    stored results as the full build stages it: a cell whose code changed has none)."""
    return (
        [(h.level, h.text, h.label) for h in doc.walk() if isinstance(h, Heading)],
        [(tuple(n.entries), tuple(sorted(n.options.items()))) for n in doc.walk() if isinstance(n, TocBlock)],
        [(c.info, c.code, c.frameworks, c.attrs) for c in doc.cells()] if code else [],
        sorted(doc.labels),
        cited_keys(doc),  # which page lists a work, and the references page, are the book's
        # numbered things: one more or less renumbers those after it, which other pages cite by number
        [(type(n).__name__, n.label) for n in doc.walk() if isinstance(n, Figure | DisplayMath) and n.label],
        sum(isinstance(n, Figure) for n in doc.walk()),
        doc.front_matter,
        doc.frameworks,
        doc.default_tab,
    )
