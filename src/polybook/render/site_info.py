"""What every page knows about the site around it: its languages, their names and titles, the
documents each has, the PDFs each header links, the translation-status page.

Made once per ``build html`` (:func:`polybook.render.settings.site_info`), read by the site's
assembly (:mod:`polybook.site.assemble`) and, per language, handed to Sphinx as the
``polybook_site`` config value (plain JSON data: :meth:`LanguageSite.to_json`), which polybook's
Sphinx extension reads back (:meth:`LanguageSite.from_json`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from polybook.render.counterparts import Counterpart, Switch, language_switch, switch_from_json


@dataclass(frozen=True, slots=True)
class PdfLink:
    name: str  # as the header shows it: "PDF (PyTorch)"
    path: str  # relative to the site root: "ja/pdf/dive-into-deep-learning-pytorch.pdf"


@dataclass(frozen=True, slots=True)
class NotebookPlace:
    """Where one framework's notebooks of a language are, for the links inside that framework's
    tab of every page with code: the notebook to download, and where to launch it."""

    framework: str
    label: str  # as readers see the framework: "PyTorch"
    folder: str  # relative to the site root: "ja/notebooks/pytorch" (holds <document>.ipynb)
    colab: str = ""  # "https://colab.research.google.com/github/<repo>/blob/<branch>/ja/pytorch" ("" none)
    studio_lab: str = ""  # the same for SageMaker Studio Lab


@dataclass(frozen=True, slots=True)
class SiteLanguage:
    lang: str
    name: str  # the language's name in itself
    hreflang: str
    title: str  # the book's title in it
    pages: tuple[str, ...]  # its pages: its documents, and the pages polybook writes


@dataclass(frozen=True, slots=True)
class SiteInfo:
    source_language: str
    languages: tuple[SiteLanguage, ...]
    documents: dict[str, list[str]]  # language -> its documents (pages polybook writes aside)
    names: dict[str, str]  # language -> its name in itself
    fallback_notices: dict[str, str]  # language -> "this page is not translated" in it
    baseurl: str = ""
    pdfs: dict[str, tuple[PdfLink, ...]] = field(default_factory=dict)
    status: str = ""  # the translation-status page's docname, "" when there is none
    notebooks: dict[str, tuple[PdfLink, ...]] = field(default_factory=dict)  # the notebooks' zips each header links
    notebook_places: dict[str, tuple[NotebookPlace, ...]] = field(default_factory=dict)  # per language
    switch: Switch = field(default_factory=dict)  # where a page switches to another language that lacks its name

    def language(self, lang: str) -> SiteLanguage:
        return next(language for language in self.languages if language.lang == lang)

    def counterpart(self, lang: str, page: str, other: str) -> Counterpart | None:
        """Where ``lang``'s ``page`` switches to in ``other``: the page of the same name when it
        has one, else its counterpart (:mod:`polybook.render.counterparts`); None: the source's
        page of that name (with a notice), ``other``'s front page, or ``other`` is not linked."""
        theirs = next((language for language in self.languages if language.lang == other), None)
        if theirs is None:  # not linked: not built yet
            return None
        if page in theirs.pages:
            return Counterpart(page)
        return self.switch.get(lang, {}).get(page, {}).get(other)

    def with_switch(self, switch: Switch) -> SiteInfo:
        return replace(self, switch=switch)

    def with_languages(self, langs: list[str]) -> SiteInfo:
        """Only the languages ``langs`` (their pages, chooser and sitemap)."""
        return replace(
            self,
            languages=tuple(language for language in self.languages if language.lang in langs),
            documents={lang: pages for lang, pages in self.documents.items() if lang in langs},
            switch={
                lang: {page: {o: c for o, c in targets.items() if o in langs} for page, targets in pages.items()}
                for lang, pages in self.switch.items()
                if lang in langs
            },
        )

    def with_status(self, docname: str) -> SiteInfo:
        """With the translation-status page ``docname`` in every language."""
        languages = tuple(
            language if docname in language.pages else replace(language, pages=(*language.pages, docname))
            for language in self.languages
        )
        return replace(self, languages=languages, status=docname)

    def url(self, path: str) -> str:
        """``path`` (relative to the site root), percent-encoded (a page's file may be named with
        spaces or in any script), under the site's base URL when it has one."""
        base = self.baseurl.rstrip("/")
        return f"{base}/{quote(path)}" if base else quote(path)


@dataclass(frozen=True, slots=True)
class LanguageSite:
    """The site as one language's pages see it: Sphinx's ``polybook_site`` value."""

    site: SiteInfo
    language: str
    copybutton: dict[str, str] = field(default_factory=dict)  # sphinx-copybutton's strings in it
    catalog: str = ""  # the staged catalog's hash: Sphinx does not see a catalog change, a config change it does

    @property
    def pdfs(self) -> tuple[PdfLink, ...]:
        return self.site.pdfs.get(self.language, ())

    @property
    def notebooks(self) -> tuple[PdfLink, ...]:
        return self.site.notebooks.get(self.language, ())

    def to_json(self) -> dict[str, Any]:
        site = self.site
        data: dict[str, Any] = {
            "source_language": site.source_language,
            "languages": [
                {
                    "code": language.lang,
                    "name": language.name,
                    "hreflang": language.hreflang,
                    "title": language.title,
                    "pages": list(language.pages),
                }
                for language in site.languages
            ],
            "pages": site.documents,
            "names": site.names,
            "fallback_notices": site.fallback_notices,
            "baseurl": site.baseurl,
            "pdfs": [{"name": pdf.name, "path": pdf.path} for pdf in self.pdfs],
        }
        if self.notebooks:
            data["notebooks"] = [{"name": link.name, "path": link.path} for link in self.notebooks]
        if site.status:
            data["status"] = site.status
        if site.switch.get(self.language):
            data["switch"] = language_switch(site.switch, self.language)
        return {**data, "language": self.language, "copybutton": self.copybutton, "catalog": self.catalog}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LanguageSite:
        language = str(data["language"])
        site = SiteInfo(
            str(data["source_language"]),
            tuple(
                SiteLanguage(e["code"], e["name"], e["hreflang"], e["title"], tuple(e["pages"]))
                for e in data["languages"]
            ),
            {lang: list(pages) for lang, pages in data.get("pages", {}).items()},
            dict(data.get("names", {})),
            dict(data.get("fallback_notices", {})),
            str(data.get("baseurl") or ""),
            {language: tuple(PdfLink(p["name"], p["path"]) for p in data.get("pdfs", []))},
            str(data.get("status") or ""),
            {language: tuple(PdfLink(p["name"], p["path"]) for p in data.get("notebooks", []))},
            switch={language: switch_from_json(data.get("switch", {}))},
        )
        return cls(site, language, dict(data.get("copybutton") or {}), str(data.get("catalog", "")))
