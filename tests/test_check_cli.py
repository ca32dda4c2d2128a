"""`polybook check` from the command line, and on the bundled book."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.cli import main

from conftest import FIXTURES, ROOT
from minibook import cell, make_book


def invoke(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--conf", str(root / "conf.py"), "check", *args])
    return result.exit_code, result.output


def test_the_book_is_consistent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out = invoke(ROOT, "--fail-on", "warning")
    assert code == 0, out
    assert out.startswith("No findings: 4 translations of 3 chapters are consistent with en")


def test_exit_codes_and_thresholds(tmp_path: Path) -> None:
    make_book(tmp_path, cell("x = 1") + "\nAbout 60000 images.\n", cell("x = 1") + "\n多くの画像。\n")
    assert invoke(tmp_path)[0] == 0  # a warning (numbers.missing: left untranslated) does not fail by default
    code, out = invoke(tmp_path, "--fail-on", "warning")
    assert code == 1 and "[polybook.numbers.missing]" in out
    make_book(tmp_path, cell("x = 1") + "\nAbout 60000 images.\n", cell("x = 1") + "\n約 6000 枚。\n")
    code, out = invoke(tmp_path)  # another number than the source's: the text is wrong, an error
    assert code == 1 and "[polybook.numbers.missing]" in out and "says 60000 where this says 6000" in out
    assert invoke(tmp_path, "--lang", "xx")[0] == 2
    assert invoke(tmp_path, "--format", "nope")[0] == 2
    code, out = invoke(tmp_path, "--chapter", "nope")
    assert code == 2 and "not a chapter of this book: nope (chapters: intro)" in out


def test_unreadable_input_exits_2(tmp_path: Path) -> None:
    make_book(tmp_path, "# A\n", "# A\n")
    (tmp_path / "chapters" / "ja" / "intro.md").write_bytes(b"# \xff\xfe\n")
    code, out = invoke(tmp_path)
    assert code == 2
    assert "chapters/ja/intro.md:1: error: not UTF-8" in out


def test_narrowing_and_output_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = FIXTURES / "book"
    monkeypatch.chdir(book)
    out_file = tmp_path / "report.json"
    code, _ = invoke(book, "--lang", "tr", "--chapter", "async-computation", "--format", "json", "-o", str(out_file))
    assert code == 1
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert {f["lang"] for f in report["findings"]} == {"tr"}
    assert {f["chapter"] for f in report["findings"]} == {"async-computation"}


def test_sarif_has_the_source_as_related_location(monkeypatch: pytest.MonkeyPatch) -> None:
    book = FIXTURES / "book"
    monkeypatch.chdir(book)
    code, out = invoke(book, "--lang", "pt", "--format", "sarif")
    assert code == 1
    results = json.loads(out)["runs"][0]["results"]
    (loop,) = [
        r
        for r in results
        if r["ruleId"] == "polybook.code.changed"
        and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 191
    ]
    related = loop["relatedLocations"][0]["physicalLocation"]
    assert (related["artifactLocation"]["uri"], related["region"]["startLine"]) == (
        "chapters/en/async-computation.md",
        186,
    )


def test_write_baseline_needs_a_reason_and_then_silences(tmp_path: Path) -> None:
    make_book(tmp_path, cell("for _ in range(10000): pass"), cell("for _ in range(1000): pass"))
    baseline = tmp_path / "baseline.json"
    assert invoke(tmp_path, "--write-baseline", str(baseline))[0] == 2
    assert invoke(tmp_path, "--write-baseline", str(baseline), "--reason", "ja keeps a short loop")[0] == 0
    code, out = invoke(tmp_path, "--baseline", str(baseline))
    assert code == 0 and "suppressed" in out
    # sync keeps what the baseline accepts, and says so.
    runner = CliRunner()
    synced = runner.invoke(main, ["--conf", str(tmp_path / "conf.py"), "sync", "--baseline", str(baseline), "--write"])
    assert synced.exit_code == 0, synced.output
    assert "kept: suppressed (ja keeps a short loop): code.changed" in synced.output
    assert "range(1000)" in (tmp_path / "chapters" / "ja" / "intro.md").read_text(encoding="utf-8")


def test_code_narrows_the_report_and_the_exit_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = FIXTURES / "book"
    monkeypatch.chdir(book)
    out_file = tmp_path / "report.json"
    code, _ = invoke(
        book, "--lang", "pt", "--code", "ref.", "--code", "math.changed", "--format", "json", "-o", str(out_file)
    )
    codes = {f["code"] for f in json.loads(out_file.read_text(encoding="utf-8"))["findings"]}
    assert codes and all(c.startswith("polybook.ref.") or c == "polybook.math.changed" for c in codes), codes
    code, out = invoke(book, "--lang", "pt", "--code", "code.coverage")  # pt has none: nothing fails
    assert code == 0 and out.startswith("No findings: 1 translation of"), out
    code, out = invoke(book, "--code", "refs")
    assert code == 2 and "--code: no code is 'refs' or starts with it" in out


def test_top_is_for_the_text_report(monkeypatch: pytest.MonkeyPatch) -> None:
    book = FIXTURES / "book"
    monkeypatch.chdir(book)
    code, out = invoke(book, "--lang", "pt", "--top", "2")
    assert code == 1 and out.count(": error: ") + out.count(": warning: ") == 2
    assert "more findings are past --top 2 a language" in out
    code, out = invoke(book, "--top", "2", "--format", "json")
    assert code == 2 and "--top is for the text report" in out
