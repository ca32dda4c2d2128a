"""Cells a translation changes: strings it translates, cells it joins or splits, marks it
writes its own way -- each reported only when it matters, saying what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.book import load_book
from polybook.check import check_book
from polybook.check.strings import differing_strings
from polybook.config import load_config

from minibook import cell, make_book


def found(tmp_path: Path, en: str, ja: str) -> list[tuple[str, int, str]]:
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    return [(str(f.code), f.primary.line, f.message) for f in result.active if not str(f.code).startswith("stale")]


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        ("print('loss:', l)", "print('損失：', l)"),
        ("print(f'epoch {i + 1}, loss {l:f}')", "print(f'donem {i+1}, kayip {l:f}')"),  # its own spaces
        ("print(f'sim={c:.3f}: {w}')", "print(f'{w}：相似度={c:.3f}')"),  # placeholders reordered
        ("d2l.plot(x, y, 'x', 'grad of relu')", "d2l.plot(x, y, 'x', 'relu gradyani')"),
        ("d2l.Animator(xlabel='epoch', legend=['train loss', 'test acc'])",
         "d2l.Animator(xlabel='轮', legend=['训练损失', '测试精度'])"),
        ("assert False, 'Only zip files.'", "assert False, '只有zip文件'"),
        ("f'{timer.stop():.5f} sec'", "f'{timer.stop():.5f} sn'"),  # a cell's lone string: its output
        ("np.save('x-file.npy', x)", 'np.save("x-file.npy", x)'),  # the same string written another way
    ],
)  # fmt: skip
def test_what_is_only_shown_to_the_reader_may_be_translated(source: str, translation: str) -> None:
    assert differing_strings(translation, source) == []


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        ("words = ' '.join(tokens)", "words = ''.join(tokens)"),  # a separator
        ("load('https://data.example.org/a.zip')", "load('http://data.example.org/a.zip')"),
        ("x = data['train']", "x = data['訓練']"),  # a key
        ("print(f'pairs: {sum(sizes)}')", "print(f'pares: {len(sizes)}')"),  # the f-string computes another thing
        ("print(f'dtype={w.dtype}')", "print('dtype={w.dtype}')"),  # no longer an f-string
        ("print('%d items' % n)", "print('個数' % n)"),  # a placeholder lost
    ],
)  # fmt: skip
def test_strings_the_code_uses_are_still_compared(source: str, translation: str) -> None:
    assert differing_strings(translation, source) != []


def test_a_string_the_code_uses_is_reported_with_what_to_do(tmp_path: Path) -> None:
    assert found(tmp_path, cell("words = ' '.join(tokens)"), cell("words = ''.join(tokens)")) == [
        ("code.strings", 2, "mxnet cell 1: a string the code uses differs from the source's: `''` → `' '`; "
         "write the source's"),
    ]  # fmt: skip
    assert found(tmp_path, cell("x = range(10)"), cell("x = range(100)")) == [
        ("code.changed", 2, "mxnet cell 1 differs from the source: `range(100)` → `range(10)`; take the source's "
         "(polybook sync --write), unless the translation changes it on purpose"),
    ]  # fmt: skip


SAVED_F = "#@save\ndef f(x):\n    return x + 1"
SAVED_G = "#@save\ndef g(x):\n    return 2 * x"


def test_cells_a_translation_joins_are_one_finding_that_says_to_split_them(tmp_path: Path) -> None:
    en = "Text.\n\n" + cell(SAVED_F) + "\nMore.\n\n" + cell(SAVED_G) + "\n" + cell("y = g(f(1))")
    ja = "テキスト。\n\n" + cell(SAVED_F + "\n\n" + SAVED_G) + "\n" + cell("y = g(f(1))")
    assert found(tmp_path, en, ja) == [
        ("code.markers", 3, "mxnet cell 1 joins the source's cells 1 and 2 (lines 3, 11) into one: split it where "
         "the source does, each part with the source's markers (cell 1 with #@save; cell 2 with #@save)"),
    ]  # fmt: skip


def test_a_cell_a_translation_splits_is_one_finding_that_says_to_join_them(tmp_path: Path) -> None:
    en = "Text.\n\n" + cell("def f(x):  #@save\n    return x + 1\n\ndef g(x):  #@save\n    return 2 * x")
    ja = "テキスト。\n\n" + cell("def f(x):  #@save\n    return x + 1") + "\n次。\n\n"
    assert found(tmp_path, en, ja + cell("def g(x):\n    return 2 * x")) == [
        ("code.markers", 3, "mxnet cells 1 and 2 here are the source's cell 1 split in two or more: join them as "
         "the source does, the cell with #@save, #@save"),
    ]  # fmt: skip
    # each part with its #@save (zh gives pytorch its own show_trace_2d so): the library is the same
    assert found(tmp_path, en, ja + cell("def g(x):  #@save\n    return 2 * x")) == []


def test_save_marks_written_another_way_that_save_the_same_code_are_no_difference(tmp_path: Path) -> None:
    en = cell("import os\n\nHUB = dict()  #@save\nURL = 'https://data.example.org/'  #@save")
    ja = cell("import os\n\n#@save\nHUB = dict()\nURL = 'https://data.example.org/'")
    assert found(tmp_path, en, ja) == []


def test_a_save_mark_the_translation_lacks_says_what_the_library_loses(tmp_path: Path) -> None:
    en = cell("def f(x):  #@save\n    return x + 1")
    ja = cell("def f(x):\n    return x + 1")
    assert found(tmp_path, en, ja) == [
        ("code.markers", 1, "mxnet cell 1 has markers [] here but [#@save] in the source: add the source's #@save, "
         "or readers of this language get a library without this code"),
    ]  # fmt: skip


def test_a_joined_cell_that_also_dropped_lines_says_both(tmp_path: Path) -> None:
    en = cell("tokens = split(text)\nvocab = Vocab(tokens)") + "\nThen plot.\n\n"
    en += cell("set_figsize()\nxlabel('# tokens')\nhist(lengths)")
    ja = cell("tokens = split(text)\nvocab = Vocab(tokens)\n\nset_figsize()\nhist(lengths)")
    assert found(tmp_path, en, ja) == [
        ("code.changed", 1, "mxnet cell 1 joins the source's cells 1 and 2 (lines 1, 8) into one: split it where the "
         "source does"),
        ("code.changed", 5, "mxnet cell 1 differs from the source: `` → `xlabel('# tokens')`; take the source's "
         "(polybook sync --write), unless the translation changes it on purpose"),
    ]  # fmt: skip


def test_a_translated_label_beside_a_real_change_is_not_a_change_of_its_own(tmp_path: Path) -> None:
    en = cell("print('loss:', l)\nx = range(10)")
    ja = cell("print('損失：', l)\nx = range(100)")
    assert [(code, line) for code, line, _ in found(tmp_path, en, ja)] == [("code.changed", 3)]


def test_a_cell_that_lost_most_of_its_lines_is_that_cell_changed(tmp_path: Path) -> None:
    en = cell("data = load()\nx = data / 128\ny = floor(x)\nz = cast(y)\nw = z + 1") + "\nText.\n\n" + cell("show(w)")
    ja = cell("data = load()\nx = data / 128") + "\n本文。\n\n" + cell("show(w)")
    assert {code for code, _, _ in found(tmp_path, en, ja)} == {"code.changed"}  # its lines, not missing + extra


def test_each_place_a_cell_differs_says_how_many_there_are(tmp_path: Path) -> None:
    en = cell("x = range(10)\ny = f(x)\nz = g(y, 2)")
    pt = cell("x = range(100)\ny = f(x)\nz = g(y, 3)")
    assert [message for _, _, message in found(tmp_path, en, pt)] == [
        "mxnet cell 1 differs from the source (place 1 of 2): `range(100)` → `range(10)`; take the source's "
        "(polybook sync --write), unless the translation changes it on purpose",
        "mxnet cell 1 differs from the source (place 2 of 2): `3` → `2`; take the source's "
        "(polybook sync --write), unless the translation changes it on purpose",
    ]


def test_an_f_string_whose_expressions_changed_is_code_changed_not_a_string(tmp_path: Path) -> None:
    en = cell("print(f'before={sum([l.count(t) for l in lines])}')")
    pt = cell("print(f'before={sum([line.count(t) for line in lines])}')")
    ((code, _, message),) = found(tmp_path, en, pt)
    assert code == "code.changed" and message.startswith("mxnet cell 1 differs from the source: ")
    words = cell("print(f'antes={sum([l.count(t) for l in lines])}')")  # translated words, same code: nothing
    assert found(tmp_path, en, words) == []
