"""What Sphinx and its extensions do slowly on a whole book, made fast (measured on the
168-section d2l book, one language, profiled):

* ``:numref:`` -- Sphinx's standard domain unpickles the *whole* doctree of the target's
  document for every reference, only to read the target node's type and number (780
  references: 30 s). The unpickled doctrees are kept for numref resolution in a small
  LRU, read-only: numref never changes them.
* sphinxcontrib-bibtex asks pybtex for its style plugins for every citation, and pybtex
  scans every installed distribution's entry points each time (595 look-ups: 25 s). The
  answer cannot change within a build: it is memoised.
* Pygments highlights every code block of every language, and a translation's code is the
  source's: a highlighted block is kept in ``build/.polybook/highlight/`` by what decides it
  (the code, lexer, options, formatter and output format) and reused by every language, PDF
  and rebuild. A block whose lexing produced a warning is not kept, so the warning is said
  again wherever the block is.
* On every build that read a document, sphinxcontrib-bibtex has pybtex format every cited
  entry twice, for the list and for its tooltip (191 entries: a second of a one-section edit).
  A formatted entry is kept in ``build/.polybook/bibtex/`` by what decides it (the entry's
  fields and names, its label, the style's class, file and settings) for every language and
  rebuild; an entry that draws on others (``crossref``) is formatted every time.
* On every build that read a document, Sphinx renumbers the book's figures, tables and code
  blocks by unpickling *every* doctree (168 of them, a second of a one-section edit). When
  a doctree is written, its skeleton -- its sections, toctrees and numbered nodes, nothing
  else -- is kept in the environment, and the renumbering walks the skeletons instead: the
  same walk over the same nodes in the same order, so the same numbers.

* Sphinx's Japanese search index segments every text node with a pure-Python TinySegmenter,
  code and outputs included (a third of a d2l language's build). :class:`JapaneseSplitter`
  (``html_search_options['type']``) segments only the Japanese runs of a text that way and
  splits ASCII runs -- code, numbers, English words -- into words at once.

* Sphinx's Chinese search loads jieba's own dictionary again as a user dictionary when a zh
  build sets up its index (350,000 words: over a second of a one-section edit).
  :func:`load_chinese_dictionary` loads it in the fork server the workers come from
  (:mod:`polybook.render.workers`), and a worker skips loading a file already loaded: jieba
  is left as Sphinx would have left it, once per polybook process.

Each is a patch of a method or a plain module function, applied only in the worker
process that builds one language or PDF (:func:`install`), and each falls back to the
original behaviour if the patched name is missing (a newer release changed it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any

from polybook.files import kept, store_bytes

NUMREF_DOCTREES = 256  # every document of a big book: about 2 MB each, unpickled once


def highlight_store(app: Any) -> Path | None:
    """``<build>/.polybook/highlight``: polybook's doctrees are ``<build>/<stage>/<target>/doctrees``."""
    doctrees = Path(app.doctreedir).resolve()
    return doctrees.parents[2] / ".polybook" / "highlight" if len(doctrees.parents) > 2 else None


def install(app: Any) -> None:
    """Apply every patch (once per process) and keep the figure skeletons of ``app``'s builds."""
    _memoise_pybtex_plugins()
    _cache_numref_doctrees()
    _number_figures_from_skeletons()
    app.connect("env-purge-doc", _forget_skeleton)
    app.connect("env-merge-info", _merge_skeletons)
    store = highlight_store(app)
    if store is not None:
        _keep_highlighted(store)
        _keep_formatted_entries(store.parent / "bibtex")


class _Count(logging.Filter):
    """Counts the records of a logger (the warnings of Sphinx's highlighting)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0

    def filter(self, record: logging.LogRecord) -> bool:
        self.seen += 1
        return True


def _keep_highlighted(store: Path) -> None:
    import pygments
    from sphinx.highlighting import PygmentsBridge

    original = getattr(PygmentsBridge, "highlight_block", None)
    if original is None or getattr(original, "_polybook", False):
        return
    counter = _Count()
    logging.getLogger("sphinx.sphinx.highlighting").addFilter(counter)

    def highlight_block(
        self: PygmentsBridge,
        source: str,
        lang: str,
        opts: Any = None,
        force: bool = False,
        location: Any = None,
        **kwargs: Any,
    ) -> str:
        material = [
            pygments.__version__, self.dest, repr(sorted(self.formatter_args.items())),
            getattr(self, "latex_engine", ""), lang, repr(opts), force, repr(sorted(kwargs.items())), source,
        ]  # fmt: skip
        key = hashlib.sha256(json.dumps(material, default=str).encode("utf-8")).hexdigest()
        entry = store / key[:2] / key
        try:
            return entry.read_text(encoding="utf-8")
        except OSError:
            pass
        before = counter.seen
        result = original(self, source, lang, opts, force, location, **kwargs)
        if counter.seen == before:  # no warning: the same block highlights the same way anywhere
            store_bytes(entry, result.encode("utf-8"))
        return result

    highlight_block._polybook = True  # type: ignore[attr-defined]
    PygmentsBridge.highlight_block = highlight_block  # type: ignore[method-assign]


def _keep_formatted_entries(store: Path) -> None:
    import pybtex
    from pybtex.style import FormattedEntry
    from pybtex.style.formatting import BaseStyle

    original = getattr(BaseStyle, "format_entry", None)
    if original is None or getattr(original, "_polybook", False):
        return

    def format_entry(self: Any, label: str, entry: Any, bib_data: Any = None) -> Any:
        style = _style_material(self)
        if bib_data is not None or style is None or "crossref" in entry.fields:
            return original(self, label, entry, bib_data)  # depends on more than the entry
        persons = {role: [_person(p) for p in people] for role, people in entry.persons.items()}
        material = [pybtex.__version__, style, label, entry.key, entry.type, list(entry.fields.items()), persons]
        key = hashlib.sha256(json.dumps(material, default=str).encode("utf-8")).hexdigest()
        return kept(store / key[:2] / key, FormattedEntry, lambda: original(self, label, entry, bib_data))

    format_entry._polybook = True  # type: ignore[attr-defined]
    format_entry.__wrapped__ = original  # type: ignore[attr-defined]
    BaseStyle.format_entry = format_entry  # type: ignore[method-assign]


def _style_material(style: Any) -> list[Any] | None:
    """What a pybtex style's formatting depends on besides the entry: its class (and the file
    that defines it, as it is now) and its settings. None for a class with no file to go by, or
    settings that are not in its ``__dict__``."""
    cls = type(style)
    file = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if not file or not hasattr(style, "__dict__"):
        return None
    try:
        changed = os.stat(file).st_mtime_ns
    except OSError:
        return None
    settings = sorted((name, _describe(value)) for name, value in vars(style).items())
    return [cls.__module__, cls.__qualname__, file, changed, settings]


def _describe(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '')}.{value.__qualname__}"
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _person(person: Any) -> list[Any]:
    return [person.first_names, person.middle_names, person.prelast_names, person.last_names, person.lineage_names]


def load_chinese_dictionary() -> None:
    """Load the dictionary Sphinx's Chinese search loads (see the module's docstring) and make
    loading the same file again in this process, or a process forked from it, a no-op."""
    try:
        from sphinx.search import zh
    except ImportError:
        return
    load = getattr(zh, "jieba_load_userdict", None)
    default = getattr(zh, "JIEBA_DEFAULT_DICT", "")
    if load is None or getattr(load, "_polybook", False) or not default or not Path(default).is_file():
        return
    from polybook.stage.sphinx_run import quiet_jieba

    quiet_jieba()
    loaded: set[str] = set()

    def load_once(path: str) -> None:
        if path not in loaded:
            load(path)
            loaded.add(path)

    load_once._polybook = True  # type: ignore[attr-defined]
    zh.jieba_load_userdict = load_once
    load_once(default)


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


#: The environment's attribute: docname -> the skeleton of its doctree (:func:`skeleton`).
SKELETONS = "polybook_figure_skeletons"


def skeleton(doctree: Any, env: Any) -> Any:
    """What Sphinx's figure numbering reads of ``doctree``: sections (with their ids),
    toctrees, and the nodes it numbers with their captions or titles (which decide whether
    they are numbered), kept in document order under shallow copies of the elements that hold
    them. No node refers to the document: a skeleton is pickled with the environment."""
    from docutils import nodes
    from sphinx import addnodes
    from sphinx.domains.std import StandardDomain

    domains = list(env.domains.sorted())
    # Docutils' own numbered nodes: their caption or title is all their number depends on.
    # Another extension's may take its title from anywhere in it: it is kept whole.
    prunable = {nodes.figure, nodes.table, nodes.container, nodes.math_block}

    def numbered(node: Any) -> bool:
        """Sphinx's test (``TocTreeCollector.assign_figure_numbers``): a domain numbers the
        node's kind and, for the standard domain, the node has a caption."""
        for domain in domains:
            if domain.get_enumerable_node_type(node):
                if isinstance(domain, StandardDomain) and not domain.get_numfig_title(node):
                    continue
                return True
        return False

    def walk(node: Any) -> Any:
        if isinstance(node, addnodes.toctree):
            return node.deepcopy()
        if not isinstance(node, nodes.section) and numbered(node):
            if type(node) not in prunable:
                return node.deepcopy()
            shell = node.copy()
            shell.extend(child.deepcopy() for child in node.children if isinstance(child, nodes.caption | nodes.title))
        else:
            shell = nodes.section(**node.attributes) if isinstance(node, nodes.section) else nodes.Element()
        kept = [walk(child) for child in node.children if isinstance(child, nodes.Element)]
        shell.extend(child for child in kept if child is not None)
        if len(shell.children) == 0 and type(shell) is nodes.Element and not isinstance(node, nodes.document):
            return None
        return shell

    root = walk(doctree)
    for node in root.findall(nodes.Node):
        node.document = None
    return root


def _forget_skeleton(app: Any, env: Any, docname: str) -> None:
    getattr(env, SKELETONS, {}).pop(docname, None)


def _merge_skeletons(app: Any, env: Any, docnames: set[str], other: Any) -> None:
    """A parallel read's skeletons, from its worker's environment."""
    theirs = getattr(other, SKELETONS, {})
    mine = env.__dict__.setdefault(SKELETONS, {})
    mine.update({name: theirs[name] for name in docnames if name in theirs})


def _number_figures_from_skeletons() -> None:
    from sphinx.builders import Builder
    from sphinx.environment.collectors.toctree import TocTreeCollector

    write = getattr(Builder, "write_doctree", None)
    assign = getattr(TocTreeCollector, "assign_figure_numbers", None)
    if write is None or assign is None or getattr(assign, "_polybook", False):
        return

    def write_doctree(self: Any, docname: str, doctree: Any, **kwargs: Any) -> None:
        self.env.__dict__.setdefault(SKELETONS, {})[docname] = skeleton(doctree, self.env)
        write(self, docname, doctree, **kwargs)

    def assign_figure_numbers(self: Any, env: Any) -> list[str]:
        skeletons = env.__dict__.get(SKELETONS, {})
        load = env.get_doctree
        env.get_doctree = lambda docname: skeletons[docname] if docname in skeletons else load(docname)
        try:
            return assign(self, env)
        finally:
            del env.get_doctree  # the instance attribute: the class's method again

    assign_figure_numbers._polybook = True  # type: ignore[attr-defined]
    Builder.write_doctree = write_doctree  # type: ignore[method-assign]
    TocTreeCollector.assign_figure_numbers = assign_figure_numbers  # type: ignore[method-assign]


#: ASCII runs, and runs of anything else (Japanese, and the symbols around it).
_RUNS_RE = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")
_WORD_RE = re.compile(r"\w+")


def __getattr__(name: str) -> Any:
    if name == "JapaneseSplitter":  # defined when a ja build asks for it (it loads Sphinx's ja search)
        from sphinx.search.ja import DefaultSplitter

        def split(self: Any, text: str) -> list[str]:
            words: list[str] = []
            for run in _RUNS_RE.findall(text):
                words.extend(_WORD_RE.findall(run) if run.isascii() else DefaultSplitter.split(self, run))
            return words

        return type("JapaneseSplitter", (DefaultSplitter,), {"split": split})
    raise AttributeError(name)
