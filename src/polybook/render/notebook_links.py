"""Under the title of every page with code: per framework, a tab (synced with the page's framework
tabs, so it follows the reader's choice) with the links to that page's notebook -- download it,
open it in Colab or SageMaker Studio Lab when conf.py says where launch notebooks are published.

The site gives where each framework's notebooks are (:class:`NotebookPlace`, from ``polybook
build notebooks``); a framework without notebooks, or a page without code, gets no links.
"""

from __future__ import annotations

import html
import posixpath
from urllib.parse import quote

from polybook.dialect.nodes import Document
from polybook.render.site_info import NotebookPlace
from polybook.stage.i18n import text
from polybook.stage.myst import SYNC_GROUP, page_default, partial_classes


def notebook_links(lang: str, name: str, doc: Document, places: tuple[NotebookPlace, ...]) -> list[str]:
    """MyST: a tab-set of the links to page ``name``'s notebooks, one tab per framework it offers."""
    offered = doc.offered()
    mine = [place for place in places if place.framework in offered and doc.cells(place.framework)]
    if not mine:
        return []
    partial = partial_classes([place.framework for place in mine], offered, page_default(doc))
    classes = " ".join(["polybook-tabs", "polybook-notebook-links", *partial])
    lines = ["::::{tab-set}", f":sync-group: {SYNC_GROUP}", f":class: {classes}", ""]
    for place in mine:
        lines += [
            f":::{{tab-item}} {place.label}",
            f":sync: {place.framework}",
            f":class-label: polybook-tab-{place.framework}",
            "",
            "```{raw} html",
            _links(lang, name, place),
            "```",
            ":::",
            "",
        ]
    return [*lines, "::::"]


def _links(lang: str, name: str, place: NotebookPlace) -> str:
    """The HTML of one framework's links: the notebook beside the page, and where to launch it."""
    page = f"{lang}/{name}"
    notebook = f"{place.folder}/{name}.ipynb"
    href = posixpath.relpath(notebook, posixpath.dirname(page))
    links = [
        f'<a class="btn polybook-notebook" href="{html.escape(quote(href))}" download>'
        f'<i class="fa-solid fa-download"></i> {html.escape(text(lang, "download_notebook"))}</a>'
    ]
    inside = name + ".ipynb"  # the launch repositories hold <lang>/<framework>/<document>.ipynb
    for base, key, css in (
        (place.colab, "open_colab", "polybook-colab"),
        (place.studio_lab, "open_studio_lab", "polybook-studio-lab"),
    ):
        if base:
            url = f"{base.rstrip('/')}/{quote(inside)}"
            links.append(f'<a class="btn {css}" href="{html.escape(url)}">{html.escape(text(lang, key))}</a>')
    return f'<div class="polybook-notebook-links">{" ".join(links)}</div>'
