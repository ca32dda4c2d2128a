"""d2lbook 1.0's dialect at every stage, on a tiny book of our own (tests/fixtures/d2lbook10).

The English source is written as d2l-en 1.0 is: a ``%load_ext d2lbook.tab`` cell declaring
four frameworks, ``%%tab`` cells, and a shared ``%%tab all`` class whose ``tab.selected``
branches differ per framework (one at class level). The Japanese translation is the same code
in d2lbook 0.x's ``#@tab`` dialect. Each stage -- the checker's cell streams, the program
planner, the library collector and the MyST stager -- must see, for framework F, exactly F's
cells with F's branches kept and dedented, and never the marks themselves.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config
from polybook.diagnostics import Code
from polybook.execute.programs import build_programs
from polybook.library import collect_library
from polybook.stage.myst import transpile

from conftest import FIXTURES

BOOK = FIXTURES / "d2lbook10"
FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")
SHELVES = {"pytorch": "torch-shelf", "mxnet": "mxnet-shelf", "jax": "jax-shelf", "tensorflow": "tf-shelf"}
KIND = {fw: "mutable-counter" if fw in ("pytorch", "mxnet") else "frozen-counter" for fw in FRAMEWORKS}
MARKS = ("%%tab", "tab.selected", "%load_ext", "interact_select")


@pytest.fixture
def book_root(tmp_path: Path) -> Path:
    root = tmp_path / "book"
    shutil.copytree(BOOK, root)
    return root


def test_the_declaration_is_no_cell_and_every_framework_is_offered(book_root: Path) -> None:
    book = load_book(load_config(book_root / "conf.py"))
    doc = book.chapters["en"]["tensors"]
    assert doc.setup is not None and doc.setup.frameworks == FRAMEWORKS
    assert doc.offered() == FRAMEWORKS
    assert all("load_ext" not in cell.code for cell in doc.cells())
    assert [len(doc.cells(fw)) for fw in FRAMEWORKS] == [3, 3, 3, 3]
    assert doc.diagnostics == []


def test_programs_run_each_frameworks_own_code_and_branches(book_root: Path) -> None:
    book = load_book(load_config(book_root / "conf.py"))
    programs = build_programs(book, {fw: {} for fw in FRAMEWORKS})
    by_framework = {p.framework: p for p in programs if p.name == "tensors"}
    assert sorted(by_framework) == sorted(FRAMEWORKS)
    for framework, program in by_framework.items():
        code = "\n".join(program.sources)
        assert f'shelf = "{SHELVES[framework]}"' in code
        assert KIND[framework] in code
        assert all(kind not in code for kind in set(KIND.values()) - {KIND[framework]})
        assert ("def thaw" in code) == (framework == "jax")
        assert not any(mark in code for mark in MARKS), (framework, code)
        # the kept branch is dedented into the method it belongs to
        assert f'        self.kind = "{KIND[framework]}"' in program.sources[1]
    # the same code in both languages is one program per framework, served to both
    assert all(program.languages == ["en", "ja"] for program in by_framework.values())


def test_the_library_saves_each_frameworks_branches(book_root: Path) -> None:
    libraries = collect_library(load_book(load_config(book_root / "conf.py")))
    assert sorted(libraries) == sorted(FRAMEWORKS)
    for framework, library in libraries.items():
        assert "class Counter:" in library.text
        assert f'            self.kind = "{KIND[framework]}"' not in library.text  # dedented once, not kept deeper
        assert f'        self.kind = "{KIND[framework]}"' in library.text
        assert ("def thaw(self):" in library.text) == (framework == "jax")
        assert not any(mark in library.text for mark in MARKS)


def test_a_translation_in_the_old_dialect_matches_the_new_source(book_root: Path) -> None:
    config = load_config(book_root / "conf.py")
    code_findings = [f for f in check_book(load_book(config)).findings if str(f.code).startswith("code.")]
    assert code_findings == []


def test_a_changed_branch_is_reported_at_its_line_in_the_file(book_root: Path) -> None:
    ja = book_root / "chapters" / "ja" / "tensors.md"
    text = ja.read_text(encoding="utf-8")
    ja.write_text(text.replace('self.kind = "frozen-counter"', 'self.kind = "ice-counter"'), encoding="utf-8")
    line = next(i for i, row in enumerate(ja.read_text(encoding="utf-8").split("\n"), 1) if "ice-counter" in row)
    result = check_book(load_book(load_config(book_root / "conf.py")))
    findings = [f for f in result.findings if f.code is Code.CODE_STRINGS]
    # one finding for the cell's line however many streams see it; pytorch and mxnet do not
    assert len(findings) == 1 and findings[0].framework in ("jax", "tensorflow")
    assert findings[0].location.line == line


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_pdf_shows_only_its_frameworks_code(book_root: Path, framework: str) -> None:
    doc = load_book(load_config(book_root / "conf.py")).chapters["en"]["tensors"]
    myst = transpile(doc, "en", framework=framework).text
    assert SHELVES[framework] in myst and KIND[framework] in myst
    assert not any(SHELVES[other] in myst for other in FRAMEWORKS if other != framework)
    assert not any(mark in myst for mark in MARKS)


def test_the_site_shows_a_shared_cell_per_framework_when_its_branches_differ(book_root: Path) -> None:
    doc = load_book(load_config(book_root / "conf.py")).chapters["en"]["tensors"]
    myst = transpile(doc, "en").text
    assert not any(mark in myst for mark in MARKS)
    assert myst.count("class Counter:") == len(FRAMEWORKS)  # one panel per framework
    assert myst.count("total = len(shelf)") == 1  # the same for all: shown once


def test_bad_marks_are_errors_at_their_lines_and_the_rest_builds(book_root: Path) -> None:
    en = book_root / "chapters" / "en" / "tensors.md"
    text = en.read_text(encoding="utf-8")
    text = text.replace("%%tab tensorflow\n", "%%tab tensorflow, paddle\n")
    text = text.replace("        if tab.selected('pytorch', 'mxnet'):", "        if tab.selected('pytorch', 'mxnet'")
    text = text.replace("%%tab all\ntotal = len(shelf)", 'print("x")\n%%tab all\ntotal = len(shelf)')
    en.write_text(text, encoding="utf-8")
    rows = text.split("\n")
    doc = load_book(load_config(book_root / "conf.py")).chapters["en"]["tensors"]
    found = {(d.code, d.line) for d in doc.diagnostics}
    assert (Code.TAB_UNKNOWN, rows.index("%%tab tensorflow, paddle") + 1) in found
    assert (Code.TAB_BRANCH, rows.index("        if tab.selected('pytorch', 'mxnet'") + 1) in found
    assert (Code.TAB_MISPLACED, rows.index("%%tab all", rows.index('print("x")')) + 1) in found
    assert len(found) == 3
    # the cell whose branch does not parse is shown as written; the others still resolve
    assert f'shelf = "{SHELVES["mxnet"]}"' in transpile(doc, "en", framework="mxnet").text
