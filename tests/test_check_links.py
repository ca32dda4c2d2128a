"""Links a translation writes differently: one finding each, saying what to do."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book
from polybook.check.links import is_address, same_link
from polybook.config import load_config

from minibook import make_book


def links(tmp_path: Path, en: str, ja: str) -> list[tuple[int, str]]:
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    return [(f.primary.line, f.message) for f in result.active if f.code == "ref.link"]


def test_http_and_https_and_a_final_slash_are_one_link(tmp_path: Path) -> None:
    assert same_link("http://forum.example.org/") == same_link("https://forum.example.org")
    en = "Ask on [the forum](http://forum.example.org).\n"
    ja = "[フォーラム](https://forum.example.org/)で質問する。\n"
    assert links(tmp_path, en, ja) == []


def test_a_damaged_link_is_one_finding_naming_the_sources_address(tmp_path: Path) -> None:
    en = "Intro.\n\nSee [the docs](https://docs.example.org/guide/index.html) for more.\n"
    ja = "序文。\n\n詳しくは [文書](https://docs.example.org/gide/index.html) を見る。\n"
    assert links(tmp_path, en, ja) == [
        (3, "link https://docs.example.org/gide/index.html here is https://docs.example.org/guide/index.html "
         "in the source: write the source's address"),
    ]  # fmt: skip


def test_a_link_that_is_no_address_any_more_stands_for_the_one_where_it_is(tmp_path: Path) -> None:
    en = "Intro.\n\nSee [the docs](https://docs.example.org/guide/index.html) for more.\n"
    ja = "序文。\n\n詳しくは [文書](https4711) を見る。\n"
    assert links(tmp_path, en, ja) == [
        (3, "link https4711 here is https://docs.example.org/guide/index.html in the source: write the source's "
         "address"),
    ]  # fmt: skip


def test_an_address_run_on_into_the_words_after_it(tmp_path: Path) -> None:
    en = "Memory ([GDDR6](https://wiki.example.org/GDDR6)) is fast.\n"
    zh = "内存（[GDDR6](https://wiki.example.org/GDDR6）很快。带宽很高。)\n"
    ((_, message),) = links(tmp_path, en, zh)
    assert message.startswith("link https://wiki.example.org/GDDR6 runs on into the words after it (）很快。")
    assert message.endswith("end its address with `)` (a full-width `）` does not)")


def test_a_link_written_as_text_says_how_to_make_it_a_link_again(tmp_path: Path) -> None:
    en = "Read [the guide](https://docs.example.org/guide).\n\nAnd [the tour](https://docs.example.org/tour).\n"
    pt = "Leia [o guia] (https://docs.example.org/guide).\n\nE [o passeio]（https://docs.example.org/tour）.\n"
    assert links(tmp_path, en, pt) == [
        (1, "link https://docs.example.org/guide of the source is written here as text, not as a link: "
         "remove the space between `]` and `(`"),
        (3, "link https://docs.example.org/tour of the source is written here as text, not as a link: "
         "write `(` and `)` around the address, not the full-width `（` `）`"),
    ]  # fmt: skip


def test_words_in_parentheses_right_after_a_bracket_are_read_as_a_link(tmp_path: Path) -> None:
    en = "We [**define a function**] (~~that~~) reads the data.\n"
    ja = "[**関数を定義**](~~that~~) してデータを読む。\n"
    assert not is_address("~~that~~") and is_address("../img/a.svg") and is_address("https://example.org")
    assert links(tmp_path, en, ja) == [
        (1, "`[…](~~that~~)` makes a link of words: Markdown reads `(…)` right after `[…]` as a link's address; "
         "put a space between `]` and `(`"),
    ]  # fmt: skip


def test_a_link_said_twice_in_the_source_and_once_here_is_missing_where_it_belongs(tmp_path: Path) -> None:
    en = "# A\n\nSee [the post](https://blog.example.org/p).\n\n## B\n\nWords.\n\n## C\n\nAgain [the post](https://blog.example.org/p).\n"
    ja = "# A\n\nWords.\n\n## B\n\n言葉。\n\n## C\n\nまた [投稿](https://blog.example.org/p)。\n"
    assert links(tmp_path, en, ja) == [(3, "link https://blog.example.org/p of the source is missing here: add it")]


def test_a_link_naming_its_language_against_a_base_in_the_translations_folder(tmp_path: Path) -> None:
    """A d2lbook translation's base (``X_origin.md``) lies in its own folder: the source's links
    there name the source's language all the same."""
    en = "[The code](https://git.example.org/book-en/tree).\n"
    ja = "[コード](https://git.example.org/book-ja/tree)。\n"
    conf = make_book(tmp_path, en, ja)
    conf.write_text(conf.read_text().replace('"chapters":', '"exclusions": ["**/*_origin.md"],\n    "chapters":'))
    (tmp_path / "chapters" / "ja" / "intro_origin.md").write_text(en, encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    assert not [f for f in result.active if f.code == "ref.link"]


def test_an_address_the_source_writes_as_text_may_be_a_link_here(tmp_path: Path) -> None:
    en = "Then open http://localhost:8888 in your browser.\n"
    zh = "然后在浏览器中打开<http://localhost:8888>。\n"
    assert links(tmp_path, en, zh) == []


def test_a_link_the_source_gives_per_framework_tab_is_given_once_for_all(tmp_path: Path) -> None:
    """d2l-zh says "install [CUDA](…)" once, where the source says it in two frameworks' text
    tabs: every reader sees it, nothing is missing. A link in no tab of the source still is."""
    cuda = "[CUDA](https://developer.nvidia.com/cuda-downloads)"
    en = (
        f"Intro.\n\n:begin_tab:`mxnet`\nInstall {cuda} first.\n:end_tab:\n\n"
        f":begin_tab:`pytorch`\nWith {cuda} installed, all set.\n:end_tab:\n\nSee [the docs](https://docs.example.org).\n"
    )
    ja = (
        f"序文。{cuda} をインストールする。\n\n:begin_tab:`mxnet`\nまず。\n:end_tab:\n\n"
        ":begin_tab:`pytorch`\n準備完了。\n:end_tab:\n\n以上。\n"
    )
    found = links(tmp_path, en, ja)
    assert [message for _, message in found] == ["link https://docs.example.org of the source is missing here: add it"]


def test_an_address_in_an_html_comment_is_not_a_link_written_as_text(tmp_path: Path) -> None:
    en = "Intro.\n\nAsk on [the forum](https://forum.example.org/).\n"
    ja = "序文。\n\n<!-- [フォーラム](https://forum.example.org/c/5) -->\n\nフォーラムで質問する。\n"
    assert links(tmp_path, en, ja) == [(5, "link https://forum.example.org/ of the source is missing here: add it")]


def test_a_link_a_translation_tool_put_spaces_into_says_so(tmp_path: Path) -> None:
    en = "Read [Turing](https://en.wikipedia.org/wiki/Alan_Turing).\n\n"
    en += "See [markdown](http://book.d2l.ai/markdown.html).\n"
    pt = "Leia [Turing] (https://en.wikipedia. org / wiki / Alan_Turing).\n\n"
    pt += "Veja [markdown](http://book.d2l.ai/markdown .html).\n"
    assert links(tmp_path, en, pt) == [
        (1, "link https://en.wikipedia.org/wiki/Alan_Turing of the source is written here as text, not as a link: "
         "remove the space between `]` and `(`, and the spaces inside the address"),
        (3, "link http://book.d2l.ai/markdown.html of the source is written here as text, not as a link: "
         "remove the spaces inside the address"),
    ]  # fmt: skip
