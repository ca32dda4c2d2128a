"""What Sphinx and its extensions do slowly on a whole book, made fast (measured on the
168-section d2l book, one language, profiled):

* ``:numref:`` -- Sphinx's standard domain unpickles the *whole* doctree of the target's
  document for every reference, only to read the target node's type and number (780
  references: 30 s). The unpickled doctrees are kept for numref resolution in a small
  LRU, read-only: numref never changes them.
* sphinxcontrib-bibtex asks pybtex for its style plugins for every citation, and pybtex
  scans every installed distribution's entry points each time (595 look-ups: 25 s). The
  answer cannot change within a build: it is memoised.

Both are patches of a private method or a plain module function, applied only in the
worker process that builds one language (:func:`install`), and both fall back to the
original behaviour if the patched name is missing (a newer release changed it).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any

NUMREF_DOCTREES = 256  # every document of a big book: about 2 MB each, unpickled once


def install() -> None:
    _memoise_pybtex_plugins()
    _cache_numref_doctrees()


def _memoise_pybtex_plugins() -> None:
    """pybtex and sphinxcontrib-bibtex look plugins up in the installed entry points by
    (group, name): the same few answers, memoised in the names their modules call."""
    from importlib.metadata import entry_points

    @functools.cache
    def lookup(group: str, name: str) -> tuple[Any, ...]:
        return tuple(entry_points(group=group, name=name))

    def cached(**selection: str) -> tuple[Any, ...]:
        return lookup(selection["group"], selection["name"])

    try:
        from pybtex import plugin
    except ImportError:
        return
    if hasattr(plugin, "entry_points"):
        plugin.entry_points = cached  # type: ignore[assignment]
    try:
        from sphinxcontrib.bibtex import plugin as bibtex_plugin
    except ImportError:
        return
    if hasattr(bibtex_plugin, "_entry_points"):
        bibtex_plugin._entry_points = lambda group, name: list(lookup(group, name))  # type: ignore[assignment]


def _cache_numref_doctrees() -> None:
    from sphinx.domains.std import StandardDomain

    original = getattr(StandardDomain, "_resolve_numref_xref", None)
    if original is None or getattr(original, "_polybook", False):
        return
    cache: OrderedDict[tuple[int, str], Any] = OrderedDict()

    def resolve(self: StandardDomain, env: Any, *args: Any) -> Any:
        load = env.get_doctree

        def cached(docname: str) -> Any:
            key = (id(env), docname)
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
            doctree = cache[key] = load(docname)
            if len(cache) > NUMREF_DOCTREES:
                cache.popitem(last=False)
            return doctree

        env.get_doctree = cached
        try:
            return original(self, env, *args)
        finally:
            del env.get_doctree  # the instance attribute: the class's method again

    resolve._polybook = True  # type: ignore[attr-defined]
    StandardDomain._resolve_numref_xref = resolve  # type: ignore[method-assign]
