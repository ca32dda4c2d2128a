"""Active HTML a translation adds: one ``html.active`` error at its line, saying what to do."""

from __future__ import annotations

import shutil
from pathlib import Path

from polybook.book import load_book
from polybook.check import check_book
from polybook.check.raw_html import ADVICE
from polybook.config import load_config

from conftest import ROOT
from minibook import make_book

FIXTURE = ROOT / "tests" / "fixtures" / "html_safety"


def active(conf: Path) -> list[tuple[str, int, str]]:
    result = check_book(load_book(load_config(conf)))
    return [(f.primary.path, f.primary.line, f.message) for f in result.active if f.code == "html.active"]


def test_every_active_part_of_a_translation_is_an_error_at_its_line(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "book")
    found = active(tmp_path / "book" / "conf.py")
    assert [(Path(path).name, line, message.removesuffix(ADVICE)) for path, line, message in found] == [
        ("index.md", 5, "raw HTML <img onerror=…> the source has not here: "),
        ("index.md", 6, "raw HTML <a href=\"javascript:window.pwned = 'link'\"> the source has not here: "),
        ("index.md", 8, "raw HTML <script> the source has not here: "),
        ("index.md", 10, "raw HTML <iframe> the source has not here: "),
        ("index.md", 12, "raw HTML <svg onload=…> the source has not here: "),
        ("index.md", 28, "raw HTML <script> the source has not here: "),  # in an eval_rst raw block
        ("index.md", 33, "eval_rst link to `javascript:` the source has not here: "),
        ("index.md", 36, "eval_rst `.. meta:: :http-equiv:` (a redirect) the source has not here: "),
        ("trusted.md", 1, "raw HTML <img onerror=…> the source has not here: "),  # in a heading
        ("trusted.md", 12, "math formula link to `javascript:` the source has not here: "),
    ]
    assert all(message.endswith(ADVICE) and Path(path).parent.name == "ja" for path, _, message in found)


def test_the_sources_own_html_copied_as_it_is_is_not_told(tmp_path: Path) -> None:
    """The source's front page script, copied: the source's (the site still cleans the translation's page)."""
    block = "```eval_rst\n.. raw:: html\n\n   <div id='x'></div>\n   <script>draw('x')</script>\n```\n"
    en = f"# Front\n\nWelcome.\n\n{block}"
    ja = f"# 表紙\n\nようこそ。\n\n{block}\nMore <b>bold</b> words.\n"
    assert active(make_book(tmp_path, en, ja)) == []
    changed = ja.replace("draw('x')", "steal()")
    (tmp_path / "chapters" / "ja" / "intro.md").write_text(changed, encoding="utf-8")
    assert [line for _, line, _ in active(tmp_path / "conf.py")] == [9]
