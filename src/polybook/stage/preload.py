"""Imported by the fork server the Sphinx workers come from (:mod:`polybook.stage.workers`):
Sphinx, and what the server's environment names -- the extensions an output's builds load
(the site names its own), modules, and ``module:function`` to call (a search dictionary).

A module that fails to import is left alone here: the worker imports it again, and Sphinx
reports the failure against the page that needed it.
"""

from __future__ import annotations

import importlib
import os

from polybook.stage.workers import PRELOAD_VARIABLE

#: What every Sphinx worker imports, HTML or PDF: the build, Sphinx, MyST and the bibliography.
SPHINX_MODULES = (
    "polybook.stage.sphinx_run",
    "sphinx.application",
    "sphinx.ext.autodoc",
    "myst_parser.parsers.sphinx_",
    "sphinxcontrib.bibtex",
    "polybook.stage.sphinx_speed:installed_entry_points",
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
