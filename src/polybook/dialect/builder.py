"""markdown-it tokens -> the document model, with diagnostics for the dialect's damage."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it.token import Token

from polybook.diagnostics import Code, Diagnostic, Level
from polybook.dialect.attach import split_figure, split_math
from polybook.dialect.cells import parse_fence_info
from polybook.dialect.code_cells import CellBuilder
from polybook.dialect.inline_scan import only_blank
from polybook.dialect.inlines import InlineBuilder
from polybook.dialect.markdown import inline_pieces
from polybook.dialect.nodes import (
    Bibliography,
    Block,
    DisplayMath,
    Document,
    EvalRst,
    Fence,
    Figure,
    Heading,
    Inline,
    Label,
    Node,
    Paragraph,
    TextTab,
    TocBlock,
)
from polybook.dialect.slides import has_marks, prose_of, prose_runs, run_mark_problems
from polybook.dialect.tabs import SETUP_RE

_CONTAINERS = {
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "blockquote_open": "blockquote",
    "table_open": "table",
}
#: Multiline: searched over a paragraph's text, each match a line of it.
HASH_HEADING_RE = re.compile(r"^ {0,3}#{1,6}[^\s#]", re.MULTILINE)
#: An attribute directive at the end of a paragraph's last line instead of on a line of its own.
_GLUED_RE = re.compile(r"(?<=\S):(?P<name>label|eqlabel|width|height):`(?P<value>[^`\n]+)`\s*\Z")
#: Fence info strings read once each: a book writes a few dozen (``{.python .input}``) on its
#: thousands of fences. A FenceInfo is only read (a cell copies its attrs).
_fence_info = functools.lru_cache(maxsize=1024)(parse_fence_info)
_PAIRS = (("[", "]"), ("(", ")"), ("{", "}"))
#: d2l's table caption: a paragraph that starts with ``:`` but not with a role (``:numref:`x```).
TABLE_CAPTION_RE = re.compile(r":(?![A-Za-z][\w-]*:`)\s*\S")
_LABEL_KINDS: dict[type, str] = {Figure: "figure", Heading: "heading", DisplayMath: "equation"}
#: Which attribute lines each labelled kind accepts.
_ATTACHES = {
    "figure": ("label", "width", "height"),
    "heading": ("label",),
    "equation": ("label", "eqlabel"),
    "table": ("label",),
}
#: What each attribute line must follow (for the message when it does not).
_FOLLOWS = {
    "label": "a heading, figure, equation or table",
    "eqlabel": "a display equation",
    "width": "a figure",
    "height": "a figure",
}


def _is_caption(node: Node | None) -> bool:
    return isinstance(node, Paragraph) and bool(TABLE_CAPTION_RE.match(node.source))


@dataclass(frozen=True, slots=True)
class DialectSettings:
    """What the parser needs to know about the document's language: the book's frameworks (none
    for a file outside a book: every name a tab writes is taken as written) and the default tab."""

    language: str | None = None
    frameworks: tuple[str, ...] = ()
    default_tab: str = ""


def heading_damage(text: str) -> list[str]:
    """What is wrong with a heading's title, as the messages say it (none: nothing)."""
    out = [
        f"heading {text!r} has unbalanced {opener!r} / {closer!r}: close it, or remove the stray one"
        for opener, closer in _PAIRS
        if text.count(opener) != text.count(closer)
    ]
    if text.count("`") % 2 or text.count("$") % 2:
        out.append(f"heading {text!r} has an unclosed code span or math: close its ` or $")
    if not text.strip():
        out.append("heading has no text: write its title")
    return out


class _Builder(CellBuilder, InlineBuilder):
    def __init__(self, path: str, text: str, settings: DialectSettings, lines: list[str] | None = None) -> None:
        self.path = path
        self.text = text
        self.lines = text.split("\n") if lines is None else lines
        self.settings = settings
        self.doc = Document(path, settings.language, settings.frameworks, settings.default_tab)
        self.open_tab: TextTab | None = None
        self.last: Node | None = None  # the node a following :label: line attaches to
        self.last_in: list[Node] = self.doc.nodes  # the list that holds ``last``
        # a :label: after a table's caption (d2l-en 1.0 writes caption, label, table): the table's
        # when the next node is one, (name, line)
        self.caption_label: tuple[str, int] | None = None

    # -- helpers -------------------------------------------------------------------
    def report(self, line: int, code: Code, message: str, level: Level | None = None) -> None:
        self.doc.diagnostics.append(Diagnostic.make(self.path, line, code, message, level))

    @property
    def frameworks(self) -> tuple[str, ...]:
        return self.settings.frameworks

    @property
    def default_tab(self) -> str:
        return self.settings.default_tab

    def emit(self, node: Node) -> None:
        if self.caption_label is not None:
            self.label_table(node)
        self.last_in = self.open_tab.children if self.open_tab else self.doc.nodes
        self.last_in.append(node)
        self.last = node

    def check_marks(self) -> None:
        """Slide marks d2lbook would refuse (it asserts): unclosed or overlapping within a
        run of prose between two code cells (a mark may span blocks of it). Every node's prose
        (a figure's caption too: markdown-it keeps an image's text as written) is a part of the
        text: a text with no mark has none to check."""
        if not has_marks(self.text):
            return
        for run in prose_runs(self.doc.nodes):
            # only the blocks that hold a mark: the others change no pairing, only offsets
            marked = [(node, text) for node in run if has_marks(text := prose_of(node))]
            if not marked:
                continue
            for index, offset, message in run_mark_problems([text for _, text in marked]):
                node, text = marked[index]
                self.report(node.line + text.count("\n", 0, offset), Code.SLIDE_MARK, message)

    def source(self, start: int, end: int) -> str:
        return "\n".join(self.lines[start:end])

    def trimmed(self, start: int, end: int) -> int:
        """``end`` moved back over trailing blank lines (markdown-it's maps may include them)."""
        while end > start + 1 and not self.lines[end - 1].strip():
            end -= 1
        return end

    # -- blocks ------------------------------------------------------------------
    def build(self, tokens: Sequence[Token]) -> Document:
        i, count = 0, len(tokens)
        while i < count:
            token = tokens[i]
            if token.type in _CONTAINERS:
                i = self.on_container(tokens, i)
                continue
            handler = _HANDLERS.get(token.type)
            if handler is not None:
                handler(self, token, tokens[i + 1] if i + 1 < count else None)
            i += 1
        if self.open_tab is not None:
            tab = self.open_tab
            self.report(tab.line, Code.TAB_UNCLOSED, f"`:begin_tab:`{tab.spec}`` is never closed with `:end_tab:`")
            last = len(self.lines) - (len(self.lines) > 1 and self.lines[-1] == "")  # a final newline ends a line
            tab.closed, tab.end_line = False, max(last, tab.line)
            self.open_tab = None
        if self.caption_label is not None:
            self.label_table(None)
        self.check_marks()
        self.check_declared()
        return self.doc

    def on_front_matter(self, token: Token, _next: Token | None) -> None:
        self.doc.front_matter = token.content

    def on_heading_open(self, token: Token, inline: Token | None) -> None:
        assert token.map is not None and inline is not None
        line = token.map[0] + 1
        text = inline.content
        self.emit(Heading(self.path, line, token.map[1], int(token.tag[1:]), text, None, self.inlines(inline)))
        for message in heading_damage(text):
            self.report(line, Code.HEADING_DAMAGED, message)

    def on_paragraph_open(self, token: Token, inline: Token | None) -> None:
        assert token.map is not None and inline is not None
        start, end = token.map
        source = self.source(start, end)
        if "#" in source:
            for found in HASH_HEADING_RE.finditer(source):
                number = start + source.count("\n", 0, found.start())
                self.report(number + 1, Code.HEADING_DAMAGED, "a heading needs a space after its '#' marks")
        if "![" in inline.content and (figure := self.figure(start, end, inline)) is not None:
            self.emit(figure)
            return
        inlines = self.inlines(inline)
        # only a paragraph whose text ends with a backtick can end with a glued directive
        glued = _GLUED_RE.search(source) if source.rstrip().endswith("`") else None
        if glued is None:
            self.emit(Paragraph(self.path, start + 1, end, source, inlines))
            return
        # ``$$…$$:eqlabel:`eq_x``` -- a translation joined the directive to the line before.
        self.report(end, Code.DIRECTIVE_DAMAGED, f"`{glued[0].strip()}` must be on a line of its own")
        kept = [i for i in inlines if not (i.kind == "role" and i.name == glued["name"] and i.value == glued["value"])]
        self.emit(Paragraph(self.path, start + 1, end, source[: glued.start()].rstrip(), kept))
        self.attribute(end, glued["name"], glued["value"])

    def figure(self, start: int, end: int, inline: Token) -> Figure | None:
        """The figure a paragraph of one image is (an image needs ``![`` in the text)."""
        if not inline.children:  # left to the scan: one image, with only blank text around it
            found = inline_pieces(inline.content)
            if len(found) != 1 or found[0][0] != "image":
                return None
            _, src, caption, at, after = found[0]
            text = inline.content
            if not (only_blank(text[:at]) and only_blank(text[after:])):
                return None
            return Figure(self.path, start + 1, end, src, caption, inlines=[])
        visible = [
            c
            for c in inline.children or []
            if c.type not in ("softbreak",) and not (c.type == "text" and not c.content.strip())
        ]
        if len(visible) != 1 or visible[0].type != "image":
            return None
        image = visible[0]
        roles = [Inline(x.kind, start + 1, x.value, x.name) for x in self._image_roles(image)]
        src = str(image.attrGet("src") or "")
        return Figure(self.path, start + 1, end, src, image.content, inlines=roles)

    def on_container(self, tokens: Sequence[Token], i: int) -> int:
        """A list, quote or table: kept as written, its inline content indexed.

        Like d2lbook, only fences at the margin are code cells: an input fence indented
        into a list or quote is shown as code but never runs, which is reported.
        """
        open_token = tokens[i]
        assert open_token.map is not None
        depth, j, found = 0, i, []
        while j < len(tokens):
            depth += tokens[j].nesting
            if tokens[j].type == "inline":
                found.extend(self.inlines(tokens[j]))
            elif tokens[j].type == "d2l_directive":
                self.nested_directive(tokens[j])
            elif tokens[j].type == "fence":
                self.nested_fence(tokens[j])
            j += 1
            if depth == 0:
                break
        start, end = open_token.map
        end = self.trimmed(start, end)
        kind = _CONTAINERS[open_token.type]
        self.emit(Block(self.path, start + 1, end, kind, self.source(start, end), found))
        return j

    def nested_directive(self, token: Token) -> None:
        assert token.map is not None
        raw = token.meta["raw"]
        self.report(
            token.map[0] + 1,
            Code.TAB_MISPLACED,
            f"{raw!r} is indented inside a list or quote and is ignored; put it on a line of its own at the margin",
        )

    def nested_fence(self, token: Token) -> None:
        assert token.map is not None
        start, end = token.map
        if not (end - 1 > start and _is_closing_fence(self.lines[end - 1].lstrip(" >"), token.markup)):
            self.report(start + 1, Code.FENCE_UNCLOSED, f"code fence {token.markup}{token.info} is never closed")
        if _fence_info(token.info).is_input:
            self.report(
                start + 1,
                Code.CELL_MISPLACED,
                "this code cell is indented inside a list or quote, so it is shown but never run; "
                "put its fence at the margin",
            )

    def on_math_block(self, token: Token, _next: Token | None) -> None:
        assert token.map is not None
        self.emit(DisplayMath(self.path, token.map[0] + 1, token.map[1], token.content.strip()))

    def on_math_block_label(self, token: Token, _next: Token | None) -> None:
        assert token.map is not None
        label = token.info.strip()
        node = DisplayMath(self.path, token.map[0] + 1, token.map[1], token.content.strip(), label)
        self.emit(node)
        self.register(label, "equation", node.line)

    def on_html_block(self, token: Token, _next: Token | None) -> None:
        assert token.map is not None
        start, end = token.map
        end = self.trimmed(start, end)
        self.emit(Block(self.path, start + 1, end, "html", self.source(start, end)))

    def on_hr(self, token: Token, _next: Token | None) -> None:
        assert token.map is not None
        start, end = token.map
        self.emit(Block(self.path, start + 1, end, "hr", self.source(start, end)))

    def on_code_block(self, token: Token, _next: Token | None) -> None:
        assert token.map is not None
        self.emit(Fence(self.path, token.map[0] + 1, token.map[1], "", "", token.content))

    def on_fence(self, token: Token, _next: Token | None) -> None:
        assert token.map is not None
        start, end = token.map
        line = start + 1
        closed = end - 1 > start and _is_closing_fence(self.lines[end - 1], token.markup)
        if not closed:
            self.report(line, Code.FENCE_UNCLOSED, f"code fence {token.markup}{token.info} is never closed")
        content = token.content[:-1] if token.content.endswith("\n") else token.content
        info = _fence_info(token.info)
        if info.error:
            self.report(line, Code.FENCE_ATTRS, info.error)
        if info.is_input and "%load_ext" in content and SETUP_RE.search(content):
            self.emit(self.tab_setup(token, content))
        elif info.is_input:
            self.emit(self.code_cell(token, info, content, closed))
        elif info.language == "toc":
            options, entries, entry_lines = {}, [], []
            for offset, raw in enumerate(content.split("\n")):
                if m := re.match(r"^\s*:(\w+):\s*(.*?)\s*$", raw):
                    options[m[1]] = m[2]
                elif raw.strip():
                    entries.append(raw.strip())
                    entry_lines.append(line + 1 + offset)
            self.emit(TocBlock(self.path, line, end, options, entries, entry_lines))
        elif info.language == "eval_rst":
            self.emit(EvalRst(self.path, line, end, content))
        else:
            self.emit(Fence(self.path, line, end, info.language, token.info, content, closed))

    def on_d2l_directive(self, token: Token, _next: Token | None) -> None:
        assert token.map is not None
        line = token.map[0] + 1
        meta = token.meta
        name, value = meta["name"], meta["value"]
        if meta["damaged"]:
            hint = f"; did you mean {meta['canonical']!r}?" if value or name == "end_tab" else ""
            self.report(line, Code.DIRECTIVE_DAMAGED, f"damaged directive {meta['raw']!r}{hint}")
            if not value and name != "end_tab":
                return
        if name == "begin_tab":
            self.begin_tab(line, value)
        elif name == "end_tab":
            self.end_tab(line)
        elif name == "bibliography":
            self.emit(Bibliography(self.path, line, line, value))
        else:
            self.attribute(line, name, value)

    def begin_tab(self, line: int, spec: str) -> None:
        if self.open_tab is not None:
            tab = self.open_tab
            self.report(
                line,
                Code.TAB_NESTED,
                f"`:begin_tab:` inside the tab opened at line {tab.line} (read as ending here): "
                f"close that tab with `:end_tab:` on the line before this one",
            )
            tab.closed, tab.end_line = False, line - 1
            self.open_tab = None
        frameworks = self.resolve(spec, line, ":begin_tab:")
        tab = TextTab(self.path, line, line, spec, frameworks)
        self.emit(tab)
        self.open_tab, self.last = tab, None

    def end_tab(self, line: int) -> None:
        if self.open_tab is None:
            self.report(line, Code.TAB_UNMATCHED, "`:end_tab:` without a matching `:begin_tab:`")
            return
        self.open_tab.end_line = line
        self.open_tab, self.last = None, None

    def split_last(self, name: str) -> None:
        """A paragraph ending with display math or an image, followed by ``:eqlabel:``,
        ``:label:`` or ``:width:``: the equation or figure becomes a node of its own."""
        paragraph = self.last
        if not isinstance(paragraph, Paragraph) or not self.last_in or self.last_in[-1] is not paragraph:
            return
        tries = {"eqlabel": (split_math,), "label": (split_figure, split_math)}.get(name, (split_figure,))
        for split in tries:
            found = split(paragraph)
            if found is not None:
                rest, node = found
                self.last_in[-1:] = [rest, node] if rest is not None else [node]
                self.last = node
                return

    def label_table(self, node: Node | None) -> None:
        """The :label: written between a table's caption and the table given to ``node``, the
        next node, when it is that table (d2lbook's reference then finds it); else an orphan."""
        assert self.caption_label is not None
        name, line = self.caption_label
        self.caption_label = None
        if isinstance(node, Block) and node.kind == "table" and node.label is None:
            node.label = name
            return
        message = (
            "`:label:` after a table's caption names no table: put the table right after it, "
            "or move the label to the line after the table"
        )
        self.report(line, Code.LABEL_ORPHAN, message)
        self.doc.labels[name] = Label(name, "orphan", line)

    def attribute(self, line: int, name: str, value: str) -> None:
        self.split_last(name)
        target = self.last
        if name == "label" and _is_caption(target) and value not in self.doc.labels:
            self.caption_label = (value, line)  # the table after the caption takes it (label_table)
            assert target is not None
            target.end_line = line
            self.register(value, "table", line)
            return
        kind = _LABEL_KINDS.get(type(target), "orphan")
        if isinstance(target, Block) and target.kind == "table":
            kind = "table"
        field = "label" if name == "eqlabel" else name
        taken = getattr(target, field, None) if kind != "orphan" else None
        if name in _ATTACHES.get(kind, ()) and taken is None:
            setattr(target, field, value)
        elif name == "eqlabel" and isinstance(target, Figure) and taken is None:
            target.label = value  # d2lbook turns it into the figure's label too
            message = "`:eqlabel:` after a figure is taken as its label; write `:label:` for a figure"
            self.report(line, Code.LABEL_KIND, message)
        else:
            what = type(target).__name__.lower() if target else "nothing"
            why = f"{what} that already has `:{field}:` {taken!r}" if taken is not None else what
            self.report(line, Code.LABEL_ORPHAN, f"`:{name}:` follows {why}; it must follow {_FOLLOWS[name]}")
            kind = "orphan"
        if target is not None:
            target.end_line = line
        if name in ("label", "eqlabel"):
            self.register(value, kind, line)

    def register(self, name: str, kind: str, line: int) -> None:
        first = self.doc.labels.get(name)
        if first is not None:
            self.report(line, Code.LABEL_DUPLICATE, f"label {name!r} is already defined at line {first.line}")
            return
        self.doc.labels[name] = Label(name, kind, line)


#: ``on_<token type>`` of the builder, looked up once rather than by name for every token.
_HANDLERS = {name[3:]: method for name, method in vars(_Builder).items() if name.startswith("on_")}
_HANDLERS.pop("container")  # the containers' opening tokens go to on_container (with the token list)


def _is_closing_fence(line: str, markup: str) -> bool:
    stripped = line.strip()
    return len(line) - len(line.lstrip(" ")) < 4 and bool(
        stripped and set(stripped) == {markup[0]} and len(stripped) >= len(markup)
    )


def build_document(
    path: str, text: str, tokens: Sequence[Token], settings: DialectSettings, lines: list[str] | None = None
) -> Document:
    """The document of ``text`` from its ``tokens``; ``lines``: ``text.split("\\n")``, when the
    caller has it (it is only read)."""
    return _Builder(path, text, settings, lines).build(tokens)
