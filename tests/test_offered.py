"""A document has a version for a framework when one of its cells or text tabs names it (the
default tab always), as d2lbook decides: no program, no tab, no library code for the others."""

from __future__ import annotations

from pathlib import Path

from polybook.book import Book, load_book
from polybook.config import load_config
from polybook.dialect import DialectSettings, parse_text
from polybook.execute.programs import build_programs
from polybook.stage.myst import transpile

SETTINGS = DialectSettings("en", ("mxnet", "pytorch", "tensorflow"), "mxnet")
TEXT = """\
# Chapter

```{.python .input}
#@tab all
x = 1
```

```{.python .input}
#@tab pytorch
import torch
```
"""
CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet", "pytorch", "tensorflow"],
    "languages": {"en": {"name": "English"}},
}
"""


def test_only_named_frameworks_and_the_default_tab_are_offered() -> None:
    doc = parse_text(TEXT, "chapters/en/ch.md", SETTINGS)
    assert doc.offered() == ("mxnet", "pytorch")
    assert doc.cells()[0].frameworks == ("mxnet", "pytorch", "tensorflow")  # all still means all
    text_tab = parse_text(TEXT + "\n:begin_tab:`tensorflow`\nOnly TensorFlow.\n:end_tab:\n", "ch.md", SETTINGS)
    assert text_tab.offered() == ("mxnet", "pytorch", "tensorflow")


def test_no_program_and_no_tab_for_a_framework_the_document_does_not_offer(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    doc = parse_text(TEXT, "chapters/en/ch.md", SETTINGS)
    book = Book(load_config(tmp_path / "conf.py"), {"en": {"ch": doc}})
    environment = {fw: {} for fw in ("mxnet", "pytorch", "tensorflow")}
    assert sorted(p.framework for p in build_programs(book, environment)) == ["mxnet", "pytorch"]
    myst = transpile(doc, "en").text
    assert "{tab-item} pytorch" in myst and "tensorflow" not in myst  # labels as written: no framework_labels


BOOK_CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["pytorch", "mxnet", "jax"],
    "default_tab": "pytorch",
    "languages": {"en": {"name": "English"}},
    "chapters": "chapters",
    "build_dir": "build",
}
"""
#: d2l's cases: a chapter declaring JAX whose JAX version would hold only ``#@tab all`` cells (d2l's
#: anchor boxes), an MXNet-only chapter (the recommender systems), a chapter without code.
CHAPTERS = {
    "index": "# Book\n\n```toc\nanchor\nrecsys\nprose\n```\n",
    "anchor": (
        "# Anchor\n\n```{.python .input}\n%load_ext d2lbook.tab\n"
        "tab.interact_select(['mxnet', 'pytorch', 'jax'])\n```\n\n"
        "```{.python .input}\n%%tab mxnet\nfrom mxnet import np\n```\n\n"
        "```{.python .input}\n%%tab pytorch\nimport torch\n```\n\n"
        ":begin_tab:`mxnet`\nOnly MXNet readers see this.\n:end_tab:\n\n"
        "```{.python .input}\n%%tab all\nboxes = Y.reshape(1, 2)\n```\n"
    ),
    "recsys": "# Recommender\n\n```{.python .input}\n#@tab mxnet\nfrom mxnet import np\n```\n",
    "prose": "# Prose\n\nNo code here.\n",
}


def _book(root: Path) -> Path:
    folder = root / "chapters" / "en"
    folder.mkdir(parents=True)
    for name, text in CHAPTERS.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(BOOK_CONF, encoding="utf-8")
    return root / "conf.py"


def test_a_version_as_d2lbook_writes_one() -> None:
    """d2lbook's ``get_tab_notebook``: the default tab or a framework a cell or text tab names, and
    some cell for it when the document has code; a ``tab.interact_select`` declaration names none."""
    settings = DialectSettings("en", ("pytorch", "mxnet", "jax"), "pytorch")
    offered = {name: parse_text(text, f"chapters/en/{name}.md", settings).offered() for name, text in CHAPTERS.items()}
    assert offered == {
        "index": ("pytorch", "mxnet", "jax"),  # no code: its prose for everyone
        "anchor": ("pytorch", "mxnet"),  # JAX declared, never named: its cells would be `boxes = Y...` alone
        "recsys": ("mxnet",),  # every cell MXNet's: no version for the default tab either
        "prose": ("pytorch", "mxnet", "jax"),
    }


def test_no_notebook_zip_entry_tab_or_launch_link_for_a_framework_without_code(tmp_path: Path) -> None:
    import zipfile

    from polybook.notebooks.build import build_notebooks
    from polybook.render.notebook_links import notebook_links
    from polybook.render.site_info import NotebookPlace

    config = load_config(_book(tmp_path))
    report = build_notebooks(config)
    made = {o.target.framework: o.notebooks for o in report.outcomes}
    assert made == {"pytorch": 3, "mxnet": 4, "jax": 2}
    root = tmp_path / "build" / "notebooks" / "en"
    for framework, names in (
        ("pytorch", ["index", "anchor", "prose"]),
        ("mxnet", ["index", "anchor", "recsys", "prose"]),
        ("jax", ["index", "prose"]),
    ):
        assert sorted(p.stem for p in (root / framework).glob("*.ipynb")) == sorted(names)
        with zipfile.ZipFile(next(root.glob(f"*-{framework}.zip"))) as archive:
            inside = [n.rsplit("/", 1)[-1] for n in archive.namelist() if n.endswith(".ipynb")]
        assert inside == [f"{name}.ipynb" for name in names]  # in the toc's order
    toc = (root / "jax" / "index.ipynb").read_text(encoding="utf-8")
    assert "prose.ipynb" in toc and "anchor.ipynb" not in toc  # the toc links only notebooks there are

    book = load_book(config)
    anchor = book.chapters["en"]["anchor"]
    places = tuple(NotebookPlace(fw, fw, f"en/notebooks/{fw}", f"https://colab/{fw}") for fw in ("pytorch", "jax"))
    links = "\n".join(notebook_links("en", "anchor", anchor, places))
    assert "notebooks/pytorch/anchor.ipynb" in links and "jax" not in links
    page = transpile(anchor, "en").text
    assert ":sync: jax" not in page and "Y.reshape" in page


def test_a_tab_group_without_the_readers_framework_shows_nothing() -> None:
    """No "Nothing specific to X here." or "No X code for this step." box: the group has tabs only
    for the frameworks it has something for, and is marked for the site's script to hide it from
    the others' readers (the page's default version for a reader whose framework it lacks)."""
    settings = DialectSettings("en", ("pytorch", "mxnet", "jax"), "pytorch")
    doc = parse_text(
        CHAPTERS["anchor"].replace("%%tab pytorch\nimport torch", "%%tab pytorch, jax\nimport torch"), "a.md", settings
    )
    page = transpile(doc, "en").text
    assert "Nothing specific" not in page and "for this step" not in page and "polybook-empty" not in page
    text_group = page[page.index("polybook-text") :].split("::::\n", 1)[0]
    assert text_group.startswith("polybook-text polybook-lacks-pytorch polybook-lacks-jax polybook-default-pytorch\n")
    assert text_group.count("{tab-item}") == 1 and "Only MXNet readers see this." in text_group
    code_group = page[page.index(":class: polybook-tabs polybook-code") :].split("::::\n", 1)[0]
    assert code_group.count("{tab-item}") == 3  # every framework of the page: no class, never hidden
    assert "polybook-lacks" not in code_group
    script = (Path(__file__).parents[1] / "src/polybook/render/assets/static/polybook.js").read_text(encoding="utf-8")
    assert '"polybook-lacks-" + framework' in script and '"polybook-default-"' in script
