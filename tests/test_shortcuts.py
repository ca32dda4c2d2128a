"""The parser's shortcuts (polybook.dialect.shortcuts) change nothing: every document is the
one markdown-it-py's own parser gives, node for node, line for line, diagnostic for diagnostic."""

from __future__ import annotations

import dataclasses
import gc
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common.normalize_url import normalizeLink as markdown_it_normalize_link
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_core.text_join import text_join as markdown_it_text_join
from markdown_it.rules_inline.escape import _ESCAPED as markdown_it_escaped
from markdown_it.token import Token

from polybook.dialect import DialectSettings, builder, code_cells, markdown, parse_text
from polybook.dialect.builder import build_document
from polybook.dialect.cells import read_cell_source
from polybook.dialect.inline_scan import _ASCII_PUNCTUATION, scannable, scanner
from polybook.dialect.markdown import _find_span, _parser, tokenize
from polybook.dialect.shortcuts import (
    TOKEN_FIELDS,
    _line_tables,
    _LineState,
    dispatch_inline_rules,
    normalized_link,
    unused_block_rules,
)
from polybook.dialect.slides import PAIRS, has_marks, prose_of, run_mark_problems, run_marks

from conftest import FIXTURES

SETTINGS = DialectSettings("en", ("mxnet", "pytorch"), "mxnet")

#: Lines that start every kind of block the dialect has, and inline elements of every kind.
LINES = [
    "# Title",
    "##x",
    "Setext title",
    "===",
    "---",
    "- - -",
    "***",
    "___",
    "| a | b |",
    "|---|:-:|",
    "a | b",
    "> quote",
    ">     quoted code",
    "* item",
    "- item",
    "1. item",
    "2) item",
    "   - nested item",
    "    indented code",
    "\tindented by a tab",
    " \t mixed indent",
    "```{.python .input}",
    "```bash",
    "```",
    "~~~",
    "#@tab pytorch",
    "#@save",
    "%%tab mxnet",
    "if tab.selected('mxnet'):",
    "x = 1  # comment",
    "$$",
    "$$x = 1$$",
    "$$x = 1$$ (eq_x)",
    ":label:`sec_a`",
    ":eqlabel:`eq_a`",
    ":begin_tab:`pytorch`",
    ":end_tab:",
    ":bibliography:`../d2l.bib`",
    "[ref]: https://example.com",
    "[ref]",
    "See [the link](https://example.com) and [ref].",
    "![cap](../img/a.svg)",
    "[**slide mark**]",
    "(~~slides only~~)",
    "See :numref:`fig_a`, :cite:`Smith.2020`, $t_1$, $$y$$ and `code`.",
    "em: numref: `fig_x`",
    "a <https://example.com> autolink, <span>html</span> and &amp; entity",
    "<div>",
    "<!-- a comment -->",
    "\\$ escaped \\` and \\[",
    "plain prose with nothing in it",
    "a trailing backtick :label:`glued`",
    "",
    "   ",
]


def _same(text: str) -> None:
    """The document of ``text`` is the same through the shortcuts and without them."""
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    plain = build_document("p.md", normalised, _parser(plain=True).parse(normalised), SETTINGS)
    assert parse_text(text, "p.md", SETTINGS) == plain
    assert parse_text(text, "p.md", SETTINGS).to_dict() == plain.to_dict()
    # the builder checks slide marks only in a text that has one: every node's prose is in it
    # as written or as markdown-it reads it (NUL as U+FFFD, which makes no mark)
    nodes = [n for node in plain.nodes for n in (node, *getattr(node, "children", ()))]
    read = normalised.replace("\0", "\ufffd")
    assert all(prose_of(node) in normalised or prose_of(node) in read for node in nodes)


def _blocks(tokens: list) -> list[tuple]:
    """The tokens as markdown-it gives them; an inline token's children where the shortcuts
    parsed it (elsewhere they leave them out: nothing the builder reads is there)."""
    return [
        (t.type, t.map, t.content, t.info, t.markup, t.meta, t.attrs, t.level, _children(t.children)) for t in tokens
    ]


def _children(tokens: list | None) -> list[tuple]:
    """Inline tokens, emphasis written out as the text it was (the shortcuts leave it as text
    where no link can be), adjacent text joined."""
    out: list[tuple] = []
    for t in tokens or ():
        kind, content = t.type, t.content
        if kind in ("em_open", "em_close", "strong_open", "strong_close"):
            kind, content = "text", t.markup
        if kind == "text" and out and out[-1][0] == "text":
            out[-1] = ("text", out[-1][1] + content, "", {}, {}, [])
            continue
        out.append((kind, content, t.markup if kind != "text" else "", t.meta, t.attrs, _children(t.children)))
    return out


def _same_tokens(text: str) -> None:
    fast, plain = tokenize(text), _parser(plain=True).parse(text)
    for token, plain_token in zip(fast, plain, strict=True):
        if token.type == "inline" and not token.children:
            plain_token.children = []  # not parsed: it holds nothing the builder reads
    assert _blocks(fast) == _blocks(plain)


@pytest.mark.parametrize("source", sorted(FIXTURES.rglob("*.md")), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixtures_parse_as_without_shortcuts(source) -> None:
    text = source.read_text(encoding="utf-8", errors="replace")
    _same(text)
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    _same_tokens(normalised)


@given(st.lists(st.sampled_from(LINES) | st.text(alphabet=" \t#-=*_|>:[]()!<`$&\\ax1\n", max_size=10), max_size=30))
@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
def test_dialect_soup_parses_as_without_shortcuts(lines: list[str]) -> None:
    text = "\n".join(lines)
    _same(text)
    _same_tokens(text)


@given(st.text(alphabet=" \t\nab#-`$[]()<>|:=\\&;*_\r\x00", max_size=60))
@settings(max_examples=500)
def test_any_text_parses_as_without_shortcuts(text: str) -> None:
    _same(text)
    _same_tokens(text.replace("\r\n", "\n").replace("\r", "\n"))


@pytest.mark.parametrize(
    "text",
    [
        "```\na\n  ```  \nb\n",
        "````\n```\n`````\n",
        "~~~\n```\n~~~\n",
        "```\n    ```\n\t```\n ```\n",
        "```x`y\n```\n",
        "```\na\n",
        "```\n\n```",
        "  ```\n  a\n b\n   ```\n",
        "- ```\n  a\n ```\n```\n",
        "> ```\n> a\n```\n",
        "``\n```\n``` ```\n```\t\n",
        "```\nx ```\ny\n```\n",
    ],
)
def test_fences_parse_as_without_shortcuts(text: str) -> None:
    _same(text)
    _same_tokens(text)


@given(st.text(alphabet=" \t\na\r", max_size=40))
@settings(max_examples=300)
def test_line_tables_are_markdown_its(text: str) -> None:
    state = StateBlock(text, _parser(plain=True), {}, [])
    assert _line_tables(text) == (state.bMarks, state.eMarks, state.tShift, state.sCount, state.bsCount)
    lines = text.split("\n")
    assert _line_tables(text, lines) == _line_tables(text)  # from the lines the builder reads too
    assert lines == text.split("\n")  # only read


def test_unused_block_rules() -> None:
    prose_and_code = "Prose only.\n\n```{.python .input}\nx = 1\n```\n"
    assert unused_block_rules(prose_and_code) == {"table", "lheading", "front_matter"}
    assert "lheading" not in unused_block_rules("Title\n===  \n")
    assert not unused_block_rules("---\nx: 1\n---\n|a|\n")


def _span_by_regex(raw: str, content: str, fence: str, cursor: int) -> tuple[int, int] | None:
    body = "".join(r"[ \n]" if ch == " " else re.escape(ch) for ch in content)
    found = re.compile(rf"(?<!`){re.escape(fence)}[ \n]?{body}[ \n]?{re.escape(fence)}(?!`)").search(raw, cursor)
    return None if found is None else (found.start(), found.end())


@given(
    st.text(alphabet="` \nab", max_size=30),
    st.text(alphabet="` ab", min_size=1, max_size=4),
    st.sampled_from(["`", "``"]),
    st.integers(0, 5),
)
@settings(max_examples=1000)
def test_code_spans_are_found_as_by_a_regex(raw: str, content: str, fence: str, cursor: int) -> None:
    assert _find_span(raw.replace("\n", " "), content, fence, cursor) == _span_by_regex(raw, content, fence, cursor)


def test_the_cycle_collector_is_as_it_was_after_a_parse() -> None:
    assert gc.isenabled()
    parse_text("# a\n\ntext `x`\n")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_text("# a\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


def _inlines_both_ways(text: str) -> tuple[tuple, tuple]:
    """The builder's inlines and diagnostics of an inline token holding ``text`` (at line 3):
    read by the scan (its children left empty, as the parser leaves a text :func:`scannable`
    accepts), and from markdown-it's tokens (the dialect's inline rules, ``text_join`` after)."""
    md = _parser()
    tokenized = Token("inline", "", 0, content=text, map=[2, 3], children=md.inline.parse(text, md, {}, []))
    markdown_it_text_join(StateCore("", md, {}, [tokenized]))
    both = []
    for token in (Token("inline", "", 0, content=text, map=[2, 3], children=[]), tokenized):
        made = builder._Builder("p.md", text, SETTINGS)
        both.append((made.inlines(token), made.doc.diagnostics))
    return both[0], both[1]


@given(
    st.lists(
        st.sampled_from(["$", "$$", "`", "``", ":numref:`a`", ":cite:`x, y z`", "\\", "\\$", "\\`", "\\:"])
        | st.sampled_from([": numref: ", "a:ref:", ":eqref :", "  \n", " \n", "\n \t", "\\\n", "`a\nb`"])
        | st.sampled_from(["[a](b)", "![c d](e.png)", "[](f)", "[x](javascript:y)", "[", "]", "](", "!", "(", ")"])
        | st.text(alphabet=" \t\nab1:$`\\-_*[]()!<&é\ud83d\ude00", max_size=8),
        max_size=14,
    )
)
@settings(max_examples=3000)
def test_inline_scan_reads_what_markdown_its_tokens_give(parts: list[str]) -> None:
    """Where the parser leaves a text to the scan, the builder makes of it what it makes of
    markdown-it's tokens: the same inlines at the same lines, the same diagnostics."""
    text = "".join(parts)
    if scannable(text, {}):
        scanned, tokenized = _inlines_both_ways(text)
        assert scanned == tokenized


@pytest.mark.parametrize(
    "text",
    [
        "a $x$ b $$y$$ c `d` :ref:`e` f  \ng\n  h",
        "$\\alpha$ and \\$5 and 5\\$",
        "$x\\$ y$ tail\\",
        "\\$$a$",
        "`` a ` b `` and ``` none",
        "`  ` and ` x ` and `\nx\n`",
        "$$ and $",
        "x$",
        "a\t \nb",
        "see : numref: `fig_a` and\n  \\*: ref:`b` then `c\nd` $e\nf$ `g`",
        "a,:numref:``x`` and :cite:`a b`",
        "$x$\\\n  :numref: `y`",
        "[Discussions](https://discuss.d2l.ai/t/92) and ![a: b](../img/c.svg) `d`",
        "![a](javascript:x) and [b](data:image/png;base64,x) [c](DATA:text/html,x)",
        "a] [b](c) ! [f](g!h)",
    ],
)
def test_inline_scan_cases(text: str) -> None:
    assert scannable(text, {})
    scanned, tokenized = _inlines_both_ways(text)
    assert scanned == tokenized


def test_inline_scan_leaves_to_markdown_it_what_it_does_not_read() -> None:
    for text in ("a [link](b c)", "a <b>", "a &amp;", "[x](y) *a*", "[a [b](c)", "`[x]` [a](b)", "[a](b[c)"):
        assert not scannable(text, {}), text
    assert scannable("[Discussions](https://discuss.d2l.ai/t/92)", {})
    assert scannable("*a*, [b] and _c_ stay text where no link can be, \\* too", {})
    assert not scannable("[b] is a link where the document defines it", {"references": {"B": {}}})


@pytest.mark.parametrize(
    "text",
    [
        "![a](b.png)\n",
        # blank to Python, not to markdown-it's trimming: text around the image, no line break
        "\x1c![a](b.png)\x85\n",
        "\x1c  \n![a](b.png)\n",  # a hard break
        "\x1c \n  ![a](b.png)\n",  # a soft one
        "![a](b.png)\x1c  \n\x1c\n",
        "![a](b.png) ![c](d.png)\n",
        "![a](javascript:b)\n",
        "Text\n![a](b.png)\n:label:`fig_a`\n",
    ],
)
def test_figures_read_by_the_scan_are_markdown_its(text: str) -> None:
    _same(text)


def test_inline_scan_escapes_what_markdown_it_does() -> None:
    assert markdown_it_escaped == _ASCII_PUNCTUATION


def test_inline_scan_only_for_the_dialects_rules() -> None:
    assert scanner(_parser()) is scannable
    assert scanner(_parser(plain=True)) is None  # markdown-it's own emphasis and link rules
    assert scanner(_parser().__class__("commonmark")) is None


def test_pushed_tokens_are_markdown_its() -> None:
    assert tuple(f.name for f in dataclasses.fields(Token)) == TOKEN_FIELDS
    fast, plain = _LineState("a\n", _parser(), {}, []), StateBlock("a\n", _parser(), {}, [])
    fast.level = plain.level = 1
    made, expected = [
        [state.push("div_open", "div", 1), state.push("inline", "", 0), state.push("div_close", "div", -1)]
        for state in (fast, plain)
    ]
    assert made == expected and fast.level == plain.level == 1
    assert [t.level for t in made] == [1, 2, 1] and all(t.block for t in made)
    assert made[0].attrs is not made[1].attrs and made[0].meta is not made[1].meta


@pytest.mark.parametrize(
    "text",
    [
        "![\\[\\*\\*a \\&amp; &amp;](x.png)\n",  # a caption is kept as written, escapes and all
        "Text\n![(**a](x.png)\n:label:`fig_a`\n",  # a figure split off a paragraph
        "![(**a](x.png)\n",
        "![a](x.png)\n\n[**a**] and (**b\n",
    ],
)
def test_slide_marks_in_captions_are_checked(text: str) -> None:
    _same(text)
    doc = parse_text(text, "p.md", SETTINGS)
    figures = [node for node in doc.nodes if node.type == "figure"]
    assert figures and all(figure.caption in text for figure in figures)


def test_normalized_links_are_markdown_its() -> None:
    for url in ("../img/a b.svg", "https://例え.jp/x?y=1#z", "mailto:a@b.c", "%zz", "a"):
        assert normalized_link(url) == markdown_it_normalize_link(url)
        assert normalized_link(url) == markdown_it_normalize_link(url)  # from the cache


def test_inline_rules_dispatched_only_when_all_known() -> None:
    md = MarkdownIt("commonmark").enable("strikethrough")  # a rule with no first character listed
    dispatch_inline_rules(md)
    assert len(md.inline.ruler.getRules("")) > 1
    md = MarkdownIt("commonmark")
    dispatch_inline_rules(md)
    assert len(md.inline.ruler.getRules("")) == 1
    assert md.render("a *b* `c` [d](e) <f@g.h> &amp; \\* ![i](j)\n") == MarkdownIt("commonmark").render(
        "a *b* `c` [d](e) <f@g.h> &amp; \\* ![i](j)\n"
    )


def _cell_by_lines(source: str) -> tuple[int, str, str]:
    """The first written line's index, its text and the code after a tab line, by splitting."""
    lines = source.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), 0)
    return start, lines[start].strip(), "\n".join(lines[start + 1 :])


@given(
    st.lists(st.sampled_from(["", " ", "\t", "#@tab pytorch", "%%tab mxnet", "x = 1", "%%tab", "#@save"]), max_size=6)
)
@settings(max_examples=300)
def test_cell_source_read_as_by_its_lines(lines: list[str]) -> None:
    source = "\n".join(lines)
    cell = read_cell_source(source)
    start, first, after = _cell_by_lines(source)
    if cell.tab is not None:
        assert (cell.code_offset, cell.code) == (start + 1, after)
        assert first.endswith(cell.tab)
    else:
        assert (cell.code_offset, cell.code) == (0, source)


@given(st.text(alphabet="*~[]() a", max_size=12))
@settings(max_examples=500)
def test_has_marks_looks_for_every_pair(text: str) -> None:
    expected = ("**" in text or "~~" in text) and any(o in text or c in text for o, c in PAIRS)
    assert has_marks(text) == expected


@given(st.lists(st.text(alphabet="*~[]() a`\n", max_size=14), min_size=1, max_size=4))
@example(["[**a", "b**) c"])  # a mark never closed, one closing none: two problems in two texts
@settings(max_examples=500)
def test_the_parsers_mark_problems_are_the_renderers(texts: list[str]) -> None:
    # the parser asks for the problems alone, without the cuts the renderer works out beside them
    assert run_mark_problems(texts) == run_marks(texts).problems


@given(st.text(alphabet="-= \t\na", max_size=20))
@settings(max_examples=500)
def test_setext_underlines_found_as_by_one_search(text: str) -> None:
    found = re.search(r"[-=](?=[ \t]*$)", text, re.MULTILINE) is not None
    assert ("lheading" not in unused_block_rules(text)) == found


def test_cells_read_once_per_text_are_as_read_each_time() -> None:
    """A fence's info string, a cell's tab spec and a directive line are each read once (a book
    writes the same ones on thousands of blocks, in each language): a document parsed with
    those caches warm is the one parsed with them empty, and each cell keeps attributes of its
    own."""
    caches = (code_cells._resolved, builder._fence_info, markdown._directive)
    texts = [source.read_text(encoding="utf-8", errors="replace") for source in sorted(FIXTURES.rglob("*.md"))]
    cold = []
    for text in texts:
        for cache in caches:
            cache.cache_clear()
        cold.append(parse_text(text, "p.md", SETTINGS))
    assert [parse_text(text, "p.md", SETTINGS) for text in texts] == cold
    assert all(cache.cache_info().hits for cache in caches)
    twice = "```{.python .input n=1}\nif tab.selected('mxnet'):\n    x = 1\n```\n\n" * 2
    first, second = parse_text(twice, "p.md", SETTINGS).nodes
    assert first.attrs == second.attrs and first.attrs is not second.attrs
