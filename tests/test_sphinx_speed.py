"""polybook's speed patches of Sphinx give what Sphinx gives: figure numbers from skeletons,
formatted bibliography entries kept by what decides them.

A small reStructuredText book of our own (a numbered toctree, nested sections, figures,
tables, captioned code blocks, a nested index) is built with the patches installed, then an
early document gains a figure and the book is rebuilt: every later number moves, on the pages
too. The numbers are compared with Sphinx's own walk over the real doctrees.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

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
        app = Sphinx(root, root, root / "_build", root / "_doctrees", "html", status=None, warning=None)
        app.build()
    return app.env.toc_fignumbers


def walked_without_skeletons(root: Path) -> dict[str, dict[str, dict[str, tuple[int, ...]]]]:
    """Sphinx's own numbering, over the pickled doctrees of the build (no skeletons)."""
    from sphinx.application import Sphinx
    from sphinx.environment.collectors.toctree import TocTreeCollector
    from sphinx.util.docutils import docutils_namespace

    with docutils_namespace():
        app = Sphinx(root, root, root / "_build", root / "_doctrees", "html", status=None, warning=None)
        env = app.env
        from polybook.stage.sphinx_speed import SKELETONS

        assert set(env.__dict__[SKELETONS]) == {"index", "one", "part/index", "part/two"}
        env.__dict__[SKELETONS] = {}
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
    env = pickle.loads((tmp_path / "_doctrees" / "environment.pickle").read_bytes())
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
    assert len(pickle.dumps(two)) < len((tmp_path / "_doctrees" / "part" / "two.doctree").read_bytes())


def format_lecun(text: str) -> tuple[str, object]:
    from pybtex.database import parse_string
    from pybtex.plugin import find_plugin

    entry = parse_string(text, "bibtex").entries["lecun1998"]
    formatted = find_plugin("pybtex.style.formatting", "plain")().format_entry("LeCun et al., 1998", entry)
    return formatted.text.render_as("text"), formatted


def test_a_formatted_entry_is_kept_and_follows_its_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pybtex.plugin import find_plugin
    from pybtex.style.formatting import BaseStyle

    from polybook.stage import sphinx_speed

    original = getattr(BaseStyle.format_entry, "__wrapped__", BaseStyle.format_entry)  # a build may have patched it
    monkeypatch.setattr(BaseStyle, "format_entry", original)  # as it was again after the test
    unpatched, _ = format_lecun(BIB)
    sphinx_speed._keep_formatted_entries(tmp_path)
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
