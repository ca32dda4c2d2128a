"""The document model: nodes know their line, inline roles and math know theirs."""

from __future__ import annotations

import json

from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.nodes import CodeCell, Figure, Paragraph, TextTab

ROLES = """\
# Roles

See :numref:`fig_a`, :ref:`sec_b` and :eqref:`eq_c`; cited by :cite:`Smith.2020` and
:citet:`Doe.2021`. Inline math $t_1 + 10000 t_2$ and code `npx.waitall()` and a
[link](https://example.org/x).

As shown in: numref: `fig_frontends`, this role is damaged.
"""


def test_inlines_carry_their_own_line() -> None:
    doc = parse_text(ROLES, "roles.md")
    first, second = (n for n in doc.nodes if isinstance(n, Paragraph))
    got = [(i.kind, i.name, i.value, i.line) for i in first.inlines]
    assert got == [
        ("role", "numref", "fig_a", 3),
        ("role", "ref", "sec_b", 3),
        ("role", "eqref", "eq_c", 3),
        ("role", "cite", "Smith.2020", 3),
        ("role", "citet", "Doe.2021", 4),
        ("math", "", "t_1 + 10000 t_2", 4),
        ("code", "", "npx.waitall()", 4),
        ("link", "link", "https://example.org/x", 5),
    ]
    damaged = second.inlines[0]
    assert (damaged.kind, damaged.name, damaged.value, damaged.damaged, damaged.line) == (
        "role",
        "numref",
        "fig_frontends",
        True,
        7,
    )


def test_code_spans_across_lines_keep_later_lines_right() -> None:
    # markdown-it turns a code span's line breaks into spaces; lines after it must not shift.
    text = "# T\n\nline `two\nstill` two :ref:`b`\n$x +\ny$ and :cite:`c`\n`a` `a\nb` :eqref:`d`\n"
    (paragraph,) = (n for n in parse_text(text, "p.md").nodes if isinstance(n, Paragraph))
    got = [(i.kind, i.value, i.line) for i in paragraph.inlines]
    assert got == [
        ("code", "two still", 3),
        ("role", "b", 4),
        ("math", "x +\ny", 5),
        ("role", "c", 6),
        ("code", "a", 7),
        ("code", "a b", 7),
        ("role", "d", 8),
    ]


def test_code_cell_fields() -> None:
    text = "intro\n\n```{.python .input  n=2}\n#@tab pytorch\n%matplotlib inline\ndef f():  #@save\n    pass\n```\n"
    (cell,) = parse_text(text, "c.md").cells()
    assert isinstance(cell, CodeCell)
    assert (cell.line, cell.end_line, cell.code_line) == (3, 8, 5)
    assert (cell.language, cell.attrs, cell.tab, cell.frameworks) == ("python", {"n": "2"}, "pytorch", ("pytorch",))
    assert cell.code == "%matplotlib inline\ndef f():  #@save\n    pass"
    assert [(m.name, m.line) for m in cell.markers] == [("save", 6)]
    assert [(m.name, m.line) for m in cell.magics] == [("%matplotlib", 5)]
    assert cell.saved


def test_default_tab_comes_from_the_settings() -> None:
    text = "```{.python .input}\nx = 1\n```\n\n```{.python .input}\n#@tab all\ny = 2\n```\n"
    doc = parse_text(text, "t.md", DialectSettings("en", ("pytorch", "mxnet"), "pytorch"))
    assert [c.frameworks for c in doc.cells()] == [("pytorch",), ("pytorch", "mxnet")]


def test_text_tab_children_and_lines() -> None:
    text = ":begin_tab:`pytorch`\nSome *text*.\n\n* item\n:end_tab:\n\nAfter.\n"
    doc = parse_text(text, "t.md")
    tab = doc.nodes[0]
    assert isinstance(tab, TextTab)
    assert (tab.line, tab.end_line, tab.frameworks, tab.closed) == (1, 5, ("pytorch",), True)
    assert [(c.type, c.line) for c in tab.children] == [("paragraph", 2), ("block", 4)]
    assert doc.nodes[1].line == 7


def test_figure_caption_keeps_markup() -> None:
    doc = parse_text("![The *dependency* graph of $z$.](../img/g.svg)\n:width:`400px`\n:label:`fig_g`\n", "f.md")
    (figure,) = doc.nodes
    assert isinstance(figure, Figure)
    assert (figure.caption, figure.src, figure.width, figure.label) == (
        "The *dependency* graph of $z$.",
        "../img/g.svg",
        "400px",
        "fig_g",
    )
    assert (figure.line, figure.end_line) == (1, 3)


def test_json_dump_round_trips() -> None:
    settings = DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
    doc = parse_text(":begin_tab:`mxnet`\nx\n:end_tab:\n\n```{.python .input}\n#@save\nx = 1\n```\n", "j.md", settings)
    data = json.loads(json.dumps(doc.to_dict()))
    assert data["nodes"][0]["type"] == "texttab"
    assert data["nodes"][0]["children"][0]["type"] == "paragraph"
    assert data["nodes"][1]["markers"] == [{"name": "save", "line": 6}]
    assert data["nodes"][1]["frameworks"] == ["mxnet"]


def test_crlf_lines_count_like_lf() -> None:
    doc = parse_text("# A\r\n:label:`a`\r\n\r\n```{.python .input}\r\nx\r\n```\r\n", "w.md")
    assert doc.diagnostics == []
    assert doc.labels["a"].line == 2
    assert doc.cells()[0].line == 4


def test_outside_a_book_every_framework_a_tab_names_is_taken_as_written() -> None:
    """No book, no list of frameworks: polybook assumes none (jax, paddle and mlx alike)."""
    doc = parse_text("```{.python .input}\n%%tab jax, mlx\nx = 1\n```\n\n```{.python .input}\ny = 2\n```\n", "j.md")
    assert [cell.frameworks for cell in doc.cells()] == [("jax", "mlx"), ()]
    assert doc.diagnostics == []
