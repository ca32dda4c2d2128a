"""One document -> the notebook of one framework: Markdown cells of the language's prose, code
cells of the framework's code with the outputs ``build eval`` recorded.

What the notebook holds is what the framework's tab of the page holds
(:func:`polybook.stage.views.framework_nodes`): its text tabs, its code cells, each cell's code
as the framework's reader sees it (:mod:`polybook.library.reader_code`: branches resolved, the
library's aliases and sorted imports, as d2lbook writes it), the
prose without its slide marks as the page shows it. A cell the page hides (``#@hide``) stays
in the notebook -- the code after it needs it -- marked hidden as Jupyter marks it.

The dialect's own syntax becomes plain Jupyter Markdown: roles become links to the published
page and anchor (:mod:`.references`), figures images inside the download (:mod:`.files`),
labelled equations get their number (``\\tag``), a toc block a list of the notebooks it names.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from polybook.config import BookConfig
from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.markdown import CITE_ROLES
from polybook.dialect.marks import Mark, read_mark
from polybook.dialect.nodes import (
    Bibliography,
    Block,
    CodeCell,
    DisplayMath,
    Document,
    EvalRst,
    Fence,
    Figure,
    Heading,
    Node,
    Paragraph,
    TocBlock,
)
from polybook.dialect.raw_html import clean_markdown
from polybook.dialect.slides import shown_prose
from polybook.files import resolved
from polybook.library.reader_code import reader_code
from polybook.notebooks.files import DownloadFiles
from polybook.notebooks.outputs import RecordedOutputs, notebook_outputs
from polybook.notebooks.references import LabelIndex, PublishedPages, plain
from polybook.stage import inline
from polybook.stage.block_marks import mark_html, page_notice
from polybook.stage.documents import local_link
from polybook.stage.i18n import text
from polybook.stage.myst import is_table_caption
from polybook.stage.outputs import ChapterResults
from polybook.stage.views import framework_nodes, hides_code, hides_output
from polybook.toc import entry_target, resolve_entry

#: Roles the dialect writes for cross references (citations aside).
REF_ROLES = ("numref", "ref", "eqref")


@dataclass(slots=True)
class LanguageNotebooks:
    """What every notebook of one language and framework shares."""

    config: BookConfig
    language: str
    framework: str
    labels: LabelIndex
    pages: PublishedPages
    files: DownloadFiles
    references_page: Callable[[str], str | None]  # a cited key -> the page that lists it
    notebooks: frozenset[str] = frozenset()  # the documents with a notebook of this framework


@dataclass(slots=True)
class Written:
    """A document's notebook, as a plain nbformat 4 dict, and what writing it found."""

    notebook: dict[str, Any]
    diagnostics: list[Diagnostic] = field(default_factory=list)


class NotebookWriter:
    def __init__(self, shared: LanguageNotebooks, name: str, doc: Document, results: ChapterResults) -> None:
        self.shared = shared
        self.name = name
        self.doc = doc
        self.framework = shared.framework
        self.shown = shown_prose(doc.nodes)
        self.trusted = shared.config.trusts_html(shared.language, name)  # its raw HTML kept as written
        self.reader = reader_code(shared.config)
        self.outputs = RecordedOutputs(results, self.framework, doc.cells(self.framework), self.reader)
        self.cells: list[dict[str, Any]] = []
        self.prose: list[str] = []
        self.line = 1  # the first line of the prose being gathered
        self.count = 0
        self.missing_said = False
        self.diagnostics: list[Diagnostic] = []

    # -- the notebook -------------------------------------------------------------------
    def write(self) -> Written:
        nodes = list(framework_nodes(self.doc.nodes, self.framework))
        said = page_notice(self.shared.language, self.doc)  # behind the source: said once, under the title
        for index, node in enumerate(nodes):
            self.node(node, nodes[index + 1] if index + 1 < len(nodes) else None)
            if said is not None and isinstance(node, Heading):
                self.add(notice(said[1]), node.line)
                said = None
        self.flush()
        return Written({"cells": self.cells}, self.diagnostics)

    def add(self, markdown: str, line: int) -> None:
        if not self.prose:
            self.line = line
        self.prose.append(markdown)

    def flush(self) -> None:
        """The prose gathered so far as one Markdown cell."""
        body = "\n\n".join(part.strip("\n") for part in self.prose if part.strip())
        self.prose = []
        if body:
            self.cells.append(
                {"cell_type": "markdown", "id": self.cell_id("md", self.line), "metadata": {}, "source": body}
            )

    def cell_id(self, kind: str, line: int) -> str:
        """Stable across builds (a rebuilt notebook differs only where its document does)."""
        seed = f"{self.shared.language}/{self.framework}/{self.name}/{kind}/{line}/{len(self.cells)}"
        return hashlib.sha256(seed.encode()).hexdigest()[:16]

    def say(self, line: int, code: Code, message: str) -> None:
        self.diagnostics.append(Diagnostic.make(self.doc.path, line, code, message))

    # -- nodes ---------------------------------------------------------------------------
    def node(self, node: Node, following: Node | None) -> None:
        if isinstance(node, CodeCell):
            self.flush()
            self.code_cell(node)
        elif isinstance(node, Heading):
            self.add(self.heading(node), node.line)
        elif (mark := read_mark(node)) is not None:
            self.mark(mark)
        elif isinstance(node, Paragraph) and is_table_caption(node):
            self.add(self.table_caption(node, following), node.line)
        elif isinstance(node, Paragraph | Block):
            self.add(self.markdown(self.shown.get(id(node), node.source), node.line), node.line)
        elif isinstance(node, DisplayMath):
            self.add(self.display_math(node), node.line)
        elif isinstance(node, Figure):
            self.add(self.figure(node), node.line)
        elif isinstance(node, Fence):
            marks = inline.fence(node.code)
            self.add(f"{marks}{node.language}\n{node.code}\n{marks}", node.line)
        elif isinstance(node, TocBlock):
            self.add(self.safe(self.toc(node)), node.line)  # the titles of other documents too
        elif isinstance(node, Bibliography | EvalRst):  # Sphinx writes these: the page has them
            url = self.shared.pages.url(self.name, self.name)
            words = text(self.shared.language, "references" if isinstance(node, Bibliography) else "published_page")
            self.add(f"[{words}]({url})", node.line)

    def heading(self, node: Heading) -> str:
        return f"{'#' * node.level} {self.markdown(self.shown.get(id(node), node.text), node.line)}"

    def table_caption(self, node: Paragraph, table: Node | None) -> str:
        """d2l's ``:Caption`` before a table: the caption, numbered as the page numbers it."""
        caption = self.markdown(self.shown.get(id(node), node.source)[1:].strip(), node.line)
        label = table.label if isinstance(table, Block) and table.kind == "table" else None
        target = self.shared.labels.targets.get(label) if label else None
        if target is not None and target.number:
            return f"**{self.shared.labels.text('numref', target, label or '')}** {caption}"
        return caption

    def display_math(self, node: DisplayMath) -> str:
        tex = node.tex.strip()
        target = self.shared.labels.targets.get(node.label) if node.label else None
        if target is not None and target.number and "\\tag" not in tex and "\\begin{align" not in tex:
            tex += f" \\tag{{{target.number}}}"
        return f"$$\n{tex}\n$$"

    def figure(self, node: Figure) -> str:
        caption = self.markdown(self.shown.get(id(node), node.caption), node.line)
        src = node.src if "://" in node.src or node.src.startswith("data:") else self.file(node.src, node.line)
        if src is None:
            return caption
        alt = plain(caption).replace('"', "'")
        size = "".join(f' {key}="{value}"' for key, value in (("width", node.width), ("height", node.height)) if value)
        image = f'<img src="{src}" alt="{alt}"{size}>' if size else f"![{alt.replace(']', '')}]({src})"
        target = self.shared.labels.targets.get(node.label) if node.label else None
        number = self.shared.labels.text("numref", target, "") if target and target.number else ""
        return f"{image}\n\n{f'**{number}** ' if number else ''}{caption}".rstrip()

    def file(self, src: str, line: int) -> str | None:
        found = self.shared.files.link(self.name, src)
        if found is None:
            self.say(line, Code.NOTEBOOK_FIGURE, f"{src!r} not found inside the book: the notebooks' download lacks it")
        return found

    def toc(self, node: TocBlock) -> str:
        """The toc block's entries as a list of links to their notebooks."""
        items = []
        for entry in node.entries:
            target = entry_target(entry)
            titled = entry.rsplit("<", 1)[0].strip() if entry.rstrip().endswith(">") else ""
            if target is None:
                if "://" in entry:
                    items.append(f"* [{titled or entry.strip()}]({entry.strip().rsplit('<', 1)[-1].rstrip('>')})")
                continue
            child = resolve_entry(self.name, target)
            if child not in self.shared.labels.titles or child not in self.shared.notebooks:
                continue  # no such document, or none with a version for this framework
            link = posixpath.relpath(f"{child}.ipynb", posixpath.dirname(self.name) or ".")
            items.append(f"* [{titled or self.shared.labels.titles[child]}]({link})")
        return "\n".join(items)

    # -- prose -----------------------------------------------------------------------------
    def safe(self, markdown: str) -> str:
        """No active raw HTML in a Markdown cell unless conf.py trusts the document (the site's
        rule, :mod:`polybook.stage.safe_html`)."""
        return markdown if self.trusted else clean_markdown(markdown)

    def markdown(self, source: str, line: int) -> str:
        return inline.convert(
            self.safe(source),
            image=lambda src: src if "://" in src or src.startswith("data:") else self.file(src, line),
            link=lambda href: self.link(href, line),
            role=lambda name, target: self.role(name, target, line),
        )

    def link(self, href: str, line: int) -> str | None:
        local = local_link(href)
        if local is None:
            return href
        path, rest = local
        if path.endswith(".md"):  # another document: its published page
            own = self.shared.config.document_path(self.shared.language, self.name).parent / path
            page = self.shared.config.document_name(resolved(own))
            if page is not None:
                return self.shared.pages.url(self.name, page, rest.lstrip("#"))
            return href
        found = self.shared.files.link(self.name, path)
        return found + rest if found is not None else href  # not in the book: as written (the page's build says so)

    def role(self, name: str, target: str, line: int) -> str | None:
        if name in CITE_ROLES:
            keys = [key.strip() for key in target.split(",") if key.strip()]
            page = next((p for key in keys if (p := self.shared.references_page(key))), None)
            shown = "\\[" + ", ".join(keys) + "\\]"
            return f"[{shown}]({self.shared.pages.url(self.name, page)})" if page else shown
        if name not in REF_ROLES:
            return None
        words, label = _explicit(target)
        found = self.shared.labels.targets.get(label)
        if found is None:
            self.say(line, Code.NOTEBOOK_REF, f":{name}:`{target}` names no label of this language: shown as text")
            return f"`{label}`"
        shown = self.shared.labels.text(name, found, label)
        if words:
            shown = words.replace("{number}", found.number or "").replace("%s", found.number or "")
        return f"[{shown}]({self.shared.pages.url(self.name, found.document, label)})"

    # -- code ------------------------------------------------------------------------------
    def mark(self, mark: Mark) -> None:
        """A marked block's small mark, as the site shows it (every kind: untranslated, stale,
        review, draft; :func:`mark_html`), HTML a notebook's Markdown renders."""
        shown = mark_html(self.shared.language, mark)
        if shown is not None:
            self.add(shown, mark.line)

    def code_cell(self, cell: CodeCell) -> None:
        metadata: dict[str, Any] = {}
        hidden = {
            key: True for key, hides in (("source_hidden", hides_code), ("outputs_hidden", hides_output)) if hides(cell)
        }
        if hidden:
            metadata["jupyter"] = hidden
        outputs: list[dict[str, Any]] = []
        count = None
        if self.outputs is not None:
            stored = self.outputs.of(cell)
            if stored is None:
                self.missing(cell)
            else:
                self.count += 1
                count = self.count
                outputs = notebook_outputs(stored, count, self.shared.config.execution.quiet_stderr)
        self.cells.append(
            {
                "cell_type": "code",
                "id": self.cell_id("code", cell.line),
                "metadata": metadata,
                "execution_count": count,
                "source": self.reader(cell, self.framework),
                "outputs": outputs,
            }
        )

    def missing(self, cell: CodeCell) -> None:
        """A warning at a cell without a stored output; once per document when nothing of its
        framework's program was recorded (a book never evaluated)."""
        assert self.outputs is not None
        if self.outputs.recorded:
            message = f"no stored output for this cell ({self.framework}): run polybook build eval"
        elif not self.missing_said:
            self.missing_said = True
            message = f"no stored outputs for this document ({self.framework}): run polybook build eval"
        else:
            return
        self.say(cell.line, Code.OUTPUT_MISSING, message)


def _explicit(target: str) -> tuple[str, str]:
    """``Fig. {number} <fig_x>`` -> ("Fig. {number}", "fig_x"); a bare label -> ("", label)."""
    if target.rstrip().endswith(">") and "<" in target:
        words, label = target.rstrip()[:-1].rsplit("<", 1)
        return words.strip(), label.strip()
    return "", target.strip()


def notice(message: str) -> str:
    """A note to the reader (a port's untranslated or stale text)."""
    return f"> *{message}*"
