"""A translation's markup against the source's: what it copied, damaged or rearranged, each
reported once, where it is, saying what to do."""

from __future__ import annotations

from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config

from minibook import make_book


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
