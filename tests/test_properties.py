"""Property tests: the parser never raises, and what it reports points into the file."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polybook.dialect import parse_text
from polybook.dialect.normalize import normalize_code

FRAGMENTS = [
    "# Title",
    "## [Broken",
    "##x",
    ":label:`sec_a`",
    ":label: `sec_a`",
    ":eqlabel:`eq`",
    ":width:`300px`",
    ":begin_tab:`mxnet`",
    ":begin_tab:`pytorch, mxnet`",
    ":begin_tab: `pytorch`",
    ":begin_tab:`all`",
    ":begin_tab:`jax`",
    ":end_tab:",
    "```{.python .input}",
    "```{.python .input  n=3}",
    "```{.python .input",
    "```toc",
    "```eval_rst",
    "```bash",
    "```",
    "~~~",
    "#@tab pytorch",
    "#@tab all",
    "# @tab mxnet",
    "#@save",
    "%matplotlib inline",
    "x = 1",
    "    indented",
    "* item",
    "1. item",
    "> quote",
    "$$",
    "$$x = 1$$ (eq_x)",
    "See :numref:`fig_a` and $t_1$.",
    "em: numref: `fig_x`",
    "![cap](../img/a.svg)",
    "<!-- polybook: ignore code.changed -->",
    "---",
    "| a | b |",
    "|---|---|",
    "",
    "\t",
    "\ufeff",
    "\x00",
]


def _check(text: str) -> None:
    doc = parse_text(text, "p.md")
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    n_lines = max(1, len(normalised.split("\n")) - normalised.endswith("\n"))
    for node in doc.walk():
        assert 1 <= node.line <= node.end_line <= n_lines
    for diagnostic in doc.diagnostics:
        assert 1 <= diagnostic.line <= n_lines
    doc.to_dict()


@given(st.text())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_parser_never_raises_on_any_text(text: str) -> None:
    _check(text)


@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=12), max_size=40))
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_parser_never_raises_on_dialect_soup(lines: list[str]) -> None:
    _check("\n".join(lines))


@given(st.text())
@settings(max_examples=200)
def test_normalize_code_never_raises(code: str) -> None:
    assert isinstance(normalize_code(code), str)


@given(st.text(alphabet=st.sampled_from(list("abc =+()#'\"\n    "))), st.sampled_from(["# note", "# примечание"]))
@settings(max_examples=200)
def test_comments_never_change_normalised_code(code: str, comment: str) -> None:
    commented = "\n".join(
        f"{line}  {comment}" if line.strip() and "#" not in line and "'" not in line and '"' not in line else line
        for line in code.split("\n")
    )
    if "#" in code or "'" in code or '"' in code:
        return
    assert normalize_code(commented) == normalize_code(code)
