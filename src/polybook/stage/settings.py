"""Sphinx settings HTML and PDF share: the language's bibliography and sphinxcontrib-bibtex's
settings, the MyST syntax the staged pages use. Each output adds its own on top
(:mod:`polybook.render.settings`, :func:`polybook.pdf.build.sphinx_overrides`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polybook.config import BookConfig

#: MyST syntax the staged pages use (HTML and PDF alike): $-math, ::: fences, amsmath blocks.
MYST_EXTENSIONS = ("amsmath", "colon_fence", "dollarmath")


def bibfiles(config: BookConfig, lang: str) -> list[Path]:
    """The language's bibliography: conf.py's ``polybook.bibfile`` (relative to the language's
    folder, the source language's file when it has none), and any ``bibtex_bibfiles`` (relative
    to the book root) -- as files that exist."""
    raw = config.sphinx.get("bibtex_bibfiles") or []
    files = [raw] if isinstance(raw, str) else list(raw)
    found = [(config.root / name).resolve() for name in files if (config.root / name).is_file()]
    own = config.bibliography(lang)
    return [own, *found] if own is not None else found


def myst_extensions(config: BookConfig) -> list[str]:
    """The book's own ``myst_enable_extensions`` plus those polybook's staged pages need."""
    return sorted({*config.sphinx.get("myst_enable_extensions", []), *MYST_EXTENSIONS})


def guard_settings(config: BookConfig, extensions: list[str]) -> dict[str, Any]:
    """What makes a Sphinx build refuse to import the book's code (:mod:`polybook.stage.guard`):
    the folders a translation can change or ``build eval`` builds from, with the extension;
    ``extensions`` is extended in place."""
    from polybook.stage.guard import SETTING

    if "polybook.stage.guard" not in extensions:
        extensions.append("polybook.stage.guard")
    folders = [config.chapters_dir, config.build_dir, *(edition.folder for edition in config.editions.values())]
    return {SETTING: [str(folder.resolve()) for folder in folders]}


def bibtex_settings(config: BookConfig, bibs: list[Path], extensions: list[str]) -> dict[str, Any]:
    """sphinxcontrib-bibtex for a language with a .bib (HTML and PDF alike): its files, the
    d2l citation style (:mod:`polybook.stage.bibstyle`) unless the book chose one;
    ``extensions`` is extended in place."""
    if not bibs:
        return {}
    for extension in ("sphinxcontrib.bibtex", "polybook.stage.bibstyle"):
        if extension not in extensions:
            extensions.append(extension)
    user = config.sphinx
    return {
        "bibtex_bibfiles": [str(path) for path in bibs],
        "bibtex_default_style": user.get("bibtex_default_style", "plain"),
        "bibtex_reference_style": user.get("bibtex_reference_style", "author_year_round"),
    }
