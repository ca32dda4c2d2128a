"""The PDF books without LaTeX: targets, per-language typesetting, staging, log reading.

The LaTeX runs themselves are in test_pdf_book.py (slow).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from polybook.book import load_book
from polybook.config import load_config
from polybook.config.digest import sphinx_settings
from polybook.diagnostics import Level
from polybook.execute.outputs import read_outputs
from polybook.pdf.build import book_name, input_digest, pdf_targets, site_pdfs, sphinx_overrides
from polybook.pdf.languages import babel_name, latex_elements, typesetting
from polybook.pdf.log import diagnose, read_log, source_of
from polybook.pdf.scripts import Script, main_script
from polybook.pdf.stage import stage_framework
from polybook.render.settings import site_info
from polybook.site.assemble import copy_pdfs
from polybook.site.build import pdf_links

from conftest import FIXTURES, ROOT

LOGS = FIXTURES / "pdf" / "log"
TINY = FIXTURES / "pdf" / "tiny"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A copy of the one-chapter fixture book; returns its conf.py."""
    shutil.copytree(TINY, tmp_path / "book")
    return tmp_path / "book" / "conf.py"


def stage(conf: Path, language: str = "en", framework: str = "pytorch"):
    config = load_config(conf)
    book = load_book(config, [language])
    target = next(t for t in pdf_targets(config, [language], [framework]))
    staged = stage_framework(
        config,
        language,
        framework,
        book.chapters[language],
        read_outputs(config.build_dir, language),
        target.workdir / "src",
        config.build_dir / ".pdf" / "figures",
    )
    return config, target, staged


# -- what gets built ----------------------------------------------------------------------


def test_the_bundled_book_has_ten_pdfs_one_per_language_and_framework() -> None:
    config = load_config(ROOT / "conf.py")
    targets = pdf_targets(config)
    assert len(targets) == 10
    names = {t.pdf.relative_to(config.build_dir).as_posix() for t in targets}
    for lang in ("en", "ja", "pt", "zh", "tr"):
        for fw in ("mxnet", "pytorch"):
            assert f"pdf/{lang}/dive-into-deep-learning-{fw}.pdf" in names
    assert [t.name for t in pdf_targets(config, ["zh"], ["mxnet"])] == ["zh/mxnet"]


def test_each_language_header_links_its_two_pdfs() -> None:
    config = load_config(ROOT / "conf.py")
    assert site_pdfs(config, "ja") == [
        {"name": "PDF (MXNet)", "path": "ja/pdf/dive-into-deep-learning-mxnet.pdf"},
        {"name": "PDF (PyTorch)", "path": "ja/pdf/dive-into-deep-learning-pytorch.pdf"},
    ]
    # English lists PyTorch first, as its config does.
    assert [p["name"] for p in site_pdfs(config, "en")] == ["PDF (PyTorch)", "PDF (MXNet)"]


def test_published_pdfs_land_where_the_header_links_point(tiny: Path, tmp_path: Path) -> None:
    config = load_config(tiny)
    target = pdf_targets(config, ["en"], ["pytorch"])[0]
    target.pdf.parent.mkdir(parents=True)
    target.pdf.write_bytes(b"%PDF-1.5 stand-in")
    # Only the built PDF is linked, and the site assembly copies it where the link points.
    linked = site_pdfs(config, "en", built_only=True)
    assert [p["path"] for p in linked] == [f"en/pdf/{target.pdf.name}"]
    copy_pdfs(config, site_info(config, {"en": pdf_links(config, "en")}), tmp_path / "site")
    assert (tmp_path / "site" / linked[0]["path"]).read_bytes() == b"%PDF-1.5 stand-in"


# -- typesetting per language -------------------------------------------------------------


def elements_for(language: str, text: str) -> dict[str, str]:
    """The LaTeX settings of ``language``'s PDF whose prose is ``text``."""
    return latex_elements(language, typesetting(language, main_script([text])))


KO, JA, ZH = "딥러닝을 배우는 책입니다. 표와 그림", "深層学習の本です。表と図", "动手学深度学习的书。表和图"


def test_japanese_and_chinese_each_use_their_own_noto_cjk_face() -> None:
    ja, zh = elements_for("ja", JA)["fontenc"], elements_for("zh", ZH)["fontenc"]
    assert r"\usepackage{xeCJK}" in ja
    assert r"\setCJKmainfont{Noto Serif CJK JP}" in ja
    assert r"\setCJKmainfont{Noto Serif CJK SC}" in zh
    assert "第" in elements_for("ja", JA)["preamble"] and r"\contentsname}{目次}" in elements_for("ja", JA)["preamble"]
    assert r"\contentsname}{目录}" in elements_for("zh", ZH)["preamble"]


def test_fonts_follow_the_script_of_the_text_not_the_language_code() -> None:
    """Hangul -> Noto CJK KR (whatever the language is called), kana -> JP, Han -> SC, or TC for
    a Traditional Chinese language; Devanagari run by run in its own face; Cyrillic, Greek and
    Vietnamese in the main font, which has them."""
    assert main_script([KO + " with some English words in it"]) is Script.HANGUL
    assert main_script([JA]) is Script.KANA and main_script([ZH]) is Script.HAN
    assert r"\setCJKmainfont{Noto Serif CJK KR}" in elements_for("xx", KO)["fontenc"]
    assert r"\setCJKmainfont{Noto Serif CJK TC}" in elements_for("zh_TW", "動手學深度學習的書")["fontenc"]
    assert r"\setCJKmainfont{Noto Serif CJK JP}" in elements_for("xx", JA)["fontenc"]
    hindi = elements_for("hi", "गहन अध्ययन में गोता लगाएँ: एक पुस्तक")
    assert "polybookrunfont{Noto Serif Devanagari}" in hindi["preamble"] and "xeCJK" not in hindi.get("fontenc", "")
    for language, text in [("ru", "Погружение в глубокое обучение"), ("el", "Βουτιά στη βαθιά μάθηση"),
                           ("vi", "Đắm mình vào học sâu")]:  # fmt: skip
        elements = elements_for(language, text)
        assert "Noto Serif" in elements["fontpkg"] and "polybookrunfont" not in elements["preamble"]


def test_babel_is_told_only_about_languages_it_knows() -> None:
    """Turkish and Portuguese (babel's "portuges") have babel files here; Korean has none, Russian's is not installed:
    babel is not told about them (Sphinx would pass it a name it does not have)."""
    assert babel_name("tr") == "turkish" and babel_name("pt") == "portuges" and babel_name("en") == "english"
    assert babel_name("ko") == "" and elements_for("ko", KO)["babel"] == ""
    if not subprocess.run(["kpsewhich", "russianb.ldf"], capture_output=True, text=True).stdout.strip():
        assert elements_for("ru", "Погружение в глубокое обучение")["babel"] == ""


def test_latin_languages_take_their_words_from_babel_and_every_book_logs_lost_glyphs() -> None:
    for lang in ("en", "pt", "tr"):
        elements = elements_for(lang, "Dive into Deep Learning")
        assert elements["babel"] == r"\usepackage{babel}" and elements["polyglossia"] == ""
        assert "Noto Serif" in elements["fontpkg"]
    for lang, text in (("en", "Dive"), ("ja", JA), ("pt", "Mergulho"), ("tr", "Derin"), ("zh", ZH)):
        assert r"\tracinglostchars=2" in elements_for(lang, text)["preamble"]


def test_sphinx_settings_use_xelatex_numbered_figures_and_the_language_title() -> None:
    config = load_config(ROOT / "conf.py")
    target = pdf_targets(config, ["zh"], ["pytorch"])[0]
    overrides = sphinx_overrides(config, target)
    assert overrides["latex_engine"] == "xelatex"
    assert overrides["language"] == "zh_CN"
    assert overrides["numfig"] is True
    assert overrides["latex_documents"][0][:3] == ("index", "dive-into-deep-learning-pytorch.tex", "动手学深度学习")
    # The cover names the framework as conf.py labels it, the release is the library's version
    # (its version file, written from conf.py's release); before, the framework stood where the release goes.
    assert overrides["release"] == "0.1.0"
    assert r"{\itshape\LARGE PyTorch\par}" in overrides["latex_elements"]["maketitle"]


# -- staging: one framework, no tabs --------------------------------------------------------


def test_a_framework_book_holds_only_its_cells_and_text_tabs(tiny: Path) -> None:
    _, _, pytorch = stage(tiny, framework="pytorch")
    _, _, mxnet = stage(tiny, framework="mxnet")
    assert "torch.cuda.synchronize()" in pytorch.docs["tiny"].text
    assert "npx.waitall()" not in pytorch.docs["tiny"].text
    assert "Only PyTorch readers" in pytorch.docs["tiny"].text
    assert "Only MXNet readers" not in pytorch.docs["tiny"].text
    assert "npx.waitall()" in mxnet.docs["tiny"].text and "torch.cuda" not in mxnet.docs["tiny"].text
    assert "tab-set" not in pytorch.docs["tiny"].text + mxnet.docs["tiny"].text


def test_svg_figures_are_staged_as_pdf(tiny: Path) -> None:
    _, target, staged = stage(tiny)
    assert ":::{figure} /_book/chapters/img/graph.pdf" in staged.docs["tiny"].text
    assert (target.workdir / "src" / "_book" / "chapters" / "img" / "graph.pdf").read_bytes().startswith(b"%PDF")
    assert not [d for d in staged.diagnostics if d.code != "output.missing"]  # never evaluated: see below


def test_a_cell_without_stored_output_is_a_warning_at_its_line(tiny: Path) -> None:
    """The PDF shows stored results: a cell without them (never evaluated, or its code
    changed since) is said, not silently printed without output."""
    _, _, staged = stage(tiny)
    found = [(d.line, d.level, d.message) for d in staged.diagnostics if d.code == "output.missing"]
    assert found == [(14, "warning", "no stored output for this cell (pytorch): run polybook build eval")]


def test_the_digest_is_stable_and_follows_the_chapter(tiny: Path) -> None:
    config, target, first = stage(tiny)
    overrides, sphinx = sphinx_overrides(config, target), sphinx_settings(config, "latex")
    _, _, again = stage(tiny)
    assert input_digest(first, overrides, sphinx) == input_digest(again, overrides, sphinx)
    chapter = tiny.parent / "chapters" / "en" / "tiny.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    _, _, edited = stage(tiny)
    assert input_digest(edited, overrides, sphinx) != input_digest(first, overrides, sphinx)
    # Text only the other framework shows does not touch this PDF.
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("Only MXNet", "Just MXNet"), encoding="utf-8")
    _, _, mxnet_only = stage(tiny)
    assert input_digest(mxnet_only, overrides, sphinx) == input_digest(edited, overrides, sphinx)


def test_a_missing_figure_is_an_error_at_its_line(tiny: Path) -> None:
    chapter = tiny.parent / "chapters" / "en" / "tiny.md"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("graph.svg", "gone.svg"), encoding="utf-8")
    _, _, staged = stage(tiny)
    (problem,) = [d for d in staged.diagnostics if d.code == "pdf.figure"]
    assert problem.format().endswith(
        "chapters/en/tiny.md:6: error: figure '../img/gone.svg' not found inside the book"
        f" ({problem.message.split('(')[1]} [polybook.pdf.figure]"
    )


def test_a_remote_figure_is_a_link_in_the_pdf_and_a_warning(tiny: Path) -> None:
    """LaTeX cannot include an image from the web (d2l's Gaussian-process figures): the PDF
    links to it with its caption, the author is warned at its line, and the PDF still builds."""
    chapter = tiny.parent / "chapters" / "en" / "tiny.md"
    text = chapter.read_text(encoding="utf-8")
    remote = "\n\n![A contour plot](https://example.org/contours.svg)\n\nSee ![the fit](https://example.org/fit.svg).\n"
    chapter.write_text(text + remote, encoding="utf-8")
    _, _, staged = stage(tiny)
    found = [d for d in staged.diagnostics if d.code == "pdf.figure"]
    assert [(d.level, d.line) for d in found] == [("warning", text.count("\n") + 3), ("warning", text.count("\n") + 5)]
    assert "the PDF links to it" in found[0].message
    myst = staged.docs["tiny"].text
    assert (
        "[A contour plot](https://example.org/contours.svg)" in myst
        and "[the fit](https://example.org/fit.svg)" in myst
    )


# -- the LaTeX log ---------------------------------------------------------------------------


def test_missing_characters_are_read_with_their_code_and_font() -> None:
    log = read_log((LOGS / "missing-glyph.log").read_text(encoding="utf-8"))
    assert [(g.char, g.codepoint, g.font) for g in log.missing] == [
        ("🧪", "U+1F9EA", "Noto Serif Regular"),
        ("𐀀", "U+10000", "Noto Serif Regular"),
    ]
    assert log.errors == []


def test_a_latex_error_is_traced_to_the_chapter_line_through_the_source_markers(tiny: Path) -> None:
    chapter = tiny.parent / "chapters" / "en" / "tiny.md"
    text = chapter.read_text(encoding="utf-8").replace("The last paragraph.", r"Broken math $\undefinedmacro x$ here.")
    chapter.write_text(text, encoding="utf-8")
    _, target, staged = stage(tiny)
    log = read_log((LOGS / "undefined-macro.log").read_text(encoding="utf-8"))
    (error,) = log.errors
    assert (error.message, error.tex_line) == ("Undefined control sequence.", 138)
    tex = (LOGS / "undefined-macro.tex").read_text(encoding="utf-8").splitlines()
    # the MyST line (isort puts a blank line after the cell's import); the chapter line is 28
    assert source_of(tex, 138) == ("tiny", 26)
    (found,) = diagnose(log, lang="en", tex=tex, log_path=target.log, docs=staged.docs, paths=staged.paths)
    assert found.level is Level.ERROR
    assert found.path.endswith("chapters/en/tiny.md") and found.line == 28
    assert found.message.startswith(
        r'en: LaTeX error: Undefined control sequence. near "Broken math \(\undefinedmacro"'
    )
    assert "tiny-book-pytorch.log:" in found.message


def test_a_missing_glyph_is_an_error_naming_language_character_and_line(tiny: Path) -> None:
    chapter = tiny.parent / "chapters" / "en" / "tiny.md"
    text = chapter.read_text(encoding="utf-8").replace("The last paragraph.", "A test tube 🧪 and Linear B 𐀀.")
    chapter.write_text(text, encoding="utf-8")
    _, target, staged = stage(tiny)
    log = read_log((LOGS / "missing-glyph.log").read_text(encoding="utf-8"))
    found = diagnose(log, lang="en", tex=[], log_path=target.log, docs=staged.docs, paths=staged.paths)
    assert [(Path(d.path).name, d.line, str(d.code), d.level) for d in found] == [
        ("tiny.md", 28, "pdf.glyph", Level.ERROR),
        ("tiny.md", 28, "pdf.glyph", Level.ERROR),
    ]
    assert found[0].message.startswith("en: no font has '🧪' (U+1F9EA TEST TUBE); it would print as a blank")


def test_a_pdfs_file_name_keeps_the_letters_of_a_title_with_marks() -> None:
    class Named:
        title = ""

        def __init__(self, project: str) -> None:
            self.sphinx = {"project": project}

    assert book_name(Named("Đắm mình vào Học Sâu")) == "dam-minh-vao-hoc-sau"  # type: ignore[arg-type]
    assert book_name(Named("Mergulhe no Aprendizado Profundo")) == "mergulhe-no-aprendizado-profundo"  # type: ignore[arg-type]
    assert book_name(Named("动手学深度学习")) == "book"  # type: ignore[arg-type]
