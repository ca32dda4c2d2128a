"""Cross references of one language, as links to its published pages: ``:numref:``, ``:ref:``,
``:eqref:`` name a label somewhere in the language's book; a notebook cannot resolve them, so each
becomes a Markdown link to the page and anchor, with the text the page shows ("Fig. 2.1",
"Section 3.2", "(4.1)", a section's title).

Numbers are the site's: Sphinx numbers a labelled figure, table and equation per top-level
chapter (``numfig_secnum_depth`` 1: "Fig. 2.3" is the third of chapter 2, whatever section of it
holds it), in toc order, and documents as the toc numbers them (only below ``:numbered:``
blocks, :mod:`polybook.toc`); a section of a numbered document gets its number below the
document's. The words ("Fig. %s") are Sphinx's own, in the language's translation, or
``numfig_format`` of conf.py. Anchors: a label is an id on its page as written.
"""

from __future__ import annotations

import gettext
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from polybook.config import BookConfig
from polybook.dialect.nodes import Block, DisplayMath, Document, Figure, Heading
from polybook.stage.documents import headings
from polybook.stage.i18n import SPHINX_LANGUAGE
from polybook.toc import Toc

#: Sphinx's default ``numfig_format`` (its words are translated from its own catalog).
NUMFIG_DEFAULTS = {"section": "Section %s", "figure": "Fig. %s", "table": "Table %s"}
_MARKUP_RE = re.compile(r"[*_`]|\$[^$]*\$")


@dataclass(frozen=True, slots=True)
class Target:
    """Where a label is: its page, and what the page shows for a reference to it."""

    document: str
    kind: str  # heading, figure, table, equation
    number: str | None  # "2.1"; None when the page gives it none
    title: str  # a section's title, a figure's or table's caption


def numfig_words(config: BookConfig, lang: str) -> dict[str, str]:
    """``numfig_format`` as the language's pages use it: conf.py's, else Sphinx's, translated."""
    import sphinx

    catalog = gettext.translation(
        "sphinx",
        localedir=str(Path(sphinx.__file__).parent / "locale"),
        languages=[SPHINX_LANGUAGE.get(lang, lang)],
        fallback=True,
    )
    own = config.sphinx.get("numfig_format") or {}
    return {kind: str(own.get(kind) or catalog.gettext(words)) for kind, words in NUMFIG_DEFAULTS.items()}


@dataclass(slots=True)
class LabelIndex:
    """Every label of one language's documents, with its number and its page."""

    language: str
    words: dict[str, str]
    targets: dict[str, Target] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)  # document -> its title (first heading)

    @classmethod
    def make(cls, lang: str, docs: dict[str, Document], toc: Toc | None, words: dict[str, str]) -> LabelIndex:
        index = cls(lang, words)
        counters: dict[tuple[str, str], int] = {}  # (kind, chapter number or "") -> last number
        order = [name for name in (toc.order if toc else []) if name in docs]
        reached = {*order[:1], *(toc.parents if toc else ())}  # what Sphinx's toctree reaches
        order += [name for name in docs if name not in reached]
        for name in order:
            number = toc.numbers.get(name) if toc else None
            index._document(name, docs[name], number, counters if name in reached else None)
        return index

    def _document(
        self, name: str, doc: Document, number: str | None, counters: dict[tuple[str, str], int] | None
    ) -> None:
        sections = headings(doc)
        if sections:
            self.titles[name] = plain(sections[0].text)
        for heading, section in zip(sections, section_numbers(sections, number), strict=True):
            if heading.label:
                self.targets.setdefault(heading.label, Target(name, "heading", section, plain(heading.text)))
        chapter = number.split(".")[0] if number else ""
        for node in doc.walk():  # text tabs too: the page holds every framework's
            kind, caption = _numbered(node)
            label = getattr(node, "label", None)
            if kind is None or not label:
                continue
            count = None
            if counters is not None:  # Sphinx numbers what its toctree reaches
                counters[(kind, chapter)] = counters.get((kind, chapter), 0) + 1
                count = f"{chapter}.{counters[(kind, chapter)]}" if chapter else str(counters[(kind, chapter)])
            self.targets.setdefault(label, Target(name, kind, count, plain(caption)))

    def text(self, role: str, target: Target, label: str) -> str:
        """What the page shows for ``:role:`label``` (``role``: numref, ref, eqref)."""
        if role == "eqref":
            return f"({target.number})" if target.number else f"({label})"
        if role == "numref" and target.number:
            words = self.words.get("section" if target.kind == "heading" else target.kind, "%s")
            return words.replace("%s", target.number) if "%s" in words else f"{words} {target.number}"
        return target.title or label


def _numbered(node: object) -> tuple[str | None, str]:
    """The numfig kind of a node Sphinx numbers when it has a label, and its caption."""
    if isinstance(node, Figure):
        return "figure", node.caption
    if isinstance(node, DisplayMath):
        return "equation", ""
    if isinstance(node, Block) and node.kind == "table":
        return "table", ""
    return None, ""


def section_numbers(sections: list[Heading], number: str | None) -> list[str | None]:
    """Each section's number: the document's for its title, below it for the others (2.1,
    2.1.1); None throughout in a document the toc does not number."""
    if not sections or number is None:
        return [None] * len(sections)
    top = sections[0].level
    counters: list[int] = []
    out: list[str | None] = [number]
    for heading in sections[1:]:
        depth = max(heading.level - top, 1)
        counters = counters[:depth]
        counters += [0] * (depth - len(counters))
        counters[depth - 1] += 1
        out.append(".".join([number, *map(str, counters)]))
    return out


def plain(text: str) -> str:
    """A title or caption as link text: emphasis, code marks and inline math dropped."""
    return " ".join(_MARKUP_RE.sub("", text).split())


@dataclass(frozen=True, slots=True)
class PublishedPages:
    """Where a language's pages are published, as a notebook links to them: ``html_baseurl``
    (absolute links), else relative to where the site publishes the notebook
    (``<lang>/notebooks/<framework>/<document>.ipynb`` beside ``<lang>/<document>.html``)."""

    language: str
    framework: str
    base_url: str = ""

    def url(self, from_document: str, document: str, anchor: str = "") -> str:
        fragment = f"#{anchor}" if anchor else ""
        if self.base_url:
            return f"{self.base_url.rstrip('/')}/{self.language}/{document}.html{fragment}"
        here = posixpath.dirname(f"notebooks/{self.framework}/{from_document}")
        return posixpath.relpath(f"{document}.html", here or ".") + fragment
