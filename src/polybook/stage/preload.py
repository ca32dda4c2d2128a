"""Imported by the fork server the Sphinx workers come from (:mod:`polybook.stage.workers`):
Sphinx, and what the server's environment names -- the extensions an output's builds load
(the site names its own), modules, and ``module:function`` to call (a search dictionary).

Then what the last set-up of the coming builds imported besides (their extensions' modules,
the theme's, the book's conf.py's: recorded by :func:`polybook.stage.workers.record_setup_modules`),
and their Sphinx environments, unpickled ahead (:func:`polybook.stage.sphinx_speed.load_environments_ahead`):
the server does it while the build parses and stages, and a worker forked from it starts with them.

A module that fails to import is left alone here: the worker imports it again, and Sphinx
reports the failure against the page that needed it.
"""

from __future__ import annotations

import importlib
import os
import sys

from polybook.stage import sphinx_speed, workers
from polybook.stage.workers import PARENT_VARIABLE, PRELOAD_VARIABLE, SETUP_VARIABLE

#: What every Sphinx worker imports, HTML or PDF: the build, Sphinx, MyST and the bibliography.
SPHINX_MODULES = (
    "polybook.stage.sphinx_run",
    "sphinx.application",
    "myst_parser.parsers.sphinx_",
    "sphinxcontrib.bibtex",
    "polybook.stage.sphinx_speed:installed_entry_points",
)


def _import_all() -> None:
    parent = os.environ.get(PARENT_VARIABLE, "")
    workers.end_with_parent(int(parent) if parent.isdigit() else None)  # first: a killed build's server ends
    extra = [name for name in os.environ.get(PRELOAD_VARIABLE, "").split(",") if name]
    _import(*SPHINX_MODULES, *extra)
    workers.SERVER_BASE = frozenset(sys.modules)  # what a worker's set-up imports beyond is recorded
    _import(*(name for name in os.environ.get(SETUP_VARIABLE, "").split(",") if name))
    sphinx_speed.load_environments_ahead()


def _import(*names: str) -> None:
    for name in names:
        module, _, function = name.partition(":")
        try:
            imported = importlib.import_module(module)
            if function:
                getattr(imported, function)()
        except Exception:  # a failure is the worker's to report (the docstring)
            continue


_import_all()
