"""Sphinx extension: no active HTML from a chapter reaches its page.

Every way a chapter has to put HTML on its page ends in a docutils ``raw`` node: MyST's HTML
blocks and tags in prose, an ``eval_rst`` ``.. raw:: html`` block (written in it, or a
``:file:``), a raw role, a ``{raw}`` directive, a cell's HTML output. Once a page is read (once
per change of it: Sphinx keeps the doctree), its raw HTML is cleaned with the allow-list of
:mod:`polybook.dialect.raw_html`, every piece of the page together; a ``<meta http-equiv>`` is
taken out (it redirects). When a page is written, a link to a ``javascript:`` (or any other
scheme than http(s) and mailto) URL -- an eval_rst link, a button, a bibliography entry's url --
becomes its text. Pages ``polybook_trusted_html`` names (conf.py's ``trusted_html``: source
language documents only, see :meth:`polybook.config.BookConfig.trusts_html`) keep theirs as written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes

from polybook.config import BookConfig
from polybook.dialect.raw_html import clean_pieces, safe_url

if TYPE_CHECKING:
    from sphinx.application import Sphinx

CONFIG_NAME = "polybook_trusted_html"


def trusted_documents(config: BookConfig, lang: str, names: list[str]) -> list[str]:
    """Of ``names``, the documents of ``lang`` whose raw HTML the site keeps: the config value."""
    return sorted(name for name in names if config.trusts_html(lang, name))


def clean_page(app: Sphinx, doctree: nodes.document) -> None:
    """Clean the raw HTML of a page just read (unless it is trusted)."""
    if app.env.docname in app.config[CONFIG_NAME]:
        return
    clean_doctree(doctree)


def clean_doctree(doctree: nodes.Node) -> None:
    raws = [node for node in doctree.findall(nodes.raw) if "html" in node.get("format", "").split()]
    pieces = [node.astext() for node in raws]
    for node, piece, cleaned in zip(raws, pieces, clean_pieces(pieces), strict=True):
        if cleaned != piece:
            del node[:]
            node += nodes.Text(cleaned)
    for meta in list(doctree.findall(nodes.meta)):
        if any(key.lower() == "http-equiv" for key in meta.attributes):
            meta.parent.remove(meta)


def drop_unsafe_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Links of an untrusted page to other schemes than http(s), mailto or a path become their text."""
    if docname in app.config[CONFIG_NAME]:
        return
    unsafe_links(doctree)


def unsafe_links(doctree: nodes.Node) -> None:
    for node in list(doctree.findall(nodes.reference)):
        if not safe_url(node.get("refuri", "")):
            node.replace_self(nodes.inline("", "", *node.children))


def setup(app: Sphinx) -> dict[str, Any]:
    from polybook import __version__

    app.add_config_value(CONFIG_NAME, [], "env", types=frozenset({list}))
    app.connect("doctree-read", clean_page)
    app.connect("doctree-resolved", drop_unsafe_links)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
