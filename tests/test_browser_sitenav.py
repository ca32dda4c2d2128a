"""The site's search and language switch in a real browser (Playwright driving Debian's Chromium,
headless), on a small book in English, Japanese and Chinese made the way d2l's is:

* one page's title holds the term ("Tensors", テンソルの基本, 张量基础) and the other pages use it
  in their text, a section's title, or only in the framework tabs' labels ("TensorFlow"): the
  search ranks the title's page first, in each language's own segmentation;
* the Japanese translation keeps an older edition's file names (``compute/params`` for the
  source's ``basics/parameters``, sharing its labels) and has a page the source has not.

Needs ``scripts/setup-html.sh`` (chromium, fonts-noto-cjk); never ``playwright install``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from polybook.config import load_config
from polybook.site.build import HtmlOptions, build_html

from conftest import served

pytestmark = pytest.mark.slow

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet", "pytorch", "tensorflow"],
    "default_tab": "mxnet",
    "framework_labels": {"mxnet": "MXNet", "pytorch": "PyTorch", "tensorflow": "TensorFlow"},
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語"}, "zh": {"name": "中文"}},
    "chapters": "chapters",
    "build_dir": "build",
}
"""
CELLS = "".join(
    f"```{{.python .input}}\n#@tab {fw}\nx = {fw}_ones(3)\n```\n\n" for fw in ("mxnet", "pytorch", "tensorflow")
)


def toc(*entries: str) -> str:
    return "```toc\n:maxdepth: 2\n\n" + "\n".join(entries) + "\n```\n"


#: language -> document -> its text. The term's page comes last in the alphabet of titles.
BOOK = {
    "en": {
        "index": "# A Small Book\n\n" + toc("basics/index"),
        "basics/index": "# Basics\n\n" + toc("tensors", "manipulation", "algebra", "calculus", "parameters"),
        "basics/tensors": "# Tensors\n:label:`sec_tensors`\n\nA tensor holds numbers.\n\n" + CELLS,
        "basics/manipulation": "# Data Manipulation\n:label:`sec_manipulation`\n\n"
        + "We manipulate a tensor, then another tensor. " * 8
        + "\n\n"
        + CELLS,
        "basics/algebra": "# Algebra\n:label:`sec_algebra`\n\n## Tensor Arithmetic\n\n"
        + "The sum of a tensor and a tensor. " * 3
        + "\n\n"
        + CELLS,
        "basics/calculus": "# Calculus\n\nTensorFlow takes derivatives of functions.\n\n" + CELLS,
        "basics/parameters": "# Parameters\n:label:`sec_parameters`\n\nA model's parameters.\n\n"
        "## Access\n:label:`subsec_param_access`\n\nReading them.\n\n" + CELLS,
    },
    "ja": {
        "index": "# 小さな本\n\n" + toc("basics/index", "compute/index"),
        "basics/index": "# 基本\n\n" + toc("tensors", "manipulation", "algebra", "ja-only"),
        "basics/tensors": "# テンソルの基本\n:label:`sec_tensors`\n\nテンソルは数の配列です。\n\n" + CELLS,
        "basics/manipulation": "# データ操作\n:label:`sec_manipulation`\n\n"
        + "テンソルを操作し、別のテンソルも操作します。" * 8
        + "\n\n"
        + CELLS,
        "basics/algebra": "# 代数\n:label:`sec_algebra`\n\n## テンソルの演算\n\n"
        + "テンソルとテンソルの和。" * 3
        + "\n\n"
        + CELLS,
        "basics/ja-only": "# 日本語だけのページ\n\nこのページは日本語版にだけあります。\n",
        "compute/index": "# 計算\n\n" + toc("params"),
        "compute/params": "# パラメータ\n:label:`sec_parameters`\n\nモデルのパラメータ。\n\n"
        "## アクセス\n:label:`subsec_param_access`\n\n読み出し。\n\n" + CELLS,
    },
    "zh": {
        "index": "# 小书\n\n" + toc("basics/index"),
        "basics/index": "# 基础\n\n" + toc("tensors", "manipulation", "algebra"),
        "basics/tensors": "# 张量基础\n:label:`sec_tensors`\n\n张量是数字的数组。\n\n" + CELLS,
        "basics/manipulation": "# 数据操作\n:label:`sec_manipulation`\n\n"
        + "我们操作张量，再操作另一个张量。" * 8
        + "\n\n"
        + CELLS,
        "basics/algebra": "# 代数\n:label:`sec_algebra`\n\n## 张量运算\n\n" + "张量与张量的和。" * 3 + "\n\n" + CELLS,
    },
}


def write_book(root: Path) -> Path:
    for lang, documents in BOOK.items():
        for name, text in documents.items():
            path = root / "chapters" / lang / f"{name}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    return root / "conf.py"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("sitenav") / "book"
    result = build_html(load_config(write_book(root)), HtmlOptions(evaluate=False))
    assert all(b.sphinx == "built" for b in result.languages), result.to_dict()
    with served(root / "build" / "html") as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.problems = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda exc: page.problems.append(f"pageerror: {exc}"))
    yield page
    context.close()


def search(page: Any, site: str, lang: str, query: str) -> list[tuple[str, str]]:
    """The search page's results for ``query``: (page, snippet), best first."""
    page.goto(f"{site}/{lang}/search.html?q={query}")
    page.wait_for_function(  # the search has finished: its progress stopped pulsing
        "() => document.querySelector('#search-results .search-summary') && Search._pulse_status === -1",
        timeout=30000,
    )
    items = page.locator("#search-results ul.search > li")
    return [
        (
            items.nth(i).locator("a").first.get_attribute("href").split("?")[0],
            items.nth(i).locator("p.context").inner_text() if items.nth(i).locator("p.context").count() else "",
        )
        for i in range(items.count())
    ]


@pytest.mark.parametrize(("lang", "term"), [("en", "tensor"), ("ja", "テンソル"), ("zh", "张量")])
def test_the_page_whose_title_holds_the_term_comes_first(site: str, page: Any, lang: str, term: str) -> None:
    results = search(page, site, lang, term)
    pages = [href.split("#")[0] for href, _ in results]
    assert pages[0] == "basics/tensors.html", results
    # then the pages by how often they use it: the manipulation page more than the algebra's
    assert pages.index("basics/manipulation.html") < pages.index("basics/algebra.html"), results
    assert "basics/calculus.html" not in pages  # it has the term only in its tabs' labels
    summary = page.locator("#search-results .search-summary").inner_text()
    assert str(len(results)) in summary, summary  # Sphinx's Japanese catalog left it empty
    assert page.problems == []


@pytest.mark.parametrize(("lang", "query"), [("ja", "テンソルの演算"), ("zh", "张量运算")])
def test_a_query_written_without_spaces_is_cut_into_the_indexs_words(
    site: str, page: Any, lang: str, query: str
) -> None:
    results = search(page, site, lang, query)
    assert results[0][0] == "basics/algebra.html", results  # the one page using both words
    assert page.problems == []


def test_tab_labels_and_notices_are_not_indexed(site: str, page: Any) -> None:
    results = search(page, site, "en", "TensorFlow")
    assert [href for href, _ in results] == ["basics/calculus.html"]  # the one page whose text says it
    assert search(page, site, "en", "executed") == []  # "No outputs: this cell has not been executed."
    snippet = dict(search(page, site, "en", "manipulate"))["basics/manipulation.html"]
    assert "MXNet" not in snippet and "No outputs" not in snippet, snippet
    assert page.problems == []


def switch_link(page: Any, lang: str) -> Any:
    return page.locator(f'.bd-header .polybook-languages-menu a[data-language="{lang}"]').first


def test_the_switch_goes_to_the_page_sharing_the_labels(site: str, page: Any) -> None:
    page.goto(f"{site}/en/basics/parameters.html#subsec_param_access")
    alternate = page.locator('link[rel="alternate"][hreflang="ja"]').get_attribute("href")
    assert alternate.endswith("ja/compute/params.html")
    page.locator(".bd-header .polybook-languages-button").first.click()
    assert switch_link(page, "ja").inner_text().strip() == "日本語"  # no "*": the page is there
    switch_link(page, "ja").click()
    page.wait_for_url("**/ja/compute/params.html#subsec_param_access")
    assert page.locator(".polybook-fallback").count() == 0
    back = page.locator('link[rel="alternate"][hreflang="en"]').get_attribute("href")
    assert back.endswith("en/basics/parameters.html")
    switch_link(page, "en").evaluate("a => a.click()")  # and back
    page.wait_for_url("**/en/basics/parameters.html#subsec_param_access")
    assert page.problems == []


def test_a_page_the_other_language_lacks_goes_to_its_nearest_part_with_a_notice(site: str, page: Any) -> None:
    page.goto(f"{site}/ja/basics/ja-only.html")
    assert page.locator('link[rel="alternate"][hreflang="en"]').count() == 0
    page.locator(".bd-header .polybook-languages-button").first.click()
    switch_link(page, "en").click()
    page.wait_for_url("**/en/basics/index.html?polybook-nearest=ja*")  # its toc parent, never the home page
    notice = page.locator(".polybook-fallback.polybook-nearest")
    assert notice.is_visible() and "not available in English" in notice.inner_text()
    page.goto(f"{site}/ja/compute/index.html")  # a chapter the source lacks: its parent, the front page
    assert switch_link(page, "en").get_attribute("href") == "../../en/index.html?polybook-nearest=ja"
    assert page.problems == []
