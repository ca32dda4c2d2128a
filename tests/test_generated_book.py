"""The nested book of bench/generate_book.py, small: it loads, its tocs number every document,
it is consistent across languages, translations use the source's figures, and it renders."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from polybook.book import Book, load_book
from polybook.check import check_config
from polybook.config import BookConfig, load_config
from polybook.diagnostics import Level
from polybook.dialect.nodes import Document, Figure

if TYPE_CHECKING:
    from polybook.render.build import HtmlResult

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS, SECTIONS = 2, 2


def _generator() -> ModuleType:
    """bench/generate_book.py (bench/ is not a package)."""
    name = "bench_generate_book"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "generate_book.py")
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)  # its dataclasses look their module up
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> BookConfig:
    conf = _generator().generate_book(tmp_path_factory.mktemp("book"), CHAPTERS, SECTIONS, seed=3)
    return load_config(conf)


@pytest.fixture(scope="module")
def book(config: BookConfig) -> Book:
    return load_book(config)


def expected_numbers(config: BookConfig) -> dict[str, str]:
    """chapter_NN/index -> "N", its sections -> "N.M" in file-name order."""
    numbers = {}
    for name in config.document_names(config.source_language):
        match = re.fullmatch(r"chapter_(\d+)/(.+)", name)
        if match and match[2] == "index":
            numbers[name] = str(int(match[1]))
    for chapter in list(numbers):
        folder = chapter.removesuffix("/index")
        sections = [n for n in config.document_names(config.source_language) if n.startswith(f"{folder}/")]
        for position, name in enumerate(n for n in sections if n != chapter):
            numbers[name] = f"{numbers[chapter]}.{position + 1}"
    return numbers


def test_every_language_has_every_document_of_the_nested_book(config: BookConfig) -> None:
    names = config.document_names(config.source_language)
    assert len(names) == 1 + CHAPTERS * (1 + SECTIONS) + 1  # index, chapters, references
    assert all(config.document_names(code) == names for code in config.languages)
    assert "chapter_01/index" in names and any(n.startswith("chapter_02/") and n != "chapter_02/index" for n in names)


def test_each_toc_reaches_every_document_in_order_with_d2l_numbers(config: BookConfig, book: Book) -> None:
    numbers = expected_numbers(config)
    assert numbers["chapter_02/index"] == "2" and f"{CHAPTERS}.{SECTIONS}" in numbers.values()
    order = ["index"]
    for chapter in (n for n in numbers if n.endswith("/index")):
        order += [chapter, *(n for n in numbers if n.startswith(chapter.removesuffix("index")) and n != chapter)]
    order.append(_generator().REFERENCES)  # listed after the numbered block, unnumbered
    for code in config.languages:
        toc = book.tocs[code]
        assert toc.order == order, code
        assert toc.numbers == numbers, code
        assert list(book.chapters[code]) == order, code  # documents come in reading order


def test_no_document_has_an_error(book: Book) -> None:
    errors = [d.format() for doc in book.documents() for d in doc.diagnostics if d.level is Level.ERROR]
    assert errors == []


def test_labels_are_unique_per_section_and_references_resolve(config: BookConfig, book: Book) -> None:
    for code, docs in book.chapters.items():
        owners: dict[str, str] = {}
        for name, doc in docs.items():
            for label in doc.labels:
                assert owners.setdefault(label, name) == name, (code, label)
        refs = [i for doc in docs.values() for node in doc.walk() for i in getattr(node, "inlines", [])]
        numrefs = [i.value for i in refs if i.kind == "role" and i.name == "numref"]
        assert numrefs and set(numrefs) <= set(owners), code
        cited = [i for i in refs if i.kind == "role" and i.name == "cite"]
        assert len(cited) == CHAPTERS * SECTIONS, code


def test_check_finds_no_error_or_warning(config: BookConfig) -> None:
    result, unreadable = check_config(config, jobs=1)
    assert unreadable == []
    problems = [f for f in result.active if f.level in (Level.ERROR, Level.WARNING)]
    assert problems == [], [f"{f.location.path}:{f.location.line} {f.code} {f.message}" for f in problems]


def test_translations_use_the_source_figures_and_bibliography(config: BookConfig, book: Book) -> None:
    source = config.source_language
    own_copies = [code for code in config.translations if (config.chapters_dir / code / "img").is_dir()]
    assert len(own_copies) == 1  # one translation carries one figure of its own
    own = {p.name for p in (config.chapters_dir / own_copies[0] / "img").iterdir()}
    source_img = (config.chapters_dir / source / "img").resolve()
    for code in config.translations:
        assert config.bibliography(code) == (config.chapters_dir / source / "book.bib").resolve()
        for name, doc in book.chapters[code].items():
            for figure in (node for node in doc.walk() if isinstance(node, Figure)):
                found = config.locate(code, name, figure.src)
                assert found is not None, (code, name, figure.src)
                path, fallback = found
                if code in own_copies and path.name in own:
                    assert (path.parent, fallback) == ((config.chapters_dir / code / "img").resolve(), False)
                else:
                    assert (path.parent, fallback) == (source_img, True), (code, name, figure.src)


def test_sections_have_their_own_code_the_same_in_every_language(config: BookConfig, book: Book) -> None:
    for framework in config.frameworks:
        programs: dict[str, set[str]] = {}
        for code, docs in book.chapters.items():
            if framework not in config.languages[code].frameworks:
                continue
            for name, doc in docs.items():
                code_text = "\n".join(cell.code for cell in doc.cells(framework))
                if code_text:
                    programs.setdefault(name, set()).add(re.sub(r"#.*", "", code_text))
        assert len(programs) == CHAPTERS * SECTIONS
        assert all(len(versions) == 1 for versions in programs.values()), framework
        assert len({next(iter(versions)) for versions in programs.values()}) == len(programs), framework


@pytest.fixture(scope="module")
def built(config: BookConfig) -> HtmlResult:
    """English and the first translation built by Sphinx, without running code."""
    from polybook.site.build import HtmlOptions, build_html

    return build_html(config, HtmlOptions(languages=[config.source_language, config.translations[0]], evaluate=False))


@pytest.mark.slow
def test_two_languages_render_at_nested_paths_with_section_numbers(config: BookConfig, built: HtmlResult) -> None:
    errors = [d.format() for d in built.all_diagnostics() if d.level is Level.ERROR]
    assert errors == []
    assert [b.sphinx for b in built.languages] == ["built", "built"]
    numbers = expected_numbers(config)
    for build in built.languages:
        for name, number in numbers.items():
            page = built.outdir / build.language / f"{name}.html"
            assert page.is_file(), page
            html = page.read_text(encoding="utf-8")
            assert re.search(rf"<h1>\s*(<span[^>]*>)?{re.escape(number)}\.?\s", html), (page, number)


@pytest.mark.slow
def test_works_cited_on_many_pages_are_listed_once_on_the_references_page(
    config: BookConfig, built: HtmlResult
) -> None:
    sphinx = [d.format() for b in built.languages for d in b.diagnostics]
    assert not [line for line in sphinx if "bibtex" in line or "citation" in line], sphinx
    for build in built.languages:
        references = built.outdir / build.language / f"{_generator().REFERENCES}.html"
        listed = re.findall(r'<div class="citation" id="([^"]+)"', references.read_text(encoding="utf-8"))
        cited = {key for doc in load_book(config, [build.language]).documents() for key in _cited(doc)}
        assert len(listed) == len(cited) > 1, build.language


def _cited(doc: Document) -> set[str]:
    roles = [i for node in doc.walk() for i in getattr(node, "inlines", []) if i.kind == "role"]
    return {key.strip() for i in roles if i.name == "cite" for key in i.value.split(",")}
