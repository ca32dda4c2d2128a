"""What the commands print of their diagnostics: errors in full, warnings as a table by code,
every line with -v, and what an option asked for (``output.missing`` under ``--no-eval``) in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.cli import main
from polybook.diagnostics import Code, Diagnostic, Level, collapse_missing_outputs, report_lines

from minibook import cell, make_book

ORPHAN = "`:label:` follows paragraph; it must follow a heading, figure, equation or table"
#: Five labels after paragraphs (warnings, lines 4 to 16) and a tab never closed (an error, line 18).
DAMAGED = (
    "# Intro\n\n"
    + "".join(f"Paragraph {i}.\n:label:`p{i}`\n\n" for i in range(5))
    + ":begin_tab:`pytorch`\nOpen tab.\n"
)
ERROR = (
    "chapters/en/intro.md:18: error: `:begin_tab:`pytorch`` is never closed with `:end_tab:` [polybook.tab.unclosed]"
)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path``, the current folder: diagnostics show paths from there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _orphan(line: int) -> str:
    return f"chapters/en/intro.md:{line}: warning: {ORPHAN} [polybook.label.orphan]"


def test_errors_in_full_then_warnings_by_code_with_the_first_places(here: Path) -> None:
    conf = make_book(here, DAMAGED, "# 序\n")
    result = CliRunner().invoke(main, ["--conf", str(conf), "build"])
    lines = result.output.splitlines()
    assert lines[:5] == [
        ERROR,
        "5 warnings by code (-v/--verbose: every line):",
        "   count  level    code                   first places",
        "       5  warning  polybook.label.orphan  chapters/en/intro.md:4, chapters/en/intro.md:7, "
        "chapters/en/intro.md:10, …",
        f"{' ' * 42}e.g. {ORPHAN}",
    ]
    assert not [line for line in lines if "[polybook.label.orphan]" in line]  # no line per warning


def test_verbose_prints_every_line(here: Path) -> None:
    conf = make_book(here, DAMAGED, "# 序\n")
    for flag in ("-v", "--verbose"):
        result = CliRunner().invoke(main, ["--conf", str(conf), "build", flag])
        lines = result.output.splitlines()
        assert lines[:6] == [ERROR, *(_orphan(line) for line in (4, 7, 10, 13, 16))]
        assert "by code" not in result.output


def _missing(line: int, framework: str = "mxnet") -> Diagnostic:
    message = f"no stored output for this cell ({framework}): run polybook build eval"
    return Diagnostic.make("chapters/en/a.md", line, Code.OUTPUT_MISSING, message)


def test_what_an_option_asked_for_is_one_line_and_every_line_with_verbose() -> None:
    found = [_missing(line) for line in (3, 9, 20, 31)]
    found.append(Diagnostic.make("chapters/en/a.md", 40, Code.HTML_SPHINX, "undefined label: 'x'"))
    asked = {Code.OUTPUT_MISSING: collapse_missing_outputs("--no-eval, and never evaluated")}
    assert report_lines(found, collapsed=asked)[0] == (
        "4 cells show no output: --no-eval, and never evaluated; run polybook build eval [polybook.output.missing]"
    )
    assert report_lines(found, verbose=True, collapsed=asked) == [d.format() for d in found]
    # without the option asking for it, output.missing is a warning of the table as any other
    assert report_lines(found)[2].split()[:3] == ["4", "warning", "polybook.output.missing"]


def test_the_table_orders_codes_by_level_then_count_and_names_notes() -> None:
    found = [Diagnostic.make("a.md", n, Code.HTML_SPHINX, f"w{n}") for n in (5, 1, 3)]
    found += [Diagnostic.make("b.md", 2, Code.LABEL_ORPHAN, "orphan")]
    found += [Diagnostic.make("c.md", n, Code.EXEC_ALLOWED_ERROR, "allowed") for n in range(1, 6)]
    found += [Diagnostic.make("d.md", 7, Code.READ, "unreadable")]
    lines = report_lines(found)
    assert lines[0] == "d.md:7: error: unreadable [polybook.read]"
    assert lines[1] == "4 warnings, 5 notes by code (-v/--verbose: every line):"
    rows = [line.split()[:3] for line in lines[3::2]]
    assert rows == [
        ["3", "warning", "polybook.html.sphinx"],
        ["1", "warning", "polybook.label.orphan"],
        ["5", "note", "polybook.exec.allowed_error"],
    ]
    assert lines[3].endswith("a.md:1, a.md:3, a.md:5") and lines[4].endswith("e.g. w1")  # sorted by place, 3 only
    assert report_lines([]) == [] and report_lines(found[-1:]) == ["d.md:7: error: unreadable [polybook.read]"]
    assert all(d.level is not Level.ERROR for d in found[:-1])


def test_notebooks_say_the_outputs_never_evaluated_in_one_line(here: Path) -> None:
    chapter = "# Intro\n\n" + "\n".join(cell(f"x = {n}") for n in range(3))
    conf = make_book(here, chapter, chapter.replace("Intro", "序"))
    result = CliRunner().invoke(main, ["--conf", str(conf), "build", "notebooks", "-l", "en", "-f", "mxnet"])
    assert result.exit_code == 0, result.output
    assert (
        "1 document shows no output: never evaluated (notebooks are made without running code); "
        "run polybook build eval [polybook.output.missing]"
    ) in result.output
    again = CliRunner().invoke(main, ["--conf", str(conf), "build", "notebooks", "-l", "en", "--force", "-v"])
    assert (
        "chapters/en/intro.md:3: warning: no stored outputs for this document (mxnet): run polybook build eval "
        "[polybook.output.missing]"
    ) in again.output


def test_serve_says_a_problem_once(capsys: pytest.CaptureFixture[str]) -> None:
    from polybook.site.commands import Said

    said = Said(verbose=False, no_eval=True)
    found = [_missing(3), _missing(9), Diagnostic.make("chapters/en/a.md", 1, Code.HTML_FIGURE_MISSING, "gone")]
    said.tell(found)
    first = capsys.readouterr().err
    assert "chapters/en/a.md:1: error: gone [polybook.html.figure.missing]" in first
    assert "2 cells show no output: --no-eval" in first
    said.tell([*found, _missing(12)])  # a rebuild: one new warning
    again = capsys.readouterr().err
    assert "error: gone" not in again and "1 cell shows no output" in again
    assert "serve: 3 problem(s) said before still there (1 error(s))" in again


@pytest.mark.slow
def test_build_html_no_eval_says_the_cells_without_output_in_one_line(here: Path) -> None:
    chapter = "# Intro\n\n" + "\n".join(cell(f"x = {n}") for n in range(4))
    conf = make_book(here, chapter, chapter.replace("Intro", "序"), name="index")
    result = CliRunner().invoke(main, ["--conf", str(conf), "build", "html", "--no-eval", "-l", "en"])
    assert result.exit_code == 0, result.output
    assert (
        "4 cells show no output: --no-eval, and never evaluated; run polybook build eval [polybook.output.missing]"
    ) in result.output
    assert "no stored output for this cell" not in result.output
    verbose = CliRunner().invoke(main, ["--conf", str(conf), "build", "html", "--no-eval", "-l", "en", "-v"])
    lines = [line for line in verbose.output.splitlines() if "[polybook.output.missing]" in line]
    assert lines == [
        f"chapters/en/index.md:{line}: warning: no stored output for this cell (mxnet): run polybook build eval "
        "[polybook.output.missing]"
        for line in (3, 7, 11, 15)
    ]
