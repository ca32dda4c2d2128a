"""A translation checked against the older text it was made from (its ``X_origin.md``) that
already took some of the source as it is today: what it has as the source has it today is no
drift; what matches neither still is."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config

from minibook import cell, make_book

OLD = "# A\n:label:`sec_a`\n\n" + cell("a = 1") + "\n" + cell("loss = Loss()") + "\n" + cell("c = 3")
NOW = "# A\n:label:`sec_a`\n\n" + cell("a = 1") + "\n" + cell("loss = Loss(reduction='none')") + "\n" + cell("c = 4")


def found(tmp_path: Path, ja: str) -> list[tuple[str, int]]:
    conf = make_book(tmp_path, NOW, ja)
    conf.write_text(conf.read_text().replace('"chapters":', '"exclusions": ["**/*_origin.md"],\n    "chapters":'))
    (tmp_path / "chapters" / "ja" / "intro_origin.md").write_text(OLD, encoding="utf-8")  # what ja was made from
    result = check_book(load_book(load_config(conf)))
    return [(str(f.code), f.primary.line) for f in result.active if f.code.startswith(("code", "ref"))]


def test_a_cell_the_translation_took_from_the_source_today_is_no_drift(tmp_path: Path) -> None:
    ja = OLD.replace("loss = Loss()", "loss = Loss(reduction='none')")  # synced that cell later
    assert found(tmp_path, ja) == []


def test_a_cell_that_is_neither_the_base_nor_the_source_today_is_drift(tmp_path: Path) -> None:
    ja = OLD.replace("loss = Loss()", "loss = Loss(reduction='sum')")
    assert found(tmp_path, ja) == [("code.changed", 9)]


def test_a_figure_file_the_translation_took_from_the_source_today_is_no_drift(tmp_path: Path) -> None:
    old = OLD + "\n![A](../img/Neuron.svg)\n:label:`fig_n`\n"
    now = NOW + "\n![A](../img/neuron.svg)\n:label:`fig_n`\n"
    conf = make_book(tmp_path, now, old.replace("Neuron", "neuron"))
    conf.write_text(conf.read_text().replace('"chapters":', '"exclusions": ["**/*_origin.md"],\n    "chapters":'))
    (tmp_path / "chapters" / "ja" / "intro_origin.md").write_text(old, encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    assert [f.message for f in result.active if f.code == "ref.figure"] == []


def test_a_save_mark_the_source_added_since_the_base_is_no_drift(tmp_path: Path) -> None:
    old = OLD.replace("c = 3", "def hist(x):\n    return x")
    now = NOW.replace("c = 4", "#@save\ndef hist(x):\n    return x")
    conf = make_book(tmp_path, now, old.replace("def hist", "#@save\ndef hist"))
    conf.write_text(conf.read_text().replace('"chapters":', '"exclusions": ["**/*_origin.md"],\n    "chapters":'))
    (tmp_path / "chapters" / "ja" / "intro_origin.md").write_text(old, encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    assert [f.code for f in result.active if f.code.startswith("code")] == []


def test_a_cell_taken_from_the_source_today_with_its_label_translated_is_no_drift(tmp_path: Path) -> None:
    old = OLD.replace("c = 3", "for i in range(2):\n    print(f'epoch {i + 1}')")
    now = NOW.replace("c = 4", "lr = 0.1\nfor i in range(2):\n    print(f'epoch {i + 1}')")
    ja = old.replace("for i", "lr = 0.1\nfor i").replace("f'epoch {i + 1}'", "f'周期 {i+1}'")
    conf = make_book(tmp_path, now, ja)
    conf.write_text(conf.read_text().replace('"chapters":', '"exclusions": ["**/*_origin.md"],\n    "chapters":'))
    (tmp_path / "chapters" / "ja" / "intro_origin.md").write_text(old, encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    assert [f.message for f in result.active if f.code.startswith("code")] == []


def test_a_cell_that_equals_another_cell_of_the_source_today_is_drift(tmp_path: Path) -> None:
    """zh's ``train(num_gpus=2)`` where the base and the source today still say ``num_gpus=1``:
    the next cell's code, not its counterpart's."""
    old = OLD.replace("c = 3", "train(num_gpus=1)\n```\n\n```{.python .input}\ntrain(num_gpus=2)")
    now = NOW.replace("c = 4", "train(num_gpus=1)\n```\n\n```{.python .input}\ntrain(num_gpus=2)")
    conf = make_book(tmp_path, now, old.replace("train(num_gpus=1)", "train(num_gpus=2)", 1))
    conf.write_text(conf.read_text().replace('"chapters":', '"exclusions": ["**/*_origin.md"],\n    "chapters":'))
    (tmp_path / "chapters" / "ja" / "intro_origin.md").write_text(old, encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    assert [(str(f.code), f.primary.line) for f in result.active if f.code.startswith("code")] == [("code.changed", 13)]


def test_a_formula_that_equals_another_formula_of_the_source_today_is_drift(tmp_path: Path) -> None:
    text = "\nLet $a$ be one.\n\nLet $b$ be two.\n\nLet $c$ be three.\n\nThen $y = 2x$ holds.\n"
    old, now = OLD + text, NOW + text
    conf = make_book(tmp_path, now, old.replace("Let $b$", "Let $y = 2x$"))
    conf.write_text(conf.read_text().replace('"chapters":', '"exclusions": ["**/*_origin.md"],\n    "chapters":'))
    (tmp_path / "chapters" / "ja" / "intro_origin.md").write_text(old, encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    assert [str(f.code) for f in result.active if f.code.startswith("math")] == ["math.changed"]
