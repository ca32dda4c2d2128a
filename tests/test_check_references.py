"""Labels, references and figures a translation writes differently: one finding each, where
it is, saying what to do -- not a "missing" and an "extra" for one renamed or damaged thing."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book, check_config
from polybook.config import load_config

from minibook import cell, make_book, make_multilingual_book


def found(tmp_path: Path, en: str, ja: str) -> list[tuple[str, int, str]]:
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    return [(str(f.code), f.primary.line, f.message) for f in result.active if not str(f.code).startswith("stale")]


EQUATION = "Text.\n\n$$a = b.$$\n:eqlabel:`eq_ab`\n\nBy :eqref:`eq_ab` we are done.\n"


def test_a_renamed_label_and_the_references_to_it_are_one_finding_each(tmp_path: Path) -> None:
    ja = EQUATION.replace("eq_ab", "eq_a_b").replace("Text.", "本文。")
    assert found(tmp_path, EQUATION, ja) == [
        ("ref.label", 4, "label 'eq_a_b' here is 'eq_ab' in the source: write the source's (the book's references "
         "use it)"),
        ("ref.target", 6, ":eqref:`eq_a_b` here is :eqref:`eq_ab` in the source: write the source's"),
    ]  # fmt: skip


def test_a_label_after_a_damaged_equation_says_why_it_labels_nothing(tmp_path: Path) -> None:
    ja = "本文。\n\n$a = b.$ドル:eqlabel:`eq_ab`ドル\n\n:eqref:`eq_ab` により終わり。\n"
    message = (
        "label 'eq_ab' (equation) of the source is written here but labels nothing: put it on the line right after "
        "the equation's closing `$$` (the equation before it is damaged)"
    )
    assert ("ref.label", 3, message) in found(tmp_path, EQUATION, ja)


def test_a_reference_without_its_backticks_is_written_as_text(tmp_path: Path) -> None:
    en = "# A\n:label:`sec_a`\n\nAs shown in :numref:`sec_a`, yes.\n"
    pt = "# A\n:label:`sec_a`\n\nComo mostrado em :numref:sec_a`, sim.\n"
    assert found(tmp_path, en, pt) == [
        ("ref.target", 4, ":numref:`sec_a` of the source is written here but is not a reference: write "
         "`:numref:`sec_a``, with its backticks"),
    ]  # fmt: skip


def test_citations_with_spaces_after_their_commas_are_the_same(tmp_path: Path) -> None:
    en = "Known :cite:`Smith.2020,Doe.2021`.\n"
    ja = "既知 :cite:`Smith.2020, Doe.2021`。\n"
    assert found(tmp_path, en, ja) == []


def test_a_figure_inside_a_paragraph_says_to_put_it_on_its_own_line(tmp_path: Path) -> None:
    en = "Text.\n\n![A figure](../img/a.svg)\n:label:`fig_a`\n\nSee :numref:`fig_a`.\n"
    ja = "本文。\n\n![図](../img/a.svg) :label:`fig_a`\n\n:numref:`fig_a` を見る。\n"
    messages = [message for code, _, message in found(tmp_path, en, ja) if code == "ref.figure"]
    assert messages == [
        "figure ../img/a.svg of the source is here inside a paragraph, not a figure of its own: put "
        "`![…](../img/a.svg)` on a line of its own, and its :label: on the next"
    ]


def test_one_cell_for_all_frameworks_written_as_one_per_framework_is_no_tab_drift(tmp_path: Path) -> None:
    both = cell("y = 2", "mxnet, pytorch")
    en = cell("x = d2l.ones(3)", "all") + both
    ja = cell("x = d2l.ones(3)", "mxnet") + cell("x = d2l.ones(3)", "pytorch") + both
    assert found(tmp_path, en, ja) == []
    ja = cell("x = d2l.ones(3)", "mxnet") + both  # pytorch's readers lose it
    assert [code for code, _, _ in found(tmp_path, en, ja)] == ["code.tabs"]


def test_a_label_written_where_it_labels_nothing_is_said_there_not_at_every_reference(tmp_path: Path) -> None:
    """pt's ``![…](../img/mlp.svg) :label:`fig_mlp``` on one line: the label is said at that line,
    with what to do; the references to it are not each said again as pointing nowhere."""
    en = "# Title\n\nSee :numref:`fig_x`.\n\n![A graph.](../img/x.svg)\n:label:`fig_x`\n\nAgain :numref:`fig_x`.\n"
    ja = "# 題\n\n:numref:`fig_x` を見る。\n\n![グラフ。](../img/x.svg) :label:`fig_x`\n\nまた :numref:`fig_x`。\n"
    codes = [(code, line) for code, line, _ in found(tmp_path, en, ja)]
    assert ("ref.label", 5) in codes and not [c for c in codes if c[0] == "ref.target"]


def test_a_reference_left_out_for_a_label_the_translation_lacks_says_why_and_where(tmp_path: Path) -> None:
    en = "# Calculus\n\nIntegrals are for :numref:`sec_integral` later.\n"
    make_book(tmp_path, en, "# 微积分\n\n积分以后再说。\n")
    (tmp_path / "chapters" / "en" / "integral.md").write_text("# Integrals\n:label:`sec_integral`\n\nArea.\n")
    result = check_book(load_book(load_config(tmp_path / "conf.py")))
    (message,) = [f.message for f in result.active if f.code == "ref.target"]
    assert message == (
        ":numref:`sec_integral` of the source is missing here, and no ja chapter has its label yet (the chapter "
        "holding it is not translated): add it with that chapter"
    )
    (tmp_path / "chapters" / "ja" / "integral.md").write_text("# 积分\n\n面积。\n")
    result = check_book(load_book(load_config(tmp_path / "conf.py")))
    (message,) = [f.message for f in result.active if f.code == "ref.target"]
    assert message.startswith(":numref:`sec_integral` of the source is missing here: add it, with the label it ")
    assert message.endswith("points at, which " + str(tmp_path / "chapters" / "ja" / "integral.md") + ":1 lacks too")


def test_an_equations_label_missing_is_shown_as_the_source_writes_it(tmp_path: Path) -> None:
    conf = make_book(tmp_path, EQUATION, "本文。\n\n$$a = b.$$\n\n:eqref:`eq_ab` により終わり。\n")
    result = check_book(load_book(load_config(conf)))
    assert [f.diff for f in result.active if f.code == "ref.label"] == [(("", ":eqlabel:`eq_ab`"),)]


def test_a_reference_to_a_label_the_source_dropped_is_told_with_lang_as_in_the_whole_book(tmp_path: Path) -> None:
    """``--lang ja`` checks ja's whole book: a chapter only zh has does not make it a partial
    check that leaves the references to labels no one defines untold."""
    en = "# Title\n:label:`sec_title`\n\nSee :numref:`sec_title`.\n"
    ja = "# 題\n:label:`sec_title`\n\n:numref:`sec_title` と :numref:`sec_old` を見る。\n"
    zh = "# 标题\n:label:`sec_title`\n\n见 :numref:`sec_title`。\n"
    config = load_config(make_multilingual_book(tmp_path, {"en": en, "ja": ja, "zh": zh}))
    (tmp_path / "chapters" / "zh" / "own.md").write_text("# 自己\n\n文字。\n", encoding="utf-8")
    told = []
    for languages, jobs in ((None, 1), (["ja"], 1), (["ja"], 2)):
        result, _ = check_config(config, languages, jobs=jobs)
        told.append([(f.lang, f.primary.line, f.message) for f in result.active if str(f.code) == "ref.target"])
    message = ":numref:`sec_old` points at a label neither the ja book nor the en source defines: "
    assert told == [[("ja", 4, message + "write a label the book defines")]] * 3
