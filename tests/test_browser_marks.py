"""A page a port left behind the source, in a real browser (Playwright driving Debian's Chromium,
headless) at a desktop's and a phone's width: one notice at the top, in the reader's language,
with the counts; a small mark at each marked block (not a box across the page) that opens --
without script -- onto the source's text and, for a stale block, the words changed; nothing wider
than the phone's screen, even a source text with a long unbroken word.

Needs ``scripts/setup-html.sh`` (chromium, fonts-noto-cjk); never ``playwright install``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from polybook.config import load_config
from polybook.site.build import HtmlOptions, build_html

from conftest import served

pytestmark = pytest.mark.slow

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet"],
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語"}},
    "chapters": "chapters",
    "build_dir": "build",
}
"""
LONG = "https://example.org/" + "a-very-long-address-without-any-break-" * 6
EN = f"""\
# Loops

We count to a hundred and then we stop counting here.

The loop ends at {LONG} for now.

A brand new paragraph.

The last paragraph.
"""
JA = f"""\
# ループ

<!-- polybook:stale
We count to a hundred and then we stop counting here.
polybook:was
We count to ten and then we stop counting here.
-->
十まで数えて、ここで数えるのをやめます。

<!-- polybook:stale
The loop ends at {LONG} for now.
polybook:was
The loop ends here.
-->
ループはここで終わります。

<!-- polybook:untranslated -->
A brand new paragraph.

最後の段落。
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("marks") / "book"
    for lang, text in (("en", EN), ("ja", JA)):
        (root / "chapters" / lang).mkdir(parents=True)
        (root / "chapters" / lang / "index.md").write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    result = build_html(load_config(root / "conf.py"), HtmlOptions(evaluate=False))
    assert all(b.sphinx == "built" for b in result.languages), result.to_dict()
    with served(root / "build" / "html") as url:
        yield url


@pytest.fixture(params=[1280, 390], ids=["desktop", "phone"])
def page(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": request.param, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    page.route("**/*", lambda route: route.abort() if "127.0.0.1" not in route.request.url else route.continue_())
    yield page
    context.close()


def _overflow(page: Any) -> int:
    """How far the page is wider than the window (0: it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def test_one_notice_at_the_top_and_small_marks_that_open_onto_the_change(site: str, page: Any) -> None:
    page.goto(f"{site}/ja/index.html")
    article = page.locator("article")
    notices = article.locator(".admonition")
    assert notices.count() == 1  # one notice a page, not one a block
    notice = notices.first
    assert "未翻訳 1 箇所" in notice.inner_text() and "原文変更 2 箇所" in notice.inner_text()
    title = article.locator("h1").first.bounding_box()
    first_mark = article.locator(".polybook-mark").first.bounding_box()
    assert title["y"] < notice.bounding_box()["y"] < first_mark["y"]  # at the top, under the title

    marks = article.locator(".polybook-mark")
    assert marks.count() == 3
    paragraph = article.get_by_text("十まで数えて").bounding_box()
    for index in range(3):
        box = marks.nth(index).bounding_box()
        assert box["height"] < 0.8 * paragraph["height"] + 12  # a small line, not a box
    summary = marks.first.locator("summary")
    assert summary.bounding_box()["width"] < 0.5 * paragraph["width"]  # not across the page

    body = marks.first.locator(".polybook-mark-body")
    assert not body.is_visible()  # closed until the reader opens it
    summary.click()  # no script: <details> opens by itself
    assert body.is_visible()
    assert "We count to a hundred and then we stop counting here." in body.locator(".polybook-mark-text").inner_text()
    assert body.locator("del").inner_text() == "ten"
    assert body.locator("ins").inner_text() == "a hundred"

    long = marks.nth(1)
    long.locator("summary").click()  # the long unbroken address: wrapped, not wider than the window
    assert long.locator(".polybook-mark-body").is_visible()
    assert _overflow(page) == 0
    assert marks.nth(2).locator("details").count() == 0  # untranslated: the text is the source's already
