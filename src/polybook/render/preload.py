"""Imported by the fork server the Sphinx workers come from (:mod:`polybook.render.workers`):
Sphinx, the extensions polybook's builds load, and what the server's environment names --
modules, and ``module:function`` to call (a search dictionary to load).

A module that fails to import is left alone here: the worker imports it again, and Sphinx
reports the failure against the page that needed it.
"""

from __future__ import annotations

import importlib
import os

from polybook.render.workers import PRELOAD_VARIABLE

#: What every Sphinx worker imports: the build, its builders and polybook's extensions.
SPHINX_MODULES = (
    "polybook.render.sphinx_run",
    "polybook.render.sphinx_ext",
    "polybook.render.sphinx_speed",
    "sphinx.application",
    "sphinx.builders.html",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "myst_parser.parsers.sphinx_",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinxcontrib.bibtex",
    "pydata_sphinx_theme",
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
