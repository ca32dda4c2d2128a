"""`polybook check` on the book as imported: every known drift, with the right lines."""

from __future__ import annotations

import pytest

from polybook.book import load_book
from polybook.check import CheckResult, check_book
from polybook.config import load_config

from conftest import FIXTURES

BOOK = FIXTURES / "book"
PT = "chapters/pt/async-computation.md"
JA = "chapters/ja/async-computation.md"
TR = "chapters/tr/async-computation.md"
EN = "chapters/en/async-computation.md"


@pytest.fixture(scope="module")
def result() -> CheckResult:
    import os

    old = os.getcwd()
    os.chdir(BOOK)  # paths in findings are shown relative to the working directory
    try:
        return check_book(load_book(load_config(BOOK / "conf.py")))
    finally:
        os.chdir(old)


def found(result: CheckResult, code: str, path: str) -> list[tuple[int, tuple[tuple[str, str], ...]]]:
    return [(f.primary.line, f.diff) for f in result.active if f.code == code and f.primary.path == path]


def test_both_range_1000_loops_and_the_waitall_line(result: CheckResult) -> None:
    changed = {line: diff for line, diff in found(result, "code.changed", PT)}
    assert changed[184] == (("range(1000)", "range(10000)"),)
    assert changed[189] == (("range(1000)", "range(10000)"),)
    assert changed[191] == (("y.wait_to_read()", "npx.waitall()"),)
    (finding,) = [f for f in result.active if f.primary.path == PT and f.primary.line == 191]
    assert (str(finding.source), finding.framework, finding.cell) == (f"{EN}:186", "mxnet", 7)


def test_math_in_prose_and_exercises(result: CheckResult) -> None:
    math = found(result, "math.changed", PT)
    assert (201, (("1000 t_2> 999 t_1", "10000 t_2 > 9999t_1"),)) in math
    assert (201, (("1000 (t_1+ t_2 + t_3)", "10000 (t_1+ t_2 + t_3)"),)) in math
    assert (287, (("1000 t_2 > 999 t_1", "10000 t_2 > 9999 t_1"),)) in math
    assert (287, (("t_1 + 1000 t_2 + t_3", "t_1 + 10000 t_2 + t_3"),)) in math
    assert len(math) == 5


def test_numbers_in_prose(result: CheckResult) -> None:
    # said as the older 1000 in the text and the exercise, where the source now says 10000
    assert found(result, "numbers.missing", PT) == [(201, (("1000", "10000"),)), (287, (("1000", "10000"),))]


def test_extra_section_and_its_cells(result: CheckResult) -> None:
    # one finding for the section the source dropped, with its five cells and two links: removing
    # one cell alone would leave prose about it and later cells calling it
    (section,) = [f for f in result.active if f.code == "structure.section" and f.primary.path == PT]
    assert section.primary.line == 203
    assert section.message.endswith("(5 cell(s)) is not in the source: remove it, with all it holds, unless the "
                                    "translation adds it on purpose")  # fmt: skip
    assert [line for line, _ in found(result, "code.extra", PT)] == []
    assert [line for line, _ in found(result, "ref.link", PT) if 203 < line < 276] == []


def test_damaged_directives_and_roles(result: CheckResult) -> None:
    assert [line for line, _ in found(result, "directive.damaged", PT)] == [33]
    assert [line for line, _ in found(result, "role.damaged", PT)] == [102, 108]


def test_untabbed_mxnet_only_text(result: CheckResult) -> None:
    tabs = {
        line: f
        for f in result.active
        if f.code == "structure.texttab" and f.primary.path == PT
        for line in [f.primary.line]
    }
    assert 150 in tabs  # "Existem várias operações..." is mxnet-only in the source
    assert str(tabs[150].source) == f"{EN}:133"
    assert "for every framework" in tabs[150].message


def test_ja_damaged_heading(result: CheckResult) -> None:
    assert [line for line, _ in found(result, "heading.damaged", JA)] == [189]


def test_translated_comment_is_not_a_finding(result: CheckResult) -> None:
    tr = [f for f in result.active if f.primary.path == TR]
    # tr's only code findings are its import cells, which really differ from the source.
    assert sorted((f.code, f.primary.line) for f in tr if f.code.startswith("code")) == [
        ("code.changed", 9),
        ("code.changed", 18),
    ]
    assert not any(46 <= f.primary.line <= 61 for f in tr)  # the warm-up cell with the Turkish comment


def test_every_finding_has_both_locations_where_they_exist(result: CheckResult) -> None:
    for f in result.active:
        assert f.primary.line >= 1
        if f.code in ("code.changed", "math.changed", "numbers.missing", "code.missing"):
            assert f.source is not None and f.source.path == EN


def test_consistent_translations_only_differ_in_the_import_cells(result: CheckResult) -> None:
    for path in ("chapters/zh/async-computation.md", TR):
        codes = sorted({f.code for f in result.active if f.primary.path == path and f.level != "info"})
        assert codes == ["code.changed"]
