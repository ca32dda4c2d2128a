"""polybook's speed patches of Sphinx give what Sphinx gives, and each one took: figure numbers
from skeletons, formatted bibliography entries and highlighted code kept by what decides them,
numref's doctrees and pybtex's plugin look-ups each loaded once, the Chinese dictionary loaded
once ahead. A patch is in for its build only, and a build without one says so.

A small reStructuredText book of our own (a numbered toctree, nested sections, figures,
tables, captioned code blocks, a nested index) is built with the patches installed, then an
early document gains a figure and the book is rebuilt: every later number moves, on the pages
too. The numbers are compared with Sphinx's own walk over the real doctrees.
"""

from __future__ import annotations

import os
import pickle
import pkgutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from polybook.stage import sphinx_speed

#: Every name the speed-ups of a build patch (the Chinese dictionary's is process-wide).
PATCHED = {
    "pybtex.plugin.entry_points",
    "sphinxcontrib.bibtex.plugin._entry_points",
    "sphinx.domains.std.StandardDomain._resolve_numref_xref",
    "sphinx.builders.Builder.write_doctree",
    "sphinx.environment.collectors.toctree.TocTreeCollector.assign_figure_numbers",
    "sphinx.highlighting.PygmentsBridge.highlight_block",
    "pybtex.style.formatting.BaseStyle.format_entry",
    "sphinx.application.Sphinx._load_existing_env",
}
#: The doctrees of a book's build, where polybook keeps them: the stores are in <root>/build/.polybook.
DOCTREES = Path("build", "html", "en", "doctrees")

BIB = """@article{lecun1998,
  author = {LeCun, Yann and Bottou, L{\\'e}on and Bengio, Yoshua and Haffner, Patrick},
  title = {Gradient-based learning applied to document recognition},
  journal = {Proceedings of the IEEE},
  year = {1998},
  volume = {86},
  pages = {2278--2324},
}
"""

CONF = """
extensions = []
numfig = True
def setup(app):
    from polybook.stage import sphinx_speed
    sphinx_speed.install(app)
"""

INDEX = """Book
====

.. toctree::
   :numbered:

   one
   part/index
"""

ONE = """One
===

{extra}
Inside
------

.. figure:: a.png

   The first figure.

.. _tab_one:

.. table:: A table.

   ===  ===
   a    b
   ===  ===
   1    2
   ===  ===
"""

PART = """Part
====

.. toctree::

   two
"""

TWO = """Two
===

.. figure:: b.png
   :name: fig_two

   The second figure.

.. code-block:: python
   :caption: Some code.

   print(1)

.. figure:: c.png

   A third one.

.. container:: box

   .. figure:: d.png

      In a box: numbered too.

See :numref:`fig_two`.
"""


def build(root: Path) -> dict[str, dict[str, dict[str, tuple[int, ...]]]]:
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    with docutils_namespace():
        app = Sphinx(root, root, root / "_build", root / DOCTREES, "html", status=None, warning=None)
        app.build()
    assert sphinx_speed.installed() is None  # taken out when the build finished
    return app.env.toc_fignumbers


def current(names: set[str]) -> dict[str, Any]:
    """What each dotted name holds now."""
    return {name: pkgutil.resolve_name(name) for name in names}


def loads_inside(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> Counter[str]:
    """The doctrees Sphinx loads (``BuildEnvironment.get_doctree``) while ``owner.name`` runs, by
    document; set before the build, so that the speed-up patches what counts."""
    from sphinx.environment import BuildEnvironment

    loads: Counter[str] = Counter()
    inside = [False]
    get_doctree, method = BuildEnvironment.get_doctree, getattr(owner, name)

    def counted(self: Any, docname: str) -> Any:
        if inside[0]:
            loads[docname] += 1
        return get_doctree(self, docname)

    def flagged(*args: Any, **kwargs: Any) -> Any:
        inside[0] = True
        try:
            return method(*args, **kwargs)
        finally:
            inside[0] = False

    monkeypatch.setattr(BuildEnvironment, "get_doctree", counted)
    monkeypatch.setattr(owner, name, flagged)
    return loads


def walked_without_skeletons(root: Path) -> dict[str, dict[str, dict[str, tuple[int, ...]]]]:
    """Sphinx's own numbering, over the pickled doctrees of the build (no skeletons, no patches)."""
    from sphinx.application import Sphinx
    from sphinx.environment.collectors.toctree import TocTreeCollector
    from sphinx.util.docutils import docutils_namespace

    with docutils_namespace():
        with sphinx_speed.build_scope():  # set up, never built: the patches are taken out here
            app = Sphinx(root, root, root / "_build", root / DOCTREES, "html", status=None, warning=None)
        env = app.env
        assert set(env.__dict__[sphinx_speed.SKELETONS]) == {"index", "one", "part/index", "part/two"}
        TocTreeCollector.assign_figure_numbers(None, env)  # type: ignore[arg-type]
        return env.toc_fignumbers


def write_book(root: Path, extra: str = "") -> None:
    (root / "part").mkdir(parents=True, exist_ok=True)
    for name, text in {
        "conf.py": CONF,
        "index.rst": INDEX,
        "one.rst": ONE.format(extra=extra),
        "part/index.rst": PART,
        "part/two.rst": TWO,
    }.items():
        (root / name).write_text(text, encoding="utf-8")


@pytest.mark.slow  # real Sphinx
def test_figure_numbers_from_skeletons_are_sphinxs_and_move_on_an_edit(tmp_path: Path) -> None:
    write_book(tmp_path)
    first = build(tmp_path)
    assert sorted(first["part/two"]["figure"].values()) == [(2, 1), (2, 2), (2, 3)]
    assert first["part/two"]["figure"]["fig-two"] == (2, 1)
    assert list(first["part/two"]["code-block"].values()) == [(2, 1)]
    assert list(first["one"]["figure"].values()) == [(1, 1)] and list(first["one"]["table"].values()) == [(1, 1)]
    assert first == walked_without_skeletons(tmp_path)

    write_book(tmp_path, extra=".. figure:: z.png\n\n   A new first figure.\n")  # only one.rst changes
    second = build(tmp_path)
    assert second == walked_without_skeletons(tmp_path)
    assert sorted(second["one"]["figure"].values()) == [(1, 1), (1, 2)]
    assert second["part/two"]["figure"] == first["part/two"]["figure"]  # chapter 2 numbers its own
    page = (tmp_path / "_build" / "one.html").read_text(encoding="utf-8")
    assert "Fig. 1.2" in page and "Table 1.1" in page


@pytest.mark.slow  # real Sphinx
def test_a_skeleton_holds_no_document_and_pickles_small(tmp_path: Path) -> None:
    write_book(tmp_path)
    build(tmp_path)
    env = pickle.loads((tmp_path / DOCTREES / "environment.pickle").read_bytes())
    from docutils import nodes

    from polybook.stage.sphinx_speed import SKELETONS

    two = env.__dict__[SKELETONS]["part/two"]
    assert all(node.document is None for node in two.findall(nodes.Node))
    kinds = [type(node).__name__ for node in two.findall(nodes.Element)]
    assert kinds.count("figure") == 3 and "section" in kinds and kinds.count("caption") == 4
    code = next(two.findall(lambda node: isinstance(node, nodes.container) and "literal_block" in node))
    assert [type(child).__name__ for child in code.children] == ["caption"]  # not its code
    assert "paragraph" not in kinds  # the text around the numbered nodes is not kept
    one = env.__dict__[SKELETONS]["one"]
    assert "table" in [type(node).__name__ for node in one.findall(nodes.Element)]
    assert not list(one.findall(nodes.entry))  # a table's number depends on its title, not its cells
    assert len(pickle.dumps(two)) < len((tmp_path / DOCTREES / "part" / "two.doctree").read_bytes())


def format_lecun(text: str) -> tuple[str, object]:
    from pybtex.database import parse_string
    from pybtex.plugin import find_plugin

    entry = parse_string(text, "bibtex").entries["lecun1998"]
    formatted = find_plugin("pybtex.style.formatting", "plain")().format_entry("LeCun et al., 1998", entry)
    return formatted.text.render_as("text"), formatted


@pytest.fixture
def patches() -> Iterator[sphinx_speed.Patches]:
    """Patches a test puts in by hand (one speed-up at a time), taken out after it; each name
    then holds what it held before."""
    before = current(PATCHED)
    patches = sphinx_speed.Patches()
    yield patches
    patches.take_out()
    assert current(PATCHED) == before


def test_a_formatted_entry_is_kept_and_follows_its_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patches: sphinx_speed.Patches
) -> None:
    from pybtex.plugin import find_plugin
    from pybtex.style.formatting import BaseStyle

    unpatched, _ = format_lecun(BIB)
    sphinx_speed._keep_formatted_entries(patches, tmp_path)
    assert BaseStyle.format_entry is patches.patched["pybtex.style.formatting.BaseStyle.format_entry"]
    first, formatted = format_lecun(BIB)
    assert first == unpatched and "Gradient-based learning" in first
    assert len(list(tmp_path.glob("*/*"))) == 1
    plain = type(find_plugin("pybtex.style.formatting", "plain")())

    def not_again(*args: object) -> None:
        raise AssertionError("formatted again")

    with monkeypatch.context() as patch:
        patch.setattr(plain, "get_article_template", not_again)
        again, kept = format_lecun(BIB)
    assert again == first and kept.label == formatted.label and kept.key == "lecun1998"
    assert len(list(tmp_path.glob("*/*"))) == 1  # read back, not formatted again

    changed, _ = format_lecun(BIB.replace("{1998}", "{1999}").replace("Haffner, Patrick", "Haffner, P."))
    assert "1999" in changed and "P. Haffner" in changed and "Patrick" not in changed
    assert len(list(tmp_path.glob("*/*"))) == 2


def test_a_highlighted_block_is_kept_and_one_that_warned_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patches: sphinx_speed.Patches
) -> None:
    from sphinx import highlighting

    html, latex = highlighting.PygmentsBridge("html"), highlighting.PygmentsBridge("latex")
    unpatched = html.highlight_block("print(1)\n", "python")
    sphinx_speed._keep_highlighted(patches, tmp_path)
    assert (
        highlighting.PygmentsBridge.highlight_block
        is patches.patched["sphinx.highlighting.PygmentsBridge.highlight_block"]
    )
    assert html.highlight_block("print(1)\n", "python") == unpatched
    assert len(list(tmp_path.glob("*/*"))) == 1

    def not_again(*args: object) -> None:
        raise AssertionError("highlighted again")

    with monkeypatch.context() as patch:
        patch.setattr(highlighting, "highlight", not_again)
        assert html.highlight_block("print(1)\n", "python") == unpatched  # read back
    assert "\\PYG" in latex.highlight_block("print(1)\n", "python")  # the output format decides too
    assert len(list(tmp_path.glob("*/*"))) == 2
    html.highlight_block("x = $1 ?", "python")  # Sphinx warns: lexing it as Python fails
    assert len(list(tmp_path.glob("*/*"))) == 2  # not kept: the warning is said wherever the block is


def test_plugin_look_ups_scan_the_installed_distributions_once(
    monkeypatch: pytest.MonkeyPatch, patches: sphinx_speed.Patches
) -> None:
    import importlib.metadata

    from pybtex import plugin
    from sphinxcontrib.bibtex import plugin as bibtex_plugin

    scans: Counter[tuple[str, ...]] = Counter()
    entry_points = importlib.metadata.entry_points

    def counted(**selection: str) -> Any:
        scans[tuple(selection.values())] += 1
        return entry_points(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", counted)
    sphinx_speed.installed_entry_points.cache_clear()  # a process scans once: this test's is the one
    style = plugin.find_plugin("pybtex.style.formatting", "plain")
    referencing = bibtex_plugin.find_plugin("sphinxcontrib.bibtex.style.referencing", "author_year")
    sphinx_speed._memoise_pybtex_plugins(patches)
    sphinx_speed._memoise_bibtex_plugins(patches)
    assert set(patches.patched) == {"pybtex.plugin.entry_points", "sphinxcontrib.bibtex.plugin._entry_points"}
    for _ in range(3):
        assert plugin.find_plugin("pybtex.style.formatting", "plain") is style
        assert bibtex_plugin.find_plugin("sphinxcontrib.bibtex.style.referencing", "author_year") is referencing
        assert "plain" in list(plugin.enumerate_plugin_names("pybtex.style.formatting"))  # a group, no name
    assert scans == {(): 1}  # one scan of everything; every look-up selects from it


def test_the_chinese_dictionary_is_loaded_once_ahead_or_said_not_to_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sphinx.search import zh

    loaded: list[str] = []

    def load(path: str) -> None:
        loaded.append(path)

    dictionary = tmp_path / "dict.txt"
    dictionary.write_text("深度 1\n", encoding="utf-8")
    monkeypatch.setattr(zh, "jieba_load_userdict", load)
    monkeypatch.setattr(zh, "JIEBA_DEFAULT_DICT", str(dictionary))
    monkeypatch.setattr(sphinx_speed, "_AHEAD_NOT_APPLIED", {})
    sphinx_speed.load_chinese_dictionary()
    assert loaded == [str(dictionary)] and zh.jieba_load_userdict is not load
    zh.jieba_load_userdict(str(dictionary))  # what Sphinx's set-up of a zh index does: nothing again
    zh.jieba_load_userdict("mine.txt")  # a book's own dictionary is loaded
    assert loaded == [str(dictionary), "mine.txt"]
    assert sphinx_speed._AHEAD_NOT_APPLIED == {}

    monkeypatch.delattr(zh, "jieba_load_userdict")  # a release of Sphinx without the name
    sphinx_speed.load_chinese_dictionary()
    assert sphinx_speed._AHEAD_NOT_APPLIED == {
        sphinx_speed.CHINESE_DICTIONARY: "sphinx.search.zh.jieba_load_userdict is missing"
    }


def fake_app(root: Path, language: str = "en") -> Any:
    """What :func:`sphinx_speed.install` reads of a Sphinx application, and the events it connects."""
    events: list[str] = []
    doctrees = root / "build" / "html" / language / "doctrees"
    return SimpleNamespace(
        doctreedir=doctrees, config=SimpleNamespace(language=language), events=events,
        connect=lambda event, handler, priority=500: events.append(event),
    )  # fmt: skip


def test_install_patches_every_name_for_one_build(tmp_path: Path) -> None:
    before = current(PATCHED)
    app = fake_app(tmp_path)
    with sphinx_speed.build_scope():
        sphinx_speed.install(app)
        patches = sphinx_speed.installed()
        assert patches is not None and patches.not_applied == {}
        assert set(patches.patched) == PATCHED
        assert all(current(PATCHED)[name] is patches.patched[name] is not before[name] for name in PATCHED)
        sphinx_speed.install(app)  # a second extension of the build asks: the same patches
        assert sphinx_speed.installed() is patches
    assert "build-finished" in app.events  # a build takes them out when it finishes
    assert sphinx_speed.installed() is None and current(PATCHED) == before
    assert not (tmp_path / "build").exists()  # no store made for nothing


NUMREF_BOOK = {
    "index.rst": "Book\n====\n\n.. toctree::\n   :numbered:\n\n   figures\n   code\n   refs\n",
    "figures.rst": ".. _sec_figures:\n\nFigures\n=======\n\n.. figure:: a.png\n   :name: fig_a\n\n   A figure.\n",
    "code.rst": "Code\n====\n\n.. code-block:: python\n   :caption: A listing.\n   :name: code_a\n\n   x = 1\n",
    "refs.rst": "Refs\n====\n\n"
    + "".join(f"See :numref:`fig_a` ({i}), :numref:`code_a`.\n\n" for i in range(5))
    + "Sections: :numref:`sec_figures`.\n",
}


def sphinx_build_alone(root: Path, out: Path) -> tuple[int, str, str, str]:
    """The book at ``root`` built by Sphinx with its conf.py as it is, into ``out``."""
    from polybook.stage.sphinx_run import sphinx_build

    return sphinx_build(str(root), str(root), str(out), str(out / ".doctrees"), "html", {})


def run(root: Path, builder: str = "html", **overrides: Any) -> tuple[int, str, str]:
    """The book at ``root`` built by polybook's runner: (status, crash, warnings)."""
    from polybook.stage.sphinx_run import sphinx_build

    out, doctrees = root / "_build", root / DOCTREES
    code, failure, _, warnings = sphinx_build(str(root), str(root), str(out), str(doctrees), builder, overrides)
    return code, failure, warnings


@pytest.mark.slow  # real Sphinx
def test_numref_loads_a_referenced_doctree_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sphinx.domains.std import StandardDomain

    for name, text in {"conf.py": CONF, **NUMREF_BOOK}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    loads = loads_inside(monkeypatch, StandardDomain, "_resolve_numref_xref")
    code, failure, warnings = run(tmp_path)
    assert code == 0 and not failure and "[ref." not in warnings
    # A figure and a section from the skeleton; a code block's kind is in its code: its doctree,
    # once for five references (Sphinx alone: every reference loads its document).
    assert loads == {"code": 1}
    page = (tmp_path / "_build" / "refs.html").read_text(encoding="utf-8")
    assert page.count("Fig. 1.1") == 5 and page.count("Listing 2.1") == 5 and "Section 1" in page
    (tmp_path / "conf.py").write_text("extensions = []\nnumfig = True\n", encoding="utf-8")  # Sphinx alone
    alone = tmp_path / "alone"
    code, failure, _, _ = sphinx_build_alone(tmp_path, alone)
    assert code == 0 and not failure
    assert page == (alone / "refs.html").read_text(encoding="utf-8")


@pytest.mark.slow  # real Sphinx
def test_figures_are_numbered_without_loading_a_doctree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sphinx.environment.collectors.toctree import TocTreeCollector

    loads = loads_inside(monkeypatch, TocTreeCollector, "assign_figure_numbers")
    write_book(tmp_path)
    first = build(tmp_path)
    write_book(tmp_path, extra=".. figure:: z.png\n\n   A new first figure.\n")
    second = build(tmp_path)
    assert first != second and loads == {}  # Sphinx alone loads every doctree, in both builds


@pytest.mark.slow  # real Sphinx
def test_the_runner_takes_the_speed_ups_out_however_the_build_ends(tmp_path: Path) -> None:
    before = current(PATCHED)
    write_book(tmp_path)
    code, failure, warnings = run(tmp_path)
    assert code == 0 and not failure and "speed-ups" not in warnings
    assert sphinx_speed.installed() is None and current(PATCHED) == before
    broken = CONF + "    raise RuntimeError('a broken extension')\n"  # stops after installing them
    (tmp_path / "conf.py").write_text(broken, encoding="utf-8")
    code, failure, _ = run(tmp_path)
    assert code == 2 and "a broken extension" in failure
    assert sphinx_speed.installed() is None and current(PATCHED) == before


@pytest.mark.slow  # real Sphinx
def test_a_build_without_a_speed_up_says_so_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sphinxcontrib.bibtex import plugin

    from polybook.diagnostics import Code
    from polybook.stage.sphinx_run import located_warnings

    monkeypatch.delattr(plugin, "_entry_points")  # a release of sphinxcontrib-bibtex that moved it
    monkeypatch.setattr(sphinx_speed, "_AHEAD_NOT_APPLIED", {sphinx_speed.CHINESE_DICTIONARY: "no dictionary"})
    write_book(tmp_path)
    code, failure, warnings = run(tmp_path)
    assert code == 0 and not failure
    assert warnings.count("speed-ups") == 1
    assert "sphinxcontrib.bibtex.plugin._entry_points is missing" in warnings
    assert sphinx_speed.CHINESE_DICTIONARY not in warnings  # not this language's
    [diagnostic] = [d for _, d in located_warnings(warnings, tmp_path, {}, {}, "conf.py") if "speed-ups" in d.message]
    assert (diagnostic.path, diagnostic.line, diagnostic.code) == ("conf.py", 1, Code.HTML_SPHINX)
    assert "[polybook.speedup]" in diagnostic.message

    code, failure, warnings = run(tmp_path, "dummy", language="zh_CN")  # no search index: no jieba
    assert code == 0 and not failure and warnings.count("speed-ups") == 1
    assert f"{sphinx_speed.CHINESE_DICTIONARY} (no dictionary)" in warnings


def test_an_environment_unpickled_ahead_is_taken_only_while_its_file_is_as_it_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fork server unpickles a language's Sphinx environment ahead; the worker takes that copy
    once, and only when the file was not written since (else Sphinx reads the file)."""
    from polybook.stage.workers import ENVIRONMENTS_VARIABLE

    first, second, missing = tmp_path / "a.pickle", tmp_path / "b.pickle", tmp_path / "none.pickle"
    first.write_bytes(pickle.dumps({"docs": ["intro"]}))
    second.write_bytes(pickle.dumps({"docs": ["old"]}))
    monkeypatch.setattr(sphinx_speed, "_AHEAD", {})
    monkeypatch.setenv(ENVIRONMENTS_VARIABLE, os.pathsep.join(map(str, (first, second, missing))))
    sphinx_speed.load_environments_ahead()
    assert sorted(sphinx_speed._AHEAD) == [str(first), str(second)]  # a missing one is left to Sphinx
    second.write_bytes(pickle.dumps({"docs": ["written since"]}))
    os.utime(second, ns=(1, 1))
    assert sphinx_speed._take_ahead(first) == {"docs": ["intro"]}
    assert sphinx_speed._take_ahead(first) is None  # once: the worker builds with it
    assert sphinx_speed._take_ahead(second) is None


def test_a_build_records_what_its_set_up_imported_for_the_next_fork_server(tmp_path: Path) -> None:
    """What a worker's Sphinx set-up imported beyond the fork server's own imports is recorded in
    the doctree folder (only when it changed) and read back for the next server."""
    import sys

    from polybook.stage import workers

    before = set(sys.modules) - {"polybook.stage.preload"}
    workers.record_setup_modules(tmp_path, before)
    assert workers.setup_modules(tmp_path) == sorted(set(sys.modules) - before)
    (tmp_path / workers.SETUP_MODULES).write_text("{not json", encoding="utf-8")
    assert workers.setup_modules(tmp_path) == []  # unreadable: nothing ahead, the worker imports them


@pytest.mark.parametrize(
    ("languages", "cores", "workers"),
    [(1, 2, 2), (2, 2, 2), (3, 2, 3), (4, 2, 2), (5, 2, 3), (6, 2, 2), (5, 4, 5), (8, 4, 4), (3, 8, 8)],
)
def test_languages_that_do_not_fill_the_cores_evenly_get_one_more_worker(
    languages: int, cores: int, workers: int
) -> None:
    from polybook.stage.workers import default_workers

    assert default_workers(languages, cores) == workers  # the pool takes no more than the languages
