"""The notebooks on the site, in a real browser (Playwright driving Debian's Chromium, headless):
the header holds the title, navigation, search, downloads and languages without one drawn over
another, at desktop widths and on a phone; the framework a reader chose picks the notebook a page
links to, and where it launches.

The site is the notebooks fixture book (tests/fixtures/notebooks/book) with its recorded outputs,
made crowded the way d2l's is: a long title, top-level chapters with long names, every header
item. Needs ``scripts/setup-html.sh`` (chromium); never ``playwright install``.
"""

from __future__ import annotations

import functools
import json
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from polybook.config import load_config
from polybook.notebooks.build import build_notebooks
from polybook.site.build import HtmlOptions, build_html

from conftest import FIXTURES, ROOT

pytestmark = pytest.mark.slow
SHOTS = ROOT / "build" / "screenshots"
BOOK = FIXTURES / "notebooks" / "book"
LAUNCH = '"notebooks": {"launch": "example/tiny-notebooks@{lang}-{framework}"},\n    '
CHAPTERS = {  # language -> top-level chapters with long names, as d2l's header lists them
    "en": [f"Modern Recurrent Neural Networks, part {n}" for n in range(1, 9)],
    "ja": [f"最新のリカレントニューラルネットワーク その{n}" for n in range(1, 9)],
}
#: The header's items that must not overlap (each that is shown).
HEADER = {
    "title": ".bd-header .navbar-brand",
    "navigation": ".bd-header .navbar-header-items__center .navbar-nav > li:not(.polybook-moved)",
    "search": ".bd-header .navbar-persistent--container .search-button-field, .bd-header .search-button,"
    " .bd-header .navbar-persistent--mobile .search-button-field",
    "downloads": ".bd-header .polybook-downloads",
    "languages": ".bd-header .polybook-languages",
    "theme": ".bd-header .theme-switch-button",
}
WIDTHS = [(1024, 768), (1280, 800), (1440, 900), (1920, 1080), (390, 844)]  # the last one a phone


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def crowded_book(root: Path) -> Path:
    shutil.copytree(BOOK, root)
    shutil.copytree(FIXTURES / "notebooks" / "eval", root / "build" / "eval")
    conf = root / "conf.py"
    text = conf.read_text(encoding="utf-8").replace('"Tiny Book"', '"A Tiny Book of Counting for Everyone"')
    conf.write_text(text.replace('"execution":', LAUNCH + '"execution":'), encoding="utf-8")
    for lang, titles in CHAPTERS.items():
        index = root / "chapters" / lang / "index.md"
        entries = "".join(f"part{n}\n" for n in range(1, len(titles) + 1))
        index.write_text(index.read_text(encoding="utf-8").replace("counting\n", f"counting\n{entries}"), "utf-8")
        for n, title in enumerate(titles, 1):
            (root / "chapters" / lang / f"part{n}.md").write_text(f"# {title}\n\nText.\n", encoding="utf-8")
    return conf


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("notebooks-site") / "book"
    config = load_config(crowded_book(root))
    assert not build_notebooks(config).failed
    result = build_html(config, HtmlOptions(evaluate=False))
    assert all(b.sphinx == "built" for b in result.languages), result.to_dict()
    handler = functools.partial(_Handler, directory=str(root / "build" / "html"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def boxes(page: Any) -> list[tuple[str, dict[str, float]]]:
    """The header's shown items and their boxes."""
    found = []
    for name, selector in HEADER.items():
        for box in page.eval_on_selector_all(
            selector,
            "els => els.filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden')"
            ".map(e => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })"
            ".filter(r => r.w > 0 && r.h > 0)",
        ):
            found.append((name, box))
    return found


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    width = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    height = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(width, 0) * max(height, 0)


@pytest.mark.parametrize(("width", "height"), WIDTHS)
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_headers_items_do_not_overlap(site: str, browser: Any, lang: str, width: int, height: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"{site}/{lang}/counting.html", wait_until="networkidle")
    shown = boxes(page)
    context.close()
    names = {name for name, _ in shown}
    assert "title" in names
    if width >= 960:  # the desktop header: everything in it; a phone's has the navigation in its side menu
        assert {"navigation", "search", "downloads", "languages"} <= names, names
    else:
        assert {"search", "downloads", "languages"} <= names, names
    crowded = [
        (a[0], b[0], round(overlap(a[1], b[1])))
        for i, a in enumerate(shown)
        for b in shown[i + 1 :]
        if overlap(a[1], b[1]) > 1
    ]
    assert not crowded, f"{lang} at {width} px: {crowded}"
    outside = [name for name, box in shown if box["x"] < 0 or box["x"] + box["w"] > width + 1]
    assert not outside, f"{lang} at {width} px: {outside} run off the screen"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_phone_switches_language_and_downloads_from_its_header_and_lists_the_chapters_once(
    site: str, browser: Any, lang: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{site}/{lang}/counting.html", wait_until="networkidle")
    page.locator(".bd-header .polybook-languages-button:visible").click()
    other = "ja" if lang == "en" else "en"
    switch = page.locator(f'.bd-header .polybook-languages-menu:visible a[data-language="{other}"]')
    assert switch.is_visible() and switch.bounding_box()["x"] >= 0
    page.keyboard.press("Escape")
    page.locator(".bd-header .polybook-downloads-button:visible").click()
    zips = page.locator(".bd-header .polybook-downloads-menu:visible a.polybook-notebooks")
    assert zips.count() == 2 and zips.first.is_visible()
    box = zips.first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 391
    page.keyboard.press("Escape")
    page.screenshot(path=str(SHOTS / f"phone-header-{lang}.png"))
    page.locator(".bd-header .primary-toggle").click()
    drawer = page.locator(".bd-sidebar-primary")
    drawer.locator(".polybook-toc").first.wait_for(state="visible")
    chapter = CHAPTERS[lang][0]
    shown = drawer.locator("a:visible", has_text=chapter)
    assert shown.count() == 1, f"{chapter!r} is listed {shown.count()} times in the side menu"
    page.screenshot(path=str(SHOTS / f"phone-menu-{lang}.png"))
    context.close()


def test_the_chosen_framework_picks_the_pages_notebook_and_where_it_launches(site: str, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{site}/ja/counting.html", wait_until="networkidle")
    page.locator(".polybook-notebook-links label", has_text="Beta").first.click()
    links = page.locator(".polybook-notebook-links .sd-tab-content:visible a")
    hrefs = {links.nth(i).inner_text().strip(): links.nth(i).evaluate("a => a.href") for i in range(links.count())}
    context.close()
    assert hrefs == {  # in the page's language
        "ノートブックをダウンロード": f"{site}/ja/notebooks/beta/counting.ipynb",
        "Colab で開く": "https://colab.research.google.com/github/example/tiny-notebooks/blob/ja-beta/ja/beta/counting.ipynb",
        "SageMaker Studio Lab で開く": (
            "https://studiolab.sagemaker.aws/import/github/example/tiny-notebooks/blob/ja-beta/ja/beta/counting.ipynb"
        ),
    }
    with urllib.request.urlopen(hrefs["ノートブックをダウンロード"]) as answer:
        notebook = json.loads(answer.read())
    assert notebook["metadata"]["polybook"] == {"document": "counting", "framework": "beta", "language": "ja"}


def test_the_header_downloads_the_languages_zips(site: str, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(f"{site}/ja/counting.html", wait_until="networkidle")
    page.locator(".bd-header .polybook-downloads-button:visible").click()
    items = page.locator(".bd-header .polybook-downloads-menu:visible a.polybook-notebooks")
    found = {items.nth(i).inner_text().strip(): items.nth(i).evaluate("a => a.href") for i in range(items.count())}
    assert items.first.is_visible()
    context.close()
    assert found == {
        "ノートブック (Alpha)": f"{site}/ja/notebooks/a-tiny-book-of-counting-for-everyone-ja-alpha.zip",
        "ノートブック (Beta)": f"{site}/ja/notebooks/a-tiny-book-of-counting-for-everyone-ja-beta.zip",
    }
    with urllib.request.urlopen(found["ノートブック (Beta)"]) as answer:
        assert answer.read(2) == b"PK"
