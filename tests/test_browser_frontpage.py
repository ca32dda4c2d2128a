"""d2l's front page, imported: Chromium (Playwright) over the tiny d2lbook project
tests/fixtures/d2lbook/front, whose ``index.md`` names ``frontpage.html`` in an eval_rst raw block
while the file lives in ``static/frontpage/`` with its ``_images/`` (as d2l's build script copies
them in). Imported and built without evaluation: the front page shows, styled, its script ran (the
import made it trusted), its image loads, and nothing the page asks for is missing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from polybook.cli import main
from polybook.config import load_config
from polybook.site.build import HtmlOptions, build_html

from conftest import FIXTURES, served

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("front") / "book"
    root.mkdir()
    old = os.getcwd()
    os.chdir(root)
    try:
        imported = CliRunner().invoke(main, ["import", "d2lbook", str(FIXTURES / "d2lbook" / "front"), "--lang", "en"])
    finally:
        os.chdir(old)
    assert imported.exit_code == 0, imported.output
    result = build_html(load_config(root / "conf.py"), HtmlOptions(evaluate=False))
    assert all(b.sphinx == "built" for b in result.languages), result.to_dict()
    with served(root / "build" / "html") as url:
        yield url


def test_the_front_page_shows_with_its_image_and_script(site: str, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    missing: list[str] = []
    page.on("response", lambda response: response.status >= 400 and missing.append(response.url))
    page.goto(f"{site}/en/index.html")
    page.wait_for_load_state("load")
    image = page.locator("article img#front-dot")
    assert image.count() == 1
    assert image.evaluate("img => img.complete && img.naturalWidth") > 0
    assert page.locator("#front-greeting").inner_text() == "Welcome, reader."  # its script ran
    border = page.locator(".front-hero").evaluate("e => getComputedStyle(e).borderTopColor")
    assert border == "rgb(200, 0, 0)"  # its style applies
    assert missing == []
    context.close()
