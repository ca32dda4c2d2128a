"""What the site links of the notebooks: each language's zips (in its header, next to the PDFs), and
per framework where its notebooks are (inside that framework's tab of every page): the notebook
to download, beside the page, and where to launch it when conf.py says where launch notebooks
are published (:mod:`polybook.config.notebooks`).

On the site a language's notebooks are ``<lang>/notebooks/<framework>/<document>.ipynb`` and its
zips ``<lang>/notebooks/<zip>``; only what ``build notebooks`` made is linked, so a link never
leads to a 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polybook.config import BookConfig
from polybook.notebooks.build import notebook_targets

COLAB = "https://colab.research.google.com/github"
STUDIO_LAB = "https://studiolab.sagemaker.aws/import/github"


@dataclass(frozen=True, slots=True)
class SiteDownload:
    name: str  # as the header shows it: "Notebooks (PyTorch)"
    path: str  # relative to the site root
    source: Path  # the file in the build


@dataclass(frozen=True, slots=True)
class SiteNotebooks:
    """One language and framework's notebooks on the site."""

    framework: str
    label: str
    folder: str  # relative to the site root: "ja/notebooks/pytorch"
    source: Path  # build/notebooks/ja/pytorch
    colab: str = ""  # launch URL of the folder ("" when conf.py names no place)
    studio_lab: str = ""


def site_downloads(config: BookConfig, lang: str) -> list[SiteDownload]:
    """The zips of ``lang`` that were built, for its header."""
    from polybook.stage.i18n import text

    return [
        SiteDownload(
            f"{text(lang, 'notebooks')} ({config.label_of(t.framework)})", f"{lang}/notebooks/{t.zip.name}", t.zip
        )
        for t in notebook_targets(config, [lang])
        if t.zip.is_file()
    ]


def site_notebooks(config: BookConfig, lang: str) -> list[SiteNotebooks]:
    """Each framework of ``lang`` whose notebooks were built: where they are, where they launch."""
    out = []
    for target in notebook_targets(config, [lang]):
        if not target.folder.is_dir():
            continue
        place = config.notebooks.place(lang, target.framework)
        colab = studio = ""
        if place is not None:
            inside = f"{place.repository}/blob/{place.branch}/{place.folder(lang, target.framework)}"
            colab, studio = f"{COLAB}/{inside}", f"{STUDIO_LAB}/{inside}"
        label = config.label_of(target.framework)
        folder = f"{lang}/notebooks/{target.framework}"
        out.append(SiteNotebooks(target.framework, label, folder, target.folder, colab, studio))
    return out
