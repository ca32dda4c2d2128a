"""The document model -> MyST Markdown for Sphinx, one language at a time.

:func:`transpile` is the one entry point, reusable by the PDF stage: with
``framework=None`` every framework is shown in synced tab-sets (the HTML site); with
``framework="pytorch"`` only that framework's cells and text are kept, without tabs.
Every emitted line remembers the chapter line it came from (``Transpiled.lines``), so a
Sphinx warning on the MyST file is reported at the chapter's ``path:line``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from polybook.diagnostics import Diagnostic
from polybook.dialect.builder import TABLE_CAPTION_RE
from polybook.dialect.cells import highlight_language
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
    TextTab,
    TocBlock,
)
from polybook.dialect.slides import shown_prose
from polybook.library.reader_code import ReaderCode
from polybook.stage import inline
from polybook.stage.block_marks import BLOCK_MARK, mark_html, page_notice
from polybook.stage.outputs import OutputRenderer
from polybook.stage.views import shows

#: ``figure(src, line)`` -> the path to write in MyST, or None when the figure is refused
#: (an inline image then shows its alt text; the resolver reports why).
FigureResolver = Callable[[str, int], "str | None"]
#: ``link(href, line)`` -> the target to write in MyST, or None when the link is refused
#: (it then shows its text only; the resolver reports why).
LinkResolver = Callable[[str, int], "str | None"]
#: ``toc(entry, line)`` -> the toctree entry to write, or None to leave it out (it names no
#: document: :mod:`polybook.toc` reports it).
TocResolver = Callable[[str, int], "str | None"]
#: ``cite(role, keys, line)`` -> replacement text, or None to keep the MyST citation role.
CiteHandler = Callable[[str, str, int], "str | None"]
#: ``label(framework)`` -> how readers see the framework's name (conf.py's ``framework_labels``).
Labeller = Callable[[str], str]

#: ``:Caption of the table`` -- a colon then text, not a role (``:numref:`x```).
#: A MyST directive opened in a chapter's own text -- a fence whose info is ``{name}`` in a list
#: item or a quote, a colon fence -- which d2lbook's dialect does not have: MyST would run it
#: past polybook (``{eval-rst}`` with ``.. include::`` of any file, or autodoc). Shown as text.
_MYST_DIRECTIVE_RE = re.compile(
    r"^(?P<lead>[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+[ \t>]*)*)(?P<fence>`{3,}|~{3,}|:{3,})(?P<space>[ \t]*)\{", re.M
)
SYNC_GROUP = "framework"  # the sphinx-design sync group; also the ``?framework=`` query key


@dataclass(slots=True)
class Transpiled:
    text: str
    lines: list[int]  # chapter line of each MyST line (index 0 = MyST line 1)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def source_line(self, myst_line: int) -> int:
        """The chapter line a (1-based) MyST line came from."""
        if not self.lines:
            return 1
        return self.lines[min(max(myst_line, 1), len(self.lines)) - 1]


class _Writer:
    def __init__(
        self,
        doc: Document,
        lang: str,
        framework: str | None,
        outputs: OutputRenderer | None,
        figure: FigureResolver,
        cite: CiteHandler,
        link: LinkResolver,
        toc: TocResolver,
        bibliography: list[str] | None,
        eval_rst: Callable[[EvalRst], list[str]],
        label: Labeller,
        after_title: list[str] | None = None,
        reader: ReaderCode | None = None,
    ) -> None:
        self.doc = doc
        self.reader = reader or ReaderCode()  # the code a framework's reader sees
        self.after_title = after_title or []  # lines under the page's title (the site's notebook links)
        self.label = label
        self.eval_rst = eval_rst
        self.bibliography = bibliography
        self.language = lang
        self.framework = framework
        # The site shows a tab for each framework the document has a version for (as d2lbook:
        # a chapter without TensorFlow code of its own has no TensorFlow tab).
        self.offered = doc.offered()
        self.default = page_default(doc)  # the framework the page shows before the reader chooses
        self.frameworks = (framework,) if framework else self.offered
        self.outputs = outputs
        self.figure = figure
        self.cite = cite
        self.link = link
        self.toc_entry = toc
        self.programs: dict[str, list[CodeCell]] = {}
        self.shown = shown_prose(doc.nodes)  # prose without its slide marks, where it has some
        self.captions: dict[int, Paragraph] = {}  # id(table) -> its ``:caption`` paragraph
        self.out: list[tuple[str, int]] = []
        # a page behind the source (a port's marks, ``polybook translate``'s drafts) says so once, under its title
        self.page_notice = page_notice(lang, doc)

    # -- output ---------------------------------------------------------------------
    def emit(self, lines: list[str] | str, line: int) -> None:
        for chunk in [lines] if isinstance(lines, str) else lines:
            self.out.extend((part, line) for part in chunk.split("\n"))

    def emit_source(self, source: str, line: int) -> None:
        """Prose lines keep their own chapter line numbers; a MyST directive they open is text."""
        for offset, part in enumerate(_inert(self.prose(source, line)).split("\n")):
            self.out.append((part, line + offset))
        self.out.append(("", line))

    def prose(self, source: str, line: int) -> str:
        def cite(role: str, keys: str) -> str:
            replaced = self.cite(role, keys, line)
            return replaced if replaced is not None else f"{{{inline.ROLES[role]}}}`{keys}`"

        return inline.convert(
            source,
            image=lambda src: self.figure(src, line),
            cite=cite,
            link=lambda href: self.link(href, line),
        )

    # -- structure ------------------------------------------------------------------
    def nodes(self, nodes: list[Node]) -> None:
        for before, node in itertools.pairwise(nodes):
            if isinstance(node, Block) and node.kind == "table" and is_table_caption(before):
                self.captions[id(node)] = before  # type: ignore[assignment]
        i = 0
        while i < len(nodes):
            node = nodes[i]
            if isinstance(node, CodeCell) and self.tabbed(node):
                j = i
                while j < len(nodes) and isinstance(nodes[j], CodeCell) and self.tabbed(nodes[j]):  # type: ignore[arg-type]
                    j += 1
                self.cell_tabs(nodes[i:j])  # type: ignore[arg-type]
                i = j
            elif isinstance(node, TextTab):
                j = i
                while j < len(nodes) and isinstance(nodes[j], TextTab):
                    j += 1
                self.text_tabs(nodes[i:j])  # type: ignore[arg-type]
                i = j
            else:
                self.node(node)
                i += 1

    def tabbed(self, cell: CodeCell) -> bool:
        """Whether a cell is shown per framework: it runs for some of the page's frameworks only,
        or they see different code in it (its ``tab.selected`` branches, the library's aliases)."""
        if set(cell.frameworks) & set(self.frameworks) != set(self.frameworks):
            return True
        return len({self.reader(cell, fw) for fw in self.frameworks}) > 1

    def node(self, node: Node) -> None:
        if isinstance(node, Heading):
            if node.label:
                self.emit(f"({node.label})=", node.line)
            self.emit(f"{'#' * node.level} {self.prose(self.shown.get(id(node), node.text), node.line)}", node.line)
            self.emit("", node.line)
            if self.page_notice is not None:  # under the page's title, which Sphinx takes from the first heading
                self.emit(_notice(*self.page_notice), node.line)
                self.page_notice = None
            if self.after_title:
                self.emit([*self.after_title, ""], node.line)
                self.after_title = []
        elif (mark := read_mark(node)) is not None:
            self.mark(mark)
        elif isinstance(node, Block) and node.kind == "table" and (node.label or id(node) in self.captions):
            self.table(node)
        elif isinstance(node, Paragraph) and any(c is node for c in self.captions.values()):
            return  # the caption of the table after it
        elif isinstance(node, Paragraph | Block):
            self.emit_source(self.shown.get(id(node), node.source), node.line)
        elif isinstance(node, DisplayMath):
            self.display_math(node)
        elif isinstance(node, Figure):
            self.figure_node(node)
        elif isinstance(node, CodeCell):
            self.shared_cell(node)
        elif isinstance(node, Fence):
            marks = inline.fence(node.code)
            language = highlight_language(node.language, node.code) if node.language else "text"
            self.emit([f"{marks}{language}", node.code, marks, ""], node.line)
        elif isinstance(node, TocBlock):
            self.toc(node)
        elif isinstance(node, Bibliography) and self.bibliography is not None:
            self.emit(self.bibliography, node.line)
        elif isinstance(node, EvalRst):
            parts = self.eval_rst(node)
            marks = inline.fence("\n".join(parts))
            self.emit(f"{marks}{{eval-rst}}", node.line)
            for offset, part in enumerate(parts):  # each line keeps its own number, and what it became its
                self.emit(part, node.line + 1 + offset)
            self.emit([marks, ""], node.end_line)

    def mark(self, mark: Mark) -> None:
        """A marked block's small mark (:func:`mark_html`), on the HTML site; the PDF typesets the
        block plainly (the page's notice says what is behind the source)."""
        shown = mark_html(self.language, mark) if self.framework is None else None
        if shown is not None:
            marks = inline.fence(shown)
            self.emit([f"{marks}{{raw}} html", f":class: {BLOCK_MARK}", "", shown, marks, ""], mark.line)

    def display_math(self, node: DisplayMath) -> None:
        marks = inline.fence(node.tex)
        label = [f":label: {node.label}"] if node.label else []
        self.emit([f"{marks}{{math}}", *label, "", node.tex.strip(), marks, ""], node.line)

    def table(self, node: Block) -> None:
        """A table with d2l's caption (a paragraph ``:Caption`` before it) or a ``:label:``:
        MyST's table directive, numbered, so ``:numref:`` finds it."""
        caption = self.captions.get(id(node))
        title = ""
        if caption is not None:
            text = self.shown.get(id(caption), caption.source)[1:]
            title = " ".join(self.prose(text, caption.line).split())
        body = self.prose(self.shown.get(id(node), node.source), node.line)
        marks = inline.fence(body, ":")
        name = [f":name: {node.label}"] if node.label else []
        self.emit([f"{marks}{{table}} {title}".rstrip(), *name, ""], caption.line if caption else node.line)
        for offset, part in enumerate(body.split("\n")):
            self.out.append((part, node.line + offset))
        self.emit([marks, ""], node.end_line)

    def figure_node(self, node: Figure) -> None:
        path = self.figure(node.src, node.line)
        if path is None:
            if "://" in node.src:  # a remote image the output cannot include (a PDF): a link to it
                caption = self.prose(self.shown.get(id(node), node.caption), node.line) or node.src
                self.emit([f"[{caption}]({node.src})", ""], node.line)
            return
        options = [f":{key}: {value}" for key, value in (("width", node.width), ("height", node.height)) if value]
        if node.label:
            options.append(f":name: {node.label}")
        caption = self.prose(self.shown.get(id(node), node.caption), node.line)
        marks = inline.fence(caption, ":")
        self.emit([f"{marks}{{figure}} {path}", *options, "", caption, marks, ""], node.line)

    def toc(self, node: TocBlock) -> None:
        """A toctree with the block's own options: only ``:numbered:`` blocks are numbered (as
        in d2lbook); entries naming no document are left out (the toc reports them)."""
        options = [f":{key}: {value}".rstrip() for key, value in node.options.items()]
        self.emit(["```{toctree}", *options, ""], node.line)
        for offset, entry in enumerate(node.entries):
            line = node.entry_lines[offset] if offset < len(node.entry_lines) else node.line
            kept = self.toc_entry(entry, line)
            if kept is not None:
                self.emit(kept, line)
        self.emit(["```", ""], node.end_line)

    # -- code -----------------------------------------------------------------------
    def code(self, cell: CodeCell, framework: str | None) -> None:
        """The code ``framework``'s reader sees (None: the cell as written, the same for every framework)."""
        if any(m.name in ("hide", "hide_code") for m in cell.markers):
            return
        code = self.reader(cell, framework) if framework else cell.code
        marks = inline.fence(code)
        self.emit([f"{marks}{highlight_language(cell.language, code)}", code, marks, ""], cell.line)

    def program(self, framework: str) -> list[CodeCell]:
        """The page's cells that run for ``framework``, in order: its program."""
        if framework not in self.programs:
            self.programs[framework] = self.doc.cells(framework)
        return self.programs[framework]

    def results(self, cell: CodeCell, framework: str) -> None:
        if self.outputs is None or any(m.name in ("hide", "hide_output") for m in cell.markers):
            return
        if framework not in self.offered:  # a PDF of a framework this document has no version for
            return
        self.emit(self.outputs.cell(cell, framework, self.program(framework)), cell.line)

    def shared_cell(self, cell: CodeCell) -> None:
        """A cell for every framework: the code once; outputs once when they agree."""
        self.code(cell, self.frameworks[0] if self.frameworks else None)
        runs = [fw for fw in self.frameworks if fw in cell.frameworks]
        if self.outputs is None or not runs or any(m.name in ("hide", "hide_output") for m in cell.markers):
            return
        rendered = {fw: self.outputs.cell(cell, fw, self.program(fw)) for fw in runs}
        if len({tuple(lines) for lines in rendered.values()}) == 1:
            self.results(cell, runs[0])
            return
        panels = {fw: lambda fw=fw: self.results(cell, fw) for fw in runs}
        self.tab_set(panels, cell.line, "polybook-outputs")

    def cell_tabs(self, cells: list[CodeCell]) -> None:
        if self.framework:
            for cell in cells:
                if shows(cell, self.framework):
                    self.code(cell, self.framework)
                    self.results(cell, self.framework)
            return

        def panel(fw: str) -> Callable[[], None]:
            def write() -> None:
                for cell in cells:
                    if shows(cell, fw):
                        self.code(cell, fw)
                        self.results(cell, fw)

            return write

        mine = [fw for fw in self.frameworks if any(shows(cell, fw) for cell in cells)]
        self.tab_set({fw: panel(fw) for fw in mine}, cells[0].line, "polybook-code")

    def text_tabs(self, tabs: list[TextTab]) -> None:
        if self.framework or len(self.frameworks) == 1:  # a page of one framework has no tabs (d2lbook)
            for tab in tabs:
                if shows(tab, self.frameworks[0]):
                    self.nodes(tab.children)
            return

        def panel(fw: str) -> Callable[[], None]:
            def write() -> None:
                for tab in tabs:
                    if shows(tab, fw):
                        self.nodes(tab.children)

            return write

        mine = [fw for fw in self.frameworks if any(shows(tab, fw) for tab in tabs)]
        self.tab_set({fw: panel(fw) for fw in mine}, tabs[0].line, "polybook-text")

    def tab_set(self, panels: dict[str, Callable[[], None]], line: int, kind: str) -> None:
        """A sphinx-design tab-set synced on the framework; each panel writes its own lines.

        As d2lbook's tab groups, a set has a tab only for the frameworks with something in it (a
        panel that wrote nothing -- an empty text tab, a cell that printed nothing where another
        framework's printed something -- is left out; sphinx-design refuses an empty tab), and
        none when no framework has: the page says nothing where a framework has nothing to say.
        A set lacking some of the page's frameworks is marked (:func:`partial_classes`) for the
        site's script to hide it from a reader of those."""
        outer, bodies = self.out, {}
        for fw, write in panels.items():
            self.out = []
            write()
            if any(text.strip() for text, _ in self.out):
                bodies[fw] = self.out
        self.out = outer
        if not bodies:
            return
        # Colon fences must be longer than any colon fence nested in the panels.
        inner = max((len(text) - len(text.lstrip(":")) for body in bodies.values() for text, _ in body), default=0)
        item_marks = ":" * max(3, inner + 1)
        set_marks = item_marks + ":"
        classes = " ".join(["polybook-tabs", kind, *partial_classes(list(bodies), self.offered, self.default)])
        self.emit([f"{set_marks}{{tab-set}}", f":sync-group: {SYNC_GROUP}", f":class: {classes}", ""], line)
        first = next(iter(bodies))
        for fw, body in bodies.items():
            head = [
                f"{item_marks}{{tab-item}} {self.label(fw)}",
                f":sync: {fw}",
                f":class-label: polybook-tab-{fw}",
            ]
            if fw == self.default and fw != first:  # the page's default framework, not the set's first
                head.append(":selected:")
            self.emit([*head, ""], line)
            self.out.extend(body)
            self.emit([item_marks, ""], line)
        self.emit([set_marks, ""], line)


def page_default(doc: Document) -> str | None:
    """The framework a page shows before the reader chooses one: its default tab, or the first
    framework it has a version for when it has none for that (d2l's MXNet-only chapters)."""
    offered = doc.offered()
    return doc.default_tab if doc.default_tab in offered else next(iter(offered), None)


def partial_classes(present: list[str], offered: tuple[str, ...], default: str | None) -> list[str]:
    """The classes of a framework tab-set that lacks some of the page's frameworks:
    ``polybook-lacks-<framework>`` for each, and ``polybook-default-<framework>`` for the page's
    default. The site's script (``polybook-tabs.js``) hides such a set from a reader whose
    framework it lacks (the page's default for a reader whose framework the page does not have);
    a set with every framework of the page gets none."""
    lacking = [fw for fw in offered if fw not in present]
    if not lacking:
        return []
    return [*(f"polybook-lacks-{fw}" for fw in lacking), *([f"polybook-default-{default}"] if default else [])]


def _inert(text: str) -> str:
    """``text`` with each MyST directive it opens shown as text: a backtick or tilde fence as a
    ``text`` code block, a colon fence escaped."""

    def inert(m: re.Match[str]) -> str:
        if m["fence"][0] == ":":
            return f"{m['lead']}\\{m['fence']}{m['space']}{{"
        return f"{m['lead']}{m['fence']}text {{"

    return _MYST_DIRECTIVE_RE.sub(inert, text) if "{" in text else text


def is_table_caption(node: Node) -> bool:
    """d2l's table caption: a paragraph that starts with ``:`` but not with a role."""
    return isinstance(node, Paragraph) and bool(TABLE_CAPTION_RE.match(node.source))


def transpile(
    doc: Document,
    lang: str,
    *,
    framework: str | None = None,
    outputs: OutputRenderer | None = None,
    figure: FigureResolver | None = None,
    cite: CiteHandler | None = None,
    link: LinkResolver | None = None,
    toc: TocResolver | None = None,
    bibliography: list[str] | None = None,
    eval_rst: Callable[[EvalRst], list[str]] | None = None,
    label: Labeller | None = None,
    after_title: list[str] | None = None,
    reader: ReaderCode | None = None,
) -> Transpiled:
    """MyST for ``doc`` in ``language``: all frameworks in tabs, or only ``framework``.
    ``bibliography``: the MyST a ``:bibliography:`` line becomes (None: nothing);
    ``eval_rst(node)``: the reStructuredText of an eval_rst block, line for line (a line may
    become several, numbered as it); ``label``: how
    a framework is named for readers (default: as written); ``after_title``: MyST lines under the
    page's title; ``reader``: the code each framework's reader sees (default: without the
    library's aliases), as the ``outputs`` renderer matches results to it."""
    writer = _Writer(
        doc,
        lang,
        framework,
        outputs,
        figure or (lambda src, line: src),
        cite or (lambda role, keys, line: None),
        link or (lambda href, line: href),
        toc or (lambda entry, line: entry),
        bibliography,
        eval_rst or (lambda node: node.source.split("\n")),
        label or (lambda framework: framework),
        after_title,
        reader,
    )
    writer.nodes(doc.nodes)
    while writer.out and not writer.out[-1][0].strip():
        writer.out.pop()
    return Transpiled(
        "\n".join(line for line, _ in writer.out) + "\n",
        [source for _, source in writer.out],
    )


def _notice(classes: str, body: str) -> list[str]:
    """A note the reader sees (Sphinx titles it in the page's language)."""
    return ["```{note}", f":class: {classes}", "", body, "```", ""]
