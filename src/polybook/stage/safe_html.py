r"""Sphinx extension: no active HTML from a chapter reaches its page.

Every way a chapter has to put HTML on its page ends in a docutils ``raw`` node: MyST's HTML
blocks and tags in prose, an ``eval_rst`` ``.. raw:: html`` block (written in it, or a
``:file:``), a raw role, a ``{raw}`` directive, a cell's HTML output. Once a page is read (once per
change of it: Sphinx keeps the doctree), before its title is copied into the other pages'
navigation, its raw HTML is cleaned with the allow-list of :mod:`polybook.dialect.raw_html`, every
piece of the page together, and a ``<meta http-equiv>`` is taken out (it redirects). When a page
is written, a link to a ``javascript:`` (or any other scheme than http(s) and mailto) URL -- an
eval_rst link, a button, a bibliography entry's url -- becomes its text. Math is typeset with
MathJax's Safe extension: a formula's ``\href{javascript:…}`` is no link and its ``\style``
cannot move it over the page. Pages ``polybook_trusted_html`` names (conf.py's ``trusted_html``:
source language documents only, see :meth:`polybook.config.BookConfig.trusts_html`) keep their
raw HTML and links as written.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.transforms import SphinxTransform

from polybook.config import BookConfig
from polybook.dialect import raw_html
from polybook.dialect.raw_html import clean_pieces, safe_url

if TYPE_CHECKING:
    from sphinx.application import Sphinx

CONFIG_NAME = "polybook_trusted_html"
#: The allow-list's version, a setting of every page: a new one reads every page again (Sphinx
#: keeps pages as they were cleaned when read).
POLICY_NAME = "polybook_html_policy"
#: What ``MathJax.js?config=…,Safe`` does (``config/Safe.js``), on the pages that load MathJax 2.
SAFE_MATH = (
    'MathJax.Hub.Register.StartupHook("End Config", function () {'
    " var config = MathJax.Hub.config; (config.extensions = config.extensions || []).push('Safe.js'); })"
)


def trusted_documents(config: BookConfig, lang: str, names: list[str]) -> list[str]:
    """Of ``names``, the documents of ``lang`` whose raw HTML the site keeps: the config value."""
    return sorted(name for name in names if config.trusts_html(lang, name))


@functools.cache
def policy_version() -> str:
    """The allow-list's code and the sanitizer's release."""
    digest = hashlib.sha256(Path(raw_html.__file__).read_bytes())
    digest.update(metadata.version("nh3").encode())
    return digest.hexdigest()[:16]


class CleanPage(SphinxTransform):
    """Clean the raw HTML of a page just read (unless it is trusted): before ``doctree-read``
    (880), whose collectors copy the page's title into every page's sidebar and breadcrumbs."""

    default_priority = 870

    def apply(self, **kwargs: Any) -> None:
        if self.env.docname not in self.config[CONFIG_NAME]:
            clean_doctree(self.document)


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


def safe_math(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """MathJax's Safe extension on every page that loads MathJax (as Sphinx's mathjax decides)."""
    loads = app.registry.html_assets_policy == "always" or context.get("has_maths_elements")
    if app.builder.format == "html" and loads and app.config.mathjax2_config:
        builder: Any = app.builder
        builder.add_js_file("", type="text/x-mathjax-config", body=SAFE_MATH, priority=400)  # before MathJax.js


def setup(app: Sphinx) -> dict[str, Any]:
    from polybook import __version__

    app.add_config_value(CONFIG_NAME, [], "env", types=frozenset({list}))
    app.add_config_value(POLICY_NAME, "", "env", types=frozenset({str}))
    app.add_transform(CleanPage)
    app.connect("doctree-resolved", drop_unsafe_links)
    app.connect("html-page-context", safe_math)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
