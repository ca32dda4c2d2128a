"""The bundled book as imported: imported faithfully, rebuilt faithfully, parsed without surprises.

The imported state is kept in ``tests/fixtures/book`` (the book's own ``chapters/`` has since
been repaired with ``polybook sync`` and hand edits; see ``test_book_is_consistent``).
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

from polybook.book import load_book
from polybook.config import load_config
from polybook.dialect import Document
from polybook.dialect.nodes import Figure, TextTab
from polybook.dialect.normalize import normalize_code

from conftest import FIXTURES, ROOT

LANGUAGES = ["en", "ja", "pt", "zh", "tr"]
BOOK = FIXTURES / "book"
IMPORTED = {"ja": "000_5afac021a2beb068.txt", "pt": "001_f9a7783a8e698643.txt", "tr": "004_93451f0af7b40f0e.txt"}

# The damage the seeds really contain, and nothing else.
EXPECTED_DIAGNOSTICS = {
    "en": [],
    "ja": [(189, "heading.damaged")],
    "pt": [(33, "directive.damaged"), (102, "role.damaged"), (108, "role.damaged")],
    "zh": [],
    "tr": [],
}


@pytest.fixture(scope="module")
def chapters() -> dict[str, Document]:
    book = load_book(load_config(BOOK / "conf.py"))
    return {lang: docs["async-computation"] for lang, docs in book.chapters.items()}


#: SHA-256 of the seed documents as the user gave them (chapters/README.md says which is which):
#: the chapters imported byte for byte are checked against these.
SEED_SHA256 = {
    "000_5afac021a2beb068.txt": "4a3f7e7f920f8768833c053056c426fef8a3be34680c76f7bc4d924506b3b30b",
    "001_f9a7783a8e698643.txt": "7e09e92c340f307107eb23ca9221058e5945f044bca69401bc95b709955d62b5",
    "004_93451f0af7b40f0e.txt": "6301524552719249a5074ea7f15829029e49b175a023a67fac30de84bcbfca9c",
}


@pytest.mark.parametrize("lang", sorted(IMPORTED))
def test_imported_chapters_equal_the_seeds_byte_for_byte(lang: str) -> None:
    chapter = BOOK / "chapters" / lang / "async-computation.md"
    assert hashlib.sha256(chapter.read_bytes()).hexdigest() == SEED_SHA256[IMPORTED[lang]]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_only_the_real_damage_is_reported(chapters: dict[str, Document], lang: str) -> None:
    found = [(d.line, str(d.code)) for d in chapters[lang].diagnostics]
    assert found == EXPECTED_DIAGNOSTICS[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_index_pages_have_a_toc(lang: str) -> None:
    book = load_book(load_config(BOOK / "conf.py"), [lang])
    index = book.chapters[lang]["index"]
    assert index.diagnostics == []
    assert [n.entries for n in index.nodes if n.type == "tocblock"] == [["async-computation"]]


def _cells(doc: Document, framework: str) -> list[str]:
    return [c.code for c in doc.cells(framework)]


@pytest.mark.parametrize("framework", ["mxnet", "pytorch"])
def test_zh_code_equals_ja_and_tr(chapters: dict[str, Document], framework: str) -> None:
    zh, ja, tr = (_cells(chapters[x], framework) for x in ("zh", "ja", "tr"))
    assert zh == ja  # the scrape lost only whitespace: byte for byte, comments included
    assert [normalize_code(c) for c in zh] == [normalize_code(c) for c in tr]


def _imports(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {f"import {a.name} as {a.asname}" for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {f"from {node.module} import {a.name} as {a.asname}" for a in node.names}
    return names


def _other_statements(code: str) -> list[str]:
    return [ast.dump(s) for s in ast.parse(code).body if not isinstance(s, ast.Import | ast.ImportFrom)]


@pytest.mark.parametrize("framework", ["mxnet", "pytorch"])
def test_en_code_equals_ja_and_tr(chapters: dict[str, Document], framework: str) -> None:
    en = _cells(chapters["en"], framework)
    for lang in ("ja", "tr"):
        other = _cells(chapters[lang], framework)
        assert len(en) == len(other)
        # The import cell is the one real difference: en imports the same names, one per
        # line and in another order. Every other cell is the same program.
        assert _imports(en[0]) == _imports(other[0])
        assert _other_statements(en[0]) == _other_statements(other[0])
        assert normalize_code(en[0]) != normalize_code(other[0])
        assert [normalize_code(c) for c in en[1:]] == [normalize_code(c) for c in other[1:]]


def test_tr_translated_comment_is_the_only_difference_to_ja(chapters: dict[str, Document]) -> None:
    ja, tr = _cells(chapters["ja"], "pytorch"), _cells(chapters["tr"], "pytorch")
    differing = [(a, b) for a, b in zip(ja, tr, strict=True) if a != b]
    assert len(differing) == 1
    assert "# Warmup for GPU computation" in differing[0][0]
    assert "# GPU hesaplaması icin isinma" in differing[0][1]


def test_untagged_cells_follow_each_languages_default_tab(chapters: dict[str, Document]) -> None:
    en, ja = chapters["en"], chapters["ja"]
    assert en.default_tab == "pytorch" and ja.default_tab == "mxnet"
    assert all(c.tab is None for c in en.cells("pytorch")) and all(c.tab == "mxnet" for c in en.cells("mxnet"))
    assert all(c.tab is None for c in ja.cells("mxnet")) and all(c.tab == "pytorch" for c in ja.cells("pytorch"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_labels_and_figures_agree_across_languages(chapters: dict[str, Document], lang: str) -> None:
    doc = chapters[lang]
    assert {name: label.kind for name, label in doc.labels.items()} == {
        "sec_async": "heading",
        "fig_frontends": "figure",
        "fig_asyncgraph": "figure",
        "fig_threading": "figure",
    }
    figures = [(f.src, f.width, f.label) for f in doc.walk() if isinstance(f, Figure)]
    assert figures == [
        ("../img/frontends.png", "300px", "fig_frontends"),
        ("../img/asyncgraph.svg", None, "fig_asyncgraph"),
        ("../img/threading.svg", None, "fig_threading"),
    ]
    for figure in figures:
        assert (ROOT / "chapters" / lang / figure[0]).resolve().is_file()  # the figures live in the book


def _tab_sequence(doc: Document) -> list[tuple[str, tuple[str, ...]]]:
    return [(n.type, n.frameworks) for n in doc.walk() if isinstance(n, TextTab) or n.type == "codecell"]


@pytest.mark.parametrize("lang", ["en", "zh", "tr"])
def test_cells_and_text_tabs_line_up_with_ja(chapters: dict[str, Document], lang: str) -> None:
    assert _tab_sequence(chapters[lang]) == _tab_sequence(chapters["ja"])


def test_pt_drift_is_still_there(chapters: dict[str, Document]) -> None:
    """Import keeps the drift; repairs belong to `polybook sync`, not to the import."""
    pt = chapters["pt"]
    assert any("range(1000)" in c.code for c in pt.cells("mxnet"))
    assert len(pt.cells("mxnet")) > len(chapters["ja"].cells("mxnet"))
    assert [c.attrs.get("n") for c in pt.cells("pytorch")] == ["1", "2", "3", "4"]


def test_fixture_en_and_zh_are_the_reconstructions_in_the_book() -> None:
    """en is the source (sync never touches it); zh differs from its import only where sync repaired it."""
    for lang in ("en",):
        assert (BOOK / "chapters" / lang / "async-computation.md").read_bytes() == (
            ROOT / "chapters" / lang / "async-computation.md"
        ).read_bytes()


def test_figures_have_svg_sources() -> None:
    img = ROOT / "chapters" / "img"
    for name in ("frontends", "asyncgraph", "threading"):
        svg = img / f"{name}.svg"
        assert svg.is_file()
        assert "<svg" in svg.read_text(encoding="utf-8")
    png = (img / "frontends.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_chapters_readme_names_every_source() -> None:
    readme = (ROOT / "chapters" / "README.md").read_text(encoding="utf-8")
    for seed in [*IMPORTED.values(), "002_ca2703c74ac32778.txt", "003_9755f2fbbee01b64.txt"]:
        assert seed in readme


def test_no_chapter_has_trailing_junk() -> None:
    for lang in ("en", "zh"):
        text = Path(BOOK / "chapters" / lang / "async-computation.md").read_text(encoding="utf-8")
        assert text.endswith("\n") and not text.endswith("\n\n")
        assert "KiB" not in text and "🏷️" not in text
