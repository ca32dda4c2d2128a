"""``polybook port`` leaves a translation its check finds consistent: what is not translation --
figures, labels, references to renamed labels, markup a translator damaged -- comes from the source
or is mended, and a kept translation that disagrees with its unchanged source text is marked stale.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from polybook.book import load_book
from polybook.check import check_book, parse_findings
from polybook.cli import main
from polybook.config import load_config
from polybook.dialect import Document, parse_text
from polybook.dialect.marks import as_checked, stale_lines
from polybook.stage.myst import transpile
from polybook.sync.mend import mended
from polybook.sync.port_document import base_to_source, book_renamed_labels, port_document
from test_port import CONF  # ja following en's edition 0.1


def ported(base: str, source: str, target: str) -> str:
    docs = [parse_text(text, name, None) for text, name in ((base, "b.md"), (source, "s.md"), (target, "t.md"))]
    return port_document(docs[0], docs[1], source, docs[2], target).text


def test_a_figure_takes_the_sources_image_and_label_and_references_follow_the_renamed_label() -> None:
    base = "See :numref:`lstm_1`.\n\n![The cell.](../img/lstm_1.svg)\n:label:`lstm_1`\n"
    source = "See :numref:`fig_lstm_1`.\n\n![The cell.](../img/lstm-1.svg)\n:label:`fig_lstm_1`\n"
    target = ":numref:`lstm_1` を見よ。\n\n![セル。](../img/lstm_1.svg)\n:label:`lstm_1`\n"
    out = ported(base, source, target)
    assert "![セル。](../img/lstm-1.svg)\n:label:`fig_lstm_1`" in out  # translated caption, the source's rest
    assert "lstm_1`" not in out.replace("fig_lstm_1`", "")  # no reference to the old label is left
    # the source changed nothing but the label (followed) and the image (the source's is taken): kept
    assert out.startswith(":numref:`fig_lstm_1` を見よ。\n\n![セル。]") and "polybook:stale" not in out


def test_a_reference_follows_a_label_the_source_renamed_in_another_document() -> None:
    """d2l 1.0 relabelled rnn-scratch.md's ``sec_rnn_scratch`` as ``sec_rnn-scratch``; lstm.md's
    translation refers to it: labels are the book's, so are their renames (not when a label is
    still the source's somewhere, nor when two documents relabel it differently)."""
    scratch = (
        _doc("# Scratch\n:label:`sec_rnn_scratch`\n\nText.\n"),
        _doc("# Scratch\n:label:`sec_rnn-scratch`\n\nText.\n"),
    )
    source = "See :numref:`sec_rnn-scratch`.\n"
    lstm = (_doc("See :numref:`sec_rnn_scratch`.\n"), _doc(source))
    renamed = book_renamed_labels([_paired(scratch), _paired(lstm)], [scratch[1], lstm[1]])
    assert renamed == {"sec_rnn_scratch": "sec_rnn-scratch"}
    target = "参照 :numref:`sec_rnn_scratch`。\n"
    alone = port_document(lstm[0], lstm[1], source, _doc(target), target).text
    assert "sec_rnn_scratch" in alone  # its own document renames nothing
    out = port_document(lstm[0], lstm[1], source, _doc(target), target, renamed=renamed).text
    assert ":numref:`sec_rnn-scratch`。" in out and "sec_rnn_scratch" not in out
    still = _doc(":label:`sec_rnn_scratch`\n")  # still a label of the source
    assert book_renamed_labels([_paired(scratch), _paired(lstm)], [scratch[1], lstm[1], still]) == {}
    other = (scratch[0], _doc("# Scratch\n:label:`sec_rnn_other`\n\nText.\n"))
    assert book_renamed_labels([_paired(scratch), _paired(other)], [scratch[1], other[1]]) == {}


def _doc(text: str) -> Document:
    return parse_text(text, "d.md", None)


def _paired(docs: tuple[Document, Document]) -> tuple[dict, Document]:
    """A source document with its blocks' bases, as the port pairs them."""
    return base_to_source(*docs), docs[1]


def test_a_paragraphs_label_lines_are_the_sources() -> None:
    base = ":Sizes\n\n|a|b|\n|-|-|\n|1|2|\n:label:`tab_sizes`\n"
    source = ":Sizes\n:label:`tab_sizes`\n\n|a|b|\n|-|-|\n|1|2|\n"  # d2l 1.0 labels the caption
    target = ":大きさ\n\n|a|b|\n|-|-|\n|1|2|\n:label:`tab_sizes`\n"
    out = ported(base, source, target)
    assert ":大きさ\n:label:`tab_sizes`\n\n|a|b|\n|-|-|\n|1|2|\n" in out
    assert out.count(":label:") == 1


def test_translated_blocks_pair_by_their_formulas_not_by_their_place() -> None:
    base = "One $a$.\n\nTwo.\n\nThree $b$.\n\n(**$$c$$**)\n\nFive is the last one here.\n"
    source = base.replace("last", "final")
    target = "一 $a$。二。\n\n三 $b$。\n\n(**$$c$$**)\n\n五。\n"  # the translator joined the first two
    out = ported(base, source, target)
    stale = "<!-- polybook:stale\nFive is the final one here.\npolybook:was\nFive is the last one here.\n-->"
    assert f"三 $b$。\n\n(**$$c$$**)\n\n{stale}\n五。" in out
    assert "<!-- polybook:untranslated -->\nTwo." in out  # not "(**$$c$$**)" given to "Two."


def test_a_block_of_slide_marks_alone_pairs_with_nothing_and_closes_the_mark_of_the_block_it_follows() -> None:
    """zh closes the mark its paragraph opens after the display math, in a block of its own: that
    ``**)`` is no translation of the source's ``(**$$y = Xw$$**)`` (paired, it took the formula's
    place), and it stays after the kept paragraph, whose mark it closes."""
    base = "Data.\n\n(**The parameters are $w$,\nand**) the labels follow:\n\n(**$$y = Xw$$**)\n\nNoise.\n"
    target = "数据。\n\n(**参数 $w$ 和标签：\n\n$$y = Xw$$\n**)\n\n噪声。\n"
    out = ported(base, base, target)
    assert "(**参数 $w$ 和标签：\n\n**)\n\n<!-- polybook:untranslated -->\n(**$$y = Xw$$**)\n\n噪声。" in out
    assert not parse_text(out, "o.md", None).diagnostics  # every slide mark closed
    assert "polybook:aside" not in out


def test_markup_a_translation_damaged_is_mended_as_the_parser_says() -> None:
    text = "Veja : numref: `sec_x` e :cite:`Bay.Tuytelaars.Van- Gool.2006`.\n"
    node = parse_text(text, "t.md", None).nodes[0]
    assert mended(node, text) == "Veja :numref:`sec_x` e :cite:`Bay.Tuytelaars.Van-Gool.2006`.\n"
    glued = "Veja o capítulo,: numref: `sec_x`.\n"  # docutils reads no role glued to a comma
    assert mended(parse_text(glued, "t.md", None).nodes[0], glued) == "Veja o capítulo, :numref:`sec_x`.\n"
    heading = parse_text("## [概要\n", "t.md", None).nodes[0]
    source = parse_text("## Summary\n", "s.md", None).nodes[0]
    assert mended(heading, "## [概要", source) == "## 概要"
    kept = parse_text("## [**Summary**]\n", "s.md", None).nodes[0]  # the source has brackets: left alone
    assert mended(heading, "## [概要", kept) == "## [概要"
    split = "$\\ mathbf {x}\\ in A$ と $a\\ b$\n"  # a tool's spaces; a control space the source has not
    node = parse_text(split, "t.md", None).nodes[0]
    assert mended(node, split, None, "$\\mathbf{x} \\in A$ and $a b$") == "$\\mathbf {x}\\in A$ と $a\\ b$\n"
    intact = parse_text("Veja :numref:`sec_x`.\n", "t.md", None).nodes[0]
    assert mended(intact, "Veja :numref:`sec_x`.\n") == "Veja :numref:`sec_x`.\n"


def test_a_heading_damaged_past_mending_goes_aside() -> None:
    base = "## Exercises\n\n1. Why?\n"
    target = "## 演習 1. $x を考える。\n\n1. なぜ？\n"
    out = ported(base, base, target)
    assert "<!-- polybook:untranslated -->\n## Exercises" in out
    assert "<!-- polybook:aside\n## 演習 1. $x を考える。\n-->" in out


def test_a_cell_the_translation_marked_for_the_library_is_the_sources() -> None:
    base = "```{.python .input}\nx = 1\n```\n"
    target = "```{.python .input}\nx = 1  #@save\n```\n"
    out = ported(base, base, target)
    assert "x = 1\n```" in out and "#@save\n```\n-->" in out  # the source's cell; the marked one aside


OLD_EN = "# Norms\n\nThe norm $\\|x\\|$ of $x$ is 2015's.\n\nIt is positive.\n"
NEW_EN = OLD_EN.replace("It is positive.", "It is never negative.")
JA = "# ノルム\n\nノルムは 2015 年のもの。\n\n正です。\n"  # the formulas left out by its translator


def test_a_kept_translation_at_odds_with_its_unchanged_source_is_marked_for_review(tmp_path: Path) -> None:
    files = {"chapters/en/norms.md": NEW_EN, "chapters/ja/norms.md": JA, "editions/en-0.1/norms.md": OLD_EN}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    before = check_book(load_book(load_config(tmp_path / "conf.py")))
    assert any(str(f.code) == "math.missing" for f in before.active)  # the translator's own omission
    result = CliRunner().invoke(main, ["--conf", str(tmp_path / "conf.py"), "port", "ja", "--write"])
    assert result.exit_code == 0, result.output
    assert "paragraphs: 1 kept, 1 to review (they disagree with their unchanged source text), 1 stale" in result.output
    text = (tmp_path / "chapters/ja/norms.md").read_text(encoding="utf-8")
    assert "<!-- polybook:review\nThe norm $\\|x\\|$ of $x$ is 2015's.\n-->\nノルムは 2015 年のもの。" in text
    after = check_book(load_book(load_config(tmp_path / "conf.py")))
    assert {str(f.level) for f in after.active} == {"info"}  # only what is left to translate
    marked = next(f for f in after.active if str(f.code) == "stale.marked")
    assert marked.message == "left by `polybook port`: 1 review, 1 stale blocks; translate them and remove their marks"
    page = transpile(parse_text(text, "norms.md", None), "ja").text
    assert "要確認 1 箇所" in page and page.count("```{note}") == 1  # the page's one notice
    assert '<div class="polybook-mark polybook-mark-review"><details>' in page  # opens onto the source's text
    assert "The norm $\\|x\\|$ of $x$ is 2015&#x27;s.</div>" in page
    again = CliRunner().invoke(main, ["--conf", str(tmp_path / "conf.py"), "port", "ja"])
    assert "diff --polybook" not in again.output  # a second port keeps the mark as it is


def test_a_stale_block_is_checked_without_its_own_labels_and_nothing_is_found_in_it() -> None:
    text = "<!-- polybook:stale\n![New.](a.svg)\n:label:`fig_new`\n-->\n![旧。](a.svg)\n:label:`old`\n\nEnd.\n"
    doc = parse_text(text, "t.md", None)
    checked, _ = as_checked(doc, lambda t: parse_text(t, "t.md", None))
    assert set(checked.labels) == {"fig_new"}  # the translation's old label went with its block
    assert stale_lines(doc) == {5, 6}  # the block's lines, as the check reads them
    longer = "<!-- polybook:stale\nA\nlong\nsource\ntext.\n-->\n短い。\n\n次。\n"
    assert stale_lines(parse_text(longer, "t.md", None)) == {7, 8}  # up to the next block, not into it


def test_a_copy_of_the_sources_own_parse_problem_is_not_the_translations() -> None:
    source = parse_text("# T\n\n:begin_tab:`a`\n\nx\n\n:begin_tab:`b`\n\ny\n\n:end_tab:\n", "s.md", None)
    target = parse_text("# T\n:begin_tab:`a`\nx\n:begin_tab:`b`\ny\n:end_tab:\n", "t.md", None)
    assert source.diagnostics and [d.code for d in source.diagnostics] == [d.code for d in target.diagnostics]
    assert source.diagnostics[0].message != target.diagnostics[0].message  # the lines it names differ
    assert parse_findings("ja", "t", target, source) == []


def test_sections_pair_with_sections_of_their_level_when_the_translation_left_some_out() -> None:
    base = "## Storage\n\nDisks.\n\n### Hard disks\n\nThey spin.\n\n### Cloud\n\nFar away.\n\n## CPUs\n\nCores.\n"
    source = base.replace("Far away.", "Far, far away.")
    target = "## 記憶装置\n\nディスク。\n\n回転する。\n\n遠い。\n\n## CPU\n\nコア。\n"  # no subsections
    out = ported(base, source, target)
    assert "<!-- polybook:untranslated -->\n## CPUs" not in out
    assert "## CPU\n\nコア。" in out  # the level-2 heading is the level-2 one's translation
    assert "<!-- polybook:untranslated -->\n### Hard disks" in out


def test_a_paragraph_whose_formulas_the_translator_lost_keeps_its_place() -> None:
    base = "Deal $52!$ orders.\n\nIt has $0\\textrm{ bits}$.\n\nAfter that.\n\nDone $x$.\n"
    # $52!$ lost to the tool, \\textrm written \\mathrm: no two blocks but the last share all their formulas
    target = "52ドルの順序。\n\n$0\\mathrm{ bits}$ です。\n\nその後。\n\n完了 $x$。\n"
    out = ported(base, base, target)
    assert out == target


def test_a_second_port_of_a_ported_document_changes_nothing() -> None:
    base = "Book\n====\n\nIntro $a$.\n\n:begin_tab:`mxnet`\n```bash\nls\n```\n:end_tab:\n\nEnd.\n"
    source = base.replace("End.", "The end.")
    target = "本\n==\n\n序 $a$。\n\n:begin_tab:`mxnet`\n```bash\nls\n```\n:end_tab:\n\n終わり。\n"
    once = ported(base, source, target)
    assert once.startswith("# 本\n\n序 $a$。")  # a setext heading written with #, its underline not kept
    assert ported(source, source, once) == once


def test_a_tab_the_source_left_unclosed_is_closed_where_the_parser_ends_it() -> None:
    """d2l 1.0.3's d2l.md opens a pytorch tab and never closes it before the next one: the
    translation does not take that fault (a second port would refuse its parse error)."""
    base = "# API\n\nText.\n"
    source = (
        "# API\n\nText.\n\n:begin_tab:`pytorch`\n\n```eval_rst\n.. currentmodule:: d2l.torch\n```\n\n"
        ":begin_tab:`mxnet`\n\n```eval_rst\n.. currentmodule:: d2l.mxnet\n```\n\n:end_tab:\n"
    )
    target = "# API\n\n文。\n"
    out = ported(base, source, target)
    assert out.count(":end_tab:") == 2
    assert not [d for d in parse_text(out, "o.md", None).diagnostics if d.level.name == "ERROR"]
