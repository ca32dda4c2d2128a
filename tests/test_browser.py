"""The built site in a real browser: Playwright driving Debian's Chromium, headless.

The bundled book is built once per session (a copy, sharing the execution cache, plus
one English-only page to exercise the fallback) and served over HTTP as GitHub Pages
serves a site: a missing page gets the root's 404.html. `polybook serve`'s server, which
answers with the language's own 404.html, serves it too for the fallback test.
Screenshots land in ``build/screenshots/`` for people to look at. Needs
``scripts/setup-html.sh`` (chromium, fonts-noto-cjk); never ``playwright install``.
"""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from polybook.config import load_config
from polybook.site.build import HtmlOptions, build_html
from polybook.site.serve import SiteServer

from conftest import ROOT, copy_conf

SHOTS = ROOT / "build" / "screenshots"
LANGUAGES = ("en", "ja", "pt", "zh", "tr")
EXTRA = "extra-en-only"
SERVED: list[str] = []  # the same site from polybook serve's server (set by the site fixture)
SERVERS: list[SiteServer] = []  # that server
pytestmark = pytest.mark.slow


class _Handler(SimpleHTTPRequestHandler):
    """Static files; a missing page gets the site root's 404.html, as GitHub Pages does."""

    def log_message(self, *args: Any) -> None:
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code == 404 and page.is_file():
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().send_error(code, message, explain)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("site")
    copy_conf(root)
    shutil.copytree(ROOT / "chapters", root / "chapters")
    if (ROOT / "frozen").is_dir():
        shutil.copytree(ROOT / "frozen", root / "frozen")
    (ROOT / "build" / "cache").mkdir(parents=True, exist_ok=True)
    (root / "build").mkdir()
    (root / "build" / "cache").symlink_to(ROOT / "build" / "cache")  # content-addressed: safe to share
    index = root / "chapters" / "en" / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("async-computation\n", f"async-computation\n{EXTRA}\n"))
    (root / "chapters" / "en" / f"{EXTRA}.md").write_text("# Only in English\n\nNot translated yet.\n")
    result = build_html(load_config(root / "conf.py"), HtmlOptions())
    assert all(b.sphinx == "built" for b in result.languages), result.to_dict()
    handler = functools.partial(_Handler, directory=str(root / "build" / "html"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served = SiteServer(root / "build" / "html", port=0).start()
    SERVED.append(served.url.rstrip("/"))
    SERVERS.append(served)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    served.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.problems = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda exc: page.problems.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: msg.type == "error" and page.problems.append(f"console: {msg.text}"))
    page.on("response", lambda r: r.status >= 400 and page.problems.append(f"{r.status}: {r.url}"))
    yield page
    context.close()


def selected(page: Any) -> set[str]:
    """The framework shown by every framework tab-set the reader sees (a set without the reader's
    framework is hidden)."""
    return set(page.eval_on_selector_all(
        ".sd-tab-set.polybook-tabs > input:checked + label",
        "labels => labels.filter(l => l.parentElement.offsetParent !== null).map(l => l.dataset.syncId)",
    ))  # fmt: skip


def hidden_sets(page: Any) -> list[str]:
    """The frameworks of each framework tab-set hidden from the reader."""
    return page.eval_on_selector_all(
        ".sd-tab-set.polybook-tabs",
        "sets => sets.filter(s => s.offsetParent === null).map(s => Array.from(s.querySelectorAll(':scope > label'))"
        ".map(l => l.dataset.syncId).join(','))",
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_chapter_page_loads_without_console_errors(site: str, page: Any, language: str) -> None:
    page.goto(f"{site}/{language}/async-computation.html", wait_until="networkidle")
    assert page.locator("h1").first.is_visible()
    assert page.locator(".sd-tab-set.polybook-tabs").count() >= 5
    if language in ("en", "ja"):  # typeset once MathJax has run, which may be after the network is idle
        page.locator("mjx-container, .MathJax_CHTML").first.wait_for(state="attached", timeout=20_000)
    assert page.locator("mjx-container, .MathJax_CHTML").count() > 0 or language not in ("en", "ja")
    assert page.problems == []


def test_pytorch_switches_every_tab_set_and_survives_a_reload(site: str, page: Any) -> None:
    page.goto(f"{site}/ja/async-computation.html")
    assert selected(page) == {"mxnet"}  # ja's default tab
    page.locator("label.polybook-tab-pytorch").first.click()
    assert selected(page) == {"pytorch"}
    page.reload()
    assert selected(page) == {"pytorch"}
    page.screenshot(path=str(SHOTS / "ja-async-computation-pytorch.png"), full_page=True)


def test_benchmark_output_shows_only_under_its_framework(site: str, page: Any) -> None:
    page.goto(f"{site}/en/async-computation.html?framework=mxnet")
    mxnet_output = page.locator("div.output pre", has_text="mxnet.np:").first
    gpu_notice = page.locator(".polybook-needs-gpu").first
    assert mxnet_output.is_visible() and not gpu_notice.is_visible()
    page.locator("label.polybook-tab-pytorch").first.click()
    assert not mxnet_output.is_visible()
    assert gpu_notice.is_visible() and "Found no NVIDIA driver" in gpu_notice.inner_text()
    gpu_notice.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "en-async-computation-needs-gpu.png"))


def test_framework_query_selects_the_tabs(site: str, page: Any) -> None:
    page.goto(f"{site}/zh/async-computation.html?framework=pytorch")
    assert selected(page) == {"pytorch"}


@pytest.mark.parametrize("anchor", ["sec_async", "barriers-and-blockers"])
def test_language_switch_keeps_framework_and_anchor(site: str, page: Any, anchor: str) -> None:
    page.goto(f"{site}/en/async-computation.html?framework=pytorch#{anchor}")
    page.locator(".polybook-languages-button").first.click()
    page.locator('.polybook-languages-menu a[data-language="ja"]').first.click()
    page.wait_for_url(f"**/ja/async-computation.html#{anchor}")
    assert selected(page) == {"pytorch"}
    assert page.locator(f"[id='{anchor}']").count() == 1
    box = page.locator(f"[id='{anchor}']").bounding_box()
    assert box is not None and abs(box["y"]) < 200  # scrolled to the section


@pytest.mark.parametrize("host", ["root 404 (GitHub Pages)", "language 404 (polybook serve)"])
def test_missing_page_falls_back_to_the_source_with_a_notice(site: str, page: Any, host: str) -> None:
    site = SERVED[0] if "serve" in host else site
    page.goto(f"{site}/en/{EXTRA}.html")
    page.locator(".polybook-languages-button").first.click()
    page.locator('.polybook-languages-menu a[data-language="ja"]').first.click()
    page.wait_for_url(f"**/en/{EXTRA}.html?polybook-from=ja*")
    notice = page.locator(".polybook-fallback")
    assert notice.is_visible() and "日本語" in notice.inner_text()
    page.goto(f"{site}/pt/{EXTRA}.html")  # typed by hand: the 404 page sends it on
    page.wait_for_url(f"**/en/{EXTRA}.html?polybook-from=pt*")
    assert "Português" in page.locator(".polybook-fallback").inner_text()
    page.goto(f"{site}/pt/no-such-page.html")  # missing everywhere: a 404 page, in a language
    assert page.locator("h1").first.is_visible() and page.url.endswith("/pt/no-such-page.html")


def test_a_served_page_says_it_is_being_rebuilt_then_reloads_and_says_what_went_wrong(site: str, page: Any) -> None:
    served = SERVERS[0]
    page.goto(f"{SERVED[0]}/en/async-computation.html")
    page.wait_for_timeout(500)  # the page's first question: it knows the version now
    served.rebuilding()
    badge = page.locator("#polybook-serve-state")
    badge.wait_for(state="visible", timeout=5000)
    assert "Rebuilding" in badge.inner_text()
    try:
        served.problems = 1
        with page.expect_navigation(timeout=5000):  # the rebuild ended: the page reloads
            served.bump()
        badge.wait_for(state="visible", timeout=5000)
        assert "1 error(s): this page may be out of date" in badge.inner_text()
    finally:
        served.problems = 0


def test_search_in_japanese_finds_the_chapter(site: str, page: Any) -> None:
    page.goto(f"{site}/ja/search.html?q=非同期")
    results = page.locator("#search-results a[href*='async-computation']")
    results.first.wait_for(timeout=15000)
    assert results.count() >= 1


def test_root_index_suggests_the_browsers_language(site: str, browser: Any) -> None:
    context = browser.new_context(locale="ja-JP", viewport={"width": 900, "height": 700})
    page = context.new_page()
    page.goto(f"{site}/index.html")
    assert page.locator("a.suggested").get_attribute("data-language") == "ja"
    names = page.locator("a[data-language] .name").all_inner_texts()
    assert names == ["English", "日本語", "Português", "中文", "Türkçe"]
    page.screenshot(path=str(SHOTS / "index-ja-browser.png"))
    context.close()


@pytest.mark.parametrize(
    ("language", "tooltip", "title"),
    [("ja", "コピー", "クリップボードにコピー"), ("pt", "Copiar", "Copiar para a área de transferência"),
     ("tr", "Kopyala", "Panoya kopyala"), ("zh", "复制", "复制到剪贴板")],
)  # fmt: skip
def test_copy_button_speaks_the_page_language(site: str, page: Any, language: str, tooltip: str, title: str) -> None:
    page.goto(f"{site}/{language}/async-computation.html")
    button = page.locator("button.copybtn").first
    assert button.get_attribute("data-tooltip") == tooltip
    assert button.locator("svg title").first.text_content() == title
    assert page.problems == []


def test_the_switcher_links_carry_the_section_before_any_click(site: str, page: Any) -> None:
    page.goto(f"{site}/en/async-computation.html#sec_async")
    link = page.locator('.polybook-languages-menu a[data-language="ja"]').first
    assert link.get_attribute("href").endswith("ja/async-computation.html#sec_async")  # open in a new tab: same place
    page.evaluate("window.location.hash = 'barriers-and-blockers'")
    page.wait_for_function(
        "document.querySelector('a[data-language=\"ja\"]').getAttribute('href').endsWith('#barriers-and-blockers')"
    )
    assert page.problems == []


@pytest.fixture(scope="session")
def site10(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The d2lbook 1.0 fixture book (tests/fixtures/d2lbook10), built without evaluation."""
    root = tmp_path_factory.mktemp("site10") / "book"
    shutil.copytree(ROOT / "tests" / "fixtures" / "d2lbook10", root)
    result = build_html(load_config(root / "conf.py"), HtmlOptions(evaluate=False))
    assert all(b.sphinx == "built" for b in result.languages), result.to_dict()
    handler = functools.partial(_Handler, directory=str(root / "build" / "html"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


SHELVES = {"pytorch": "torch-shelf", "mxnet": "mxnet-shelf", "jax": "jax-shelf", "tensorflow": "tf-shelf"}


def shown_code(page: Any) -> str:
    """The text of every code block the reader sees."""
    return "\n".join(page.eval_on_selector_all(
        "div.highlight pre", "els => els.filter(e => e.offsetParent !== null).map(e => e.innerText)"
    ))  # fmt: skip


@pytest.mark.parametrize("framework", list(SHELVES))
def test_a_d2lbook10_page_shows_exactly_its_frameworks_cells_and_branches(
    site10: str, page: Any, framework: str
) -> None:
    """d2lbook 1.0's %%tab cells and tab.selected branches: under each framework's tab the page
    shows that framework's cells and branches, and never the marks."""
    for lang in ("en", "ja"):  # the source in the 1.0 dialect, the translation in 0.x's
        page.goto(f"{site10}/{lang}/tensors.html?framework={framework}", wait_until="networkidle")
        assert selected(page) == {framework}
        code = shown_code(page)
        assert SHELVES[framework] in code
        assert not [s for fw, s in SHELVES.items() if fw != framework and s in code]
        frozen = framework in ("jax", "tensorflow")
        assert ("frozen-counter" in code, "mutable-counter" in code) == (frozen, not frozen)
        assert ("def thaw" in code) == (framework == "jax")
        body = page.locator("article").inner_text()
        assert "%%tab" not in body and "tab.selected" not in body and "load_ext" not in body
        assert page.problems == []
    page.screenshot(path=str(SHOTS / f"d2lbook10-{framework}.png"), full_page=True)


def test_d2lbook10_tabs_switch_together_when_clicked(site10: str, page: Any) -> None:
    page.goto(f"{site10}/en/tensors.html?framework=pytorch", wait_until="networkidle")
    page.locator("label.polybook-tab-jax").first.click()
    assert selected(page) == {"jax"}
    assert "jax-shelf" in shown_code(page) and "torch-shelf" not in shown_code(page)


def test_a_tab_group_without_the_readers_framework_is_hidden(site10: str, page: Any) -> None:
    """As d2l.ai: a text group only JAX has says nothing to a PyTorch reader (no "Nothing specific
    to PyTorch here" box); a reader of a framework the page lacks reads the page's default."""
    page.goto(f"{site10}/en/tensors.html", wait_until="networkidle")
    assert selected(page) == {"pytorch"}  # en's default tab
    only_jax = page.locator(".sd-tab-set.polybook-lacks-pytorch").first
    assert not only_jax.is_visible() and hidden_sets(page) == ["jax"]
    assert "Nothing specific" not in page.locator("article").inner_text()
    page.locator("label.polybook-tab-jax").first.click()
    assert selected(page) == {"jax"} and only_jax.is_visible() and hidden_sets(page) == []
    page.locator("label.polybook-tab-mxnet").first.click()
    assert selected(page) == {"mxnet"} and not only_jax.is_visible()
    page.goto(f"{site10}/en/tensors.html?framework=paddle", wait_until="networkidle")  # not this page's
    assert selected(page) == {"pytorch"} and not only_jax.is_visible()
    assert page.problems == []
