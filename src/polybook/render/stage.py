"""Stage one language for the site: :func:`polybook.stage.documents.stage_documents` with what
only HTML does -- every framework in tabs, links to other pages and files, each page's sidecar
(its anchors and labels, for :mod:`polybook.render.sphinx_ext`), pages polybook writes (the
translation-status page) and the catalog of the theme's strings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document, Heading
from polybook.files import display_path, resolved
from polybook.render.notebook_links import notebook_links
from polybook.render.site_info import NotebookPlace
from polybook.stage.documents import (
    SERVED_DIR,
    Stage,
    StagePolicy,
    Staging,
    cross_language_anchors,
    headings,
    local_link,
    stage_documents,
)
from polybook.stage.i18n import SPHINX_LANGUAGE

#: Where each page's sidecar (its anchors and labels, for :mod:`polybook.render.sphinx_ext`) is staged.
SIDECAR_DIR = "_polybook"
#: Where the language's catalog of theme strings is staged for Sphinx (its ``locale_dirs``).
LOCALE_DIR = "_locale"
#: Staged folders that hold no documents (Sphinx's ``exclude_patterns``).
STAGED_DIRS = ("_book", "_outputs", SIDECAR_DIR, LOCALE_DIR, SERVED_DIR)
#: polybook's catalogs of the theme's UI strings, one per language (``ja.po``...).
CATALOGS = Path(__file__).parent / "assets" / "locale"


def stage_language(
    config: BookConfig,
    lang: str,
    docs: dict[str, Document],
    source_headings: dict[str, list[Heading]],
    results: dict[str, dict[str, Any]],
    srcdir: Path,
    bibfiles: list[Path],
    extra: dict[str, str] | None = None,
    *,
    stored: bool = False,
    notebooks: tuple[NotebookPlace, ...] = (),
    only: set[str] | None = None,
) -> Stage:
    """Write ``srcdir`` for ``language``'s site; ``source_headings``: the source language's, for
    the anchors shared across languages; ``extra`` maps docname -> MyST of generated pages;
    ``notebooks``: where each framework's notebooks are (linked under every page's title);
    ``only``: stage just these documents (:func:`polybook.stage.documents.stage_documents`)."""
    policy = SitePages(source_headings, extra or {}, notebooks)
    return stage_documents(config, lang, docs, results, srcdir, bibfiles, policy, stored=stored, only=only)


class SitePages(StagePolicy):
    cite_code = Code.HTML_CITE_NO_BIB

    def __init__(
        self,
        source_headings: dict[str, list[Heading]],
        extra: dict[str, str],
        notebooks: tuple[NotebookPlace, ...] = (),
    ) -> None:
        self.source_headings = source_headings
        self.extra = extra
        self.notebooks = notebooks

    def after_title(self, staging: Staging, name: str, doc: Document) -> list[str]:
        return notebook_links(staging.language, name, doc, self.notebooks)

    def figure(self, staging: Staging, name: str, doc: Document, src: str, line: int) -> str | None:
        if "://" in src or src.startswith("data:"):
            return src
        files = staging.files
        if not files.own(name, src).is_relative_to(staging.root):
            message = f"figure {src!r} is outside the book root {display_path(staging.root)}; not rendered"
            staging.say(doc.path, line, Code.HTML_FIGURE_OUTSIDE, message)
            return None
        target = files.find(name, src)
        if target is None:
            message = f"figure {src!r} not found ({display_path(files.own(name, src))})"
            staging.say(doc.path, line, Code.HTML_FIGURE_MISSING, message)
            return None
        return files.stage(target)

    def link(self, staging: Staging, name: str, doc: Document) -> Callable[[str, int], str | None]:
        config, root = staging.config, staging.root
        doc_file = config.document_path(staging.language, name)
        chapters = config.chapters_dir.resolve()

        def link(href: str, line: int) -> str | None:
            local = local_link(href)
            if local is None:  # a URL or an anchor of this page
                return href
            path, rest = local
            if path.startswith("/"):
                target = resolved(root / path.lstrip("/"))  # never raises, a link loop too
            else:
                target = staging.files.find(name, path) or resolved(doc_file.parent / path)
            if not target.is_relative_to(root):
                message = f"link {href!r} is outside the book root {display_path(root)}; shown as text"
                staging.say(doc.path, line, Code.HTML_LINK_OUTSIDE, message)
                return None
            if target.suffix == ".md" and target.is_relative_to(chapters):  # a chapter: its page
                page = config.document_name(target)
                return f"/{page}.md{rest}" if page in staging.docs else href  # else Sphinx says it is missing
            if target.is_file():  # a file of the book: staged like a figure, a download
                return staging.files.stage(target) + rest
            return href  # not found: Sphinx reports it

        return link

    def staged(self, staging: Staging, name: str, doc: Document) -> None:
        sidecar = {
            "path": doc.path,
            "anchors": cross_language_anchors(headings(doc), self.source_headings.get(name)),
            "labels": sorted(doc.labels),
        }
        staging.put(f"{SIDECAR_DIR}/{name}.json", json.dumps(sidecar, ensure_ascii=False).encode())

    def finish(self, staging: Staging, docs: dict[str, Document]) -> None:
        for name, myst_text in self.extra.items():
            if name not in docs:  # a chapter of the same name wins
                staging.put(f"{name}.md", myst_text.encode("utf-8"))
        language = staging.language
        po = CATALOGS / f"{language.split('_')[0]}.po"
        if po.is_file():  # Sphinx compiles it to sphinx.mo beside it
            folder = f"{LOCALE_DIR}/{SPHINX_LANGUAGE.get(language, language)}/LC_MESSAGES"
            catalog = po.read_bytes()
            staging.put(f"{folder}/sphinx.po", catalog)
            script = script_catalog(SPHINX_LANGUAGE.get(language, language), po)
            if script is not None:  # the search page's strings (Sphinx looks in locale_dirs first)
                staging.put(f"{folder}/sphinx.js", script)
            staging.stage.catalog = hashlib.sha256(catalog).hexdigest()[:16]
            staging.wanted.add(f"{folder}/sphinx.mo")


def script_catalog(language: str, po: Path) -> bytes | None:
    """Sphinx's catalog of its scripts' strings (the search page's) in ``language``, with the
    strings it leaves empty -- shown as nothing at all -- taken from polybook's catalog ``po``,
    or else left out (shown in English); None when Sphinx's has none empty or there is none."""
    from babel.messages.pofile import read_po
    from sphinx import package_dir

    shipped = Path(package_dir) / "locale" / language / "LC_MESSAGES" / "sphinx.js"
    try:
        text = shipped.read_text(encoding="utf-8")
    except OSError:
        return None
    prefix, suffix = "Documentation.addTranslations(", ");"
    body = text.strip()
    if not body.startswith(prefix) or not body.endswith(suffix):
        return None
    data = json.loads(body[len(prefix) : -len(suffix)])
    messages: dict[str, Any] = data.get("messages", {})
    empty = [key for key, value in messages.items() if not (any(value) if isinstance(value, list) else value)]
    if not empty:
        return None
    with po.open("rb") as file:
        ours = {m.id[0] if isinstance(m.id, tuple) else m.id: m.string for m in read_po(file) if m.id and m.string}
    for key in empty:
        found = ours.get(key)
        if found and any(found):
            messages[key] = list(found) if isinstance(found, tuple) else found
        else:
            del messages[key]
    return f"{prefix}{json.dumps(data, ensure_ascii=False, indent=4)}{suffix}\n".encode()
