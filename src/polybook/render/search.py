"""The site's search finds the page about a term, in every language.

Sphinx indexes every word of a page and ranks the pages that have a word alike (then by title,
alphabetically): the framework tabs' labels ("TensorFlow" matched "tensor" on every page with
code), the notebooks' download links, polybook's notices and the cells' outputs were indexed and
started every snippet. So:

* :class:`SearchSkips` marks what polybook writes around a chapter's own text -- the framework
  tabs' labels, the notebook links, the notices, the outputs -- with Sphinx's ``no-search`` class:
  the indexer skips them, and the scorer leaves them out of the snippets.
* The pages' word counts (:func:`word_counts`, with the index's own splitter and stemmer, so
  jieba's and the Japanese segmenter's words) and each page's title words are added to
  ``searchindex.js`` after Sphinx writes it (:func:`add_ranking`, key ``polybook``); they are
  kept beside the doctrees for the pages an incremental build does not write again.
* The scorer (``html_search_scorer``: ``assets/search-scorer.js``) ranks first the pages whose
  title holds the query, then the pages by how often they use its words; a section whose title
  holds it comes right after its page.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from polybook.files import atomic_write, read_json

NO_SEARCH = "no-search"  # Sphinx's class for what its indexer skips
#: Classes of what polybook writes around a chapter's text: notices (of a cell, a framework, an
#: untranslated page or block), notebook links, outputs.
SKIPPED = frozenset(
    {
        "polybook-notice",
        "polybook-needs-gpu",
        "polybook-download-failed",
        "polybook-failed",
        "polybook-untranslated",
        "polybook-page-notice",
        "polybook-block-mark",
        "polybook-notebook-links",
        "output",
    }
)
STORE = "polybook-search.json"  # in the doctree folder: the counts of every page indexed
INDEX_KEY = "polybook"
MIN_COUNT = 3  # fewer uses count as one: the index says the page has the word


class SearchSkips(SphinxTransform):
    """Mark the framework tabs' labels and what polybook writes around the text ``no-search``."""

    default_priority = 880

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(nodes.Element):
            classes = node["classes"]
            own_tab = "sd-tab-label" in classes and any(c.startswith("polybook-tab-") for c in classes)
            if (own_tab or SKIPPED.intersection(classes)) and NO_SEARCH not in classes:
                classes.append(NO_SEARCH)


def word_counts(lang: Any, store: Any) -> tuple[list[str], dict[str, int]]:
    """The stemmed words of a page's title, and how often the page uses each word, from what
    Sphinx's indexer collected of it (``store``) with its language ``lang``: the same splitter,
    stemmer and filter as the index, ``no-search`` skipped."""

    @functools.cache
    def stem(word: str) -> str | None:
        stemmed = lang.stem(word).lower()
        if lang.word_filter(stemmed):
            return stemmed
        return word.lower() if lang.word_filter(word) else None

    title = store.titles[0][0] if store.titles else ""
    title_words = sorted({s for w in lang.split(title) if (s := stem(w))})
    counts = Counter(s for w in store.words if (s := stem(w)))
    return title_words, {word: n for word, n in counts.items() if n >= MIN_COUNT}


def watch_index(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Count the words of every page as Sphinx's indexer collects them (``doctree-resolved``,
    before the page is fed, in the main process however many write the pages): this build's
    indexer hands each page's collected words on as well (segmenting a Japanese page twice would
    cost what its index costs)."""
    indexer = getattr(app.builder, "indexer", None)
    if indexer is None or "_word_collector" in vars(indexer) or not hasattr(indexer, "_word_collector"):
        return
    collect, feed, counted = indexer._word_collector, indexer.feed, _counted(app)
    feeding: list[str] = []

    def collector(doctree: nodes.document) -> Any:
        store = collect(doctree)
        if feeding:
            counted[feeding[-1]] = word_counts(indexer.lang, store)
        return store

    def fed(docname: str, *args: Any) -> None:
        feeding.append(docname)
        try:
            feed(docname, *args)
        finally:
            feeding.pop()

    indexer._word_collector, indexer.feed = collector, fed


def _counted(app: Sphinx) -> dict[str, tuple[list[str], dict[str, int]]]:
    if not hasattr(app, "_polybook_counted"):
        app._polybook_counted = {}  # type: ignore[attr-defined]
    return app._polybook_counted  # type: ignore[attr-defined]


def add_ranking(app: Sphinx, exception: Exception | None) -> None:
    """After Sphinx wrote ``searchindex.js`` (``build-finished``): add the title words and word
    counts of its pages; those of pages not written this time come from the store."""
    if exception is not None or getattr(app.builder, "indexer", None) is None:
        return
    from sphinx.search import js_index  # Sphinx's own reading and writing of searchindex.js

    index_file = Path(app.outdir) / "searchindex.js"
    try:
        index = js_index.loads(index_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    store_file = Path(app.doctreedir) / STORE
    kept = read_json(store_file)
    counted: dict[str, Any] = {name: list(entry) for name, entry in kept.items()}
    counted.update({name: [title, counts] for name, (title, counts) in _counted(app).items()})
    docnames = index.get("docnames", [])
    for name in docnames:
        if name not in counted:  # indexed before, its counts lost: count it from its doctree
            indexer = app.builder.indexer  # type: ignore[attr-defined]
            counted[name] = list(word_counts(indexer.lang, indexer._word_collector(app.env.get_doctree(name))))
    counted = {name: counted[name] for name in docnames}
    atomic_write(store_file, json.dumps(counted, ensure_ascii=False, sort_keys=True))
    words: dict[str, list[int]] = {}
    for number, name in enumerate(docnames):
        for word, count in counted[name][1].items():
            words.setdefault(word, []).extend((number, count))
    index[INDEX_KEY] = {"titles": [counted[name][0] for name in docnames], "counts": dict(sorted(words.items()))}
    atomic_write(index_file, js_index.dumps(index))


def setup(app: Sphinx) -> None:
    """Wire the search's skips and ranking into a build (called by polybook's Sphinx extension)."""
    app.add_transform(SearchSkips)
    app.connect("doctree-resolved", watch_index)
    app.connect("build-finished", add_ranking)
