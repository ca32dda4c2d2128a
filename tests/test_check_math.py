"""Math and numbers a translator can act on: paired by content over the whole chapter, with a
language's number format, moved punctuation and rephrased paragraphs left alone, and never
rewritten by sync when only the style differs."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook import sync
from polybook.book import load_book
from polybook.check import check_book
from polybook.check.findings import CheckResult
from polybook.check.formulas import pair_by_content
from polybook.check.tex import normalize_tex, numbers_of
from polybook.config import load_config

from minibook import cell, make_multilingual_book


def book(tmp_path: Path, en: str, text: str, lang: str = "pt") -> Path:
    return make_multilingual_book(tmp_path, {"en": en, lang: text}, name="intro")


def run(tmp_path: Path, en: str, text: str, lang: str = "pt") -> CheckResult:
    return check_book(load_book(load_config(book(tmp_path, en, text, lang))))


def found(result: CheckResult) -> list[tuple[str, int, tuple[tuple[str, str], ...]]]:
    return sorted(
        (f.code, f.primary.line, f.diff)
        for f in result.active
        if f.code.startswith(("math", "numbers"))  # the language's code is the translator's own business
    )


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        ("10,000", "10{,}000"),
        ("10,000", r"10\,000"),
        (r"t=1, 2,\ldots", r"t=1,2,\ldots"),  # a list, not a decimal, where the point is the decimal sign
        (r"95\%", r"\%95"),  # tr: the percent sign first
        (r"\mathbf{y} = \mathbf{X} \mathbf{w} + b,", r"\mathbf y=\mathbf{X}\mathbf{w}+b"),  # punctuation, spacing
        (r"\begin{bmatrix} 1 \\ 2 \end{bmatrix}.", r"\begin{bmatrix}1\\2\end{bmatrix}"),
        (r"x_1, x_2, \ldots", r"x_1, x_2， \ldots"),  # a full-width comma
        (r"i^\mathrm{th}", "i."),  # an English ordinal, and tr's
        (r"\mathrm{bias}(\theta) = 0", r"\mathrm{yanlılık}(\theta) = 0"),  # words in \mathrm, as in \text
        (r"3\times3", r"3 \times 3"),
    ],
)
def test_a_languages_own_way_of_writing_math_is_not_drift(source: str, translation: str) -> None:
    assert normalize_tex(source) == normalize_tex(translation)


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        (r"\eta = 0.5", r"\eta = 0,5"),
        ("10,000", "10.000"),
        ("2,000", "2.000"),
        ("0.001", "0.001"),
        ("10,000", "10,000"),
    ],
)
def test_a_decimal_comma_languages_numbers_are_not_drift(source: str, translation: str) -> None:
    assert normalize_tex(source) == normalize_tex(translation)  # pt, tr


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        (r"\eta = 0.5", r"\eta = 0,3"),
        (r"\mathrm{d}x", r"\mathrm{e}x"),
        ("10,000", "1.000"),
        ("n!", "n"),
        ("x_1", "x_2"),
    ],
)
def test_what_is_really_different_stays_different(source: str, translation: str) -> None:
    assert normalize_tex(source) != normalize_tex(translation)


def test_numbers_in_a_languages_own_words_are_the_same_number() -> None:
    assert [values for values, _ in numbers_of("60,000 images and 110 million parameters")] == [
        ("60000",),
        ("110", "110000000"),
    ]
    assert [values for values, _ in numbers_of("6万张图像，1.1亿个参数")] == [("60000",), ("110000000",)]


EN = (
    "# Sheep\n:label:`sec_sheep`\n\n"
    "A flock has $n$ sheep and $m$ goats.\n\n"  # 4
    "Each sheep eats $e = 0.5$ units, so the flock eats $0.5 n$.\n\n"  # 6
    + cell("n = 10")  # 8-10
    + "\nWith 10,000 sheep that is $5000$ units:\n\n"  # 12
    "$$u = e \\cdot n.$$\n\n"  # 14
    "Goats eat $g_i$ and $h_i$ units, and $c_i, d_i$ are their colours.\n\n"  # 16
    + cell("m = 4")  # 18-20
    + "\nSo the farm needs $u + \\sum_i g_i$ units in total, for 256 days.\n"  # 22
)
# pt: its number format, punctuation outside the math, the first two paragraphs joined and
# moved before the first cell's counterpart, a sentence reordered, two formulas split apart.
PT = (
    "# Ovelhas\n:label:`sec_sheep`\n\n"
    "Um rebanho tem $n$ ovelhas e $m$ cabras. Cada ovelha come $e = 0,5$ unidades, logo o rebanho come $0,5 n$.\n\n"
    + cell("n = 10")  # 6-8
    + "\nCom 10.000 ovelhas são $5.000$ unidades:\n\n"  # 10
    "$$u = e \\cdot n$$.\n\n"  # 12
    "As cores são $c_i$ e $d_i$; as cabras comem $h_i$ e $g_i$ unidades.\n\n"  # 14
     + cell("m = 4") + "\nEntão a fazenda precisa de $u + \\sum_i g_i$ unidades, por 256 dias.\n"
)


def test_rephrased_and_rearranged_math_and_numbers_are_not_findings(tmp_path: Path) -> None:
    assert found(run(tmp_path, EN, PT)) == []


def test_what_is_really_absent_added_or_changed_is_reported_once_where_it_is(tmp_path: Path) -> None:
    pt = PT.replace("$u + \\sum_i g_i$", "$u + \\sum_i h_i$").replace(", por 256 dias", "")
    pt = pt.replace("e $m$ cabras", "e cabras").replace("$$u = e \\cdot n$$.", "$$u = e \\cdot n + k$$.")
    assert found(run(tmp_path, EN, pt)) == [
        ("math.changed", 12, ((r"u = e \cdot n + k", r"u = e \cdot n."),)),
        ("math.changed", 20, ((r"u + \sum_i h_i", r"u + \sum_i g_i"),)),
        ("math.missing", 4, (("", "m"),)),  # at the paragraph holding the source's paragraph's other math
        ("numbers.missing", 20, (("", "256"),)),
    ]


def test_math_only_the_translation_writes_as_math_is_not_extra(tmp_path: Path) -> None:
    en = "Points on the x axis have shape (4, 4) here.\n"
    ja = "$x$ 軸上の点の形は $(4，4)$ です。\n"
    assert found(run(tmp_path, en, ja, "ja")) == []
    assert [c for c, _, _ in found(run(tmp_path, en, "$y$ 軸上の点の形は $(4，4)$ です。\n", "ja"))] == ["math.extra"]


def test_sync_keeps_the_translations_number_format_and_punctuation(tmp_path: Path) -> None:
    en = "The rate is $\\eta = 0.5 x$, and $10,000$ steps.\n\n$$y = 0.25 x.$$\n"
    pt = "A taxa é $\\eta = 0,3 x$, e $10.000$ passos.\n\n$$y = 0,2 x$$.\n"
    conf = book(tmp_path, en, pt)
    (result,) = sync.sync_book(load_book(load_config(conf)))
    assert result.new == "A taxa é $\\eta = 0,5 x$, e $10.000$ passos.\n\n$$y = 0,25 x$$.\n"
    unchanged = "A taxa é $\\eta = 0,5 x$, e $10.000$ passos.\n\n$$y = 0,25 x$$.\n"
    book(tmp_path, en, unchanged)
    (result,) = sync.sync_book(load_book(load_config(conf)))
    assert not result.changed and not result.left


def test_numbers_said_a_languages_way_or_once_for_every_framework(tmp_path: Path) -> None:
    en = (
        "In the 1990s the farm had 60,000 sheep and 110 million blades of grass, since the 19th century.\n\n"
        ":begin_tab:`mxnet`\nEach of the 250 pens holds 240 sheep.\n:end_tab:\n\n"
        ":begin_tab:`pytorch`\nEach of the 250 pens holds 240 sheep.\n:end_tab:\n\n"
        "The gate is at (250, 250), 40 ms away.\n"
    )
    zh = "上世纪90年代，农场有6万只羊和1.1亿片草叶，自十九世纪以来。\n\n"
    zh += "每个羊圈（共250个）有240只羊。\n\n门在（250,250），40ms远。\n"
    assert found(run(tmp_path, en, zh, "zh")) == []
    assert found(run(tmp_path, en, zh.replace("240", "24"), "zh")) == [("numbers.missing", 3, (("24", "240"),))]
    assert found(run(tmp_path, en, zh.replace("有240只羊", "有羊"), "zh")) == [("numbers.missing", 3, (("", "240"),))]
    wiki = zh.replace("有240只羊", "有羊（据维基百科）")  # 百 of 维基百科 is a word, not 100 said for 240
    assert found(run(tmp_path, en, wiki, "zh")) == [("numbers.missing", 3, (("", "240"),))]


def test_formulas_joined_into_one_or_said_once_are_there(tmp_path: Path) -> None:
    en = "The points $(x_a, y_a)$ and $(x_b, y_b)$ differ; $x$ is one and $x$ is the other.\n"
    pt = "Os pontos $(x_a, y_a), (x_b, y_b)$ diferem; $x$ é um e o outro.\n"
    assert found(run(tmp_path, en, pt)) == []
    assert [c for c, _, _ in found(run(tmp_path, en, pt.replace("$x$", "ele")))] == ["math.missing"]


def test_a_translations_number_words_count_without_a_digit_and_left_out_text_joins_none() -> None:
    assert numbers_of("há cem anos", True) == ((("cem", "100"), 0),)
    assert numbers_of("há cem anos", False) == ()  # the source's numbers are digits
    assert numbers_of("sem números aqui", True) == ()
    assert numbers_of("um `cem` e\n$x$ um mil", True) == ((("cem", "100"), 0), (("mil", "1000"), 1))  # code, lines
    assert numbers_of("mi<br>l", True) == ()  # html left out is a space: no ``mil`` made of it


def test_a_formula_of_a_list_is_missing_from_its_item_and_a_symbol_said_again_is_said_once(tmp_path: Path) -> None:
    en = (
        "Notation:\n\n* $P$: a distribution\n* $\\mathrm{Var}(X)$: the variance of $X$, equal to $\\sigma^2_X$\n"
        "* $\\rho(X, Y)$: the correlation\n\n"
        "Write the matrix $\\mathbf{A}$ by its rows\n\n$$\\mathbf{A} = [\\mathbf{a}_1, \\mathbf{a}_2]$$\n\n"
        "where each $\\mathbf{a}_i$ is the $i$-th row of the matrix $\\mathbf{A}$, and $hw$ sets.\n"
    )
    pt = (
        "Notação:\n\n* $P$: uma distribuição\n* $\\mathrm{Var}(X)$: a variância de $X$\n"
        "* $\\rho(X, Y)$: a correlação\n\n"
        "Escreva a matriz $\\mathbf{A}$ por suas linhas\n\n$$\\mathbf{A} = [\\mathbf{a}_1, \\mathbf{a}_2]$$\n\n"
        "onde cada $\\mathbf{a}_i$ é a $i$-ésima linha da matriz, e $h \\times w$ conjuntos.\n"
    )
    # at the Var item (line 4), not at the list's first line; the matrix named two lines before
    # is "the matrix"; h x w sets are hw sets
    assert found(run(tmp_path, en, pt)) == [("math.missing", 4, (("", "\\sigma^2_X"),))]
    far = pt.replace("onde cada", "\n" * 12 + "onde cada")
    en_far = en.replace("where each", "\n" * 12 + "where each")
    assert found(run(tmp_path, en_far, far)) == [
        ("math.missing", 4, (("", "\\sigma^2_X"),)),
        ("math.missing", 23, (("", "\\mathbf{A}"),)),  # said again far from where it was said
    ]


def test_a_sentence_rewritten_with_other_figures_is_told_once_with_them(tmp_path: Path) -> None:
    en = "Volta offers up to 120 TFlops, against 24 TFlops of the fastest CPUs.\n"
    zh = "Ampere 架构提供高达312 TFlops 的性能。\n"
    assert found(run(tmp_path, en, zh, "zh")) == [("numbers.missing", 1, (("312", "120, 24"),))]
    (finding,) = [f for f in run(tmp_path, en, zh, "zh").active if f.code == "numbers.missing"]
    assert finding.message == (
        "the source's text says 120 and 24 where this says 312: write the source's numbers, unless the translation "
        "changes them on purpose"
    )


def test_a_symbol_said_with_its_arguments_is_there_and_an_older_notation_is_a_change(tmp_path: Path) -> None:
    en = "The weights are modeled by $\\alpha$ here.\n\nThe $L_1$ unit ball is a diamond.\n"
    zh = "权重建模为$\\alpha(x, x_i)$。\n\n$\\ell_1$ 单位球是菱形。\n"
    assert found(run(tmp_path, en, zh, "zh")) == [("math.changed", 3, (("\\ell_1", "L_1"),))]


def test_a_formula_that_only_writes_a_functions_arguments_is_the_same(tmp_path: Path) -> None:
    en = "A function is convex when $f'' \\geq 0$, and $\\exp(x)$ grows.\n"
    zh = "当$f''(x) \\geq 0$时函数是凸的，$\\exp(y)$增长。\n"
    assert found(run(tmp_path, en, zh, "zh")) == [("math.changed", 1, (("\\exp(y)", "\\exp(x)"),))]


def test_a_paragraph_none_of_whose_formulas_is_here_is_one_finding(tmp_path: Path) -> None:
    en = "First $a = 1$ holds.\n\nThen $b = 2$, $c = 3$ and $d = 4$ follow.\n\nLast $e = 5$.\n"
    pt = "Primeiro $a = 1$ vale.\n\nPor último $e = 5$.\n"
    result = run(tmp_path, en, pt)
    ((line, message),) = [(f.primary.line, f.message) for f in result.active if f.code == "math.missing"]
    assert line in (1, 3)  # between the paragraphs around it
    assert message == (
        "none of the 3 formulas of the source's paragraph at line 3 ($b = 2$, $c = 3$, $d = 4$) is here: translate "
        "that paragraph (it is missing, or follows an older text of the source)"
    )


def test_a_formula_said_fewer_times_is_missing_where_it_is_had_fewer_times() -> None:
    """``$i$`` twice in a paragraph and once in the translation's (the other written over with
    ``$d$``): the source's unmatched ``$i$`` pairs with the translation's unmatched one nearest
    to where it belongs, leaving the written-over one beside ``$d$`` (a change, told there), not
    the first in document order."""
    source = ["x", "i", "i", "y", "i", "k", "j"]
    target = ["x", "i", "d", "y", "k", "j", "i"]
    ordered, moved = pair_by_content(source, target)
    assert moved == [(2, 6)]  # (without places: in document order)
    ordered, moved = pair_by_content(source, target, lambda i, j: abs(i - j))
    assert (2, 2) not in ordered and moved == [(4, 6)]
