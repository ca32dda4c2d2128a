"""A damaged ``build/eval/<lang>/<doc>.json`` (cut short by a full disk, edited by hand) is what a
corrupt entry of the execution cache is: a miss, named at its path and line -- evaluated again
by ``build html``, shown as no stored output by ``build notebooks``, ``build pdf`` and
``--no-eval`` -- never a ``JSONDecodeError``."""

from __future__ import annotations

import json
from pathlib import Path

from polybook.book import load_book
from polybook.config import load_config
from polybook.diagnostics import Code, Level
from polybook.execute.outputs import read_outputs
from polybook.execute.site_outputs import site_outputs
from polybook.notebooks.build import build_notebooks
from test_notebooks import copy_book

from minibook import make_book


def test_a_damaged_results_file_is_left_out_and_named_at_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "eval" / "en"
    folder.mkdir(parents=True)
    (folder / "good.json").write_text(json.dumps({"cells": []}), encoding="utf-8")
    (folder / "cut.json").write_text('{\n "cells": [\n  {"index": 0,', encoding="utf-8")
    (folder / "list.json").write_text("[]", encoding="utf-8")
    damaged: list = []
    assert read_outputs(tmp_path, "en", damaged) == {"good": {"cells": []}}
    assert sorted((Path(d.path).name, d.line, d.code) for d in damaged) == [
        ("cut.json", 3, Code.OUTPUT_MISSING),
        ("list.json", 1, Code.OUTPUT_MISSING),
    ]
    assert all("stored results are damaged" in d.message and "build eval" in d.message for d in damaged)


def test_the_site_evaluates_a_language_with_a_damaged_results_file_again(tmp_path: Path) -> None:
    conf = make_book(tmp_path, "# Intro\n", "# 序\n")
    config = load_config(conf)
    book = load_book(config)
    site_outputs(config, book, ["en", "ja"], evaluate=True)  # stamps the languages' inputs
    damaged = tmp_path / "build" / "eval" / "ja" / "intro.json"
    damaged.parent.mkdir(parents=True, exist_ok=True)
    damaged.write_text('{"cells": [', encoding="utf-8")
    out = site_outputs(config, book, ["en", "ja"], evaluate=True)
    said = [d for d in out.diagnostics if d.code is Code.OUTPUT_MISSING]
    assert len(said) == 1 and said[0].path.endswith("eval/ja/intro.json") and said[0].level is Level.INFO
    assert "evaluated again" in said[0].message
    assert not damaged.exists()  # discarded, as the execution cache discards a corrupt entry
    stored = site_outputs(config, book, ["ja"], evaluate=False)
    assert stored.diagnostics == []


def test_without_evaluation_a_damaged_results_file_is_no_stored_output(tmp_path: Path) -> None:
    conf = make_book(tmp_path, "# Intro\n", "# 序\n")
    config = load_config(conf)
    damaged = tmp_path / "build" / "eval" / "en" / "intro.json"
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"")
    out = site_outputs(config, load_book(config), ["en"], evaluate=False)
    assert [(Path(d.path).name, d.line, d.level) for d in out.diagnostics] == [("intro.json", 1, Level.WARNING)]
    assert "no stored output" in out.diagnostics[0].message and damaged.exists()


def test_notebooks_are_made_without_a_damaged_documents_outputs_and_say_which(tmp_path: Path) -> None:
    conf = copy_book(tmp_path)
    results = tmp_path / "book" / "build" / "eval" / "en" / "counting.json"
    results.write_text(results.read_text(encoding="utf-8")[:200], encoding="utf-8")  # cut short
    report = build_notebooks(load_config(conf), ["en"], ["alpha"])
    damaged = [d for d in report.diagnostics if "stored results are damaged" in d.message]
    assert len(damaged) == 1 and damaged[0].path.endswith("eval/en/counting.json") and damaged[0].line > 1
