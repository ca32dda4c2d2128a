"""What Sphinx and its extensions do slowly on a whole book, made fast (measured on the
168-section d2l book, one language, profiled):

* ``:numref:`` -- Sphinx's standard domain unpickles the *whole* doctree of the target's
  document for every reference, only to read the target node's type and number (780
  references: 30 s). A section, figure or table is read from the document's skeleton (below)
  instead; any other target's doctree is unpickled once and kept in a small LRU, read-only:
  numref never changes them.
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
  splits ASCII runs -- code, numbers, English words -- into words at once. The Japanese runs
  are segmented by :mod:`polybook.stage.ja_segmenter`: the same words, twice as fast.

* Sphinx's Chinese search loads jieba's own dictionary again as a user dictionary when a zh
  build sets up its index (350,000 words: over a second of a one-section edit).
  :func:`load_chinese_dictionary` loads it in the fork server the workers come from
  (:mod:`polybook.stage.workers`), and a worker skips loading a file already loaded: jieba
  is left as Sphinx would have left it, once per polybook process.

* Sphinx compiles every Jinja template it renders (the theme's 30) in every build, a tenth of a
  one-section edit's Sphinx time: the builder's template environment gets Jinja's own bytecode
  cache, in ``build/.polybook/jinja/`` (an entry is keyed by the template's name and source).

* The plugin look-ups of pybtex and sphinxcontrib-bibtex each scan every installed
  distribution's entry points: the scan is made once per process -- in the fork server the
  workers come from, before they are forked -- and every look-up selects from it.

* A worker unpickles its language's Sphinx environment (2 MB for a d2l language, an eighth of a
  one-section edit's Sphinx time) after the build staged the language. The fork server it comes
  from unpickles it ahead instead, while the build parses and stages
  (:func:`load_environments_ahead`), and the worker takes that copy when the file is still the
  one it was read from (its size and modification time).

Each is a patch of a method or a plain module function, installed by polybook's Sphinx
extensions (:func:`install`) for the build that loads them and taken out when it finishes
(``build-finished``; the runner also builds inside :func:`build_scope`, for a build that stops
before): Sphinx used elsewhere in the process is Sphinx's own. The Chinese dictionary is the one
process-wide patch (:func:`load_chinese_dictionary` says why). A patched name that is not where
the release polybook pins has it (pyproject.toml) leaves its speed-up out, and the build says so
once, as a warning of its own (``polybook.speedup``): it is correct, only slower. The stores
are swept of what no build has used for a month (:func:`polybook.files.swept`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import sys
import types
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.files import kept, read_kept, store_bytes, swept

NUMREF_DOCTREES = 256  # every document of a big book: about 2 MB each, unpickled once
#: The speed-up :func:`load_chinese_dictionary` applies (process-wide, outside any build).
CHINESE_DICTIONARY = "the Chinese search dictionary loaded ahead"


class _Missing(Exception):
    """A name a speed-up patches is not where the release polybook pins has it."""


_INHERITED = object()  # a patched name the class did not define itself


@dataclass(slots=True)
class Patches:
    """The speed-ups installed for the running build: what each patched name holds now (by its
    dotted name), how to put each back, and the speed-ups that could not be applied, with why."""

    patched: dict[str, Any] = field(default_factory=dict)
    undo: list[Callable[[], None]] = field(default_factory=list)
    not_applied: dict[str, str] = field(default_factory=dict)

    def put(self, owner: Any, name: str, replacement: Any) -> None:
        """``owner.name = replacement`` (a class's method, a module's function) until :meth:`take_out`."""
        before = vars(owner).get(name, _INHERITED)
        setattr(owner, name, replacement)
        self.patched[f"{_dotted(owner)}.{name}"] = replacement
        self.undo.append(functools.partial(_put_back, owner, name, before))

    def take_out(self) -> None:
        for undo in reversed(self.undo):
            undo()
        self.undo.clear()
        self.patched.clear()


def _put_back(owner: Any, name: str, before: Any) -> None:
    if before is _INHERITED:
        delattr(owner, name)
    else:
        setattr(owner, name, before)


def _dotted(owner: Any) -> str:
    return owner.__name__ if isinstance(owner, types.ModuleType) else f"{owner.__module__}.{owner.__qualname__}"


def _require(owner: Any, name: str) -> Any:
    """``owner.name``, which a speed-up patches or calls; :class:`_Missing` when a release moved it."""
    found = getattr(owner, name, None)
    if found is None:
        raise _Missing(f"{_dotted(owner)}.{name} is missing")
    return found


_installed: Patches | None = None  # the running build's speed-ups (install), None between builds
#: Speed-ups this process could not apply outside a build (the fork server's Chinese dictionary),
#: with why: said by the builds they were for (a zh language's).
_AHEAD_NOT_APPLIED: dict[str, str] = {}


def highlight_store(app: Any) -> Path | None:
    """``<build>/.polybook/highlight``: polybook's doctrees are ``<build>/<stage>/<target>/doctrees``."""
    doctrees = Path(app.doctreedir).resolve()
    return doctrees.parents[2] / ".polybook" / "highlight" if len(doctrees.parents) > 2 else None


def install(app: Any) -> None:
    """Apply the speed-ups for ``app``'s build (once however many extensions ask), keep the figure
    skeletons of its builds, and say once, as a warning of the build, which could not be applied.
    They are taken out when the build finishes, or by :func:`uninstall`."""
    global _installed
    if _installed is None:
        _installed = _apply(highlight_store(app))
    app.connect("env-purge-doc", _forget_skeleton)
    app.connect("env-merge-info", _merge_skeletons)
    app.connect("build-finished", _build_finished, priority=900)  # after every other extension's
    app.connect("builder-inited", _keep_compiled_templates)
    not_applied = dict(_installed.not_applied)
    if str(app.config.language or "").startswith("zh"):
        not_applied.update(_AHEAD_NOT_APPLIED)
    if not_applied:
        from sphinx.util import logging as sphinx_logging

        reasons = "; ".join(f"{speedup} ({why})" for speedup, why in not_applied.items())
        sphinx_logging.getLogger(__name__).warning(
            f"polybook built without these speed-ups, only slower: {reasons} -- are Sphinx, pybtex and "
            "sphinxcontrib-bibtex the releases pyproject.toml pins?",
            type="polybook",
            subtype="speedup",
        )


def reinstall(app: Any) -> None:
    """The speed-ups again for the next build of a live application (``polybook serve`` keeps one
    per language): the last build took them out when it finished."""
    global _installed
    if _installed is None:
        _installed = _apply(highlight_store(app))


def uninstall() -> None:
    """Take out the running build's speed-ups (none installed: nothing to do)."""
    global _installed
    patches, _installed = _installed, None
    if patches is not None:
        patches.take_out()


def installed() -> Patches | None:
    """The running build's speed-ups, None between builds."""
    return _installed


@contextmanager
def build_scope() -> Iterator[None]:
    """Build inside: the speed-ups polybook's extensions install are taken out on the way out,
    however the build ends (Sphinx's ``build-finished`` is not emitted when it stops while set up)."""
    try:
        yield
    finally:
        uninstall()


def _build_finished(app: Any, exception: Exception | None) -> None:
    uninstall()


def _apply(store: Path | None) -> Patches:
    """Every speed-up that can be applied; the others in ``not_applied``, with why."""
    patches = Patches()
    speedups: dict[str, Callable[[Patches], None]] = {
        "pybtex's plugin look-ups memoised": _memoise_pybtex_plugins,
        "sphinxcontrib-bibtex's plugin look-ups memoised": _memoise_bibtex_plugins,
        "numref's doctrees kept": _cache_numref_doctrees,
        "figures numbered from skeletons": _number_figures_from_skeletons,
        "environments unpickled ahead": _take_environments_ahead,
    }
    if store is not None:  # a polybook build folder: the stores are in it
        speedups["highlighted code kept"] = functools.partial(_keep_highlighted, store=swept(store))
        bibtex = swept(store.parent / "bibtex")
        speedups["formatted bibliography entries kept"] = functools.partial(_keep_formatted_entries, store=bibtex)
    for speedup, apply in speedups.items():
        try:
            apply(patches)
        except (_Missing, ImportError) as missing:
            patches.not_applied[speedup] = str(missing)
    return patches


class _Count(logging.Filter):
    """Counts the records of a logger (the warnings of Sphinx's highlighting)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0

    def filter(self, record: logging.LogRecord) -> bool:
        self.seen += 1
        return True


def _keep_highlighted(patches: Patches, store: Path) -> None:
    import pygments
    from sphinx import highlighting
    from sphinx.highlighting import PygmentsBridge

    original = _require(PygmentsBridge, "highlight_block")
    adapter = _require(highlighting, "logger")  # what Sphinx's highlighting warns through
    logger = getattr(adapter, "logger", adapter)
    counter = _Count()

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
            return read_kept(entry).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            pass
        before = counter.seen
        result = original(self, source, lang, opts, force, location, **kwargs)
        if counter.seen == before:  # no warning: the same block highlights the same way anywhere
            store_bytes(entry, result.encode("utf-8"))
        return result

    patches.put(PygmentsBridge, "highlight_block", highlight_block)
    logger.addFilter(counter)
    patches.undo.append(functools.partial(logger.removeFilter, counter))


def _keep_formatted_entries(patches: Patches, store: Path) -> None:
    import pybtex
    from pybtex.style import FormattedEntry
    from pybtex.style.formatting import BaseStyle

    original = _require(BaseStyle, "format_entry")

    def format_entry(self: Any, label: str, entry: Any, bib_data: Any = None) -> Any:
        style = _style_material(self)
        if bib_data is not None or style is None or "crossref" in entry.fields:
            return original(self, label, entry, bib_data)  # depends on more than the entry
        persons = {role: [_person(p) for p in people] for role, people in entry.persons.items()}
        material = [pybtex.__version__, style, label, entry.key, entry.type, list(entry.fields.items()), persons]
        key = hashlib.sha256(json.dumps(material, default=str).encode("utf-8")).hexdigest()
        return kept(store / key[:2] / key, FormattedEntry, lambda: original(self, label, entry, bib_data))

    patches.put(BaseStyle, "format_entry", format_entry)


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
    loading the same file again in this process, or a process forked from it, a no-op.

    Process-wide on purpose, unlike the other speed-ups: it is applied in the fork server, before
    and outside any build, so that every worker forked from it finds the words loaded; a worker
    builds one language, so it leaks into no other build. When it cannot be applied, a zh build
    of a worker forked from here says so (:func:`install`)."""
    try:
        from sphinx.search import zh

        load, default = _require(zh, "jieba_load_userdict"), _require(zh, "JIEBA_DEFAULT_DICT")
    except (_Missing, ImportError) as missing:
        _AHEAD_NOT_APPLIED[CHINESE_DICTIONARY] = str(missing)
        return
    if getattr(load, "_polybook", False) or not default:  # loaded already; no jieba: Sphinx loads nothing
        return
    if not Path(default).is_file():
        _AHEAD_NOT_APPLIED[CHINESE_DICTIONARY] = f"jieba's dictionary is not at {default}"
        return
    quiet_jieba()
    loaded: set[str] = set()

    def load_once(path: str) -> None:
        if path not in loaded:
            load(path)
            loaded.add(path)

    load_once._polybook = True  # type: ignore[attr-defined]
    zh.jieba_load_userdict = load_once
    load_once(default)


#: Sphinx environments the fork server unpickled ahead: file -> (its size, its mtime, the environment).
_AHEAD: dict[str, tuple[int, int, Any]] = {}


def load_environments_ahead() -> None:
    """Unpickle the environments :data:`polybook.stage.workers.ENVIRONMENTS_VARIABLE` names (the
    fork server, before its workers are forked), then freeze what the process holds so the
    workers' garbage collections leave the shared pages alone."""
    import gc
    import pickle

    from polybook.stage.workers import ENVIRONMENTS_VARIABLE

    for name in filter(None, os.environ.get(ENVIRONMENTS_VARIABLE, "").split(os.pathsep)):
        try:
            info = os.stat(name)
            with open(name, "rb") as handle:
                _AHEAD[name] = (info.st_size, info.st_mtime_ns, pickle.load(handle))
        except Exception:  # missing or damaged: the worker reads it as Sphinx does, and says so
            continue
    gc.freeze()


def _take_ahead(filename: Path) -> Any:
    """The environment unpickled ahead from ``filename``, if the file is still as it was read."""
    entry = _AHEAD.pop(str(filename), None)
    if entry is None:
        return None
    try:
        info = os.stat(filename)
    except OSError:
        return None
    return entry[2] if (info.st_size, info.st_mtime_ns) == entry[:2] else None


def _take_environments_ahead(patches: Patches) -> None:
    """Sphinx's loading of the pickled environment, from the copy unpickled ahead when there is one."""
    from sphinx.application import Sphinx

    load = _require(Sphinx, "_load_existing_env")

    def load_existing_env(self: Any, filename: Any) -> Any:
        env = _take_ahead(Path(filename))
        if env is None:
            return load(self, filename)
        try:
            env.setup(self)
        except Exception:  # as Sphinx itself would decide: read the file again
            return load(self, filename)
        self._fresh_env_used = False
        return env

    patches.put(Sphinx, "_load_existing_env", load_existing_env)


def _keep_compiled_templates(app: Any) -> None:
    """Jinja's bytecode cache for the builder's templates, in the build folder's stores."""
    from jinja2 import FileSystemBytecodeCache

    store = highlight_store(app)
    environment = getattr(getattr(app.builder, "templates", None), "environment", None)
    if store is None or environment is None or environment.bytecode_cache is not None:
        return
    folder = swept(store.parent / "jinja")
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = FileSystemBytecodeCache(str(folder))


@functools.cache
def installed_entry_points() -> Any:
    """Every installed distribution's entry points, scanned once per process: the fork server
    calls it (:mod:`polybook.stage.preload`), so its workers inherit the scan. Packages installed
    while a process runs are not seen by it (``polybook serve``: start it again)."""
    from importlib.metadata import entry_points

    return entry_points()


def _memoised() -> Callable[..., tuple[Any, ...]]:
    """``importlib.metadata.entry_points`` for the selections pybtex and sphinxcontrib-bibtex
    make (a group, and a name or not), selected from the process's one scan."""

    @functools.cache
    def select(**selection: str) -> tuple[Any, ...]:
        return tuple(installed_entry_points().select(**selection))

    return select


def _memoise_pybtex_plugins(patches: Patches) -> None:
    """pybtex looks its plugins up in the installed entry points, a scan of every distribution
    each time: the name its module calls, memoised."""
    from pybtex import plugin

    _require(plugin, "entry_points")
    patches.put(plugin, "entry_points", _memoised())


def _memoise_bibtex_plugins(patches: Patches) -> None:
    """sphinxcontrib-bibtex's plugin look-up, as :func:`_memoise_pybtex_plugins`."""
    from sphinxcontrib.bibtex import plugin

    _require(plugin, "_entry_points")
    select = _memoised()

    def plugin_entry_points(group: str, name: str) -> list[Any]:
        return list(select(group=group, name=name))

    patches.put(plugin, "_entry_points", plugin_entry_points)


def _cache_numref_doctrees(patches: Patches) -> None:
    """numref reads of the referenced document only the node its label names: its type, ids and
    number. A section, figure or table is taken from the document's skeleton (:func:`skeleton`),
    which holds them as they are; anything else -- a code block, whose kind depends on the code
    the skeleton leaves out, an unnumbered target -- from the doctree, unpickled once a build."""
    from sphinx.domains.std import StandardDomain

    original = _require(StandardDomain, "_resolve_numref_xref")
    cache: OrderedDict[tuple[int, str], Any] = OrderedDict()
    whole: dict[tuple[int, str, int], dict[str, Any]] = {}  # a skeleton's sections, figures and tables by id

    def resolve(self: StandardDomain, env: Any, *args: Any) -> Any:
        load = env.get_doctree
        skeletons = env.__dict__.get(SKELETONS, {})

        def doctree(docname: str) -> Any:
            key = (id(env), docname)
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
            loaded = cache[key] = load(docname)
            if len(cache) > NUMREF_DOCTREES:
                cache.popitem(last=False)
            return loaded

        def targets(docname: str) -> Any:
            if docname not in skeletons:
                return doctree(docname)
            skeleton = skeletons[docname]
            key = (id(env), docname, id(skeleton))  # a document read again has a new skeleton
            if key not in whole:
                whole[key] = _whole_targets(skeleton)
            return types.SimpleNamespace(ids=_SkeletonIds(whole[key], functools.partial(doctree, docname)))

        env.get_doctree = targets
        try:
            return original(self, env, *args)
        finally:
            del env.get_doctree  # the instance attribute: the class's method again

    patches.put(StandardDomain, "_resolve_numref_xref", resolve)


class _SkeletonIds:
    """A document's ``ids`` as numref reads them: a section, figure or table from its skeleton
    (``whole``: :func:`_whole_targets`), any other id from the doctree ``load`` gives."""

    def __init__(self, whole: dict[str, Any], load: Callable[[], Any]) -> None:
        self.whole, self.load = whole, load

    def get(self, labelid: str, default: Any = None) -> Any:
        found = self.whole.get(labelid)
        return found if found is not None else self.load().ids.get(labelid, default)


def _whole_targets(skeleton: Any) -> dict[str, Any]:
    """The skeleton's sections, figures and tables by each of their ids (the first node with an
    id, as a doctree's ``ids`` has it)."""
    from docutils import nodes

    whole = (nodes.section, nodes.figure, nodes.table)
    found: dict[str, Any] = {}
    for node in skeleton.findall(nodes.Element):
        for labelid in node.get("ids", ()):
            found.setdefault(labelid, node if type(node) in whole else None)
    return {labelid: node for labelid, node in found.items() if node is not None}


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


def _number_figures_from_skeletons(patches: Patches) -> None:
    from sphinx.builders import Builder
    from sphinx.environment.collectors.toctree import TocTreeCollector

    write = _require(Builder, "write_doctree")
    assign = _require(TocTreeCollector, "assign_figure_numbers")

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

    patches.put(Builder, "write_doctree", write_doctree)
    patches.put(TocTreeCollector, "assign_figure_numbers", assign_figure_numbers)


#: ASCII runs, and runs of anything else (Japanese, and the symbols around it).
_RUNS_RE = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")
_WORD_RE = re.compile(r"\w+")


def __getattr__(name: str) -> Any:
    if name == "JapaneseSplitter":  # defined when a ja build asks for it (it loads Sphinx's ja search)
        from sphinx.search.ja import DefaultSplitter

        from polybook.stage.ja_segmenter import FastSegmentation

        def split(self: Any, text: str) -> list[str]:
            fast = self.__dict__.get("fast") or self.__dict__.setdefault("fast", FastSegmentation(self))
            words: list[str] = []
            for run in _RUNS_RE.findall(text):
                words.extend(_WORD_RE.findall(run) if run.isascii() else fast.split(run))
            return words

        return type("JapaneseSplitter", (DefaultSplitter,), {"split": split})
    raise AttributeError(name)


def quiet_jieba() -> None:
    """jieba logs its dictionary loading at DEBUG level to stderr; it sets that level on import."""
    import logging

    try:
        import jieba
    except ImportError:
        return
    jieba.setLogLevel(logging.WARNING)
