"""The translation-status page: its numbers are `polybook check --format json`'s, its commit
counts git's, and it is a staged page whose text decides whether a language rebuilds."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.cli import main
from polybook.config import load_config
from polybook.render import status_page
from polybook.render.stage import stage_language
from polybook.site import status

from conftest import FIXTURES
from minibook import cell, make_book

BOOK = FIXTURES / "book"  # the chapters as imported: known drift in every translation
_ROW = re.compile(r'<tr data-(lang|chapter)="([^"]+)"[^>]*>(.*?)</tr>')
_COUNT = re.compile(r'data-(level|state)="(\w+)">(\d+)</td>')


def page_numbers(page: str) -> dict[tuple[str, str], dict[str, int]]:
    """(``lang`` or ``chapter``, name) -> {level or state: number}, read back from a status page."""
    return {
        (kind, name): {what: int(n) for _, what, n in _COUNT.findall(cells)} for kind, name, cells in _ROW.findall(page)
    }


def check_json(conf: Path) -> dict:
    result = CliRunner().invoke(main, ["--conf", str(conf), "check", "--format", "json"])
    return json.loads(result.stdout)


def expected_counts(report: dict) -> tuple[Counter, Counter]:
    """Active findings per (lang, level) and per (lang, chapter, level), from the json report."""
    active = [f for f in report["findings"] if f["suppressed"] is None]
    return (
        Counter((f["lang"], f["level"]) for f in active),
        Counter((f["lang"], f["chapter"], f["level"]) for f in active),
    )


def assert_page_matches_check(pages: dict[str, str], report: dict, languages: list[str], source: str) -> None:
    per_lang, per_chapter = expected_counts(report)
    for lang, page in pages.items():
        numbers = page_numbers(page)
        for other in languages:  # the overview: every language, on every language's page
            row = numbers[("lang", other)]
            for level in ("error", "warning", "info"):
                assert row[level] == per_lang[(other, level)], (lang, other, level)
        if lang == source:
            continue
        chapters = {name for kind, name in numbers if kind == "chapter"}
        assert chapters == {"async-computation", "index"}
        for chapter in chapters:
            for level in ("error", "warning", "info"):
                assert numbers[("chapter", chapter)][level] == per_chapter[(lang, chapter, level)], (lang, chapter)
    totals = {
        level: sum(page_numbers(pages[source])[("lang", c)][level] for c in languages) for level in report["summary"]
    }
    assert totals == report["summary"]


def test_the_page_numbers_are_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BOOK)
    config = load_config(BOOK / "conf.py")
    book = load_book(config)
    pages = status.pages(book, list(config.languages))
    report = check_json(BOOK / "conf.py")
    assert report["summary"]["error"] > 10  # the fixture has drift in every translation
    assert_page_matches_check(pages, report, list(config.languages), config.source_language)
    pt = pages["pt"]
    assert 'data-chapter="async-computation" data-state="failing"' in pt and "fa-circle-xmark failing" in pt
    # Every finding is listed with a link to its line.
    assert pt.count('<li class="finding') == sum(
        1 for f in report["findings"] if f["lang"] == "pt" and f["suppressed"] is None
    )
    # ... in the section of the page that holds it (no repository is named in conf.py).
    assert '<a href="async-computation.html#melhorando-a-computacao">chapters/pt/async-computation.md:184</a>' in pt


def test_findings_link_to_the_repository_when_conf_names_it(tmp_path: Path) -> None:
    conf = make_book(tmp_path, cell("x = 1"), cell("x = 2"))
    text = conf.read_text() + (
        'html_context = {"github_user": "d2l-ai", "github_repo": "d2l", "github_version": "main", "doc_path": "book"}\n'
    )
    conf.write_text(text, encoding="utf-8")
    config = load_config(conf)
    page = status.pages(load_book(config), ["ja"])["ja"]
    assert 'href="https://github.com/d2l-ai/d2l/blob/main/book/chapters/ja/intro.md#L1"' in page


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def test_source_commits_since_the_sync_come_from_git(tmp_path: Path) -> None:
    from polybook import sync

    conf = make_book(tmp_path, "Intro.\n\n" + cell("x = 1"), "序文。\n\n" + cell("x = 1"))
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "one")
    config = load_config(conf)
    book = load_book(config)
    sync.write(book, sync.sync_book(book))  # records HEAD as the commit ja is synced with
    synced = git(tmp_path, "rev-parse", "HEAD")
    for n in (2, 3):
        (tmp_path / "chapters" / "en" / "intro.md").write_text(f"Intro {n}.\n\n" + cell("x = 1"), encoding="utf-8")
        git(tmp_path, "commit", "-qam", f"source edit {n}")
    page = status.pages(load_book(config), ["ja"])["ja"]
    assert f"<code>{synced[:10]}</code>" in page
    assert re.search(r'data-chapter="intro" data-state="behind">.*data-since="">2</td>', page)


def test_only_the_frame_is_staged_so_findings_never_enter_the_digest(tmp_path: Path) -> None:
    conf = make_book(tmp_path, cell("x = 1"), cell("x = 1"))
    config = load_config(conf)

    def staged() -> tuple[str, str]:
        book = load_book(config)
        extra = {status.DOCNAME: status_page.frame("ja", "English")}
        stage = stage_language(config, "ja", book.chapters["ja"], {}, {}, tmp_path / "src", [], extra)
        return stage.digest, status.pages(book, ["ja"])["ja"]

    first, tables = staged()
    (tmp_path / "chapters" / "en" / "intro.md").write_text(cell("x = 2"), encoding="utf-8")  # the source moves
    digest, changed = staged()
    assert changed != tables and "code.changed" in changed  # a new finding on ja's page ...
    frame = (tmp_path / "src" / f"{status.DOCNAME}.md").read_text(encoding="utf-8")
    assert frame.startswith("---\norphan: true\n---\n\n# 翻訳の状況\n") and "code.changed" not in frame
    assert digest == first  # ... but ja's staged pages are unchanged: ja is not rebuilt


def test_the_tables_fill_the_built_frame(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(f"<html>{status_page.frame('ja', 'English')}</html>", encoding="utf-8")
    assert status_page.fill(page, "<table>one</table>")
    assert status_page.fill(page, "<table>two</table>")
    built = page.read_text(encoding="utf-8")
    assert "<table>two</table>" in built and "one" not in built
    assert not status_page.fill(tmp_path / "missing.html", "x")


@pytest.mark.slow
def test_the_built_site_has_the_page_linked_from_every_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(BOOK, tmp_path / "book")
    monkeypatch.chdir(tmp_path / "book")
    conf = tmp_path / "book" / "conf.py"
    result = CliRunner().invoke(main, ["--conf", str(conf), "build", "html", "--no-eval"])
    html = tmp_path / "book" / "build" / "html"
    assert (html / "pt" / f"{status.DOCNAME}.html").is_file(), result.output
    config = load_config(conf)
    pages = {c: (html / c / f"{status.DOCNAME}.html").read_text(encoding="utf-8") for c in config.languages}
    assert_page_matches_check(pages, check_json(conf), list(config.languages), config.source_language)
    chapter = (html / "zh" / "async-computation.html").read_text(encoding="utf-8")
    assert re.search(r'class="polybook-status-link"><a href="polybook-status.html">.*翻译状态</a>', chapter)
    assert f"{status.DOCNAME}.html" in (html / "sitemap.xml").read_text(encoding="utf-8")
    # Every finding's link lands on an element of its page.
    links = set(re.findall(r'<li class="finding[^>]*>.*?<a href="([^"#]+)#([^"]+)"', pages["pt"]))
    assert len(links) > 3
    for page, anchor in links:
        assert f'id="{anchor}"' in (html / "pt" / page).read_text(encoding="utf-8"), anchor
