"""Where findings point: what the translation lacks is reported where it belongs, never at
line 1 of a non-empty file, and a number at its own line."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config

from minibook import cell, make_book

EN = (
    "# Intro\n"  # 1
    ":label:`sec_intro`\n"  # 2
    "\n"
    "See :numref:`sec_more`.\n"  # 4
    "\n" + cell("a = 1") + "\n"  # 6-8
    "Some words.\n"  # 10
    "\n"
    "Read [the docs](https://x.org)\n"  # 12
    "and :cite:`Smith.2020` about\n"  # 13
    "2048 units.\n"  # 14
    "\n"
    "![Fig](../img/a.svg)\n"  # 16
    ":label:`fig_a`\n"  # 17
    "\n"
    "## More\n"  # 19
    ":label:`sec_more`\n"  # 20
    "\n"
    "Final.\n"  # 22
)
JA = (
    "# はじめに\n"  # 1
    ":label:`sec_intro`\n"  # 2
    "\n"
    ":numref:`sec_mor` を見る。\n"  # 4
    "\n" + cell("a = 1") + "\n"  # 6-8
    "言葉。\n"  # 10
    "\n"
    "文書を読む。\n"  # 12
    "\n"
    "## もっと\n"  # 14
    "\n"
    "終わり。\n"  # 16
)


def located(en: str, ja: str, tmp_path: Path) -> list[tuple[str, int, int]]:
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    return sorted(
        (f.code, f.primary.line, f.source.line if f.source else 0) for f in result.active if f.code != "stale.unknown"
    )


def test_what_the_translation_lacks_points_where_it_belongs(tmp_path: Path) -> None:
    assert located(EN, JA, tmp_path) == [
        ("numbers.missing", 12, 14),  # from the source's line 14, at the paragraph aligned with its own
        ("ref.figure", 12, 16),  # after the paragraph aligned with the one before the figure
        ("ref.label", 12, 17),
        ("ref.label", 14, 20),  # the heading aligned with the source's heading
        ("ref.link", 12, 12),
        ("ref.target", 4, 4),  # :numref:`sec_mor` for the source's :numref:`sec_more`: one finding, at the role
        ("ref.target", 12, 13),  # :cite:
    ]


def test_a_typo_in_a_reference_is_reported_only_when_every_chapter_was_read(tmp_path: Path) -> None:
    en = EN.replace("See :numref:`sec_more`.", "See more.")  # not the damaged copy of a source's reference
    book = load_book(load_config(make_book(tmp_path, en, JA)))
    typo = ":numref:`sec_mor` points at a label neither the ja book nor the en source defines: did you mean 'sec_more'?"
    assert typo in [f.message for f in check_book(book).active]
    assert typo in [f.message for f in check_book(book, chapters=["intro"]).active]
    make_book(tmp_path, "# Other\n", "# 他\n", name="other")
    book = load_book(load_config(tmp_path / "conf.py"))
    assert typo not in [f.message for f in check_book(book, chapters=["intro"]).active]  # may be in 'other'
    assert typo in [f.message for f in check_book(book).active]


def test_a_missing_cell_or_section_with_nothing_paired_before_it(tmp_path: Path) -> None:
    en = "# A\n:label:`a`\n\nIntro.\n\n" + cell("b = 2") + "\n## Extra\n\nWords.\n\n" + cell("c = 3")
    en += "\n## End\n:label:`end`\n\nBye.\n\n" + cell("z = 0")
    ja = "# A\n:label:`a`\n\n序文。\n\n## 終わり\n:label:`end`\n\nさようなら。\n\n" + cell("z = 0")
    assert located(en, ja, tmp_path) == [
        ("code.missing", 4, 6),
        ("code.missing", 4, 14),
        ("structure.section", 4, 10),
    ]
    en = cell("x = 1") + "\nText.\n\n" + cell("y = 2", "pytorch") + cell("w = 3", "pytorch")
    ja = cell("x = 1") + "\nテキスト。\n\n" + cell("w = 3", "pytorch")
    assert located(en, ja, tmp_path) == [("code.missing", 5, 7)]  # pytorch: nothing paired before it


def test_line_one_only_for_an_empty_translation(tmp_path: Path) -> None:
    en = "Intro [d2l](https://d2l.ai).\n\n" + cell("x = 1")
    assert located(en, "", tmp_path) == [("code.missing", 1, 3), ("ref.link", 1, 1)]


def test_numbers_at_their_own_line_in_lists_and_paragraphs(tmp_path: Path) -> None:
    en = "Intro `code 777`\nand <span\nclass='x'>then</span>\n256 items.\n\n* one\n* two `a\nb` 300\n"
    ja = "序文。\n\n* 一\n* 二\n"
    assert located(en, ja, tmp_path) == [("numbers.missing", 1, 4), ("numbers.missing", 3, 8)]


def test_a_framework_cell_left_out_is_told_between_the_cells_around_it(tmp_path: Path) -> None:
    """Not at the end of the previous pytorch cell, paragraphs above: where the source has it."""
    en = cell("a = 1", "pytorch") + "\nWords.\n\n" + cell("b = 1") + "\n" + cell("b = 2", "pytorch") + "\n"
    en += cell("b = 3") + "\nMore.\n"
    ja = en.replace("Words.", "言葉。").replace(cell("b = 2", "pytorch") + "\n", "")
    assert located(en, ja, tmp_path) == [("code.missing", 10, 12)]  # after the mxnet cell it follows


def test_a_formula_swapped_for_another_of_the_chapter_is_one_changed_formula(tmp_path: Path) -> None:
    en = "# A\n\nLet $k$ be the size, so $f(x)$ has $k$ values.\n\nThe function $f(x)$ is smooth.\n"
    ja = "# A\n\n大きさを $f(x)$ とし、$f(x)$ は $k$ 個の値をもつ。\n\n関数 $f(x)$ は滑らか。\n"
    assert located(en, ja, tmp_path) == [("math.changed", 3, 3)]


def test_a_reference_moved_to_another_label_names_the_one_written_in_its_place(tmp_path: Path) -> None:
    en = "# A\n:label:`sec_a`\n\n## B\n:label:`sec_b`\n\nSee :numref:`sec_a`.\n\nThen :numref:`sec_b`.\n"
    ja = en.replace("See :numref:`sec_a`.", ":numref:`sec_b` を見る。").replace("Then", "次に")
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    found = [(f.code, f.level, f.primary.line, f.message) for f in result.active if f.code.startswith("ref")]
    assert found == [
        ("ref.target", "error", 7, ":numref:`sec_b` here is :numref:`sec_a` in the source: write the source's")
    ]


def test_a_year_in_the_next_paragraph_is_not_said_instead_of_the_sources() -> None:
    """A number one digit apart from a missing one, a paragraph off, is the one written for it
    (257 for 256) -- but not a year: 2010's big data is not 2012's breakthrough misspelt."""
    from polybook.check.numbers_missing import Number, _one_digit_apart

    def number(value: str) -> Number:
        return Number((value,), 1, 1)

    assert _one_digit_apart(number("256"), number("257"))
    assert _one_digit_apart(number("32"), number("132"))
    assert not _one_digit_apart(number("2012"), number("2010"))
    assert not _one_digit_apart(number("256"), number("265"))
