"""Small things of the site a reader or a search engine meets: the sitemap of a no-op build keeps
the status pages, URLs of files named with spaces or in another script are percent-encoded,
Sphinx's ``.buildinfo.bak`` is never published, and a NUL byte in a chapter is said at its line."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner

from polybook.cli import main
from polybook.config import load_config
from polybook.diagnostics import Code
from polybook.dialect.reader import decode
from polybook.render.site_info import LanguageSite, SiteInfo, SiteLanguage
from polybook.site.assemble import sitemap

from minibook import make_book

PAGE = "chapter one/naïve bayes"


def _site(baseurl: str = "") -> SiteInfo:
    languages = (
        SiteLanguage("en", "English", "en", "Book", ("index", PAGE)),
        SiteLanguage("ja", "日本語", "ja", "本", ("index", PAGE)),
    )
    return SiteInfo("en", languages, {"en": ["index", PAGE], "ja": ["index", PAGE]}, {}, {}, baseurl)


def test_a_no_op_build_keeps_the_status_pages_in_the_sitemap(tmp_path: Path) -> None:
    """The status pages join the site's pages when the build is planned, not when a language is
    staged: a build with nothing to stage assembles the same sitemap."""
    from polybook.render.build import HtmlOptions, _Build
    from polybook.site.build import StatusTables

    config = load_config(make_book(tmp_path, "# Intro\n", "# 序\n"))
    build = _Build(config, HtmlOptions(status_pages=StatusTables()), lambda message: None)
    assert build.site.status == "polybook-status"
    assert all("polybook-status" in language.pages for language in build.site.languages)
    assert "en/polybook-status.html" in sitemap(build.site)


def test_sitemap_urls_are_percent_encoded() -> None:
    for site, loc in (
        (_site(), "en/chapter%20one/na%C3%AFve%20bayes.html"),
        (_site("https://example.org/book/"), "https://example.org/book/en/chapter%20one/na%C3%AFve%20bayes.html"),
    ):
        text = sitemap(site)
        assert f"<loc>{loc}</loc>" in text
        assert f'hreflang="ja" href="{loc.replace("en/chapter", "ja/chapter")}"' in text
        assert "naïve" not in text and "chapter one" not in text


def test_hreflang_links_of_a_page_are_percent_encoded(monkeypatch) -> None:
    from polybook.render import navigation, sphinx_ext

    monkeypatch.setattr(navigation, "sidebar", lambda app, pagename, context: None)
    for baseurl, href in (
        ("", "../../ja/chapter%20one/na%C3%AFve%20bayes.html"),
        ("https://example.org", "https://example.org/ja/chapter%20one/na%C3%AFve%20bayes.html"),
    ):
        app = SimpleNamespace(config=SimpleNamespace(polybook_site=LanguageSite(_site(baseurl), "en").to_json()))
        context: dict = {}
        sphinx_ext.page_context(app, PAGE, "page.html", context, None)  # type: ignore[arg-type]
        assert f'<link rel="alternate" hreflang="ja" href="{href}" />' in context["metatags"]
        assert "naïve" not in context["metatags"].split("<script")[0]


def test_sphinx_buildinfo_backup_is_never_published(tmp_path: Path) -> None:
    from test_publish import fake_build

    conf = fake_build(tmp_path / "book")
    (tmp_path / "book" / "build" / "html" / "en" / ".buildinfo.bak").write_text("# old", encoding="utf-8")
    result = CliRunner().invoke(main, ["--conf", str(conf), "publish", "--to", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert not list((tmp_path / "site").rglob(".buildinfo*"))


def test_a_nul_byte_in_a_chapter_is_an_error_at_its_line() -> None:
    text, found = decode(b"# Title\n\nSome \x00text\x00.\n\nMore.\n\x00\n", "chapters/en/a.md")
    assert "\x00" not in text and text.count("\ufffd") == 3
    assert [(d.path, d.line, d.code) for d in found] == [
        ("chapters/en/a.md", 3, Code.ENCODING),
        ("chapters/en/a.md", 6, Code.ENCODING),
    ]
    assert found[0].format().startswith("chapters/en/a.md:3: error: 2 NUL bytes at byte offset 14")


def test_a_nul_byte_fails_parse_with_its_location(tmp_path: Path) -> None:
    chapter = tmp_path / "a.md"
    chapter.write_bytes(b"# Title\n\ntext\x00\n")
    result = CliRunner().invoke(main, ["parse", str(chapter)])
    assert result.exit_code == 1 and "a.md:3: error: a NUL byte at byte offset 13" in result.output
