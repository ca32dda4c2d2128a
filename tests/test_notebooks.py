"""``polybook build notebooks``: per language and framework, a valid notebook per document with that
framework's text and code, the outputs ``build eval`` recorded, references as links to the pages.

The fixture book (tests/fixtures/notebooks/book) has text tabs, a ``tab.selected`` cell, slide
marks, a labelled figure, equation and section; its recorded outputs
(tests/fixtures/notebooks/eval) are what ``polybook build eval`` wrote for it with the
``python3`` kernel -- the slow test at the end makes them again and runs the notebooks.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import nbformat
import pytest

from polybook.config import load_config
from polybook.config.notebooks import LaunchPlace
from polybook.diagnostics import Code
from polybook.notebooks.build import NotebookStatus, build_notebooks, kernel_name

from conftest import FIXTURES

BOOK = FIXTURES / "notebooks" / "book"
RECORDED = FIXTURES / "notebooks" / "eval"


def copy_book(dest: Path, outputs: bool = True, conf_extra: str = "") -> Path:
    """The fixture book in ``dest``, with the recorded outputs in its build folder."""
    dest = dest / "book"
    shutil.copytree(BOOK, dest)
    if outputs:
        shutil.copytree(RECORDED, dest / "build" / "eval")
    if conf_extra:
        conf = dest / "conf.py"
        conf.write_text(conf.read_text(encoding="utf-8") + conf_extra, encoding="utf-8")
    return dest / "conf.py"


def notebook(root: Path, lang: str, framework: str, name: str = "counting") -> dict[str, Any]:
    """A notebook of the book copied into ``root``."""
    folder = root / "book" / "build" / "notebooks" / lang / framework
    return json.loads((folder / f"{name}.ipynb").read_text(encoding="utf-8"))


def text_of(nb: dict[str, Any], kind: str) -> str:
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind)


def test_every_notebook_validates_with_its_framework_text_code_and_outputs(tmp_path: Path) -> None:
    report = build_notebooks(load_config(copy_book(tmp_path)))
    assert [o.target.name for o in report.outcomes] == ["en/alpha", "en/beta", "ja/alpha", "ja/beta"]
    assert not report.failed and not [d for d in report.diagnostics if d.level != "info"]
    for path in sorted((tmp_path / "book" / "build" / "notebooks").rglob("*.ipynb")):
        read = nbformat.read(path, as_version=4)
        nbformat.validate(read)
        assert path.read_text(encoding="utf-8") == nbformat.writes(read) + "\n"  # laid out as Jupyter writes it
    alpha, beta = notebook(tmp_path, "en", "alpha"), notebook(tmp_path, "en", "beta")
    # that framework's text tab only; slide marks out (the dropped text gone), math kept
    assert "Alpha counts with a loop." in text_of(alpha, "markdown")
    assert "Beta counts" not in text_of(alpha, "markdown")
    assert "We count with care and  as" in text_of(alpha, "markdown")
    assert "never in slides" not in text_of(alpha, "markdown")
    assert "\\sum_{i=1}^n i = \\frac{n(n+1)}{2}. \\tag{1.1}" in text_of(alpha, "markdown")
    # that framework's code: its cells, tab.selected branches resolved as on the page
    assert "for i in range(1, 11)" in text_of(alpha, "code") and "sum(range" not in text_of(alpha, "code")
    assert "name = 'beta'\nf'{name}: {total}'" in text_of(beta, "code")
    assert "tab.selected" not in text_of(alpha, "code") + text_of(beta, "code")
    # the recorded outputs, with execution counts
    codes = [c for c in beta["cells"] if c["cell_type"] == "code"]
    assert codes[0]["outputs"] == [{"name": "stdout", "output_type": "stream", "text": ["55\n"]}]
    assert codes[1]["outputs"][0]["data"]["text/plain"] == ["'beta: 55'"]
    assert codes[1]["execution_count"] == codes[1]["outputs"][0]["execution_count"] == 2
    assert codes[2]["outputs"][0]["data"]["image/svg+xml"][0].startswith("<svg")
    assert beta["metadata"]["kernelspec"]["name"] == "python3"  # conf.py's kernel


def test_references_become_links_to_the_published_page_with_the_pages_numbers(tmp_path: Path) -> None:
    build_notebooks(load_config(copy_book(tmp_path)))
    en, ja = (
        text_of(notebook(tmp_path, "en", "alpha"), "markdown"),
        text_of(notebook(tmp_path, "ja", "beta"), "markdown"),
    )
    assert "as [Fig. 1.1](../../counting.html#fig_box) shows" in en
    assert "[図 1.1](../../counting.html#fig_box) のように" in ja  # Sphinx's own Japanese words
    assert "By [(1.1)](../../counting.html#eq_sum)" in en
    assert "(see [Counting](../../counting.html#sec_counting))" in en
    assert "**Fig. 1.1** A box to count in." in en


def test_the_base_url_makes_links_absolute(tmp_path: Path) -> None:
    build_notebooks(load_config(copy_book(tmp_path, conf_extra='html_baseurl = "https://tiny.example.org/"\n')))
    ja = text_of(notebook(tmp_path, "ja", "alpha"), "markdown")
    assert "[図 1.1](https://tiny.example.org/ja/counting.html#fig_box)" in ja


def test_figures_and_the_toc_work_inside_the_folder(tmp_path: Path) -> None:
    build_notebooks(load_config(copy_book(tmp_path)))
    folder = tmp_path / "book" / "build" / "notebooks" / "ja" / "alpha"
    assert '<img src="img/box.svg" alt="数える箱。" width="200px">' in text_of(
        notebook(tmp_path, "ja", "alpha"), "markdown"
    )
    assert (folder / "img" / "box.svg").read_bytes() == (BOOK / "chapters" / "img" / "box.svg").read_bytes()
    assert "* [数える](counting.ipynb)" in text_of(notebook(tmp_path, "ja", "alpha", "index"), "markdown")


def test_a_cell_without_a_stored_output_gets_none_and_a_warning_at_its_line(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    chapter = tmp_path / "book" / "chapters" / "en" / "counting.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace(
            "print(total)\n```\n\n```{.python .input}\n#@tab beta",
            "print(total + 1)\n```\n\n```{.python .input}\n#@tab beta",
        ),
        encoding="utf-8",
    )
    report = build_notebooks(load_config(conf), ["en"], ["alpha"])
    missing = [(Path(d.path).name, d.line) for d in report.diagnostics if d.code is Code.OUTPUT_MISSING]
    # the edited cell and those after it (their outputs depend on it): not shown, said at their lines
    assert missing == [("counting.md", 23), ("counting.md", 37), ("counting.md", 46)]
    assert all(not c.get("outputs") for c in notebook(tmp_path, "en", "alpha")["cells"] if c["cell_type"] == "code")


def test_a_book_never_evaluated_says_so_once_per_document(tmp_path: Path) -> None:
    report = build_notebooks(load_config(copy_book(tmp_path, outputs=False)), ["en"], ["alpha"])
    missing = [d for d in report.diagnostics if d.code is Code.OUTPUT_MISSING]
    assert [(d.line, "this document" in d.message) for d in missing] == [(23, True)]


def test_only_the_language_that_changed_is_made_again(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    build_notebooks(load_config(conf))
    again = build_notebooks(load_config(conf))
    assert {o.status for o in again.outcomes} == {NotebookStatus.UNCHANGED}
    en = tmp_path / "book" / "build" / "notebooks" / "en" / "alpha" / "counting.ipynb"
    before = en.stat().st_mtime_ns
    chapter = tmp_path / "book" / "chapters" / "ja" / "counting.md"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("確かめる", "確認する"), encoding="utf-8")
    edited = build_notebooks(load_config(conf))
    status = {o.target.name: (o.status, o.written) for o in edited.outcomes}
    assert status == {
        "en/alpha": (NotebookStatus.UNCHANGED, 0),
        "en/beta": (NotebookStatus.UNCHANGED, 0),
        "ja/alpha": (NotebookStatus.BUILT, 1),  # counting; index's bytes are the same
        "ja/beta": (NotebookStatus.BUILT, 1),
    }
    assert en.stat().st_mtime_ns == before
    assert "## 確認する" in text_of(notebook(tmp_path, "ja", "beta"), "markdown")


def test_the_kernel_is_the_framework_environments(tmp_path: Path) -> None:
    environments = '\npolybook["execution"]["environments"] = {"alpha": ["numpy==1.26.4"]}\n'
    conf = copy_book(tmp_path)
    text = conf.read_text(encoding="utf-8").replace(
        '"execution": {"kernel": "python3", "timeout": 60}',
        '"execution": {"kernel": "python3", "timeout": 60, "environments": {"alpha": ["numpy==1.26.4"]}}',
    )
    conf.write_text(text, encoding="utf-8")
    assert environments  # conf.py is read statically: the setting is written in place
    config = load_config(conf)
    build_notebooks(config, ["en"])
    alpha = notebook(tmp_path, "en", "alpha")["metadata"]["kernelspec"]["name"]
    assert alpha == kernel_name(config, "alpha") and alpha.startswith("polybook-alpha-")
    assert notebook(tmp_path, "en", "beta")["metadata"]["kernelspec"]["name"] == "python3"


def test_figures_count_per_chapter_across_its_sections(tmp_path: Path) -> None:
    """Sphinx's numbering (numfig_secnum_depth 1): the second labelled figure of chapter 2 is
    Fig. 2.2 though another section of the chapter holds it; a section gets its number."""
    from polybook.book import load_book
    from polybook.notebooks.references import LabelIndex

    def figure(label: str) -> str:
        return f"![x](x.png)\n:label:`{label}`\n"

    folder = tmp_path / "chapters" / "en"
    files = {
        "index.md": "# Book\n\n```toc\n:numbered:\n\none/index\ntwo/index\n```\n",
        "one/index.md": "# One\n\n" + figure("fig_a") + "\n```toc\na\n```\n",
        "one/a.md": "# A\n\n" + figure("fig_b"),
        "two/index.md": "# Two\n\n```toc\nb\nc\n```\n",
        "two/b.md": "# B\n\n" + figure("fig_c") + "\n## Sub\n:label:`sec_sub`\n",
        "two/c.md": "# C\n\n" + figure("fig_d"),
    }
    for name, body in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(body, encoding="utf-8")
    (tmp_path / "conf.py").write_text(
        'polybook = {"source_language": "en", "frameworks": ["alpha"], "languages": {"en": {"name": "English"}}}\n',
        encoding="utf-8",
    )
    book = load_book(load_config(tmp_path / "conf.py"))
    index = LabelIndex.make("en", book.chapters["en"], book.tocs["en"], {"figure": "Fig. %s", "section": "Section %s"})
    assert {label: index.targets[label].number for label in ("fig_a", "fig_b", "fig_c", "fig_d")} == {
        "fig_a": "1.1",
        "fig_b": "1.2",
        "fig_c": "2.1",
        "fig_d": "2.2",
    }
    assert index.text("numref", index.targets["sec_sub"], "sec_sub") == "Section 2.1.1"


@pytest.mark.slow
def test_a_notebook_run_with_nbclient_gives_the_outputs_build_eval_recorded(tmp_path: Path) -> None:
    """Evaluate the book, make its notebooks, run each with nbclient in the kernel its metadata
    names, from its folder: every code cell gives the outputs the notebook holds."""
    from click.testing import CliRunner
    from nbclient import NotebookClient

    from polybook.cli import main

    conf = copy_book(tmp_path, outputs=False)
    result = CliRunner().invoke(main, ["--conf", str(conf), "build", "eval"])
    assert result.exit_code == 0, result.output
    report = build_notebooks(load_config(conf))
    assert not [d for d in report.diagnostics if d.code is Code.OUTPUT_MISSING]
    for lang, framework in (("en", "alpha"), ("ja", "beta")):
        path = tmp_path / "book" / "build" / "notebooks" / lang / framework / "counting.ipynb"
        recorded = nbformat.read(path, as_version=4)
        ran = nbformat.read(path, as_version=4)
        NotebookClient(ran, timeout=60, resources={"metadata": {"path": str(path.parent)}}).execute()
        for mine, theirs in zip(recorded.cells, ran.cells, strict=True):
            if mine.cell_type == "code":
                assert mine.outputs, mine.source
                assert theirs.outputs == mine.outputs, mine.source


def test_the_zip_holds_the_notebooks_in_toc_order_their_figures_and_the_library(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    text = conf.read_text(encoding="utf-8").replace(
        '"execution":', '"library": {"frameworks": {"alpha": {"lib_file": "tiny/alpha.py"}}},\n    "execution":'
    )
    conf.write_text(text, encoding="utf-8")
    (tmp_path / "book" / "chapters" / "en" / "tiny").mkdir()
    (tmp_path / "book" / "chapters" / "en" / "tiny" / "alpha.py").write_text("VALUE = 1\n", encoding="utf-8")
    (tmp_path / "book" / "chapters" / "en" / "tiny" / "__init__.py").write_text("", encoding="utf-8")
    report = build_notebooks(load_config(conf), ["ja"], ["alpha"])
    archive = report.outcomes[0].target.zip
    assert archive.name == "tiny-book-ja-alpha.zip"
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        notebook_in_zip = json.loads(opened.read("tiny-book-ja-alpha/counting.ipynb"))
    assert names == [
        "tiny-book-ja-alpha/index.ipynb",  # the toc's order: the root, then what it lists
        "tiny-book-ja-alpha/counting.ipynb",
        "tiny-book-ja-alpha/img/box.svg",
        "tiny-book-ja-alpha/tiny/__init__.py",  # the translation has no copy: the source's library
        "tiny-book-ja-alpha/tiny/alpha.py",
    ]
    assert notebook_in_zip == notebook(tmp_path, "ja", "alpha")
    before = archive.read_bytes()
    build_notebooks(load_config(conf), ["ja"], ["alpha"], force=True)
    assert archive.read_bytes() == before  # the same folder, the same bytes


def test_each_framework_tab_under_the_title_links_the_pages_notebook_and_where_it_launches() -> None:
    from polybook.dialect import DialectSettings, parse_file
    from polybook.render.notebook_links import notebook_links
    from polybook.render.site_info import NotebookPlace

    doc = parse_file(BOOK / "chapters" / "ja" / "counting.md", DialectSettings("ja", ("alpha", "beta"), "alpha"))
    colab = "https://colab.research.google.com/github/o/r/blob/main/ja/beta"
    places = (
        NotebookPlace("alpha", "Alpha", "ja/notebooks/alpha"),
        NotebookPlace("beta", "Beta", "ja/notebooks/beta", colab),
    )
    lines = notebook_links("ja", "counting", doc, places)
    assert lines[:3] == ["::::{tab-set}", ":sync-group: framework", ":class: polybook-tabs polybook-notebook-links"]
    shown = "\n".join(lines)
    assert 'href="notebooks/alpha/counting.ipynb" download>' in shown
    assert 'href="notebooks/beta/counting.ipynb" download>' in shown
    assert f'href="{colab}/counting.ipynb">Colab で開く' in shown  # in the page's language
    assert shown.count("Colab で開く") == 1  # alpha has no launch place
    index = parse_file(BOOK / "chapters" / "ja" / "index.md", DialectSettings("ja", ("alpha", "beta"), "alpha"))
    assert notebook_links("ja", "index", index, places) == []  # no code: nothing to run


def test_conf_py_names_where_launch_notebooks_are_published(tmp_path: Path) -> None:
    from polybook.config import ConfigError

    launch = '"notebooks": {"launch": {"*": "o/book-{lang}@{framework}", "ja/beta": "o/ja-beta", "en": None}},\n    '
    conf = copy_book(tmp_path)
    conf.write_text(conf.read_text(encoding="utf-8").replace('"execution":', launch + '"execution":'), encoding="utf-8")
    config = load_config(conf)
    assert config.notebooks.place("ja", "alpha") == LaunchPlace("o/book-ja", "alpha")
    assert config.notebooks.place("ja", "beta") == LaunchPlace("o/ja-beta", "notebooks")
    assert config.notebooks.place("en", "alpha") is None
    conf.write_text(conf.read_text(encoding="utf-8").replace('"o/ja-beta"', '"not a repository"'), encoding="utf-8")
    with pytest.raises(
        ConfigError, match=re.escape("polybook.notebooks.launch.ja/beta: 'not a repository' is not a GitHub")
    ):
        load_config(conf)


def fake_wheel(folder: Path, name: str, version: str) -> None:
    """A wheel uv can resolve (its metadata; nothing to install): the package index of a test."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        wheel.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{info}/RECORD", "")


def launch_book(tmp_path: Path) -> Path:
    """The fixture book with a library (version 0.3.0) and a place for its launch notebooks."""
    conf = copy_book(tmp_path)
    settings = (
        '"library": {"version_file": "tiny/__init__.py", "frameworks": {"alpha": {"lib_file": "tiny/alpha.py"}}},\n'
        '    "notebooks": {"launch": "example/tiny@{lang}-{framework}"},\n    "execution":'
    )
    conf.write_text(conf.read_text(encoding="utf-8").replace('"execution":', settings), encoding="utf-8")
    library = tmp_path / "book" / "chapters" / "en" / "tiny"
    library.mkdir()
    (library / "__init__.py").write_text('__version__ = "0.3.0"\n', encoding="utf-8")
    (library / "alpha.py").write_text("VALUE = 1\n", encoding="utf-8")
    return conf


def test_a_launch_notebook_installs_what_its_outputs_were_computed_with(tmp_path: Path) -> None:
    conf = launch_book(tmp_path)
    report = build_notebooks(load_config(conf), ["ja"])
    launch = tmp_path / "book" / "build" / "launch" / "ja"
    alpha = json.loads((launch / "alpha" / "counting.ipynb").read_text(encoding="utf-8"))
    first = "".join(alpha["cells"][0]["source"])
    # numpy as the recorded provenance has it; the book's library at the build's version
    assert first.endswith("%pip install numpy==2.4.6 tiny==0.3.0")
    assert alpha["cells"][1:] == notebook(tmp_path, "ja", "alpha")["cells"]
    assert "accelerator" not in alpha["metadata"]  # its code asks for no GPU
    assert sorted(p.name for p in (launch / "alpha").iterdir()) == ["counting.ipynb", "img"]  # no code, no launch
    installs = {key: [Path(doc).name for doc in docs] for key, docs in report.outcomes[0].installs.items()}
    assert installs == {"numpy==2.4.6\ntiny==0.3.0": ["counting.md"]}


def test_a_program_that_asks_for_a_gpu_gets_colabs_accelerator(tmp_path: Path) -> None:
    conf = launch_book(tmp_path)
    chapter = tmp_path / "book" / "chapters" / "en" / "counting.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace("total = 0\n", "device = d2l.try_gpu()\ntotal = 0\n")
    )
    build_notebooks(load_config(conf), ["en"])
    launch = tmp_path / "book" / "build" / "launch" / "en"
    alpha = json.loads((launch / "alpha" / "counting.ipynb").read_text(encoding="utf-8"))
    beta = json.loads((launch / "beta" / "counting.ipynb").read_text(encoding="utf-8"))
    assert alpha["metadata"]["accelerator"] == "GPU" and "accelerator" not in beta["metadata"]


def test_the_install_check_resolves_install_cells_against_the_index_without_installing(tmp_path: Path) -> None:
    """A local folder of wheels is the package index: no network."""
    from polybook.notebooks.build import install_problems

    report = build_notebooks(load_config(launch_book(tmp_path)), ["ja"])
    index = tmp_path / "index"
    fake_wheel(index, "numpy", "2.4.6")
    fake_wheel(index, "tiny", "0.2.0")  # the registry has an older library only
    options = ["--no-index", "--find-links", str(index), "--offline"]
    problems = install_problems(report, options)
    assert [(Path(d.path).name, d.code) for d in problems] == [("counting.md", Code.NOTEBOOK_INSTALL)]
    assert "numpy==2.4.6 tiny==0.3.0: " in problems[0].message  # beta's cell (numpy alone) resolves
    fake_wheel(index, "tiny", "0.3.0")
    assert install_problems(report, options) == []


def test_publish_commits_exactly_the_launch_notebooks_to_their_branch(tmp_path: Path) -> None:
    import subprocess

    from click.testing import CliRunner

    from polybook.cli import main

    conf = launch_book(tmp_path)
    root = conf.parent
    conf.write_text(conf.read_text(encoding="utf-8").replace("example/tiny@{lang}-{framework}", "example/tiny@nb"))
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "book"], check=True)
    refused = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--notebooks-branch", "nb"])
    assert refused.exit_code == 1 and "run `polybook build notebooks`" in refused.output
    build_notebooks(load_config(conf))
    result = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--notebooks-branch", "nb"])
    assert result.exit_code == 0, result.output
    tree = subprocess.run([*git, "ls-tree", "-r", "--name-only", "nb"], capture_output=True, text=True, check=True)
    assert tree.stdout.split() == [
        "en/alpha/counting.ipynb",
        "en/alpha/img/box.svg",
        "en/beta/counting.ipynb",
        "en/beta/img/box.svg",
        "ja/alpha/counting.ipynb",
        "ja/alpha/img/box.svg",
        "ja/beta/counting.ipynb",
        "ja/beta/img/box.svg",
    ]
    status = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True, check=True)
    assert all(line.startswith("?? build/") for line in status.stdout.splitlines())  # the book's files untouched
    head = subprocess.run([*git, "branch", "--show-current"], capture_output=True, text=True, check=True)
    assert head.stdout.strip() == "main"
    again = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--notebooks-branch", "nb"])
    assert "the notebooks are unchanged" in again.output


def test_a_notebook_nbformat_refuses_is_said_and_not_written() -> None:
    from polybook.notebooks.nbfile import validation_problem

    cell = {"cell_type": "code", "id": "a", "metadata": {}, "execution_count": None, "source": "", "outputs": []}
    good = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}
    assert validation_problem(good) is None
    bad_output = {**cell, "outputs": [{"output_type": "stream", "text": "x"}]}  # a stream names its stream
    assert "not a valid notebook" in (validation_problem({**good, "cells": [bad_output]}) or "")
    assert validation_problem({**good, "cells": [cell, cell]}) == "not a valid notebook: two cells have the same id"


@pytest.mark.slow
def test_a_bundled_book_notebook_run_in_its_framework_environment_gives_the_recorded_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundled book's benchmark section, evaluated in each framework's environment (made where
    ``make site`` makes them), then its notebooks run with nbclient in the kernels their metadata
    name: the outputs are the recorded ones, timings aside."""
    import contextlib
    import re as regex

    from click.testing import CliRunner
    from nbclient import NotebookClient

    from polybook.cli import main

    from conftest import ROOT, copy_conf

    shutil.copytree(ROOT / "chapters", tmp_path / "chapters")
    conf = copy_conf(tmp_path)
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["--conf", str(conf), "build", "eval", "-l", "en"])
    assert result.exit_code == 0, result.output
    build_notebooks(load_config(conf), ["en"])
    # the kernels are the book's, in its build/kernels (never in polybook's environment): Jupyter is told
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "build"))

    def shown(outputs: list[Any]) -> list[str]:
        merged: list[dict[str, Any]] = []
        for output in outputs:  # how a stream is cut into messages depends on timing
            if merged and output["output_type"] == merged[-1]["output_type"] == "stream":
                merged[-1] = {**merged[-1], "text": merged[-1]["text"] + output["text"]}
            else:
                merged.append(dict(output))
        return [regex.sub(r"\d+\.\d+", "N", json.dumps(o, sort_keys=True)) for o in merged]

    for framework in ("mxnet", "pytorch"):
        path = tmp_path / "build" / "notebooks" / "en" / framework / "benchmark.ipynb"
        recorded, ran = nbformat.read(path, as_version=4), nbformat.read(path, as_version=4)
        assert recorded.metadata.kernelspec.name.startswith(f"polybook-{framework}-")
        NotebookClient(ran, timeout=300, resources={"metadata": {"path": str(path.parent)}}).execute()
        codes = [(m, t) for m, t in zip(recorded.cells, ran.cells, strict=True) if m.cell_type == "code"]
        assert any(m.outputs for m, _ in codes)
        for mine, theirs in codes:
            assert shown(theirs.outputs) == shown(mine.outputs), mine.source


def test_a_figure_added_later_makes_the_notebooks_again(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    chapter = tmp_path / "book" / "chapters" / "ja" / "counting.md"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("../img/box.svg", "../img/later.svg"))
    first = build_notebooks(load_config(conf), ["ja"], ["alpha"])
    assert [d.code for d in first.diagnostics if d.level == "warning"] == [Code.NOTEBOOK_FIGURE]
    shutil.copy(BOOK / "chapters" / "img" / "box.svg", tmp_path / "book" / "chapters" / "img" / "later.svg")
    again = build_notebooks(load_config(conf), ["ja"], ["alpha"])
    assert again.outcomes[0].status is NotebookStatus.BUILT and not again.outcomes[0].diagnostics[1:]
    assert (tmp_path / "book" / "build" / "notebooks" / "ja" / "alpha" / "img" / "later.svg").is_file()


def test_a_ports_marks_tell_the_notebooks_reader_what_is_not_translated_or_to_review(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    counting = tmp_path / "book" / "chapters" / "ja" / "counting.md"
    text = counting.read_text(encoding="utf-8").replace(
        "最初の $n$ 個の数の和は",
        "<!-- polybook:review\nThe sum of the first $n$ numbers is\n-->\n最初の数の和は\n\n"
        "<!-- polybook:untranslated -->\nAnd this is new.",
    )
    counting.write_text(text, encoding="utf-8")
    build_notebooks(load_config(conf))
    markdown = text_of(notebook(tmp_path, "ja", "alpha"), "markdown")
    assert markdown.count("（未翻訳 1 箇所、要確認 1 箇所）") == 1  # the page's one notice, with its counts
    assert '<div class="polybook-mark polybook-mark-review"><details>' in markdown  # small marks that open
    assert "The sum of the first $n$ numbers is</div>" in markdown  # onto the source's text
    assert '<div class="polybook-mark polybook-mark-untranslated">' in markdown


def test_a_page_with_drafts_says_once_under_its_title_that_it_holds_machine_translation(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    counting = tmp_path / "book" / "chapters" / "ja" / "counting.md"
    draft = "<!-- polybook:draft engine=command model=- date=2026-11-28 -->\n"
    text = counting.read_text(encoding="utf-8").replace(
        "最初の $n$ 個の数の和は", f"{draft}最初の数の和は\n\n{draft}次の段落。"
    )
    counting.write_text(text, encoding="utf-8")
    build_notebooks(load_config(conf))
    markdown = text_of(notebook(tmp_path, "ja", "alpha"), "markdown")
    said = "未確認の機械翻訳 2 箇所"  # the page's one notice counts them (stage/mark_strings.py)
    assert markdown.count(said) == 1 and "polybook:draft" not in markdown
    title = next(line for line in markdown.splitlines() if line.startswith("# "))
    assert markdown.index(title) < markdown.index(said) < markdown.index("最初の数の和は")


def test_a_translations_notebook_carries_no_active_html(tmp_path: Path) -> None:
    """The site's rule for Markdown cells: what would run is cleaned out, the rest kept as written."""
    shutil.copytree(FIXTURES / "html_safety", tmp_path / "book")
    build_notebooks(load_config(tmp_path / "book" / "conf.py"))
    prose = text_of(notebook(tmp_path, "ja", "mxnet", "index"), "markdown")
    prose += text_of(notebook(tmp_path, "ja", "mxnet", "trusted"), "markdown")
    for active in ("onerror", "<script", "javascript:", "<iframe", "onload"):
        assert active not in prose, active
    assert "Some <b>bold</b> words, a <sup>1</sup>" in prose and '<div align="center">' in prose
