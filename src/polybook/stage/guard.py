"""A Sphinx build imports nothing of the book: the last wall behind the API pages.

The API pages are written from the library's source (:mod:`polybook.stage.api_source`) and a
chapter's autodoc directive never reaches Sphinx (:mod:`polybook.stage.eval_rst`), but a
book's conf.py may load extensions that import (autodoc, autosummary) and a way round those
rules may yet be found. This Sphinx extension, loaded by every HTML and PDF build, makes the
import system of the Sphinx process refuse any module whose file lies in the folders conf.py's
``polybook_book_code`` names -- the chapters, the build folder, the editions: what a
translation can change and what ``build eval`` builds from it. What conf.py itself imports
(before the extension is set up) is the maintainer's, as conf.py is (docs/trust.md).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The Sphinx setting that names the book's code folders.
SETTING = "polybook_book_code"


class BookCodeRefused(importlib.abc.MetaPathFinder):
    """A finder first on ``sys.meta_path`` that raises ImportError for a module found in
    ``folders``, and lets the other finders find any other."""

    def __init__(self, folders: Sequence[Path]) -> None:
        self.folders = tuple(folder.resolve() for folder in folders)

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: Any = None) -> None:
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None:
            return None
        places = [spec.origin] if spec.origin and spec.has_location else list(spec.submodule_search_locations or [])
        for place in places:
            where = Path(place).resolve()
            if any(where.is_relative_to(folder) for folder in self.folders):
                raise ImportError(
                    f"polybook: {name} ({where}) is the book's code: a Sphinx build imports nothing of the "
                    "book (docs/trust.md)",
                    name=name,
                )
        return None


def refuse_book_code(folders: Sequence[Path]) -> BookCodeRefused:
    """Install the finder for ``folders`` in this process (once: a second call replaces it)."""
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, BookCodeRefused)]
    finder = BookCodeRefused(folders)
    sys.meta_path.insert(0, finder)
    return finder


def setup(app: Any) -> dict[str, Any]:
    from polybook import __version__

    app.add_config_value(SETTING, [], "env", types=frozenset({list}))

    def install(app: Any, config: Any) -> None:
        folders = [Path(folder) for folder in getattr(config, SETTING)]
        if folders:
            refuse_book_code(folders)

    app.connect("config-inited", install, priority=100)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
