"""polybook's Sphinx extension: cross-language anchors, the language switcher, hreflang.

Loaded into every language's Sphinx build (``extensions`` override). It reads what the
stage wrote beside each MyST file (``_polybook/<docname>.json``) and what the build passes
in the ``polybook_site`` config value: the languages, their names, which pages each has.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from typing import Any
from urllib.parse import quote

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from polybook import __version__, faults
from polybook.render import navigation, search
from polybook.render.settings import RENDERER
from polybook.render.site_info import LanguageSite
from polybook.render.stage import SIDECAR_DIR
from polybook.stage.i18n import text

logger = logging.getLogger(__name__)

ASSETS = Path(__file__).parent / "assets"
SPHINX_PAGES = ("search", "genindex")  # pages Sphinx writes in every language


class CrossLanguageAnchors(SphinxTransform):
    """Give every section and labelled node an id that is the same in every language.

    A section's first id becomes its ``:label:`` (``sec_async``) or, unlabelled, the slug
    of the matching heading in the source language; labelled figures and equations also
    get their raw label as an id. Sphinx's own ids stay, so every existing link works.
    """

    default_priority = 500  # after docutils' PropagateTargets (260); before toc collection

    def apply(self, **kwargs: Any) -> None:
        sidecar = Path(self.env.srcdir) / SIDECAR_DIR / f"{self.env.docname}.json"
        if not sidecar.is_file():
            return
        info = json.loads(sidecar.read_text(encoding="utf-8"))
        anchors: list[str | None] = info.get("anchors", [])
        labels = set(info.get("labels", []))
        for section, anchor in zip(self.document.findall(nodes.section), anchors, strict=False):
            if anchor and anchor not in section["ids"] and anchor not in self.document.ids:
                section["ids"].insert(0, anchor)
                self.document.ids[anchor] = section
        for node in list(self.document.findall(nodes.Element)):
            wanted = [n for n in node.get("names", []) if n in labels]
            if isinstance(node, nodes.math_block) and node.get("label") in labels:
                wanted.append(node["label"])
            for name in wanted:
                if name not in node["ids"] and name not in self.document.ids:
                    node["ids"].append(name)
                    self.document.ids[name] = node


class KeepFilesInside(SphinxTransform):
    """Refuse an image or a download whose file lies outside the staged sources.

    Sphinx copies such files into the site (``_images/``, ``_downloads/``). The stage
    already refuses figures, inline images and links that leave the book; this catches
    every other way to write one (reference-style links, ``<path:...>``, ``{download}``,
    eval_rst): the node becomes its text and the build reports an error at its line.
    """

    default_priority = 800

    def apply(self, **kwargs: Any) -> None:
        srcdir = Path(self.env.srcdir).resolve()
        for node in list(self.document.findall(nodes.image)):
            uri = str(node.get("uri", ""))
            if "://" not in uri and not uri.startswith("data:") and not self.inside(uri, srcdir):
                self.refuse(node, "image", uri, nodes.inline("", str(node.get("alt", ""))))
        for node in list(self.document.findall(addnodes.download_reference)):
            target = str(node.get("reftarget", ""))
            if "://" not in target and not self.inside(target, srcdir):
                self.refuse(node, "download", target, nodes.inline("", "", *node.children))

    def inside(self, target: str, srcdir: Path) -> bool:
        _, path = self.env.relfn2path(target.split("#")[0] or ".", self.env.docname)
        return Path(path).resolve().is_relative_to(srcdir)

    @staticmethod
    def refuse(node: nodes.Element, kind: str, target: str, text: nodes.Element) -> None:
        logger.error("%s %r is outside the book; not copied into the site", kind, target, location=node)
        node.replace_self(text)


def _relative(from_page: str, to_path: str) -> str:
    """URL of ``to_path`` (relative to the site root) from the page ``from_page``."""
    return posixpath.relpath(to_path, posixpath.dirname(from_page) or ".")


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    faults.reached("page")  # the interruption tests' (polybook.faults)
    context["polybook_navigation"] = navigation.sidebar(app, pagename, context)
    if not app.config.polybook_site:
        return
    mine = LanguageSite.from_json(app.config.polybook_site)
    site, here = mine.site, mine.language
    source = site.source_language
    page = f"{here}/{pagename}.html"  # this page, relative to the site root
    in_source = pagename in site.documents.get(source, [])
    links, alternates = [], []
    for language in site.languages:
        if language.lang == here or pagename in SPHINX_PAGES:
            found = None
        else:
            found = site.counterpart(here, pagename, language.lang)
        if language.lang == here or pagename in SPHINX_PAGES or (found and not found.nearest):
            target, query = f"{language.lang}/{found.page if found else pagename}.html", ""
        elif in_source:  # the source's page, saying it is not in this language yet
            target, query = f"{source}/{pagename}.html", f"?polybook-from={language.lang}"
        else:  # the nearest part of the book the language has, saying the page is not in it
            target, query = f"{language.lang}/{found.page if found else 'index'}.html", f"?polybook-nearest={here}"
        href = quote(_relative(page, target))  # a file named with spaces or in another script
        available = not query
        links.append(
            {
                "code": language.lang,
                "name": language.name,
                "href": href + query,
                "current": language.lang == here,
                "available": available,
            }
        )
        if available and pagename not in SPHINX_PAGES:
            url = site.url(target) if site.baseurl.rstrip("/") else href
            alternates.append(f'<link rel="alternate" hreflang="{language.hreflang}" href="{url}" />')
    default = site.counterpart(here, pagename, source) if here != source else None
    if in_source or (default and not default.nearest):
        target = f"{source}/{default.page if default else pagename}.html"
        url = site.url(target) if site.baseurl.rstrip("/") else quote(_relative(page, target))
        alternates.append(f'<link rel="alternate" hreflang="x-default" href="{url}" />')
    data = json.dumps(
        {
            "language": here,
            "source": source,
            "fallback": site.fallback_notices,
            "nearest": text(here, "nearest", language=site.names.get(here, here)),
            "names": site.names,
            "copybutton": mine.copybutton or None,
        },
        ensure_ascii=False,
    ).replace("</", "<\\/")
    alternates.append(f'<script type="application/json" id="polybook-data">{data}</script>')
    context["metatags"] = context.get("metatags", "") + "\n" + "\n".join(alternates)
    context["polybook_languages"] = links
    context["polybook_current"] = next(link for link in links if link["current"])
    if site.status:  # the translation-status page (polybook.site.status), linked from the sidebar
        context["polybook_status"] = {
            "href": _relative(page, f"{here}/{site.status}.html"),
            "title": text(here, "status"),
            "current": pagename == site.status,
        }
    context["polybook_pdfs"] = [{"name": pdf.name, "href": _relative(page, pdf.path)} for pdf in mine.pdfs]
    context["polybook_notebooks"] = [{"name": z.name, "href": _relative(page, z.path)} for z in mine.notebooks]
    context["polybook_downloads_label"] = text(here, "downloads")


def _phase(name: str) -> Any:
    """An event handler that moves the build's warning log (if any) to phase ``name``."""

    def handler(app: Sphinx, *args: Any) -> list[str]:
        from polybook.stage import sphinx_run

        log = sphinx_run.ACTIVE
        if log is not None:
            log.phase = name
            if name == "read":
                log.read.extend(args[1])  # env-before-read-docs: (env, docnames)
        return []  # env-get-updated expects the docs to write again

    return handler


def _record(what: str) -> Any:
    def handler(app: Sphinx, *args: Any) -> None:
        from polybook.stage import sphinx_run

        log = sphinx_run.ACTIVE
        if log is None:
            return
        if what == "written":
            log.written.append(args[1])  # doctree-resolved: (doctree, docname)
            log.current = args[1]
        elif what == "reading":
            log.current = args[0]  # source-read: (docname, source)
        else:
            log.consistency = True

    return handler


def _chinese_search() -> None:
    """Sphinx 9's zh search ships the English stemmer but names it ``ChineseStemmer`` in
    language_data.js (a ReferenceError on every zh page); name it as it is shipped."""
    from sphinx import search

    if search.languages.get("zh") == "sphinx.search.zh.SearchChinese":
        search.languages["zh"] = f"{__name__}.SearchChinese"


def __getattr__(name: str) -> Any:
    if name == "SearchChinese":  # imported only by a zh build (it loads jieba)
        from sphinx.search.zh import SearchChinese as Base

        return type("SearchChinese", (Base,), {"language_name": "English"})
    raise AttributeError(name)


def setup(app: Sphinx) -> dict[str, Any]:
    from polybook.stage import sphinx_speed

    sphinx_speed.install(app)
    _chinese_search()
    app.add_config_value("polybook_site", {}, "html", types=frozenset({dict}))
    # polybook's renderer: a new one reads every document again (its transforms shape the doctrees:
    # what search skips, the tabs), as a cold build would, where Sphinx would keep the old doctrees
    app.add_config_value(RENDERER, "", "env", types=frozenset({str}))
    app.add_transform(CrossLanguageAnchors)
    app.add_transform(KeepFilesInside)
    search.setup(app)  # what the index skips, and the ranking searchindex.js gets
    app.connect("html-page-context", page_context)
    # Which warnings an incremental build re-emits (polybook.stage.sphinx_run.PhasedWarnings):
    app.connect("env-before-read-docs", _phase("read"))
    app.connect("env-get-updated", _phase("consistency"))  # after the read warnings are flushed
    app.connect("env-get-updated", navigation.rewrite_on_change)
    app.connect("html-page-context", navigation.page_written)
    app.connect("build-finished", navigation.record_written)
    app.connect("builder-inited", navigation.write_parents_only_on_change)
    app.connect("env-check-consistency", _record("consistency"))
    app.connect("write-started", _phase("write"))
    app.connect("doctree-resolved", _record("written"))
    app.connect("source-read", _record("reading"))
    app.add_css_file("polybook.css")
    app.add_js_file("polybook.js", loading_method="defer")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
