"""A change to conf.py rebuilds what it changes, in every output, and nothing else.

Per output (the HTML site, serve, the PDFs, the notebooks), one case per kind of setting: one of
Sphinx's (``copyright``, ``html_logo``, ``author``, ``release``), one of polybook's (a title, a
framework's label) and a language added or removed; a comment or a setting no reader sees
rebuilds nothing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.config import load_config
from polybook.notebooks.build import NotebookStatus, build_notebooks
from polybook.site.build import HtmlOptions, build_html
from polybook.site.serve import wait_for_version

from conftest import FIXTURES

HTML_BOOK = FIXTURES / "render" / "book"
NOTEBOOKS_BOOK = FIXTURES / "notebooks" / "book"
PDF_BOOK = FIXTURES / "pdf" / "tiny"


def edit(conf: Path, old: str, new: str) -> None:
    text = conf.read_text(encoding="utf-8")
    assert old in text, old
    conf.write_text(text.replace(old, new, 1), encoding="utf-8")


def add_language(conf: Path, lang: str, name: str, copy_of: str) -> None:
    """Language ``lang`` in conf.py, its chapters a copy of ``copy_of``'s (copied first)."""
    chapters = conf.parent / "chapters"
    shutil.copytree(chapters / copy_of, chapters / lang)
    edit(conf, '"languages": {', f'"languages": {{"{lang}": {{"name": "{name}"}}, ')


def remove_language(conf: Path, lang: str, name: str) -> None:
    edit(conf, f'"{lang}": {{"name": "{name}"}}, ', "")
    shutil.rmtree(conf.parent / "chapters" / lang)


# -- the HTML site ------------------------------------------------------------------------


def html_book(tmp_path: Path) -> Path:
    for name in ("conf.py", "refs.bib", "chapters"):
        source = HTML_BOOK / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    shutil.copytree(HTML_BOOK / "eval", tmp_path / "build" / "eval")
    return tmp_path / "conf.py"


def build(conf: Path) -> dict[str, str]:
    result = build_html(load_config(conf), HtmlOptions(evaluate=False))
    return {b.language: str(b.sphinx) for b in result.languages}


def page(conf: Path, lang: str, name: str = "tiny") -> str:
    return (conf.parent / "build" / "html" / lang / f"{name}.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_sphinx_setting_rebuilds_every_language_and_a_comment_nothing(tmp_path: Path) -> None:
    conf = html_book(tmp_path)
    assert build(conf) == {"en": "built", "ja": "built"}
    edit(conf, 'project = "Mini"', 'project = "Mini"\ncopyright = "2031, The Copyright Holder"')
    assert build(conf) == {"en": "built", "ja": "built"}
    assert "2031, The Copyright Holder" in page(conf, "en") and "2031, The Copyright Holder" in page(conf, "ja")

    (tmp_path / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>', encoding="utf-8")
    edit(conf, 'project = "Mini"', 'project = "Mini"\nhtml_logo = "logo.svg"')
    assert build(conf) == {"en": "built", "ja": "built"}
    assert "_static/logo.svg" in page(conf, "ja")
    # The logo's own bytes are what the site shows: a new logo is a new site.
    (tmp_path / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><circle/></svg>', encoding="utf-8")
    assert build(conf) == {"en": "built", "ja": "built"}
    assert "<circle/>" in (tmp_path / "build" / "html" / "en" / "_static" / "logo.svg").read_text(encoding="utf-8")

    edit(conf, 'project = "Mini"', '# The title\'s comment.\nproject = "Mini"')  # as parsed: the same settings
    assert build(conf) == {"en": "up to date", "ja": "up to date"}


@pytest.mark.slow
def test_a_polybook_setting_rebuilds_what_shows_it_and_an_unseen_one_nothing(tmp_path: Path) -> None:
    conf = html_book(tmp_path)
    assert build(conf) == {"en": "built", "ja": "built"}
    edit(conf, '"framework_labels": {"mxnet": "MXNet"', '"framework_labels": {"mxnet": "Apache MXNet"')
    assert build(conf) == {"en": "built", "ja": "built"}  # the tabs of both
    assert "Apache MXNet" in page(conf, "ja")
    edit(conf, '"build_dir": "build",', '"build_dir": "build",\n    "execution": {"timeout": 999},')
    assert build(conf) == {"en": "up to date", "ja": "up to date"}  # --no-eval: how code runs is not shown


@pytest.mark.slow
def test_a_language_added_or_removed_rebuilds_the_others_language_switch(tmp_path: Path) -> None:
    conf = html_book(tmp_path)
    assert build(conf) == {"en": "built", "ja": "built"}
    add_language(conf, "pt", "Português", copy_of="ja")
    assert build(conf) == {"en": "built", "pt": "built", "ja": "built"}
    assert "Português" in page(conf, "en") and "Português" in page(conf, "ja")
    remove_language(conf, "pt", "Português")
    assert build(conf) == {"en": "built", "ja": "built"}
    assert "Português" not in page(conf, "en") and "Português" not in page(conf, "ja")


@pytest.mark.slow
def test_serve_rebuilds_after_each_kind_of_conf_py_change(tmp_path: Path) -> None:
    conf = html_book(tmp_path)
    polybook = Path(sys.executable).with_name("polybook")
    command = [str(polybook), "--conf", str(conf), "serve", "--port", "0", "--no-eval"]
    log = tmp_path / "serve.log"  # a file, not a pipe: nobody reads it while serving
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log.open("w"), text=True)
    try:
        url = server.stdout.readline().strip()  # printed once the first build is served
        assert url.startswith("http://127.0.0.1:"), log.read_text()
        edit(conf, 'project = "Mini"', 'project = "Mini"\ncopyright = "2031, The Copyright Holder"')
        state = wait_for_version(url, 0, timeout=120)
        assert state == {"version": 1, "building": False, "problems": 0}, log.read_text()
        assert "2031, The Copyright Holder" in page(conf, "ja")
        edit(conf, '"framework_labels": {"mxnet": "MXNet"', '"framework_labels": {"mxnet": "Apache MXNet"')
        assert wait_for_version(url, 1, timeout=120)["version"] == 2, log.read_text()
        assert "Apache MXNet" in page(conf, "ja")
        add_language(conf, "pt", "Português", copy_of="ja")
        assert wait_for_version(url, 2, timeout=120)["version"] == 3, log.read_text()
        assert "Português" in page(conf, "en") and "ミニブック" in page(conf, "pt")
        assert "nothing to rebuild" not in log.read_text()
    finally:
        server.terminate()
        server.wait(timeout=30)


# -- the notebooks ------------------------------------------------------------------------


def notebooks_book(tmp_path: Path) -> Path:
    shutil.copytree(NOTEBOOKS_BOOK, tmp_path / "book")
    shutil.copytree(FIXTURES / "notebooks" / "eval", tmp_path / "book" / "build" / "eval")
    return tmp_path / "book" / "conf.py"


def notebooks(conf: Path) -> dict[str, NotebookStatus]:
    return {o.target.name: o.status for o in build_notebooks(load_config(conf)).outcomes}


def test_notebooks_follow_the_settings_they_show_and_only_those(tmp_path: Path) -> None:
    conf = notebooks_book(tmp_path)
    built, unchanged = NotebookStatus.BUILT, NotebookStatus.UNCHANGED
    assert set(notebooks(conf).values()) == {built}
    edit(conf, 'project = "Tiny Book"', 'project = "Tiny Book"\ncopyright = "2031"\nhtml_logo = "logo.svg"')
    assert set(notebooks(conf).values()) == {unchanged}  # the site's settings are not the notebooks'
    edit(conf, 'release = "0.3.0"', 'release = "0.4.0"')  # the release their launch cells install
    assert set(notebooks(conf).values()) == {built}
    edit(conf, '"beta": "Beta"', '"beta": "Beta Framework"')
    assert set(notebooks(conf).values()) == {built}
    edit(conf, '"timeout": 60', '"timeout": 61')  # how `build eval` runs the code: not in a notebook
    assert set(notebooks(conf).values()) == {unchanged}

    add_language(conf, "pt", "Português", copy_of="ja")
    assert notebooks(conf) == {
        "pt/alpha": built,
        "pt/beta": built,
        "en/alpha": unchanged,
        "en/beta": unchanged,
        "ja/alpha": unchanged,
        "ja/beta": unchanged,
    }
    edit(conf, '"pt": {"name": "Português"}', '"pt": {"name": "Português (Brasil)"}')
    assert {name for name, status in notebooks(conf).items() if status == built} == {"pt/alpha", "pt/beta"}
    remove_language(conf, "pt", "Português (Brasil)")
    assert set(notebooks(conf).values()) == {unchanged}


# -- the PDFs -----------------------------------------------------------------------------


def pdf(conf: Path, *args: str) -> str:
    from polybook.cli import main

    result = CliRunner().invoke(main, ["--conf", str(conf), "build", "pdf", "--framework", "pytorch", *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_pdfs_follow_sphinx_and_polybook_settings_and_a_new_language_builds_only_its_own(tmp_path: Path) -> None:
    shutil.copytree(PDF_BOOK, tmp_path / "book")
    conf = tmp_path / "book" / "conf.py"
    assert "1 built, 0 unchanged" in pdf(conf)
    edit(conf, 'author = "polybook tests"', 'author = "polybook tests and one more author"')
    assert "1 built, 0 unchanged" in pdf(conf)
    edit(conf, 'project = "Tiny Book"', '# A comment.\nproject = "Tiny Book"\nhtml_logo = "nowhere.svg"')
    assert "0 built, 1 unchanged" in pdf(conf)  # a comment, and a setting of the HTML only
    edit(conf, '"source_language": "en",', '"source_language": "en",\n    "title": "Tiny Book, Retitled",')
    assert "1 built, 0 unchanged" in pdf(conf)
    add_language(conf, "de", "Deutsch", copy_of="en")
    assert "0 built, 1 unchanged" in pdf(conf, "--lang", "en")
