"""Sphinx builds of the tiny fixture book (two languages, hand-made execution results).

One build per test module; each test reads the HTML it produced. Slow: real Sphinx.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.config import load_config
from polybook.site.build import HtmlOptions, build_html
from polybook.site.html import html

from minibook import LANGUAGES, make_book, make_multilingual_book

BOOK = Path(__file__).parent / "fixtures" / "render" / "book"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("book")
    for name in ("conf.py", "refs.bib", "chapters"):
        source = BOOK / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, root / name)
    shutil.copytree(BOOK / "eval", root / "build" / "eval")
    result = CliRunner().invoke(html, ["--no-eval", "--strict", "-v"], obj={"conf": root / "conf.py"})  # every line
    return root, result


def page(root: Path, language: str, name: str) -> str:
    return (root / "build" / "html" / language / f"{name}.html").read_text(encoding="utf-8")


def test_warnings_are_reported_at_the_chapter_line_and_fail_strict(built: tuple[Path, object]) -> None:
    _, result = built
    assert result.exit_code == 1, result.output  # --strict: the missing citation is a warning
    assert re.search(r"chapters/en/tiny\.md:4: warning: .*Nobody\.2099.* \[polybook\.html\.sphinx\]", result.output)
    assert "error" not in "\n".join(ln for ln in result.output.splitlines() if "polybook.html" in ln)


def test_labels_are_the_same_anchors_in_every_language(built: tuple[Path, object]) -> None:
    root, _ = built
    for language in ("en", "ja"):
        text = page(root, language, "tiny")
        for anchor in ("sec_tiny", "sec_tiny_more", "fig_box", "eq_sum"):
            assert f'id="{anchor}"' in text, (language, anchor)
    assert re.search(r'<section [^>]*id="sec_tiny"', page(root, "ja", "tiny"))  # the label is the section's id


def test_references_use_localised_words(built: tuple[Path, object]) -> None:
    root, _ = built
    assert "Fig. 1" in page(root, "en", "tiny")
    assert "図 1" in page(root, "ja", "tiny")
    assert re.search(r"Section\s+1\.1", page(root, "en", "tiny"))


def test_citations_resolve_through_the_bibliography(built: tuple[Path, object]) -> None:
    root, _ = built
    text = page(root, "en", "tiny")
    assert "Goodfellow" in text and "Deep Learning" in text


def test_outputs_are_escaped_unless_real_html(built: tuple[Path, object]) -> None:
    root, _ = built
    text = page(root, "en", "tiny")
    assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert '<b class="rich-output">bold</b>' in text


def test_tabs_notices_and_figures(built: tuple[Path, object]) -> None:
    root, _ = built
    text = page(root, "en", "tiny")
    assert text.count('data-sync-group="framework"') >= 5  # a tab only where a framework has something
    assert "Needs a GPU" in text and "CPU: Test CPU" in text
    assert "Not run: an earlier PyTorch cell" in text
    assert "code for this step" not in text and "polybook-lacks-mxnet" in text  # no MXNet tab, no notice
    assert re.search(r'<img [^>]*src="_images/box\.svg"[^>]*style="width: 40px;"', text)
    assert "MathJax.js?config=TeX-AMS_CHTML" in text and "cdn" not in text.lower()


def test_site_ties_the_languages_together(built: tuple[Path, object]) -> None:
    root, _ = built
    out = root / "build" / "html"
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="en/index.html"' in index and ">日本語<" in index
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>ja/tiny.html</loc>" in sitemap and 'hreflang="en" href="en/tiny.html"' in sitemap
    assert 'rel="alternate" hreflang="ja" href="../ja/tiny.html"' in page(root, "en", "tiny")
    assert (out / "ja" / "404.html").is_file() and (out / "ja" / "searchindex.js").is_file()


def test_second_build_is_a_no_op(built: tuple[Path, object]) -> None:
    root, _ = built
    before = (root / "build" / "html" / "en" / "tiny.html").stat().st_mtime_ns
    result = CliRunner().invoke(html, ["--no-eval"], obj={"conf": root / "conf.py"})
    assert result.exit_code == 0, result.output
    assert result.output.count("up to date") == 2
    assert (root / "build" / "html" / "en" / "tiny.html").stat().st_mtime_ns == before


def test_no_file_outside_the_book_reaches_the_site(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP-SECRET\n", encoding="utf-8")
    up = "../../../secret.txt"  # from chapters/en/ of the book in tmp_path/book
    en = (
        f"# Intro\n\nAn ![inline image]({up}).\n\nA [link]({up}).\n\n"
        f"A {{download}}`download <{up}>` and <path:{up}>.\n\n"
        f"```eval_rst\n.. image:: ../../../../../../secret.txt\n```\n"
    )
    conf = make_book(tmp_path / "book", en, "# 序\n", name="index")
    result = CliRunner().invoke(html, ["--no-eval"], obj={"conf": conf})
    assert result.exit_code == 1, result.output
    for line in (3, 5, 7, 10):
        assert re.search(rf"chapters/en/index\.md:{line}: error: .*outside the book", result.output), line
    out = tmp_path / "book" / "build" / "html"
    assert (out / "en" / "index.html").is_file()
    leaked = [p for p in out.rglob("*") if p.is_file() and b"TOP-SECRET" in p.read_bytes()]
    assert leaked == [] and not list(out.rglob("secret*"))
    assert "An inline image." in page(tmp_path / "book", "en", "index")


def test_strict_fails_while_an_unchanged_page_keeps_its_warning(tmp_path: Path) -> None:
    index = "# Book\n\nIntro {n}.\n\n```toc\n:maxdepth: 2\n\nother\n```\n"
    conf = make_book(tmp_path, index.format(n=1), index.format(n=1), name="index")
    other = tmp_path / "chapters" / "en" / "other.md"
    other.write_text("# Other\n\nSee {nosuchrole}`x`.\n", encoding="utf-8")
    (tmp_path / "chapters" / "ja" / "other.md").write_text("# 他\n", encoding="utf-8")

    def strict() -> str:
        result = CliRunner().invoke(html, ["--no-eval", "--strict", "--lang", "en"], obj={"conf": conf})
        return f"{result.exit_code} {'nosuchrole' in result.output}"

    assert strict() == "1 True"
    (tmp_path / "chapters" / "en" / "index.md").write_text(index.format(n=2), encoding="utf-8")
    assert strict() == "1 True"  # Sphinx read only index.md again
    assert strict() == "1 True"  # nothing changed: the stored warnings again
    other.write_text("# Other\n\nSee nothing.\n", encoding="utf-8")
    assert strict() == "0 False"
    assert strict() == "0 False"


def test_a_source_prose_edit_rebuilds_the_source_only_and_the_status_page_follows(tmp_path: Path) -> None:
    conf = make_book(tmp_path, "# Book\n\nIntro.\n", "# 本\n\n序文。\n", name="index")
    build = lambda: build_html(load_config(conf), HtmlOptions(evaluate=False))  # noqa: E731
    assert [b.sphinx for b in build().languages] == ["built", "built"]
    status = tmp_path / "build" / "html" / "ja" / "polybook-status.html"
    assert "numbers.missing" not in status.read_text(encoding="utf-8")
    (tmp_path / "chapters" / "en" / "index.md").write_text("# Book\n\nIntro, 1024 steps.\n", encoding="utf-8")
    result = build()
    assert {b.language: b.sphinx for b in result.languages} == {"en": "built", "ja": "up to date"}
    page = status.read_text(encoding="utf-8")
    assert "polybook.numbers.missing" in page and 'data-lang="ja"' in page  # ja's page shows the new finding
    assert page.count('id="polybook-status-content"') == 1


#: The theme's strings the audit found in English on translated pages (ids, titles, labels).
THEME_STRINGS = (
    "Search the docs",
    "System Settings",
    "Color mode",
    "Breadcrumb",
    "On this page",
    "Back to top",
    "Skip to main content",
    "previous page",
    "next page",
    "Dark",
    "Light",
)


def ui_strings(page: str) -> set[str]:
    """The texts of a page outside its article: what the theme writes (labels and titles too)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, "html.parser")
    for element in soup.select("script, style, article"):
        element.decompose()
    found = {text.strip() for text in soup.find_all(string=True) if text.strip()}
    for element in soup.find_all(True):
        found |= {element[a].strip() for a in ("title", "aria-label", "placeholder") if element.get(a)}
    return found


def test_the_theme_speaks_every_language_of_the_site(tmp_path: Path) -> None:
    chapter = "# Book\n\nIntro.\n\n## Next\n\nMore.\n"  # a section: the page has an "On this page"
    conf = make_multilingual_book(tmp_path, {code: chapter for code in LANGUAGES})
    result = CliRunner().invoke(html, ["--no-eval"], obj={"conf": conf})
    assert result.exit_code == 0, result.output
    english = ui_strings(page(tmp_path, "en", "index"))
    assert {"Color mode", "On this page", "Back to top"} <= english  # the strings are there to translate
    for code in ("ja", "zh", "pt", "tr"):
        found = ui_strings(page(tmp_path, code, "index"))
        left = sorted(s for s in found if any(s.startswith(english_text) for english_text in THEME_STRINGS))
        assert left == [], code
    assert "カラーモード" in ui_strings(page(tmp_path, "ja", "index"))
    assert {"Nesta página", "Voltar ao topo", "Escuro"} <= ui_strings(page(tmp_path, "pt", "index"))


def test_only_languages_that_were_built_are_linked(tmp_path: Path) -> None:
    conf = make_book(tmp_path, "# Book\n\nIntro.\n", "# 本\n\n序文。\n", name="index")
    out = tmp_path / "build" / "html"
    result = CliRunner().invoke(html, ["--no-eval", "--lang", "ja"], obj={"conf": conf})
    assert result.exit_code == 0, result.output
    assert not (out / "en").exists()
    assert 'href="en/' not in (out / "index.html").read_text(encoding="utf-8")
    assert "en/" not in (out / "sitemap.xml").read_text(encoding="utf-8")
    assert 'data-language="en"' not in page(tmp_path, "ja", "index")
    assert 'hreflang="en"' not in page(tmp_path, "ja", "index")
    result = CliRunner().invoke(html, ["--no-eval"], obj={"conf": conf})
    assert result.exit_code == 0, result.output
    assert 'href="en/index.html"' in (out / "index.html").read_text(encoding="utf-8")
    assert 'data-language="en"' in page(tmp_path, "ja", "index")  # ja was built again to link en


CRASHING_CONF = """
def setup(app):  # an extension that crashes on one chapter (Sphinx runs conf.py; polybook never does)
    def crash(app, docname, source):
        if "CRASH-HERE" in source[0]:
            raise RuntimeError("the extension cannot cope with this chapter")

    app.connect("source-read", crash)
"""


def test_a_crash_reading_one_chapter_leaves_it_out_and_builds_the_rest(tmp_path: Path) -> None:
    index = "# Book\n\n```toc\n:numbered:\nfine\nbroken\n```\n"
    conf = make_book(tmp_path, index, index.replace("# Book", "# 本"), name="index")
    conf.write_text(conf.read_text(encoding="utf-8") + CRASHING_CONF, encoding="utf-8")
    for lang in ("en", "ja"):
        folder = tmp_path / "chapters" / lang
        (folder / "fine.md").write_text("# Fine\n\nAll good.\n", encoding="utf-8")
        (folder / "broken.md").write_text(
            "# Broken\n\nCRASH-HERE\n" if lang == "ja" else "# Broken\n", encoding="utf-8"
        )
    result = CliRunner().invoke(html, ["--no-eval"], obj={"conf": conf})
    assert result.exit_code == 1
    assert re.search(r"chapters/ja/broken\.md:1: error: Sphinx crashed reading this chapter", result.output)
    assert "RuntimeError: the extension cannot cope with this chapter" in result.output
    assert "the extension cannot cope" in result.output
    out = tmp_path / "build" / "html"
    assert (out / "ja" / "fine.html").is_file() and (out / "ja" / "index.html").is_file()
    assert not (out / "ja" / "broken.html").exists()
    assert (out / "en" / "broken.html").is_file()  # the other language is untouched


def test_the_summary_counts_what_was_printed(tmp_path: Path) -> None:
    """A chapter with three errors of the parser: printed, counted in its language's row."""
    broken = "# Broken\n\n```{.python .input}\n#@tab jax\nx = 1\n```\n\nbad \xff byte\n\n```{.python .input}\ny = 2\n"
    conf = make_book(tmp_path, "# Fine\n", "# ok\n", name="index")
    (tmp_path / "chapters" / "ja" / "index.md").write_bytes(broken.encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    result = CliRunner().invoke(html, ["--no-eval", "-l", "ja"], obj={"conf": conf})
    assert result.exit_code == 1
    printed = re.findall(r"chapters/ja/index\.md:\d+: error: ", result.output)
    assert len(printed) == 3, result.output
    row = next(line for line in result.output.splitlines() if line.strip("│ ").startswith("ja "))
    assert row.split("│")[-3].strip() == "3", row


def test_two_builds_at_once_in_one_build_folder_both_end_with_a_correct_site(tmp_path: Path) -> None:
    """The second waits for the first (saying for whom), then finds the site up to date; no
    traceback from a temporary file the other build renamed or pruned."""
    import subprocess
    import sys

    conf = make_book(tmp_path, "# Book\n\nSome text.\n", "# 本\n\n文章。\n", name="index")
    command = [sys.executable, "-m", "polybook.cli", "--conf", str(conf), "build", "html", "--no-eval"]
    script = "from polybook.cli import main; main()"
    runs = [
        subprocess.Popen([sys.executable, "-c", script, *command[3:]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=300)[0].decode("utf-8", "replace") for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert not any("Traceback" in out for out in outputs), outputs
    assert any(re.search(r"waiting for the html build in .*build/ started by pid \d+", out) for out in outputs), outputs
    for lang, text in (("en", "Some text."), ("ja", "文章。")):
        assert text in (tmp_path / "build" / "html" / lang / "index.html").read_text(encoding="utf-8")


def test_results_stored_by_another_eval_rebuild_the_language(tmp_path: Path) -> None:
    """`polybook build eval --rerun-failed` may turn stored results into others: the next site
    build sees them (the stored results are an input of the language), then does nothing."""
    import json

    for name in ("conf.py", "refs.bib", "chapters"):
        source = BOOK / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    shutil.copytree(BOOK / "eval", tmp_path / "build" / "eval")
    conf = tmp_path / "conf.py"
    assert CliRunner().invoke(html, ["--no-eval"], obj={"conf": conf}).exit_code in (0, 1)
    stored = tmp_path / "build" / "eval" / "ja" / "tiny.json"
    doc = json.loads(stored.read_text(encoding="utf-8"))
    for cell in doc["cells"]:
        for output in cell["outputs"]:
            if output.get("output_type") == "stream":
                output["text"] = output["text"].replace("torch says hi", "torch says hello again")
    stored.write_text(json.dumps(doc), encoding="utf-8")
    result = CliRunner().invoke(html, ["--no-eval"], obj={"conf": conf})
    assert re.search(r"│ ja +│ +\d+ │ built", result.output), result.output
    assert re.search(r"│ en +│ +\d+ │ up to date", result.output), result.output
    assert "torch says hello again" in page(tmp_path, "ja", "tiny")
    again = CliRunner().invoke(html, ["--no-eval"], obj={"conf": conf})
    assert "built" not in "".join(line for line in again.output.splitlines() if line.startswith("│"))


def test_a_language_without_index_md_is_one_error_naming_it_and_the_others_build(tmp_path: Path) -> None:
    conf = make_multilingual_book(tmp_path, {"en": "# Book\n\nIntro.\n", "ja": "# 本\n\n序文。\n"})
    (tmp_path / "chapters" / "ja" / "index.md").rename(tmp_path / "chapters" / "ja" / "other.md")
    result = build_html(load_config(conf), HtmlOptions(evaluate=False))
    assert {b.language: str(b.sphinx) for b in result.languages} == {"en": "built", "ja": "failed"}
    found = [(d.path, d.line, d.code) for d in result.all_diagnostics() if d.level == "error"]
    assert found == [(str(tmp_path / "chapters" / "ja" / "index.md"), 1, "toc.missing")], found
    assert "ja has no index.md" in next(d.message for d in result.all_diagnostics() if d.code == "toc.missing")


def test_a_new_renderer_reads_every_document_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """polybook's transforms shape the doctrees Sphinx keeps (what search skips, the tabs): a new
    polybook reads every document again, as a cold build would, not only the edited ones."""
    from polybook.render import build as render_build

    conf = make_multilingual_book(tmp_path, {"en": "# Book\n\nIntro.\n", "ja": "# 本\n\n序文。\n"})
    build = lambda: build_html(load_config(conf), HtmlOptions(evaluate=False))  # noqa: E731
    build()
    doctree = tmp_path / "build" / ".sphinx" / "en" / "doctrees" / "index.doctree"
    before = doctree.stat().st_mtime_ns
    monkeypatch.setattr(render_build, "renderer_version", lambda: "a newer polybook")
    assert [str(b.sphinx) for b in build().languages] == ["built", "built"]
    assert doctree.stat().st_mtime_ns != before  # read again, though the document did not change


def test_a_numbered_amsmath_block_has_the_same_anchor_on_every_build(tmp_path: Path) -> None:
    """MyST labels such a block with a random UUID: its link broke with every build."""
    text = "# Book\n\n\\begin{equation}\na = b\n\\end{equation}\n\nText.\n\n\\begin{align}\nx &= y\n\\end{align}\n"
    conf = make_multilingual_book(tmp_path, {"en": text, "ja": "# 本\n\n序文。\n"})
    anchors = []
    for _ in range(2):
        shutil.rmtree(tmp_path / "build", ignore_errors=True)
        build_html(load_config(conf), HtmlOptions(evaluate=False))
        anchors.append(re.findall(r'id="(equation-[^"]*)"', page(tmp_path, "en", "index")))
    assert anchors[0] == anchors[1] == ["equation-amsmath-index-1", "equation-amsmath-index-2"]
