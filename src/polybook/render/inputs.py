"""What a language's site is built from, as one fingerprint of file metadata.

Before anything is parsed, ``build html`` compares each language's fingerprint with the one
stored beside its site: a language whose inputs did not change is not parsed, evaluated,
staged or given to Sphinx (a 170-section book with nothing changed builds in about a second).
The fingerprint is conservative -- file sizes and modification times, not contents -- so a
touched file without a change only costs the usual, content-based checks of the full path
(the staged digest, Sphinx's own incremental build).

A language's site depends on: its own folder and the source language's (headings give the
anchors; figures fall back to the source's files), anything else in the chapters folder
(figures shared by a flat book), the document names of every language (the language switcher
and hreflang links), conf.py and the bibliography, the renderer and parser code, and the
outputs -- the stored results and what the execution depends on (the kernels' environment,
frozen results, the built library) -- and the PDFs the header links.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.config.digest import book_settings, named_files, sphinx_settings
from polybook.models import parser_version


def tree_stats(folder: Path) -> list[tuple[str, int, int]]:
    """(path relative to ``folder``, size, mtime) of every file below it, hidden ones left out."""
    out: list[tuple[str, int, int]] = []
    if not folder.is_dir():
        return out
    top = str(folder)
    for root, dirs, files in os.walk(top):  # strings, not Paths: d2l's 7,000 files a build
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        prefix = os.path.relpath(root, top).replace(os.sep, "/") + "/" if root != top else ""
        # a link to a folder is not walked here: it stands for itself (a new one, maybe refused, a loop)
        out += [(prefix + d + "/", -1, 0) for d in dirs if os.path.islink(os.path.join(root, d))]
        for name in sorted(files):
            if name.startswith("."):
                continue
            try:
                info = os.stat(os.path.join(root, name))
            except OSError:
                if os.path.islink(os.path.join(root, name)):  # to nothing, or a loop: refused, said
                    out.append((prefix + name, -1, 0))
                continue
            out.append((prefix + name, info.st_size, info.st_mtime_ns))
    return out


def file_stats(paths: Iterable[Path]) -> list[tuple[str, int, int]]:
    out = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            continue
        out.append((str(path), info.st_size, info.st_mtime_ns))
    return out


class SiteInputs:
    """Fingerprints of the languages of one ``build html`` (:meth:`of`)."""

    def __init__(
        self, config: BookConfig, evaluate: bool, renderer: str, linked: list[str], environment: Any = None
    ) -> None:
        """``linked``: the languages the site links (built before, or now); ``environment``: the
        kernels' fingerprints when the build evaluates."""
        self.config = config
        self.evaluate = evaluate
        self.environment = environment
        self._trees: dict[Path, list[tuple[str, int, int]]] = {}
        chapters = config.chapters_dir
        others = [p for p in sorted(chapters.iterdir()) if p.name not in config.languages] if chapters.is_dir() else []
        shared: dict[str, Any] = {
            "renderer": renderer,
            "parser": parser_version(),
            # conf.py as parsed (a comment changes nothing) and the files its Sphinx settings name
            "conf": [sphinx_settings(config), book_settings(config)],
            "named": file_stats(named_files(config)),
            "evaluate": evaluate,
            "pages": {lang: config.document_names(lang) for lang in config.languages},
            "linked": linked,
            "chapters": [self.tree(p) if p.is_dir() else file_stats([p]) for p in others],
            "bib": file_stats(Path(p) for p in (config.sphinx.get("bibtex_bibfiles") or [])),
            "library": self.tree(config.build_dir / "lib"),  # the modules API pages document
        }
        if evaluate:
            shared["execution"] = repr(config.execution)  # what the evaluation of this build runs with
            shared["environment"] = environment
            shared["frozen"] = self.tree(config.execution.frozen_dir)
        self.shared = json.dumps(shared, sort_keys=True, default=str)

    def tree(self, folder: Path) -> list[tuple[str, int, int]]:
        if folder not in self._trees:
            self._trees[folder] = tree_stats(folder)
        return self._trees[folder]

    def of(self, lang: str, chapters: bool = True) -> str:
        """``lang``'s fingerprint; without ``chapters``, its chapters' Markdown files left out
        of it (what staging reads of them besides their text is their shape:
        :mod:`polybook.render.kept_stage`)."""
        config = self.config
        language = self.tree(config.chapters_dir / lang)
        source = self.tree(config.chapters_dir / config.source_language)
        if not chapters:
            language, source = _without_markdown(language), _without_markdown(source)
        own: dict[str, Any] = {
            "language": language,
            "source": source,
            "pdfs": sorted(path.name for path in (config.build_dir / "pdf" / lang).glob("*.pdf")),
            # the notebooks' zips (polybook build notebooks): the header links them, the pages their folders
            "notebooks": sorted(path.name for path in (config.build_dir / "notebooks" / lang).glob("*.zip")),
        }
        # The stored results: written by this build's evaluation only when they change, and by
        # `polybook build eval` (--rerun-failed may turn a failure into outputs).
        own["outputs"] = self.tree(config.build_dir / "eval" / lang)
        blob = self.shared + json.dumps(own, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _without_markdown(stats: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    return [entry for entry in stats if not entry[0].endswith(".md")]
