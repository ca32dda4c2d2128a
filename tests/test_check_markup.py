"""A translation's markup against the source's: what it copied, damaged or rearranged, each
reported once, where it is, saying what to do."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config

from minibook import cell, make_book


def found(tmp_path: Path, en: str, ja: str) -> list[tuple[str, str, int, str]]:
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    return [
        (str(f.code), f.lang, f.primary.line, f.message) for f in result.active if not str(f.code).startswith("stale")
    ]


def test_markup_the_translation_copies_from_the_source_is_the_sources_to_fix(tmp_path: Path) -> None:
    en = "# A\n\nText.\n\n![A figure](../img/a.svg)\n:eqlabel:`fig_a`\n"
    ja = "# A\n\nテキスト。\n\n![図](../img/a.svg)\n:eqlabel:`fig_a`\n"
    message = "`:eqlabel:` after a figure is taken as its label; write `:label:` for a figure"
    assert found(tmp_path, en, ja) == [("label.kind", "en", 6, message)]  # once, in the source
    ja_own = "# A\n\nテキスト。\n\n![図](../img/a.svg)\n:eqlabel:`fig_a`\n\n![図](../img/b.svg)\n:eqlabel:`fig_b`\n"
    assert ("label.kind", "ja", 9, message) in found(tmp_path, en, ja_own)  # one more than the source's: its own


def test_a_number_two_joined_sentences_say_once_is_not_missing(tmp_path: Path) -> None:
    en = "The breakthrough came in 2012, after years of work.\nThe breakthrough in 2012 had two causes.\n"
    zh = "2012年的突破经过多年努力，有两个原因。\n"
    assert found(tmp_path, en, zh) == []
    en = "The breakthrough came in 2012.\n\nOne.\n\nTwo.\n\n## Later\n\nIt was 2012 again.\n"
    zh = "突破发生在2012年。\n\n一。\n\n二。\n\n## 后来\n\n又一次。\n"
    assert found(tmp_path, en, zh) == [
        ("numbers.missing", "ja", 9, "the number 2012 of the source's text is missing here: translate what the "
         "source says with it"),
    ]  # fmt: skip


def test_a_formula_changed_where_it_stands_is_one_finding(tmp_path: Path) -> None:
    """Written in another order next to a formula it dropped, a changed formula still pairs
    with the source's where it stands: one math.changed, not a missing and an extra one."""
    en = "Take $a+b$ and the $c$ maps, then $d$ and $e$.\n"
    pt = "Tome os mapas $c_i$, depois $a+b$, $e$ e $d$.\n"
    assert found(tmp_path, en, pt) == [
        ("math.changed", "ja", 1, "math $c_i$ differs from the source's $c$: write the source's "
         "(polybook sync --write); if the sentence around it says what an older text of the source said, translate "
         "it anew"),
    ]  # fmt: skip


def test_a_formula_that_lost_its_dollar_is_one_finding_that_names_it(tmp_path: Path) -> None:
    en = "We draw $\\mathbf{x}_i$ from $q(\\mathbf{x})$ rather than $p(\\mathbf{x})$, so $p(y) = q(y)$.\n"
    pt = "Tiramos $\\mathbf{x}_i$ de q(\\mathbf{x})$ em vez de $p(\\mathbf{x})$, então $p(y) = q(y)$.\n"
    assert found(tmp_path, en, pt) == [
        ("math.missing", "ja", 1, "math $q(\\mathbf{x})$ of the source is here without its opening `$`: write "
         "`$q(\\mathbf{x})$`; until then the `$` of this paragraph pair wrongly, and its formulas read as text"),
    ]  # fmt: skip


def test_an_equation_whose_words_a_language_puts_in_its_own_order_is_the_same(tmp_path: Path) -> None:
    en = "$$P(\\text{near}\\; x) \\approx \\epsilon.$$\n:eqlabel:`eq_near`\n"
    tr = "$$P(x\\text{'e yakın}) \\approx \\epsilon.$$\n:eqlabel:`eq_near`\n"
    assert found(tmp_path, en, tr) == []


def tab(frameworks: str, text: str) -> str:
    return f":begin_tab:`{frameworks}`\n{text}\n:end_tab:\n\n"


def test_text_tabs_a_translation_lacks_are_one_finding_where_the_text_stands(tmp_path: Path) -> None:
    """Long sections pair as one segment; the finding points at the untabbed text nearest to
    where the source's tabs belong, once for all the frameworks it lacks."""
    intro = "".join(f"Intro {k}.\n\n" for k in range(8))
    en = "# A\n\n" + intro + tab("mxnet", "With MXNet.") + tab("pytorch", "With PyTorch.") + "End.\n"
    ja = "# A\n\n" + intro.replace("Intro", "序") + "どちらでも。\n\n終わり。\n"
    ((code, _, line, message),) = found(tmp_path, en, ja)
    assert (code, line) == ("structure.texttab", 19)  # "どちらでも。", not the first paragraph
    assert message == (
        "the source has text tab(s) for [mxnet], [pytorch] here; this translation shows its text here for every "
        "framework: put it in the tab of the framework it speaks of, and translate the source's other tabs, each in "
        "its `:begin_tab:`mxnet`` and `:begin_tab:`pytorch`` … `:end_tab:`"
    )


def test_text_tabs_for_every_reader_in_another_grouping_are_no_difference(tmp_path: Path) -> None:
    en = "# A\n\nAll.\n\n" + tab("mxnet, pytorch", "Both.") + "## B\n\nOne text.\n"
    ja = "# A\n\n全部。\n\n" + tab("mxnet", "MXNet。") + tab("pytorch", "PyTorch。") + "## B\n\n"
    ja += tab("mxnet", "`arange`。") + tab("pytorch", "`torch.arange`。")  # one text each, not one for all
    assert found(tmp_path, en, ja) == []


def test_text_tabs_in_a_section_the_translation_moved_are_not_lost(tmp_path: Path) -> None:
    en = "# A\n\n## B\n:label:`b`\n\nB.\n\n" + tab("mxnet", "B for MXNet.") + "## C\n:label:`c`\n\nC.\n"
    ja = "# A\n\n## C\n:label:`c`\n\nC。\n\n## B\n:label:`b`\n\nB。\n\n" + tab("mxnet", "MXNet の B。")
    assert [f for f in found(tmp_path, en, ja) if f[0] == "structure.texttab"] == []


def test_a_chapter_whose_name_is_the_sources_misspelt_says_which(tmp_path: Path) -> None:
    make_book(tmp_path, "# Watson\n\nText.\n\n```{.python .input}\nx = 1\n```\n", "# Other\n", name="nadaraya-watson")
    folder = tmp_path / "chapters" / "ja"
    (folder / "nadaraya-watson.md").rename(folder / "nadaraya-waston.md")
    result = check_book(load_book(load_config(tmp_path / "conf.py")))
    chapters = [(f.primary.path.rsplit("/", 1)[-1], f.message) for f in result.active if f.code == "structure.chapter"]
    assert chapters == [
        (
            "nadaraya-waston.md",
            "chapter 'nadaraya-waston' has no source chapter: it is the source's 'nadaraya-watson' "
            "misspelt; rename nadaraya-waston.md to nadaraya-watson.md (and its toc entries)",
        ),
    ]  # fmt: skip  -- and no "not translated yet" for the source's: one finding
    # and the chapter is checked against the source's it misspells
    assert [f.code for f in result.active if f.code.startswith("code")] == ["code.missing"]
    # its X_origin.md, its base, is renamed with it
    (folder / "nadaraya-waston_origin.md").write_text("# Watson\n\nText.\n", encoding="utf-8")
    result = check_book(load_book(load_config(tmp_path / "conf.py")))
    (message,) = [f.message for f in result.active if f.code == "structure.chapter" and "waston'" in f.message]
    assert message.endswith(
        "rename nadaraya-waston.md to nadaraya-watson.md and nadaraya-waston_origin.md to "
        "nadaraya-watson_origin.md (and its toc entries)"
    )


def test_punctuation_after_an_equations_environment_is_no_change(tmp_path: Path) -> None:
    en = "Thus\n\n$$\\begin{aligned} h &= u + v.\\end{aligned},$$\n\nwhere it holds.\n"
    zh = "因此\n\n$$\\begin{aligned} h &= u + v.\\end{aligned}$$\n\n其中成立。\n"
    assert found(tmp_path, en, zh) == []


def test_a_set_of_words_written_as_math_may_be_said_in_words(tmp_path: Path) -> None:
    en = "The model outputs a choice among $\\{\\text{yes}, \\text{no}\\}$ as output.\n"
    zh = "模型输出“是”或“否”中的一个选择。\n"
    assert found(tmp_path, en, zh) == []


def test_text_read_as_math_after_a_lost_dollar_is_no_extra_math_in_any_script(tmp_path: Path) -> None:
    en = "We have $a$ in $b$ and $c$ here.\n"
    ja = "ここに $a$ は$b の中に $c$ がある。\n"  # `$b` lost its closing `$`
    assert [(code, message[:45]) for code, _, _, message in found(tmp_path, en, ja)] == [
        ("math.missing", "math $b$ of the source is here without its cl"),
    ]  # one finding: not "$b の中に $" as extra math


def test_a_value_the_source_gives_in_words_may_be_written_as_math(tmp_path: Path) -> None:
    en = "We sample `K` noise words (5 in the experiment).\n"
    pt = "Amostramos $K$ palavras de ruído ($K = 5$ no experimento).\n"
    assert found(tmp_path, en, pt) == []


def test_a_product_or_a_shape_said_another_way_is_the_same(tmp_path: Path) -> None:
    en = "The output has $chw$ values.\n\nA window of shape $h \\times w$ is split.\n"
    pt = "A saída tem $c \\cdot h \\cdot w$ valores.\n\nA altura e a largura da janela são $h$ e $w$.\n"
    assert found(tmp_path, en, pt) == []


def test_a_heading_without_the_space_after_its_marks_is_told_once(tmp_path: Path) -> None:
    en = "# A\n\nText.\n\n## Putting It All Together\n\nMore.\n"
    tr = "# A\n\nMetin.\n\n##[**Her Şeyi Bir Araya Koyma**]\n\nDaha.\n"
    assert [(c, line, m) for c, _, line, m in found(tmp_path, en, tr) if c.endswith("heading")] == []
    assert [(c, line) for c, _, line, _ in found(tmp_path, en, tr) if c == "heading.damaged"] == [
        ("heading.damaged", 5)
    ]  # one finding, at it: not also a heading "missing" from the part


def test_words_caught_between_two_dollars_are_a_broken_paragraph_not_a_changed_formula(tmp_path: Path) -> None:
    en = "Second, we have the vector $\\boldsymbol{\\eta} = (\\eta_1, \\eta_l) \\in \\mathbb{R}^l$ here, and $T$.\n"
    ja = "第二に、ベクトル$\\ boldsymbol {\\ eta} = (\\ eta_1,\\ eta_l)\\ があります。"
    ja += "定義します。\\ mathbb {R} ^l$と$T があります。\n"
    codes = [(code, message) for code, _, _, message in found(tmp_path, en, ja) if code.startswith("math")]
    assert [code for code, _ in codes] == ["math.missing"]  # one: not also the words as a changed formula
    assert codes[0][1].startswith("math $T$ of the source is here without its closing `$`: write `$T$`")


def test_a_cell_moved_across_a_heading_leaves_the_headings_the_sources(tmp_path: Path) -> None:
    en = "# A\n\n## B\n\nText.\n\n" + cell("import x") + "\n" + cell("import y", "pytorch") + "\n## C\n\nMore.\n\n"
    en += cell("x.f()") + "\n"
    zh = "# A\n\n## B\n\n文本。\n\n## C\n\n" + cell("import x") + "\n" + cell("import y", "pytorch") + "\n更多。\n\n"
    zh += cell("x.f()") + "\n"
    assert [f for f in found(tmp_path, en, zh) if f[0].startswith("structure")] == []
