"""``build html`` keeps each language's staging: an edit of one page's prose stages that page
alone, and what it stages is what staging the language whole gives; anything that reaches
beyond the page -- a heading, a label, a figure's file, a setting -- or a kept stage that cannot
be read stages the language whole.

The book is the HTML tests' small two-language book with a second chapter in each language.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.render.kept_stage import KEPT
from polybook.site.build import HtmlOptions, build_html

from conftest import FIXTURES

BOOK = FIXTURES / "render" / "book"
MORE = {
    "en": "# More\n:label:`sec_more`\n\nA page of prose that points at :numref:`sec_tiny`.\n",
    "ja": "# もっと\n:label:`sec_more`\n\n:numref:`sec_tiny` を指す文章のページです。\n",
}


def book(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in ("conf.py", "refs.bib", "chapters"):
        source = BOOK / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, root / name)
    shutil.copytree(BOOK / "eval", root / "build" / "eval")
    for lang, text in MORE.items():
        (root / "chapters" / lang / "more.md").write_text(text, encoding="utf-8")
        index = root / "chapters" / lang / "index.md"
        index.write_text(index.read_text(encoding="utf-8").replace("tiny\n", "tiny\nmore\n"), encoding="utf-8")
    return root / "conf.py"


def build(conf: Path) -> dict[str, tuple[str, int]]:
    """Each language's Sphinx status and how many documents were staged."""
    result = build_html(load_config(conf), HtmlOptions(evaluate=False))
    assert not [d for d in result.all_diagnostics() if d.level.value == "error"]
    return {b.language: (str(b.sphinx), b.staged) for b in result.languages}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def staged_files(root: Path, lang: str) -> dict[str, bytes]:
    """The staged files of ``lang``, the book's folder in them written as ``BOOK``."""
    src = root / "build" / ".sphinx" / lang / "src"
    files = sorted(p for p in src.rglob("*") if p.is_file())
    return {str(p.relative_to(src)): p.read_bytes().replace(str(root).encode(), b"BOOK") for p in files}


@pytest.mark.slow  # real Sphinx
def test_a_prose_edit_stages_its_page_alone_as_a_whole_staging_would(tmp_path: Path) -> None:
    conf = book(tmp_path / "kept")
    assert build(conf) == {"en": ("built", 3), "ja": ("built", 3)}
    more = tmp_path / "kept" / "chapters" / "ja" / "more.md"
    added = ("文章のページです。", "文章のページです。新しい一文を足しました。")
    edit(more, *added)
    assert build(conf) == {"en": ("up to date", 0), "ja": ("built", 1)}
    page = (tmp_path / "kept" / "build" / "html" / "ja" / "more.html").read_text(encoding="utf-8")
    assert "新しい一文を足しました。" in page

    whole = book(tmp_path / "whole")  # the same book, edited before its first build
    edit(tmp_path / "whole" / "chapters" / "ja" / "more.md", *added)
    assert build(whole) == {"en": ("built", 3), "ja": ("built", 3)}
    assert staged_files(tmp_path / "kept", "ja") == staged_files(tmp_path / "whole", "ja")

    assert build(conf) == {"en": ("up to date", 0), "ja": ("up to date", 0)}  # nothing changed since
    source = tmp_path / "kept" / "chapters" / "en" / "more.md"
    for words in ("One more sentence.", "And another."):  # ja is looked at again, and is as it was
        edit(source, "A page of prose", f"{words} A page of prose")
        assert build(conf) == {"en": ("built", 1), "ja": ("up to date", 0)}


@pytest.mark.slow  # real Sphinx
@pytest.mark.parametrize(
    "change",
    ["heading", "label", "figure file", "setting", "source heading", "unreadable kept stage"],
)
def test_a_change_beyond_the_page_stages_the_language_whole(tmp_path: Path, change: str) -> None:
    conf = book(tmp_path)
    build(conf)
    ja = tmp_path / "chapters" / "ja"
    if change == "heading":
        edit(ja / "more.md", "# もっと", "# もっと先へ")
    elif change == "label":
        edit(ja / "more.md", "文章のページです。", "文章のページです。\n\n$$x$$\n:eqlabel:`eq_more`\n")
    elif change == "figure file":
        figure = tmp_path / "chapters" / "img" / "box.svg"
        figure.write_text(figure.read_text(encoding="utf-8").replace("</svg>", "<rect/></svg>"), encoding="utf-8")
    elif change == "setting":
        edit(conf, '"ja": {"name": "日本語"}', '"ja": {"name": "日本語 (改)"}')
    elif change == "source heading":
        edit(tmp_path / "chapters" / "en" / "more.md", "# More", "# More and more")
    else:
        (tmp_path / "build" / ".sphinx" / "ja" / KEPT).write_bytes(b"not a pickle")
        edit(ja / "more.md", "文章のページです。", "文章のページです。一文。")
    assert build(conf)["ja"][1] == 3  # every document staged (Sphinx runs when a staged file changed)
