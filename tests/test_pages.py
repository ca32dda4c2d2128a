"""The pages of a small book are what they were before polybook's speed-ups of Sphinx.

``tests/fixtures/pages/book`` (two languages, chapters nested two folders deep, text and code
tabs, figures, tables, equations, citations, a references page, a page only the source has)
is built cold, and every page of both languages and their search indexes are compared with
``tests/fixtures/pages/expected``: the pages as Sphinx,
the theme and polybook built them before any speed-up of :mod:`polybook.stage.sphinx_speed`
that renders less (the navigation, the search words, the parsing). Only what must differ
is normalised: the cache-busting hashes of static files (``?v=``, ``?digest=``), which
change with any edit of a stylesheet, and the book's folder (the status page names files).
``pytest --regen`` writes the expected pages from the current code -- only for a deliberate
change of the pages, never to make a speed-up pass.

Slow: real Sphinx.
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.site.html import html

BOOK = Path(__file__).parent / "fixtures" / "pages" / "book"
EXPECTED = Path(__file__).parent / "fixtures" / "pages" / "expected"
LANGUAGES = ("en", "ja")
_HASHES = re.compile(r"\?(v|digest)=[0-9a-f]+")

pytestmark = pytest.mark.slow


#: pydata-sphinx-theme keeps the sidebar of the pages of one folder and takes the current page's
#: markers off it for the next one; an entry whose title is under ``.. only::`` (ja's references
#: page, as d2l writes it) is left ``<li class="">`` on the page written right after that one, and
#: ``<li class="toctree-l1">`` on every other. The navigation rendered once per language gives the
#: latter on all of them: the one difference the speed-up must make.
_LEFT_BARE = '<li class=""><a class="reference internal" href="references.html">'


def normalised(text: str, root: Path) -> str:
    text = text.replace(_LEFT_BARE, _LEFT_BARE.replace('class=""', 'class="toctree-l1"'))
    return _HASHES.sub(r"?\1=HASH", text).replace(str(root), "BOOK")


def site_pages(root: Path) -> dict[str, str]:
    """``lang/page.html`` and ``lang/searchindex.js`` of every language -> normalised text."""
    outdir, pages = root / "build" / "html", {}
    for lang in LANGUAGES:
        for path in sorted((outdir / lang).rglob("*")):
            relative = path.relative_to(outdir).as_posix()
            if relative.startswith(f"{lang}/_") or not (path.suffix == ".html" or path.name == "searchindex.js"):
                continue
            pages[relative] = normalised(path.read_text(encoding="utf-8"), root)
    return pages


def build(root: Path) -> dict[str, str]:
    result = CliRunner().invoke(html, ["--no-eval"], obj={"conf": root / "conf.py"})
    assert result.exit_code == 0, result.output
    return site_pages(root)


def copy_book(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in ("conf.py", "chapters"):
        source = BOOK / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, root / name)
    shutil.copytree(BOOK / "eval", root / "build" / "eval")
    return root


def compare(built: dict[str, str], expected: Path, regen: bool) -> None:
    if regen:
        shutil.rmtree(expected, ignore_errors=True)
        for relative, text in built.items():
            (expected / relative).parent.mkdir(parents=True, exist_ok=True)
            (expected / relative).write_text(text, encoding="utf-8")
    wanted = {path.relative_to(expected).as_posix() for path in expected.rglob("*") if path.is_file()}
    assert sorted(built) == sorted(wanted)
    for relative in sorted(wanted):
        before = (expected / relative).read_text(encoding="utf-8")
        if built[relative] != before:
            lines = before.splitlines(), built[relative].splitlines()
            diff = difflib.unified_diff(*lines, f"expected/{relative}", f"built/{relative}", lineterm="")
            pytest.fail(f"{relative} is not the page it was:\n" + "\n".join(list(diff)[:60]))


def test_the_pages_are_as_they_were(tmp_path: Path, regen: bool) -> None:
    compare(build(copy_book(tmp_path)), EXPECTED, regen)


def test_an_edited_book_built_again_has_the_pages_of_its_cold_build(tmp_path: Path) -> None:
    """An incremental build (Sphinx reads one page again, writes every page again, the
    navigation and search index included) gives the pages a cold build of the edited book gives."""
    edited, cold = copy_book(tmp_path / "edited"), copy_book(tmp_path / "cold")  # normalised to BOOK
    build(edited)
    for root in (edited, cold):
        page = root / "chapters" / "ja" / "basics" / "tabs.md"
        page.write_text(page.read_text(encoding="utf-8").replace("二乗損失", "二乗誤差の損失"), encoding="utf-8")
    again = build(edited)
    assert "二乗誤差の損失" in again["ja/basics/tabs.html"]
    assert again == build(cold)


def test_a_title_edited_and_built_again_gives_every_page_the_new_navigation(tmp_path: Path) -> None:
    """The sidebar's template is kept between builds under a fingerprint of what it is made of
    (polybook.render.navigation): a new title or section is a new sidebar on every page, as a
    cold build of the edited book has it; a prose edit keeps the template."""
    edited, cold = copy_book(tmp_path / "edited"), copy_book(tmp_path / "cold")
    build(edited)
    kept = edited / "build" / ".sphinx" / "ja" / "doctrees" / "polybook-navigation.pickle"
    assert kept.is_file()
    for root in (edited, cold):
        page = root / "chapters" / "ja" / "basics" / "tabs.md"
        text = page.read_text(encoding="utf-8").replace("# どこでもタブ", "# どこでも同じタブ", 1)
        page.write_text(text.replace("### 三番目の深さ", "### 三番目の深さの節"), encoding="utf-8")
    again = build(edited)
    assert all("どこでも同じタブ" in again[f"ja/{page}.html"] for page in ("basics/index", "tiny", "references"))
    assert without_empty_postings(again) == without_empty_postings(build(cold))
    written = kept.stat().st_mtime_ns
    page = edited / "chapters" / "ja" / "tiny.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nもう一文。\n", encoding="utf-8")
    build(edited)
    assert kept.stat().st_mtime_ns == written  # a prose edit: the kept template served


def without_empty_postings(pages: dict[str, str]) -> dict[str, str]:
    """``pages`` with the search indexes' words no page has any more taken out: Sphinx's
    incremental index keeps a word of the old title (``でも``) with an empty list of pages,
    which finds nothing; a cold build does not have it."""
    out = dict(pages)
    for name, text in pages.items():
        if name.endswith("searchindex.js"):
            out[name] = re.sub(r',?"[^"]*":\[\]', "", text)
    return out
