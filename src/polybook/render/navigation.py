"""The sidebar's navigation, rendered once per language and reused by every page.

The sidebar (``polybook-toc.html``) shows the whole book's table of contents on every page.
pydata-sphinx-theme renders it per output folder -- Sphinx resolves the whole toctree each
time (d2l: 25 folders a language) -- and then, for each of the 170 pages, moves the "current"
markers in a BeautifulSoup tree and serialises it again: a fifth of a language's Sphinx time.
Yet with ``collapse=False`` the navigation is the same on every page but for two things: its
relative links (they depend on the page's folder) and the "current" markers on the page's own
entry and the entries above it (classes, ``aria-current``, the open ``<details>``).

So the theme renders it once, for the first page written; that rendering is made neutral (no
entry current) and cut, where those two things go, into a :class:`Template` of fixed text and
slots; each page fills the slots: a link relative to its folder, an element's markers as the
theme sets them on the chain of the page's entry. The result is the theme's text, byte for
byte (``tests/test_pages.py``). Whatever the template cannot vouch for -- a page the toctree
names that the sidebar leaves out (below ``maxdepth``), a toctree markup the theme did not
write -- is rendered by the theme as before.

The template is kept in the language's doctree folder under a fingerprint of everything the
sidebar is made of (every document's title and toc, the toctrees, their numbering, the settings
that shape links and labels, the theme's and this module's versions): a build that changed none
of them -- a prose edit -- fills the kept template instead of having the theme render the whole
book's toctree for its first page (a quarter of a one-section edit's Sphinx time on d2l). The same
state decides which pages an incremental build writes: when it changed, every page's sidebar did
(:func:`rewrite_on_change`). The state the pages were written with is recorded only once every page
is (:func:`record_written`): a build stopped halfway leaves none, and the next writes every page.
"""

from __future__ import annotations

import copy
import hashlib
import pickle
import posixpath
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.files import read_pickled, store_bytes

#: Marks a slot in the serialised template (a private-use character: never in a toctree).
_SLOT = "\ue000"
#: The attribute that marks where an attribute may be added. The soup is written with its attributes
#: in alphabetical order (BeautifulSoup's default formatter), so a mark sorts where the attribute
#: it stands for would: ``aria-current`` before ``class``, the others alone on their element.
_MARK = "data-polybook-slot"
_ARIA_MARK = "aria-polybook-slot"
_MARK_RE = re.compile(' (?:data|aria)-polybook-slot="(\\d+)"')
_APP_ATTRIBUTE = "_polybook_navigation"
#: On the app, for this build: the state of the sidebars.
_STATE = "polybook_navigation_state"
#: On the app, for this build: whether that state is as the pages were last written with.
_UNCHANGED = "_polybook_navigation_unchanged"
#: On the app, for this build: the pages to write before the new state may be recorded.
_PENDING = "_polybook_navigation_pending"
#: On the app, for its life: the theme's options as the first build found them (:func:`_state`).
_OPTIONS = "_polybook_navigation_options"
#: On the app, for its life: docname -> (its title and toc nodes, weakly; their text) (:func:`_texts`).
_TEXTS = "_polybook_navigation_texts"
#: The state every page was last written with, in the language's doctree folder (:func:`record_written`).
WRITTEN = "polybook-navigation-written"
#: The kept templates, in the language's doctree folder: {key: (fingerprint, template or None)}.
KEPT = "polybook-navigation.pickle"


class _Unsupported(Exception):
    """The rendering is not one the template can reproduce exactly: the theme renders."""


@dataclass(slots=True)
class Template:
    """A neutral navigation cut into fixed text and slots (``parts[1::2]`` are slot numbers)."""

    parts: list[str]
    neutral: dict[int, str]  # slot -> its text when no entry is current
    current: dict[int, str]  # slot -> its text on the chain of the page's entry
    links: dict[int, str]  # slot of an href -> the docname it links to
    chains: dict[str, set[int]]  # docname -> the slots of its entries' chains
    source_dir: str  # the folder the theme rendered it for
    by_dir: dict[str, dict[int, str]] = field(default_factory=dict)  # folder -> its hrefs

    def render(self, page_uri: str, docname: str, relative: Callable[[str, str], str]) -> str:
        folder = posixpath.dirname(page_uri)
        hrefs = self.by_dir.get(folder)
        if hrefs is None:
            hrefs = self.by_dir[folder] = {slot: relative(page_uri, target) for slot, target in self.links.items()}
        chain = self.chains.get(docname, set())
        out = []
        for index, part in enumerate(self.parts):
            if index % 2 == 0:
                out.append(part)
                continue
            slot = int(part)
            if slot in self.links:
                out.append("#" if self.links[slot] == docname else hrefs[slot])
            else:
                out.append(self.current[slot] if slot in chain else self.neutral[slot])
        return "".join(out)


def sidebar(app: Any, pagename: str, context: dict[str, Any]) -> Callable[..., Any]:
    """The template function ``polybook_navigation(kind, startdepth, show_nav_level, **kwargs)``
    for page ``pagename``: the theme's ``generate_toctree_html`` with those arguments, its
    text reused from the language's template."""

    def navigation(kind: str, startdepth: int = 1, show_nav_level: int = 1, **kwargs: Any) -> Any:
        theme = context.get("generate_toctree_html")  # the theme's handler may run after polybook's
        if theme is None:
            raise RuntimeError("polybook-toc.html needs pydata-sphinx-theme's generate_toctree_html")
        key = (kind, startdepth, show_nav_level, tuple(sorted(kwargs.items())))
        templates: dict[Any, Template | None] = app.__dict__.setdefault(_APP_ATTRIBUTE, {})
        if _conditional_title(app, pagename):
            return theme(kind, startdepth, show_nav_level, **kwargs)
        if key not in templates:
            fingerprint = _fingerprint(app, key)
            kept = _kept(app).get(key)
            if kept is None or kept[0] != fingerprint:
                first = theme(kind, startdepth, show_nav_level, **kwargs)
                templates[key] = _template_or_none(app, pagename, first, key)
                _keep(app, key, fingerprint, templates[key])
                return first
            templates[key] = kept[1]
        template = templates[key]
        if template is None or (pagename not in template.chains and pagename in _entries(app)):
            return theme(kind, startdepth, show_nav_level, **kwargs)
        return template.render(app.builder.get_target_uri(pagename), pagename, app.builder.get_relative_uri)

    return navigation


def rewrite_on_change(app: Any, env: Any) -> list[str]:
    """``env-get-updated``: every page, when what the sidebar shows changed since the pages
    were written (a title, a section, a toctree, a document added or gone). Sphinx would write
    again only the edited page and the pages whose toctree names it, and leave the old title in
    the sidebar of every other page.

    Not kept on the environment: Sphinx pickles it before it writes the pages, and a build
    stopped in between would leave the pages not yet written with the old sidebar for good."""
    state = app.__dict__[_STATE] = _state(app)
    written = Path(app.doctreedir) / WRITTEN
    try:
        before = written.read_text(encoding="utf-8")
    except OSError:  # none yet, or the last build stopped before every page was written
        before = None
    app.__dict__[_UNCHANGED] = state == before
    if state == before:
        app.__dict__[_PENDING] = set()
        return []
    written.unlink(missing_ok=True)  # from now on some pages have one sidebar, some the other
    app.__dict__[_PENDING] = set(env.found_docs)
    return sorted(env.found_docs)


def page_written(app: Any, pagename: str, *args: Any) -> None:
    """``html-page-context``: ``pagename`` is being written (the build ends only once it is)."""
    app.__dict__.get(_PENDING, set()).discard(pagename)


def record_written(app: Any, exception: BaseException | None) -> None:
    """``build-finished``: the state every page is now written with, once the build wrote them
    all (not one that failed, nor one that wrote only the pages it was asked for)."""
    state = app.__dict__.get(_STATE)
    if exception is not None or state is None or app.__dict__.get(_PENDING) or app.__dict__.get(_UNCHANGED):
        return
    store_bytes(Path(app.doctreedir) / WRITTEN, state.encode("utf-8"))


def write_parents_only_on_change(app: Any) -> None:
    """``builder-inited``: Sphinx writes again, beside a re-read document, every page whose
    toctree names it (its title there may have changed). When what the toctrees and sidebars show
    is as it was (:func:`rewrite_on_change`), those pages would come out the same: not written."""
    builder = app.builder
    write = builder.write

    def write_pages(build_docnames: Any, updated_docnames: Any, method: str = "update") -> None:
        env = builder.env
        if app.__dict__.get(_UNCHANGED) is not True:
            write(build_docnames, updated_docnames, method)
            return
        parents, env.files_to_rebuild = env.files_to_rebuild, {}
        try:
            write(build_docnames, updated_docnames, method)
        finally:
            env.files_to_rebuild = parents

    builder.write = write_pages


def _fingerprint(app: Any, key: tuple[Any, ...]) -> str:
    """What the neutral sidebar of ``key`` is made of, hashed: the same fingerprint, the same template."""
    state = app.__dict__.get(_STATE) or _state(app)
    return hashlib.sha256(f"{state}\n{key!r}".encode()).hexdigest()


def _state(app: Any) -> str:
    """What every sidebar of the language is made of, hashed."""
    import pydata_sphinx_theme
    import sphinx

    env, config = app.env, app.config
    docs = sorted(env.found_docs)
    # the options as given: the theme adds to them as it writes pages (the logo's paths), and a
    # live application (serve's) builds again after writing
    options = app.__dict__.setdefault(_OPTIONS, repr(sorted(config.html_theme_options.items())))
    state = (
        hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        sphinx.__version__,
        pydata_sphinx_theme.__version__,
        [config.language, config.root_doc, config.html_file_suffix, config.html_link_suffix],
        options,
        docs,
        [(doc, *_texts(app, doc), env.metadata.get(doc, {}).get("tocdepth")) for doc in docs],
        sorted(env.toctree_includes.items()),
        sorted(env.toc_secnumbers.items()),
        sorted(env.glob_toctrees),
        sorted(env.numbered_toctrees),
    )
    return hashlib.sha256(repr(state).encode("utf-8")).hexdigest()  # repr: the same for equal values


def _texts(app: Any, docname: str) -> tuple[str, str]:
    """The texts of the document's title and toc (:func:`_text`), kept while the environment
    holds the same nodes: a live application re-reads one document of hundreds."""
    env = app.env
    nodes = (env.titles.get(docname), env.tocs.get(docname))
    kept = app.__dict__.setdefault(_TEXTS, {})
    known = kept.get(docname)
    if known is not None and all(ref() is node for ref, node in zip(known[0], nodes, strict=True)):
        return known[1]
    texts = (_text(nodes[0]), _text(nodes[1]))
    if all(node is not None for node in nodes):
        kept[docname] = (tuple(weakref.ref(node) for node in nodes), texts)
    return texts


def _text(node: Any) -> str:
    """A node tree as text with every attribute (docutils' ``pformat``): equal trees, equal texts
    (not their pickles: a tree read in this build pickles unlike the same tree unpickled)."""
    return node.pformat() if node is not None else ""


def _kept(app: Any) -> dict[Any, tuple[str, Template | None]]:
    """The templates kept by the language's last builds (none when unreadable: only slower)."""
    return read_pickled(Path(app.doctreedir) / KEPT, dict) or {}  # missing, damaged, another release's


def _keep(app: Any, key: tuple[Any, ...], fingerprint: str, template: Template | None) -> None:
    kept = _kept(app)
    kept[key] = (fingerprint, template)
    store_bytes(Path(app.doctreedir) / KEPT, pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL))


def _conditional_title(app: Any, pagename: str) -> bool:
    """Whether the page's own table of contents is under an ``only`` directive (d2l's references
    page: its title is ``.. only:: html``): Sphinx then writes the page's own entry without the
    level class and the current markers the template sets, so the theme renders that page."""
    from sphinx import addnodes

    toc = app.env.tocs.get(pagename)
    return toc is not None and any(True for _ in toc.findall(addnodes.only))


def _entries(app: Any) -> set[str]:
    """Every document some toctree names (hidden ones too)."""
    return {name for names in app.env.toctree_includes.values() for name in names}


def _template_or_none(app: Any, pagename: str, rendered: Any, key: tuple[Any, ...]) -> Template | None:
    kind, startdepth, show_nav_level, _ = key
    if kind != "sidebar" or startdepth != 0 or int(show_nav_level) < 1 or not hasattr(rendered, "find_all"):
        return None  # the theme's sidebar starting at the root, as polybook-toc.html asks for it
    try:
        return make_template(app, pagename, copy.copy(rendered))
    except _Unsupported:
        return None


def make_template(app: Any, pagename: str, soup: Any) -> Template:
    """The template of ``soup``, the theme's navigation as rendered for ``pagename`` (changed)."""
    page_uri = app.builder.get_target_uri(pagename)
    documents = {app.builder.get_target_uri(name): name for name in app.env.found_docs}
    slots = _Slots()
    links: dict[int, str] = {}
    chains: dict[str, set[int]] = {}
    for anchor in soup.find_all("a"):
        if "internal" not in anchor.get("class", []):
            continue
        href = anchor.get("href", "")
        linked = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), href))
        target = pagename if href == "#" else documents.get(linked)
        if target is None or "#" in href[1:]:
            raise _Unsupported(f"a link the template cannot follow: {href!r}")
        chain = chains.setdefault(target, set())
        chain |= slots.anchor(anchor)
        links[slot := slots.add("", "")] = target
        anchor["href"] = _marker(slot)
        for parent in anchor.parents:
            chain |= slots.element(parent)
    text = _MARK_RE.sub(lambda match: _marker(int(match[1])), str(soup))
    parts = text.split(_SLOT)
    return Template(parts, slots.neutral, slots.current, links, chains, posixpath.dirname(page_uri))


def _marker(slot: int) -> str:
    return f"{_SLOT}{slot}{_SLOT}"


def _only(element: Any, names: set[str]) -> None:
    if not set(element.attrs) <= names:
        raise _Unsupported(f"<{element.name}> with attributes {sorted(element.attrs)}")


class _Slots:
    """The slots of a template: each element's text when no entry is current and on the chain
    of the current one, as pydata-sphinx-theme marks it (``_set_current_chain``): the page's
    own link gets ``current`` first among its classes and ``aria-current="page"``; each item
    above it ``current active`` after its level's class; each list above it ``current`` first;
    each item's ``<details>`` is opened."""

    def __init__(self, show_nav_level: int = 1) -> None:
        self.neutral: dict[int, str] = {}
        self.current: dict[int, str] = {}
        self.show_nav_level = show_nav_level
        self.done: dict[int, set[int]] = {}  # id(element) -> its slots

    def add(self, neutral: str, current: str) -> int:
        slot = len(self.neutral)
        self.neutral[slot], self.current[slot] = neutral, current
        return slot

    def anchor(self, anchor: Any) -> set[int]:
        _only(anchor, {"class", "href", "aria-current"})
        if list(anchor.attrs)[:2] != ["class", "href"]:
            raise _Unsupported("a link whose class is not its first attribute")
        classes = [c for c in anchor["class"] if c != "current"]
        value = self.add(" ".join(classes), " ".join(["current", *classes]))
        anchor["class"] = _marker(value)
        anchor.attrs.pop("aria-current", None)
        anchor[_ARIA_MARK] = str(presence := self.add("", ' aria-current="page"'))
        return {value, presence}

    def element(self, element: Any) -> set[int]:
        """The slots of an item or a list above a link (and of an item's ``<details>``)."""
        if id(element) in self.done:
            return self.done[id(element)]
        found: set[int] = set()
        if element.name == "li":
            _only(element, {"class"})
            classes = [c for c in element.get("class", []) if c not in ("current", "active")]
            if not classes or not classes[0].startswith("toctree-l") or classes[0] == "toctree-l0":
                raise _Unsupported(f"an item of classes {classes}")
            found.add(slot := self.add(" ".join(classes), " ".join([classes[0], "current", "active", *classes[1:]])))
            element["class"] = _marker(slot)
            details = element.find("details", recursive=False)
            if details is not None:
                found.add(self._details(details, int(classes[0].removeprefix("toctree-l"))))
        elif element.name == "ul":
            _only(element, {"class"})
            classes = [c for c in element.get("class", []) if c != "current"]
            if "list-caption" in classes:
                raise _Unsupported("a list of parts")
            if classes:
                found.add(slot := self.add(" ".join(classes), " ".join(["current", *classes])))
                element["class"] = _marker(slot)
            else:
                element.attrs.pop("class", None)
                found.add(slot := self.add("", ' class="current"'))
                element[_MARK] = str(slot)
        self.done[id(element)] = found
        return found

    def _details(self, details: Any, level: int) -> int:
        _only(details, {"open"})
        details.attrs.pop("open", None)
        opened = ' open="open"'
        slot = self.add(opened if level < self.show_nav_level else "", opened)
        details[_MARK] = str(slot)
        return slot
