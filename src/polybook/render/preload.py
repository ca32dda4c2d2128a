"""Imported by the fork server the Sphinx workers come from (:mod:`polybook.render.workers`):
Sphinx, the extensions polybook's builds load, and what the server's environment names --
modules, and ``module:function`` to call (a search dictionary to load).

A module that fails to import is left alone here: the worker imports it again, and Sphinx
reports the failure against the page that needed it.
"""

from __future__ import annotations

import importlib
import os

from polybook.render.settings import EXTENSIONS
from polybook.render.workers import PRELOAD_VARIABLE

#: What every Sphinx worker imports: the build, Sphinx's builder, and the extensions and theme
#: polybook's settings load.
SPHINX_MODULES = (
    "polybook.stage.sphinx_run",
    "sphinx.application",
    "sphinx.builders.html",
    "sphinx.ext.autodoc",
    "myst_parser.parsers.sphinx_",
    "sphinxcontrib.bibtex",
    "pydata_sphinx_theme",
    *EXTENSIONS,
)


def _import_all() -> None:
    extra = [name for name in os.environ.get(PRELOAD_VARIABLE, "").split(",") if name]
    for name in (*SPHINX_MODULES, *extra):
        module, _, function = name.partition(":")
        try:
            imported = importlib.import_module(module)
            if function:
                getattr(imported, function)()
        except Exception:  # a failure is the worker's to report (the docstring)
            continue


_import_all()
