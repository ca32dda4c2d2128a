"""The `polybook` command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.cli import main

from conftest import FIXTURES, ROOT


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_parse_lists_cells_per_framework_and_diagnostics(monkeypatch: pytest.MonkeyPatch) -> None:
    book = FIXTURES / "book"  # the chapters as imported, damage included
    monkeypatch.chdir(book)
    chapters = sorted(str(p.relative_to(book)) for p in (book / "chapters").glob("*/async-computation.md"))
    result = CliRunner().invoke(main, ["parse", *chapters])
    assert result.exit_code == 1  # pt's damaged :begin_tab: is an error
    out = result.output
    assert "chapters/en/async-computation.md  [en; tabs: pytorch (default), mxnet]" in out
    assert out.count("  cells: ") == 5
    assert "  cells: pytorch 4, mxnet 7" in out
    assert "  cells: mxnet 12, pytorch 4" in out  # pt, with its extra section
    assert (
        "chapters/pt/async-computation.md:33: error: damaged directive ':begin_tab: `pytorch`'; "
        "did you mean ':begin_tab:`pytorch`'? [polybook.directive.damaged]"
    ) in out


def test_parse_json_dumps_the_model(in_root: None) -> None:
    result = CliRunner().invoke(main, ["parse", "--json", "chapters/tr/async-computation.md"])
    assert result.exit_code == 0, result.output
    (doc,) = json.loads(result.output)["documents"]
    assert doc["language"] == "tr" and doc["default_tab"] == "mxnet"
    cells = [n for n in doc["nodes"] if n["type"] == "codecell"]
    assert [c["frameworks"] for c in cells[:2]] == [["mxnet"], ["pytorch"]]
    assert cells[0]["line"] == 8 and cells[0]["code_line"] == 9


def test_parse_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["parse", str(FIXTURES / "parse" / "cells.md")]).exit_code == 0
    assert runner.invoke(main, ["parse", str(FIXTURES / "parse" / "tab_errors.md")]).exit_code == 1
    missing = runner.invoke(main, ["parse", str(tmp_path / "nope.md")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    assert runner.invoke(main, ["parse"]).exit_code == 2


def test_bad_config_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "chapters" / "en").mkdir(parents=True)
    (tmp_path / "chapters" / "en" / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "conf.py").write_text("polybook = {'languages': {}}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["parse", str(tmp_path / "chapters" / "en" / "a.md")])
    assert result.exit_code == 2
    assert "conf.py:1: error: polybook.frameworks" in result.output


def test_build_writes_the_model_of_every_chapter(tmp_path: Path, in_root: None) -> None:
    conf = tmp_path / "conf.py"
    text = (ROOT / "conf.py").read_text(encoding="utf-8")
    chapters = FIXTURES / "book" / "chapters"  # as imported: pt still has a damaged directive
    text = text.replace('"chapters": "chapters"', f'"chapters": {str(chapters)!r}')
    conf.write_text(text.replace('"build_dir": "build"', f'"build_dir": {str(tmp_path / "out")!r}'), encoding="utf-8")
    result = CliRunner().invoke(main, ["--conf", str(conf), "build"])
    assert result.exit_code == 0, result.output
    models = sorted(p.relative_to(tmp_path / "out" / "model").as_posix() for p in (tmp_path / "out").rglob("*.json"))
    assert models == [
        f"{lang}/{name}.json" for lang in ("en", "ja", "pt", "tr", "zh") for name in ("async-computation", "index")
    ]
    assert CliRunner().invoke(main, ["--conf", str(conf), "build", "--strict"]).exit_code == 1


def test_parse_of_a_folder_leaves_out_what_the_book_excludes(tmp_path: Path) -> None:
    """``polybook parse chapters/ja`` parses the documents, not the ``*_origin.md`` bases."""
    from minibook import make_book

    conf = make_book(tmp_path, "# One\n", "# 一\n", name="one")
    conf.write_text(conf.read_text(encoding="utf-8").replace("}\n", '    "exclusions": ["**/*_origin.md"],\n}\n'))
    (tmp_path / "chapters" / "ja" / "one_origin.md").write_text("# One\n\n```{.python .input\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--conf", str(conf), "parse", str(tmp_path / "chapters" / "ja")])
    assert result.exit_code == 0, result.output
    assert "one.md" in result.output and "one_origin.md" not in result.output


def test_the_console_script_exits_as_click_decides_after_the_threads_and_exit_handlers(tmp_path: Path) -> None:
    """``polybook.cli.run`` (the console script) leaves with os._exit, skipping the interpreter's
    teardown: its exit code is click's, a non-daemon thread still finishes, exit handlers run."""
    import subprocess
    import sys

    script = (
        "import atexit, pathlib, sys, threading, time\n"
        "from polybook.cli import run\n"
        "out = pathlib.Path(sys.argv[1])\n"
        "atexit.register(lambda: out.with_suffix('.atexit').write_text('ran'))\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), out.write_text('finished'))).start()\n"
        "sys.argv = ['polybook', *sys.argv[2:]]\n"
        "run()\n"
    )
    out = tmp_path / "thread.txt"
    done = subprocess.run([sys.executable, "-c", script, str(out), "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and "polybook, version" in done.stdout
    assert out.read_text() == "finished" and out.with_suffix(".atexit").read_text() == "ran"
    done = subprocess.run([sys.executable, "-c", script, str(out), "no-such-command"], capture_output=True, text=True)
    assert done.returncode == 2 and "No such command" in done.stderr


def test_outside_a_book_the_error_says_where_it_looked_and_how_to_start_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["build", "html"])
    assert result.exit_code == 2
    assert f"no conf.py found in {tmp_path} nor any folder above it (or pass --conf PATH)" in result.output
    assert "polybook init --lang en" in result.output
    assert "polybook import d2lbook PATH --lang en" in result.output


def test_init_starts_a_book_that_builds_and_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polybook.config import load_config

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["init", "mybook", "-l", "en", "-l", "zh", "--title", "My Book", "-f", "jax"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:4] == [
        "wrote mybook/conf.py",
        "wrote mybook/chapters/en/index.md",
        "wrote mybook/chapters/zh/index.md",
        "wrote mybook/.gitignore",
    ]
    assert "build/" in (tmp_path / "mybook" / ".gitignore").read_text(encoding="utf-8").splitlines()
    conf = tmp_path / "mybook" / "conf.py"
    config = load_config(conf)
    assert (config.title, config.source_language, config.frameworks, config.default_tab) == (
        "My Book",
        "en",
        ("jax",),
        "jax",
    )
    assert {lang: c.name for lang, c in config.languages.items()} == {"en": "English", "zh": "中文"}
    assert "# The book's title" in conf.read_text(encoding="utf-8")  # commented for the one who edits it
    assert "```toc" in (tmp_path / "mybook" / "chapters" / "zh" / "index.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path / "mybook")
    assert CliRunner().invoke(main, ["build", "--strict"]).exit_code == 0
    checked = CliRunner().invoke(main, ["check"])
    assert checked.exit_code == 0, checked.output


def test_init_never_overwrites_a_book(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text("# mine\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["init", str(tmp_path), "--lang", "en"])
    assert result.exit_code == 2
    assert f"{tmp_path / 'conf.py'} exists already: polybook init writes a new book only" in result.output
    assert (tmp_path / "conf.py").read_text(encoding="utf-8") == "# mine\n"
    assert not (tmp_path / "chapters").exists()
    refused = CliRunner().invoke(main, ["init", str(tmp_path / "new"), "--lang", "english"])
    assert refused.exit_code == 2 and "is not a language code like 'en'" in refused.output
    assert not (tmp_path / "new" / "conf.py").exists()


@pytest.mark.slow
def test_a_new_book_builds_its_site_strictly(tmp_path: Path) -> None:
    assert CliRunner().invoke(main, ["init", str(tmp_path), "--lang", "en"]).exit_code == 0
    result = CliRunner().invoke(main, ["--conf", str(tmp_path / "conf.py"), "build", "html", "--strict", "--no-eval"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "build" / "html" / "en" / "index.html").is_file()


@pytest.mark.parametrize("empty", [False, True], ids=["missing", "empty"])
def test_a_misspelt_language_is_a_config_error_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, empty: bool
) -> None:
    from minibook import make_book

    conf = make_book(tmp_path, "# One\n", "# 一\n")
    conf.write_text(conf.read_text(encoding="utf-8").replace('"ja": {"name"', '"jp": {"name"'), encoding="utf-8")
    if empty:
        (tmp_path / "chapters" / "jp").mkdir()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["build", "html", "--no-eval"])
    assert result.exit_code == 2
    what = "holds no Markdown (.md) file: nothing to build" if empty else "does not exist"
    assert (
        f"{conf}:6: error: polybook.languages.jp: its chapters folder chapters/jp/ {what}; did you mean 'ja'? "
        "[polybook.config]"
    ) in result.output
    assert "Traceback" not in result.output
    pdf = CliRunner().invoke(main, ["build", "pdf", "-l", "jp"])
    assert pdf.exit_code == 2 and f"{conf}:6: error: polybook.languages.jp: its chapters folder" in pdf.output
    # a translation just begun (its folder empty) is no mistake where nothing is built from it
    assert (CliRunner().invoke(main, ["build"]).exit_code == 0) is empty


def test_a_language_without_the_framework_asked_for_is_a_usage_error(tmp_path: Path) -> None:
    from minibook import make_book

    conf = make_book(tmp_path, "# One\n", "# 一\n")
    text = conf.read_text(encoding="utf-8")
    conf.write_text(text.replace('"ja": {"name": "日本語"}', '"ja": {"name": "日本語", "frameworks": ["mxnet"]}'))
    for command in ("pdf", "notebooks"):
        result = CliRunner().invoke(main, ["--conf", str(conf), "build", command, "-l", "ja", "-f", "pytorch"])
        assert result.exit_code == 2, result.output
        assert "nothing to build: ja has no pytorch (frameworks: en: mxnet, pytorch; ja: mxnet)" in result.output


@pytest.mark.parametrize(
    ("command", "lang", "framework"),
    [
        (["build", "eval"], True, False),
        (["build", "html"], True, False),
        (["build", "pdf"], True, True),
        (["build", "notebooks"], True, True),
        (["build", "env"], False, True),
        (["serve"], True, False),
        (["check"], True, False),
        (["init"], True, True),
        (["import", "d2lbook"], True, False),
    ],
)
def test_every_command_spells_language_and_framework_alike(command: list[str], lang: bool, framework: bool) -> None:
    shown = CliRunner().invoke(main, [*command, "--help"]).output
    assert ("-l, --lang" in shown) is lang and ("-f, --framework" in shown) is framework
    assert "--language" not in shown  # the old spelling still works, unlisted


def test_the_old_option_spellings_still_work(tmp_path: Path) -> None:
    from minibook import make_book

    conf = make_book(tmp_path, "# One\n", "# 一\n")
    for args in (["build", "eval", "--language", "xx"], ["build", "pdf", "--lang", "xx", "--framework", "mxnet"]):
        result = CliRunner().invoke(main, ["--conf", str(conf), *args])
        assert result.exit_code == 2 and "not a language of this book: xx (languages: en, ja)" in result.output


def test_the_help_names_no_count_of_languages_and_lists_the_book_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from minibook import make_book

    monkeypatch.chdir(tmp_path)
    outside = CliRunner().invoke(main, ["--help"]).output
    assert "five" not in outside and "several languages" in outside and "This book" not in outside
    make_book(tmp_path, "# One\n", "# 一\n")
    inside = CliRunner().invoke(main, ["--help"]).output
    assert f"This book ({tmp_path / 'conf.py'})" in inside
    assert "languages: en (English), ja (日本語); source: en" in inside and "frameworks: mxnet, pytorch" in inside
