"""The real-chapter features of issue 12 through Sphinx, on a small book written for this
test: no Sphinx error, none of the warnings d2l's chapters used to raise, and the pages
show what a d2lbook reader expects. Slow: one real Sphinx build."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.site.html import html

from minibook import cell, make_book

pytestmark = pytest.mark.slow

EN = (
    "# Book\n:label:`sec_book`\n\n"
    "[**Marked for slides**] and (~~slides only~~) text, as :cite:`Turing.1950` says.\n\n"
    "In expanded form\n$$f(x) = −x.$$\n:eqlabel:`eq_f`\n\nSee :eqref:`eq_f`.\n\n"
    + cell("%matplotlib inline\nx = 1", "all")
    + "\n:begin_tab:`mxnet`\nOnly MXNet.\n:end_tab:\n\n:begin_tab:`pytorch`\n\n:end_tab:\n\n"
    "```toc\n:maxdepth: 1\n\nother\napi\nrefs\n```\n"
)
OTHER = "# Other\n\nAgain :citet:`Turing.1950` and :cite:`Hopper.1952`; a broken key :cite:`Van- Gool.2006`.\n"
API = "# API\n\n```eval_rst\n.. automodule:: tinylib.core\n   :members:\n```\n"
REFS = "# References\n\n:bibliography:`../refs.bib`\n"
BIB = """@article{Turing.1950, title = {Computing machinery and intelligence}, author = {Turing, Alan},
  journal = {Mind}, year = {1950}}
@article{Hopper.1952, title = {The education of a computer}, author = {Hopper, Grace}, journal = {ACM}, year = {1952}}
"""
#: What d2l's chapters made Sphinx say before (issue 12).
NAMED = ("duplicate label", "duplicate citation", "Lexing literal_block", "Content block expected", "not found")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int]:
    root = tmp_path_factory.mktemp("book")
    conf = make_book(root, EN, "# 本\n\n```toc\nother\n```\n", name="index")
    en = root / "chapters" / "en"
    for name, text in (("other", OTHER), ("api", API), ("refs", REFS), ("refs.bib", BIB)):
        (en / (name if name.endswith(".bib") else f"{name}.md")).write_text(text, encoding="utf-8")
    (root / "chapters" / "ja" / "other.md").write_text(OTHER.replace("Other", "他"), encoding="utf-8")
    library_setting = (
        '"library": {"frameworks": {"mxnet": {"lib_file": "tinylib/core.py"}}},'  # what API pages may document
    )
    conf.write_text(
        conf.read_text().replace(
            '"build_dir": "build",', f'"build_dir": "build", "bibfile": "refs.bib", {library_setting}'
        )
    )
    library = root / "build" / "run" / "en" / "mxnet" / "tinylib"  # the default tab's mirror
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("", encoding="utf-8")
    (library / "core.py").write_text('def area(r: float) -> float:\n    """The area of a disc."""\n', "utf-8")
    result = CliRunner().invoke(html, ["--no-eval", "-v"], obj={"conf": conf})  # -v: every warning, to look through
    return root, result.output, result.exit_code


def page(root: Path, language: str, name: str) -> str:
    return (root / "build" / "html" / language / f"{name}.html").read_text(encoding="utf-8")


def test_no_sphinx_error_and_none_of_the_named_warnings(built: tuple[Path, str, int]) -> None:
    _, output, code = built
    sphinx = [line for line in output.splitlines() if "polybook.html.sphinx" in line]
    assert not [line for line in sphinx if ": error:" in line], output
    assert not [line for line in sphinx if any(named in line for named in NAMED)], output
    assert "other.md:3: error: :cite:`Van- Gool.2006`" in output and code == 1  # the key's own error


def test_pages_show_what_a_d2lbook_reader_expects(built: tuple[Path, str, int]) -> None:
    root, _, _ = built
    index = page(root, "en", "index")
    assert "Marked for slides" in index and "[**" not in index and "slides only" not in index
    assert 'id="equation-eq-f"' in index or 'id="eq_f"' in index
    assert "highlight-ipython3" in index
    assert "Nothing specific" not in index and "polybook-lacks-pytorch" in index  # no PyTorch tab, no notice
    refs = page(root, "en", "refs")
    assert refs.count('role="doc-biblioentry"') == 2  # each cited work once, on the references page
    other = page(root, "en", "other")
    assert 'Turing (<a class="reference internal" href="refs.html#' in other and "[Van- Gool.2006]" in other
    assert '(<a class="reference internal" href="refs.html#' in index and ">Turing, 1950</a>)" in index
    assert 'id="tinylib.core.area"' in page(root, "en", "api") and "The area of a disc." in page(root, "en", "api")


def test_without_a_references_page_each_work_is_listed_once_at_the_first_page_citing_it(tmp_path: Path) -> None:
    index = "# Book\n\nFirst :cite:`Turing.1950`.\n\n```toc\nother\n```\n"
    conf = make_book(tmp_path, index, "# 本\n", name="index")
    en = tmp_path / "chapters" / "en"
    (en / "other.md").write_text("# Other\n\nAgain :cite:`Turing.1950`, then :cite:`Hopper.1952`.\n", "utf-8")
    (en / "refs.bib").write_text(BIB, encoding="utf-8")
    conf.write_text(conf.read_text().replace('"build_dir": "build",', '"build_dir": "build", "bibfile": "refs.bib",'))
    result = CliRunner().invoke(html, ["--no-eval", "--lang", "en", "-v"], obj={"conf": conf})
    assert result.exit_code == 0, result.output
    assert not [line for line in result.output.splitlines() if any(named in line for named in NAMED)]
    first, other = page(tmp_path, "en", "index"), page(tmp_path, "en", "other")
    assert first.count('role="doc-biblioentry"') == 1 and other.count('role="doc-biblioentry"') == 1
    assert "Computing machinery" in first and "education of a computer" in other
    assert 'href="index.html#' in other  # the second citation of Turing links to the first page's entry
