"""Raw HTML in a chapter: where it is, what in it is active, and the allow-list that cleans it.

A chapter puts HTML on its page by an HTML block, a tag inside prose, or an ``eval_rst``
``.. raw:: html`` directive (written in it, or a ``:file:``). The site keeps of it only what the
allow-list lets through (:func:`clean_pieces`, with nh3: the Python binding of the Rust sanitizer
ammonia), unless conf.py trusts the document (``polybook.trusted_html``, the source language's
only); ``polybook check`` tells a translator what the site would take out (:func:`active_parts`).

Kept: text markup, headings, lists, tables, ``<img>`` and ``<a>`` to http(s), mailto or a path,
``align``, ``width``, ``class``, ``style`` (layout properties only); everything else is taken out: scripts and
styles with their content, event handlers, ``javascript:`` URLs, frames, objects, forms, ``<meta>``.
"""

from __future__ import annotations

import functools
import html
import html.parser
import re
from collections.abc import Iterator
from dataclasses import dataclass

from polybook.dialect.nodes import Block, Document, EvalRst, Figure, Heading, Node, Paragraph

#: Elements that run or load something, take input or redirect the page: never kept.
ACTIVE_TAGS = frozenset({
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input", "button",
    "textarea", "select", "base", "meta", "link", "portal", "noscript", "template"
})  # fmt: skip
#: Attributes whose value is loaded or followed as a URL.
URL_ATTRIBUTES = frozenset({
    "href", "src", "action", "formaction", "xlink:href", "data", "poster", "background", "cite", "srcset", "ping"
})  # fmt: skip
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME_RE = re.compile(r"^([a-z][a-z0-9+.-]*):")
_INVISIBLE_RE = re.compile(r"[\x00-\x20\x7f]+")  # what browsers ignore inside a URL's scheme

_TAGS = {"tfoot", "caption", "center", "figure", "figcaption", "picture", "source"}
#: ``class`` too, as Jupyter keeps it: a cell's HTML output (``stage/outputs.py``, pandas' tables) is
#: styled by it, and a class only chooses among the page's own styles.
_EVERYWHERE = {"align", "title", "lang", "dir", "style", "class"}
_ATTRIBUTES = {
    "img": {"src", "alt", "width", "height"},
    "source": {"srcset", "type", "media"},
    "a": {"href", "hreflang"},
    "td": {"colspan", "rowspan", "headers", "width", "valign"},
    "th": {"colspan", "rowspan", "headers", "scope", "width", "valign"},
    "col": {"span", "width"},
    "colgroup": {"span", "width"},
    "table": {"summary", "width", "border", "cellpadding", "cellspacing"},
    "ol": {"start", "type", "reversed"},
    "li": {"value"},
    "hr": {"size", "width"},
    "ins": {"cite", "datetime"},
    "del": {"cite", "datetime"},
    "q": {"cite"},
    "blockquote": {"cite"},
    "bdo": {"dir"},
    "time": {"datetime"},
}
#: CSS a chapter may set on its own elements: layout and type, never position (no overlay).
_STYLE_PROPERTIES = frozenset({
    "text-align", "vertical-align", "width", "height", "max-width", "max-height", "min-width", "min-height",
    "float", "clear", "margin", "margin-top", "margin-bottom", "margin-left", "margin-right", "padding",
    "padding-top", "padding-bottom", "padding-left", "padding-right", "color", "background-color", "font-weight",
    "font-style", "font-size", "text-decoration", "border", "border-top", "border-bottom", "border-left",
    "border-right", "border-collapse", "border-spacing", "white-space"
})  # fmt: skip
#: A formula's link (MathJax's ``\href``) to another scheme than http(s), mailto or a path: the site
#: typesets math with MathJax's Safe extension, which makes it no link; a notebook's is made ``#``.
_MATH_HREF_RE = re.compile(r"\\href\s*\{\s*(?!(?:https?|mailto):)(?P<scheme>[A-Za-z][\w+.-]*):[^}]*\}")
#: What stands between two pieces of one page while they are cleaned together: a character no
#: chapter needs (a private-use one), taken out of the pieces first.
_CUT = "\ue000"


@functools.cache
def _cleaner() -> object:
    import nh3  # about 1 ms; only the site's Sphinx and the check of a page with raw HTML need it

    attributes = {tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}
    for tag, names in _ATTRIBUTES.items():
        attributes.setdefault(tag, set()).update(names)
    attributes["*"] = set(_EVERYWHERE)
    return nh3.Cleaner(
        tags=set(nh3.ALLOWED_TAGS) | _TAGS,
        attributes=attributes,
        url_schemes=set(_SAFE_SCHEMES),
        link_rel=None,  # no target attribute is kept, so no rel is needed: benign HTML stays as written
        filter_style_properties=set(_STYLE_PROPERTIES),
        strip_comments=True,
    )


def clean(fragment: str) -> str:
    """One whole fragment of HTML as the site shows it from an untrusted chapter."""
    return _cleaner().clean(fragment)  # type: ignore[attr-defined]


def clean_pieces(pieces: list[str]) -> list[str]:
    """The raw HTML pieces of one page, in order, each cleaned: cleaned together, a tag one piece
    opens and another closes (``<div align="center">``, Markdown, ``</div>``) keeps its pair,
    which cleaning each alone would close at once and drop. The page's own content between the
    pieces is text to the sanitizer, so no piece can open a tag that takes it in."""
    if len(pieces) < 2:
        return [clean(piece) for piece in pieces]
    joined = _CUT.join(piece.replace(_CUT, "\ufffd") for piece in pieces)
    cleaned = clean(joined)
    parts = cleaned.split(_CUT)
    if len(parts) == len(pieces) and _cuts_in_text(cleaned) == len(pieces) - 1:
        return parts
    # a cut the sanitizer took out with what held it (a script) or that fell inside a tag (a piece
    # ending in an unfinished one): each half apart, down to pieces alone -- as safe, less faithful
    half = len(pieces) // 2
    return clean_pieces(pieces[:half]) + clean_pieces(pieces[half:])


class _Text(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cuts = 0

    def handle_data(self, data: str) -> None:
        self.cuts += data.count(_CUT)


def _cuts_in_text(cleaned: str) -> int:
    """How many cuts are in the text of ``cleaned`` (not inside a tag or an attribute)."""
    reader = _Text()
    reader.feed(cleaned)
    reader.close()
    return reader.cuts


@dataclass(frozen=True, slots=True)
class Active:
    """One active part of raw HTML: ``what`` it is (``<script>``, ``onerror=``,
    ``href="javascript:…"``) and the 0-based line inside the HTML it starts on."""

    what: str
    offset: int


class _Scan(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Active] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        offset = self.getpos()[0] - 1
        if tag in ACTIVE_TAGS:
            self.found.append(Active(f"<{tag}>", offset))
        for name, value in attrs:
            if name.startswith("on") or name in ("srcdoc", "http-equiv"):
                self.found.append(Active(f"<{tag} {name}=…>", offset))
            elif name in URL_ATTRIBUTES and value and not safe_url(value, tag):
                shown = value if len(value) <= 40 else value[:39] + "…"
                self.found.append(Active(f'<{tag} {name}="{shown}">', offset))

    handle_startendtag = handle_starttag


def safe_url(value: str, tag: str = "a") -> bool:
    """A link or source that only navigates or loads a file: http(s), mailto, a path."""
    if tag in ("img", "source") and value.lstrip().lower().startswith("data:image/"):
        return True  # an image inline (shown, never run)
    m = _SCHEME_RE.match(_INVISIBLE_RE.sub("", value).lower())
    return m is None or m[1] in _SAFE_SCHEMES


def active_parts(fragment: str) -> list[Active]:
    """What in ``fragment`` runs, loads, takes input or redirects: what the site takes out and a
    translation must not add (:data:`ACTIVE_TAGS`, event handlers, URLs of other schemes)."""
    if "<" not in fragment:
        return []
    scan = _Scan()
    scan.feed(fragment)
    scan.close()
    return scan.found


@dataclass(frozen=True, slots=True)
class RawHtml:
    """One piece of raw HTML a chapter writes, at its 1-based ``line``: a block, a tag in prose
    (``inline``), or an eval_rst ``.. raw:: html`` block's content."""

    html: str
    line: int
    kind: str  # "block", "inline" or "rst"


#: ``.. raw:: html`` (any output list naming html) and the indented lines that are its content.
_RAW_RE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+raw::[ \t]*(?P<formats>[^\n]*)$")
_OPTION_RE = re.compile(r"^[ \t]*:[\w-]+:")


def raw_html(doc: Document) -> list[RawHtml]:
    """Every piece of raw HTML ``doc`` writes, in reading order (text tabs included)."""
    out: list[RawHtml] = []
    for node in doc.walk():
        if isinstance(node, Block) and node.kind == "html":
            out.append(RawHtml(node.source, node.line, "block"))
        elif isinstance(node, EvalRst):
            out += _rst_pieces(node)
        elif (text := _prose(node)) is not None and "<" in text:
            out += _inline_pieces(text, node.line)
    return out


def _prose(node: Node) -> str | None:
    if isinstance(node, Paragraph | Block):
        return node.source
    if isinstance(node, Heading):
        return node.text
    if isinstance(node, Figure):
        return node.caption
    return None


@functools.cache
def _markdown() -> object:
    """CommonMark with HTML, tables and $-math: where MyST sees an HTML tag in prose (not in code
    or math)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark", {"html": True}).enable("table").use(dollarmath_plugin, double_inline=True)


def _inline_pieces(text: str, line: int) -> Iterator[RawHtml]:
    for token in _markdown().parse(text):  # type: ignore[attr-defined]
        start = line + (token.map[0] if token.map else 0)
        if token.type == "html_block":  # the text itself, or inside a list or a block quote
            yield RawHtml(token.content.rstrip("\n"), start, "block")
        for child in token.children or ():
            if child.type in ("softbreak", "hardbreak"):
                start += 1
            else:
                if child.type == "html_inline":
                    yield RawHtml(child.content, start, "inline")
                start += child.content.count("\n")


def math_links(tex: str) -> list[str]:
    """The schemes of the formula links in ``tex`` that would run (``javascript``)."""
    return [m["scheme"] for m in _MATH_HREF_RE.finditer(tex)] if "href" in tex else []


def clean_markdown(text: str) -> str:
    """Markdown prose with each raw HTML piece that has active parts cleaned, the others as
    written (a notebook's Markdown cell, which no Sphinx cleans). A piece Markdown reads out of a
    list or quote is not written as it is read (its lines are indented): its lines are escaped,
    and when something active is left the whole text is, so it shows as text. A formula's link to
    ``javascript:`` points nowhere (``#``)."""
    if "href" in text:
        text = _MATH_HREF_RE.sub(r"\\href{#}", text)
    pieces = [piece.html for piece in _inline_pieces(text, 1)] if "<" in text else []
    if not any(active_parts(piece) for piece in pieces):
        return text
    for piece, cleaned in zip(pieces, clean_pieces(pieces), strict=True):
        if not active_parts(piece):
            continue
        if piece in text:
            text = text.replace(piece, cleaned)
        else:
            for line in filter(None, (line.strip() for line in piece.split("\n"))):
                text = text.replace(line, html.escape(line, quote=False))
    if any(active_parts(piece.html) for piece in _inline_pieces(text, 1)):
        return html.escape(text, quote=False)
    return text


def _rst_pieces(node: EvalRst) -> Iterator[RawHtml]:
    """The content of each ``.. raw:: html`` directive of an eval_rst block (one with a ``:file:``
    option has none here: the site cleans the file as it stages the page)."""
    lines = node.source.split("\n")  # line k of the block is the chapter's line node.line + 1 + k
    i = 0
    while i < len(lines):
        m = _RAW_RE.match(lines[i])
        i += 1
        if m is None or "html" not in m["formats"].split():
            continue
        body = i
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(m["indent"])):
            i += 1
        content = [k for k in range(body, i) if lines[k].strip() and not _OPTION_RE.match(lines[k])]
        if content:
            text = "\n".join(line.strip() for line in lines[content[0] : content[-1] + 1])
            yield RawHtml(text, node.line + 1 + content[0], "rst")
