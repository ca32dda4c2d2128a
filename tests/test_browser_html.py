"""Active HTML from a translation is inert on the built page: Chromium (Playwright) over the
fixture book tests/fixtures/html_safety, whose ja pages carry a script, an ``<img onerror>`` (one
in a heading, which every page's sidebar copies), a ``javascript:`` link in HTML and in eval_rst,
an iframe, an ``<svg onload>``, a script in an eval_rst raw block and in a ``:file:``, a
``<meta http-equiv="refresh">`` and a formula's ``\\href{javascript:…}``. Each would set
``window.pwned`` (or the title, or leave the page). The source's page conf.py trusts keeps its
script; the translation of it does not."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from polybook.config import load_config
from polybook.site.build import HtmlOptions, build_html

from conftest import ROOT, served

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("html_safety") / "book"
    shutil.copytree(ROOT / "tests" / "fixtures" / "html_safety", root)
    result = build_html(load_config(root / "conf.py"), HtmlOptions(evaluate=False))
    assert all(b.sphinx == "built" for b in result.languages), result.to_dict()
    with served(root / "build" / "html") as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.route("**/*", lambda route: route.abort() if "127.0.0.1" not in route.request.url else route.continue_())
    yield page
    context.close()


def test_a_translations_active_html_does_nothing(site: str, page: Any) -> None:
    page.goto(f"{site}/ja/index.html")
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # an onerror fires once the image fails; a refresh after 0 s
    assert page.evaluate("window.pwned") is None
    assert page.title() != "pwned" and page.url == f"{site}/ja/index.html"
    article = page.locator("article")
    for text in ("click me", "rst link"):
        article.get_by_text(text).first.click()
    page.wait_for_timeout(200)
    assert page.evaluate("window.pwned") is None and page.url == f"{site}/ja/index.html"
    for selector in ("script", "iframe", "svg", "[onerror]", "[onload]", "a[href^='javascript']"):
        assert article.locator(selector).count() == 0, selector
    assert page.locator("meta[http-equiv]").count() == 0
    # what is benign stays: the bold words, the https link, the centred wrapper around Markdown
    assert article.locator("b", has_text="bold").count() == 1
    assert article.locator("a[href='https://d2l.ai/']").count() == 1
    assert article.locator("div[align='center'] > p", has_text="A centred paragraph.").count() == 1
    assert article.locator("b", has_text="from a file").count() == 1  # the :file:, cleaned


def test_only_the_source_page_conf_py_trusts_keeps_its_script(site: str, page: Any) -> None:
    page.goto(f"{site}/en/trusted.html")
    assert page.evaluate("window.trustedRan") == 1
    missing: list[str] = []
    page.on("response", lambda r: r.status >= 400 and "_mathjax" in r.url and missing.append(r.url))
    page.goto(f"{site}/ja/trusted.html")
    page.wait_for_selector(".MathJax_CHTML", timeout=20_000)  # typeset, with the Safe extension
    page.wait_for_timeout(300)
    assert page.evaluate("window.trustedRan") is None
    assert page.evaluate("window.pwned") is None  # its heading's <img onerror>, in the title, sidebar, breadcrumbs
    assert page.locator("a[href^='javascript']").count() == 0  # the formula's \href
    assert page.evaluate("MathJax.Hub.config.extensions").count("Safe.js") == 1 and missing == []
    assert page.locator("article").get_by_text("trusted", exact=True).count() == 1
