"""Symbolic links in chapters/: followed inside the book, never round a loop nor out of the book --
those are refused at their own path, with a located error, and never followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.cli import main
from polybook.config import load_config
from polybook.diagnostics import Code
from polybook.render.inputs import tree_stats

from minibook import make_book


@pytest.fixture
def book(tmp_path: Path, monkeypatch) -> Path:
    conf = make_book(tmp_path / "book", "# Intro\n", "# 序\n")
    for name in ("one", "two"):
        (tmp_path / "book" / "chapters" / "en" / "part" / f"{name}.md").parent.mkdir(exist_ok=True)
        (tmp_path / "book" / "chapters" / "en" / "part" / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "book")
    return conf


def refused(conf: Path, lang: str = "en") -> list[tuple[str, int, str]]:
    found = load_config(conf).refused_links(lang)
    assert all(d.code is Code.CHAPTERS_LINK and d.message.endswith(": not followed") for d in found)
    return [(d.path, d.line, d.message.split(":")[0]) for d in found]


def test_a_folder_loop_is_refused_at_its_path_not_followed_40_levels_down(book: Path) -> None:
    os.symlink(".", "chapters/en/part/again")  # a link to the folder it is in
    os.symlink("..", "chapters/en/part/up")  # ... and to the one above
    assert load_config(book).document_names("en") == ["intro", "part/one", "part/two"]
    assert refused(book) == [
        ("chapters/en/part/again", 1, "a link to chapters/en/part, a folder it is inside of"),
        ("chapters/en/part/up", 1, "a link to chapters/en, a folder it is inside of"),
    ]


def test_two_folders_linking_each_other_are_refused_where_the_loop_closes(book: Path) -> None:
    os.symlink("part", "chapters/en/alias")  # a link inside the book: followed
    os.symlink("../alias", "chapters/en/part/back")  # ... and back: a loop
    names = load_config(book).document_names("en")
    assert names == ["alias/one", "alias/two", "intro", "part/one", "part/two"]
    assert {path for path, _, _ in refused(book)} == {"chapters/en/part/back", "chapters/en/alias/back"}


def test_a_chapter_that_is_a_link_loop_is_refused_and_check_says_where(book: Path) -> None:
    os.symlink("loop.md", "chapters/ja/loop.md")
    os.symlink("b.md", "chapters/en/a.md")
    os.symlink("a.md", "chapters/en/b.md")
    assert "a" not in load_config(book).document_names("en")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 2, result.output
    assert "chapters/en/a.md:1: error: a symbolic link loop: not followed [polybook.chapters.link]" in result.output
    assert "chapters/ja/loop.md:1: error: a symbolic link loop" in result.output
    assert "Traceback" not in result.output
    model = CliRunner().invoke(main, ["build", "--strict"])
    assert model.exit_code == 1 and "chapters/en/b.md:1: error: a symbolic link loop" in model.output


def test_a_link_out_of_the_book_is_refused_as_a_figure_out_of_it_is(book: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.md").write_text("# not the book's\n", encoding="utf-8")
    os.symlink(tmp_path / "elsewhere", "chapters/en/outside")
    os.symlink(tmp_path / "elsewhere" / "secret.md", "chapters/en/secret.md")
    assert load_config(book).document_names("en") == ["intro", "part/one", "part/two"]
    outside = f"a link to {tmp_path / 'elsewhere'}, outside the book {tmp_path / 'book'}"
    assert [(path, why) for path, _, why in refused(book)] == [
        ("chapters/en/outside", outside.split(":")[0]),
        (
            "chapters/en/secret.md",
            f"a link to {tmp_path / 'elsewhere' / 'secret.md'}, outside the book {tmp_path / 'book'}",
        ),
    ]


def test_a_new_link_changes_the_language_inputs_so_its_site_says_it(book: Path) -> None:
    before = tree_stats(Path("chapters/en"))
    os.symlink(".", "chapters/en/part/again")
    assert tree_stats(Path("chapters/en")) != before


def test_a_page_linking_into_a_link_loop_is_said_not_a_traceback(tmp_path: Path, monkeypatch) -> None:
    text = "# Intro\n\nSee [x](loop.md) and ![f](d/img.png).\n"
    conf = make_book(tmp_path, text, "# 序\n", name="index")
    monkeypatch.chdir(tmp_path)
    os.symlink("loop.md", "chapters/en/loop.md")
    os.symlink("d", "chapters/en/d")
    assert load_config(conf).locate("en", "index", "loop.md") is None
    assert load_config(conf).locate("en", "index", "d/img.png") is None
    result = CliRunner().invoke(main, ["build", "notebooks", "-v"])  # -v: every warning in full
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "chapters/en/index.md:3: warning: 'd/img.png' not found inside the book" in result.output


def test_the_run_folder_mirrors_a_link_loop_without_following_it(book: Path) -> None:
    from polybook.execute.workdir import mirror

    os.symlink("loop.md", "chapters/en/loop.md")
    os.symlink("d", "chapters/en/d")
    root = mirror(load_config(book), "en", "mxnet")
    assert (root / "intro.md").is_file() and (root / "loop.md").is_symlink()
