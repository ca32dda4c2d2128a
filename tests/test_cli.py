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
