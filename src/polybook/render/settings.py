"""Sphinx settings per language, on top of the book's one ``conf.py``.

Sphinx executes ``conf.py`` itself (it is the confdir of every build); polybook adds what
a language needs -- ``language``, title, search language, the extensions, the theme and
the site data for the switcher -- as ``confoverrides``. Settings the book sets itself
(theme, theme options, extensions, static paths) are kept and extended, not replaced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.render import status_page
from polybook.render.site_info import LanguageSite, NotebookPlace, PdfLink, SiteInfo, SiteLanguage
from polybook.render.stage import LOCALE_DIR, STAGED_DIRS
from polybook.stage.documents import SERVED_DIR, Stage
from polybook.stage.i18n import SPHINX_LANGUAGE, text
from polybook.stage.safe_html import CONFIG_NAME as TRUSTED_HTML
from polybook.stage.safe_html import POLICY_NAME, policy_version, trusted_documents
from polybook.stage.settings import bibtex_settings, guard_settings, myst_extensions

#: The Sphinx setting that holds polybook's renderer version (``render.build.renderer_version``),
#: registered by :mod:`polybook.render.sphinx_ext` as one whose change reads every document again.
RENDERER = "polybook_renderer"
ASSETS = Path(__file__).parent / "assets"
#: polybook's search ranking (the page whose title holds the query first: :mod:`polybook.render.search`),
#: a path: importing that module here would load Sphinx's application before any build needs it.
SEARCH_SCORER = ASSETS / "search-scorer.js"
MATHJAX_DIR = "_mathjax"  # at the site root, shared by every language
#: sphinx-copybutton's strings (its ``messages`` table), from :mod:`polybook.stage.i18n`.
COPYBUTTON_KEYS = ("copy", "copy_to_clipboard", "copy_success", "copy_failure")
EXTENSIONS = [
    "myst_parser",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinx.ext.mathjax",
    "polybook.render.sphinx_ext",
    "polybook.stage.safe_html",  # no active HTML from a chapter (raw HTML cleaned, javascript: links dropped)
    "polybook.stage.math_labels",  # an amsmath block's anchor the same on every build
]
#: What the site's Sphinx workers import ahead, in the fork server (:mod:`polybook.stage.workers`).
SITE_MODULES = ("sphinx.builders.html", "pydata_sphinx_theme", *EXTENSIONS)


def hreflang(lang: str) -> str:
    return lang.replace("_", "-")


def site_info(
    config: BookConfig,
    pdfs: dict[str, tuple[PdfLink, ...]],
    notebooks: dict[str, tuple[PdfLink, ...]] | None = None,
    places: dict[str, tuple[NotebookPlace, ...]] | None = None,
) -> SiteInfo:
    """What every page needs to know about the other languages: their names and titles, the
    documents each has (from the file names: nothing is parsed), and ``pdfs``: the PDFs each
    language's header links (the site gives them), ``notebooks`` the notebooks' zips, ``places``
    where each framework's notebooks are (linked inside the framework tabs)."""
    documents = {lang: config.document_names(lang) for lang in config.languages}
    names = {lang: settings.name for lang, settings in config.languages.items()}
    source = config.source_language
    return SiteInfo(
        source,
        tuple(
            SiteLanguage(lang, settings.name, hreflang(lang), settings.title, tuple(documents[lang]))
            for lang, settings in config.languages.items()
        ),
        documents,
        names,
        {lang: text(lang, "fallback", language=names[lang], source=names[source]) for lang in config.languages},
        str(config.sphinx.get("html_baseurl") or ""),
        {lang: pdfs.get(lang, ()) for lang in config.languages},
        notebooks={lang: (notebooks or {}).get(lang, ()) for lang in config.languages},
        notebook_places={lang: (places or {}).get(lang, ()) for lang in config.languages},
    )


def overrides(
    config: BookConfig, language: str, site: SiteInfo, bibs: list[Path], stage: Stage | None = None
) -> dict[str, Any]:
    """``stage``: the staged sources, for the catalog of theme strings staged with them."""
    lang = config.languages[language]
    user = config.sphinx
    extensions = [*user.get("extensions", []), *(e for e in EXTENSIONS if e not in user.get("extensions", []))]
    theme_options = {
        # the downloads and the languages stay in the header on a phone too (the theme moves
        # navbar_end into the side menu, under the chapters)
        "navbar_end": ["theme-switcher"],
        "navbar_persistent": ["search-button-field", "polybook-pdfs", "polybook-languages"],
        "secondary_sidebar_items": ["page-toc"],
        "show_prev_next": True,
        "show_toc_level": 2,
        "navigation_with_keys": False,
        "logo": {"text": lang.title},
        "footer_start": ["copyright"],
        "footer_end": [],
        "search_bar_text": text(language, "search_bar"),
        # the theme renders every sidebar and header template once more on every page to drop
        # those that come out empty; polybook's table of contents never does (a twentieth of a
        # language's build) -- the theme's own two as it has them
        "templates_skip_empty_check": ["sidebar-nav-bs.html", "navbar-nav.html", "polybook-toc.html"],
        **user.get("html_theme_options", {}),
    }
    values: dict[str, Any] = {
        "language": SPHINX_LANGUAGE.get(language, language),
        "project": lang.title or config.title,
        "html_title": lang.title or config.title,
        "extensions": extensions,
        "root_doc": "index",
        "source_suffix": {".md": "markdown"},
        "exclude_patterns": [*user.get("exclude_patterns", []), *STAGED_DIRS],
        # polybook's toc reports a document no toc block reaches (toc.unreached), at its path
        "suppress_warnings": sorted({*user.get("suppress_warnings", []), "toc.not_included"}),
        "myst_enable_extensions": myst_extensions(config),
        "myst_dmath_double_inline": True,
        "numfig": True,
        "html_theme": user.get("html_theme", "pydata_sphinx_theme"),
        "html_theme_options": theme_options,
        "html_sidebars": user.get("html_sidebars", {"**": ["polybook-toc.html"]}),
        "templates_path": [*_paths(config, user.get("templates_path", [])), str(ASSETS / "templates")],
        "html_static_path": [*_paths(config, user.get("html_static_path", [])), str(ASSETS / "static")],
        "html_context": {"default_mode": "light", **user.get("html_context", {})},
        "html_favicon": user.get("html_favicon", str(ASSETS / "polybook-icon.svg")),
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "html_last_updated_fmt": None,
        "html_search_language": search_language(language),
        "html_search_options": {**_search_options(language), **user.get("html_search_options", {})},
        "html_search_scorer": user.get("html_search_scorer") or str(SEARCH_SCORER),  # polybook's ranking
        "mathjax_path": f"../../{MATHJAX_DIR}/MathJax.js?config=TeX-AMS_CHTML",  # after Sphinx's _static/
        "mathjax2_config": {
            "tex2jax": {
                "inlineMath": [["\\(", "\\)"]],
                "displayMath": [["\\[", "\\]"]],
                "processEscapes": True,
                # myst-parser marks the page tex2jax_ignore and relies on the math class
                "processClass": "tex2jax_process|mathjax_process|math|output_area",
            },
            "CommonHTML": {"linebreaks": {"automatic": True}},
        },
        "copybutton_selector": "div:not(.output) > div.highlight > pre",
        "copybutton_exclude": ".linenos, .gp, .go",
        TRUSTED_HTML: _trusted_pages(config, language),
        POLICY_NAME: policy_version(),
        "polybook_site": LanguageSite(
            site, language, {key: text(language, key) for key in COPYBUTTON_KEYS}, stage.catalog if stage else ""
        ).to_json(),
    }
    if stage and (stage.srcdir / SERVED_DIR).is_dir():  # the files raw HTML loads, at their URL's place
        values["html_extra_path"] = [*_paths(config, user.get("html_extra_path", [])), str(stage.srcdir / SERVED_DIR)]
    if stage and stage.catalog:
        values["locale_dirs"] = [*user.get("locale_dirs", ["locales"]), str(stage.srcdir / LOCALE_DIR)]
    values.update(bibtex_settings(config, bibs, extensions))
    values.update(guard_settings(config, extensions))
    return values


def _trusted_pages(config: BookConfig, language: str) -> list[str]:
    """The pages whose raw HTML is kept: those of conf.py's ``trusted_html`` and polybook's own
    status page (its tables are filled in its raw HTML after Sphinx), unless a chapter has its name."""
    names = config.document_names(language)
    own = [] if status_page.DOCNAME in names else [status_page.DOCNAME]
    return sorted([*trusted_documents(config, language, names), *own])


#: Search languages whose index loads a large dictionary: what loads it in the Sphinx workers'
#: fork server (:mod:`polybook.stage.workers`).
SEARCH_PRELOAD = {"zh": "polybook.stage.sphinx_speed:load_chinese_dictionary"}


def search_preload(languages: list[str]) -> list[str]:
    """What the search indexes of ``languages`` load that the fork server can load ahead."""
    return sorted({SEARCH_PRELOAD[search] for lang in languages if (search := search_language(lang)) in SEARCH_PRELOAD})


def search_language(lang: str) -> str:
    """The language of a language's search index (Sphinx's ``html_search_language``)."""
    return lang.split("_")[0]


def _search_options(lang: str) -> dict[str, str]:
    """Sphinx's Japanese search segments all text with a slow pure-Python segmenter: ours
    segments only the Japanese in it (:class:`polybook.stage.sphinx_speed.JapaneseSplitter`)."""
    return {"type": "polybook.stage.sphinx_speed.JapaneseSplitter"} if search_language(lang) == "ja" else {}


def _paths(config: BookConfig, paths: list[str]) -> list[str]:
    return [str((config.root / p).resolve()) for p in paths]
