"""The toc of a nested book: order and d2lbook numbers from its toc blocks, entries relative to
their file, a missing entry an error at its line, a document no toc reaches a warning, excluded
files not documents -- in the model and in `polybook check`."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_config
from polybook.config import load_config

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet"],
    "languages": {"en": {"name": "English"}},
    "exclusions": ["**/*_origin.md", "README.md"],
}
"""
FILES = {
    "index.md": "# Book\n\n```toc\n:maxdepth: 1\n\npreface/index\n```\n\n```toc\n:numbered:\n\nchapter_a/index\n"
    "chapter_b/index\n```\n",
    "preface/index.md": "# Preface\n",
    "chapter_a/index.md": "# A\n\n```toc\nfirst\nsecond\n```\n",
    "chapter_a/first.md": "# First\n",
    "chapter_a/second.md": "# Second\n",
    "chapter_b/index.md": "# B\n\n```toc\nonly\ngone\n```\n",
    "chapter_b/only.md": "# Only\n",
    "chapter_b/lost.md": "# Lost\n",
    "chapter_b/only_origin.md": "# Only, as it was\n",
    "README.md": "Not a document.\n",
}


def book(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / "chapters" / "en" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    return tmp_path / "conf.py"


def test_order_and_numbers_follow_the_toc_blocks(tmp_path: Path) -> None:
    loaded = load_book(load_config(book(tmp_path)))
    toc = loaded.tocs["en"]
    assert toc.order == [
        "index", "preface/index", "chapter_a/index", "chapter_a/first", "chapter_a/second", "chapter_b/index",
        "chapter_b/only",
    ]  # fmt: skip
    assert toc.numbers == {
        "chapter_a/index": "1", "chapter_a/first": "1.1", "chapter_a/second": "1.2", "chapter_b/index": "2",
        "chapter_b/only": "2.1",
    }  # fmt: skip
    assert list(loaded.chapters["en"])[-1] == "chapter_b/lost"  # reading order, unreached last
    assert "README" not in loaded.chapters["en"] and "chapter_b/only_origin" not in loaded.chapters["en"]


def test_a_missing_entry_is_an_error_at_its_line_and_an_unreached_document_a_warning(tmp_path: Path) -> None:
    loaded = load_book(load_config(book(tmp_path)))
    said = [
        (d.path.split("chapters/en/")[-1], d.line, str(d.code)) for doc in loaded.documents() for d in doc.diagnostics
    ]
    assert sorted(said) == [("chapter_b/index.md", 5, "toc.missing"), ("chapter_b/lost.md", 1, "toc.unreached")]
    result, _ = check_config(load_config(tmp_path / "conf.py"), jobs=1)  # the source alone: its own problems
    assert sorted((f.primary.line, str(f.code)) for f in result.findings) == [(1, "toc.unreached"), (5, "toc.missing")]
