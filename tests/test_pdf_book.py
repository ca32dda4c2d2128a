"""The ten PDF books of the bundled book, built once per session with xelatex, and checked
with poppler (pdftotext, pdffonts, pdftoppm); plus a tiny book that must fail to build.

Needs TeX Live, the fonts and poppler-utils: ``scripts/setup-pdf.sh``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.config import BookConfig, load_config
from polybook.dialect.nodes import Heading
from polybook.execute.outputs import read_outputs
from polybook.pdf.build import PdfReport, PdfTarget, build_pdfs, pdf_targets, read_stamp
from polybook.stage.i18n import text

from conftest import FIXTURES, ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("xelatex") is None, reason="TeX Live missing: run scripts/setup-pdf.sh"),
]

#: A line of code that only one framework's book has.
ONLY_IN = {"mxnet": "npx.waitall()", "pytorch": "torch.cuda.synchronize"}
#: What LaTeX writes itself, in each language: the contents title and a figure reference.
WORDS = {
    "en": ("CONTENTS", "Fig. 2.1"),
    "ja": ("目次", "図 2.1"),
    "pt": ("Conteúdo", "Figura 2.1"),
    "zh": ("目录", "图 2.1"),
    "tr": ("İçindekiler", "Şekil 2.1"),
}
#: The Noto CJK face set for the language: JP and SC draw shared ideographs differently.
#: Checked in the log, not with pdffonts: xdvipdfmx names every face of the .ttc
#: collection after its first one (JP) although it embeds the right one.
CJK_FACES = {"ja": ("NotoSerifCJKJP", "NotoSansCJKJP"), "zh": ("NotoSerifCJKSC", "NotoSansCJKSC")}
PREVIEW = ROOT / "build" / "pdf" / "preview"  # PNGs of page 1, for people to look at


@pytest.fixture(scope="session")
def bundled() -> tuple[BookConfig, PdfReport]:
    """The ten PDFs of the bundled book in build/pdf (rebuilt only what changed)."""
    config = load_config(ROOT / "conf.py")
    report = build_pdfs(config)
    assert not report.failed, "\n".join(d.format() for d in report.diagnostics)
    return config, report


def pdftotext(pdf: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout


def chapter_title(config: BookConfig, language: str) -> str:
    doc = load_book(config, [language]).chapters[language]["async-computation"]
    return next(n.text for n in doc.nodes if isinstance(n, Heading) and n.level == 1)


TARGETS = [(lang, fw) for lang in ("en", "ja", "pt", "zh", "tr") for fw in ("mxnet", "pytorch")]


@pytest.mark.parametrize(("language", "framework"), TARGETS)
def test_each_pdf_has_its_chapter_title_its_framework_code_and_localised_words(
    bundled: tuple[BookConfig, PdfReport], language: str, framework: str
) -> None:
    config, _ = bundled
    (target,) = pdf_targets(config, [language], [framework])
    content = pdftotext(target.pdf)
    assert chapter_title(config, language) in content
    assert ONLY_IN[framework] in content
    other = next(fw for fw in ONLY_IN if fw != framework)
    assert ONLY_IN[other] not in content
    contents, figure = WORDS[language]
    assert contents in content and figure in content


@pytest.mark.parametrize(("language", "framework"), TARGETS)
def test_each_pdf_embeds_its_fonts_and_its_log_has_no_missing_character(
    bundled: tuple[BookConfig, PdfReport], language: str, framework: str
) -> None:
    config, _ = bundled
    (target,) = pdf_targets(config, [language], [framework])
    listing = subprocess.run(["pdffonts", str(target.pdf)], capture_output=True, text=True, check=True).stdout
    fonts = listing.splitlines()[2:]
    assert fonts and all(line.split()[-5] == "yes" for line in fonts), listing  # the "emb" column
    log = target.log.read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log
    families = set(re.findall(r"Font family '(\w+)\(\d+\)' created", log))
    for lang, faces in CJK_FACES.items():
        assert set(faces) <= families if lang == language else not set(faces) & families


def test_pytorch_books_show_the_needs_a_gpu_notice_from_the_execution_results(
    bundled: tuple[BookConfig, PdfReport],
) -> None:
    config, _ = bundled
    for language in config.languages:
        cells = [c for doc in read_outputs(config.build_dir, language).values() for c in doc.get("cells", [])]
        if not any(c["framework"] == "pytorch" and c["status"] == "needs_gpu" for c in cells):
            continue  # not executed here yet (fresh clone): nothing to show
        (target,) = pdf_targets(config, [language], ["pytorch"])
        assert text(language, "needs_gpu") in " ".join(pdftotext(target.pdf).split())


def test_nothing_is_rebuilt_when_nothing_changed(bundled: tuple[BookConfig, PdfReport]) -> None:
    config, _ = bundled
    started = time.monotonic()
    report = build_pdfs(config)
    assert {o.status for o in report.outcomes} == {"unchanged"}
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(("language", "framework"), [("ja", "pytorch"), ("zh", "mxnet")])
def test_page_one_of_the_cjk_pdfs_is_rendered_for_people_to_look_at(
    bundled: tuple[BookConfig, PdfReport], language: str, framework: str
) -> None:
    config, _ = bundled
    (target,) = pdf_targets(config, [language], [framework])
    png = PREVIEW / f"{language}-{framework}-page1.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    command = ["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile", str(target.pdf)]
    subprocess.run([*command, str(png.with_suffix(""))], check=True)
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 5000


# -- a book that must not build ---------------------------------------------------------------


def tiny_book(tmp_path: Path, last_paragraph: str) -> Path:
    shutil.copytree(FIXTURES / "pdf" / "tiny", tmp_path / "book")
    chapter = tmp_path / "book" / "chapters" / "en" / "tiny.md"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("The last paragraph.", last_paragraph), "utf-8")
    return tmp_path / "book" / "conf.py"


def run_cli(*args: str) -> tuple[int, str]:
    from polybook.cli import build, main
    from polybook.pdf.commands import pdf

    if "pdf" not in build.commands:  # until cli.py mounts it
        build.add_command(pdf)
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output  # stdout and stderr, interleaved


def test_a_character_no_font_has_fails_the_build_naming_language_character_and_line(tmp_path: Path) -> None:
    conf = tiny_book(tmp_path, "A test tube 🧪 in the last paragraph.")
    code, output = run_cli("--conf", str(conf), "build", "pdf", "--framework", "pytorch")
    assert code == 1
    assert "chapters/en/tiny.md:28: error: en: no font has '🧪' (U+1F9EA TEST TUBE)" in output
    assert "[polybook.pdf.glyph]" in output
    target = pdf_targets(load_config(conf), ["en"], ["pytorch"])[0]
    assert not target.pdf.exists() and not target.stamp.exists()


def test_a_formula_latex_cannot_set_costs_that_formula_not_the_book(tmp_path: Path) -> None:
    """An undefined macro inline, and a display formula whose environments do not close as they
    open with an ``&`` outside them (as d2l-ja's machine-translated ``\\ begin {pマトリックス}``):
    both are shown as their text in a marked box, each is an error at its line, the formula
    between them is set, and the PDF is built -- but not publishable."""
    conf = tiny_book(
        tmp_path,
        "Broken math $\\undefinedmacro x$ here.\n\nAnd $x^2 + y_{i}$ is fine.\n\n"
        "$$\\begin{bmatrix} 1 & 2 \\end{pmatrix} & 3$$\n\nThe end.",
    )
    report = build_pdfs(load_config(conf), frameworks=["pytorch"])
    (outcome,) = report.outcomes
    assert outcome.status == "built with errors" and report.failed == [outcome]
    errors = [d for d in outcome.diagnostics if d.level == "error"]
    assert [(Path(e.path).name, e.line, str(e.code)) for e in errors] == [
        ("tiny.md", 28, "pdf.formula"),
        ("tiny.md", 32, "pdf.formula"),
    ], "\n".join(d.format() for d in outcome.diagnostics)
    assert "Undefined control sequence" in errors[0].message and "polybook-formulas.log" in errors[0].message
    assert "\\undefinedmacro x" in errors[0].message and "fix the formula" in errors[0].message
    content = " ".join(pdftotext(outcome.target.pdf).split())
    assert content.count("[formula not set]") == 2
    assert "\\undefinedmacro x" in content and "1 & 2" in content and "The end." in content
    stamp = read_stamp(outcome.target)
    assert stamp is not None and [(e.line, str(e.code)) for e in stamp.errors] == [
        (28, "pdf.formula"),
        (32, "pdf.formula"),
    ]
    again = build_pdfs(load_config(conf), frameworks=["pytorch"])  # nothing changed: said again, still failing
    (unchanged,) = again.outcomes
    assert unchanged.status == "unchanged" and again.failed == [unchanged]
    assert [(d.line, str(d.code)) for d in unchanged.diagnostics if d.level == "error"] == [
        (28, "pdf.formula"),
        (32, "pdf.formula"),
    ]


def test_an_api_entry_or_figure_that_is_not_there_costs_only_itself(tmp_path: Path) -> None:
    """zh's API page documents names its library lacks, a page names a figure that is gone: each
    is an error at its line and is left out; the rest of the book is built and can be read."""
    conf = tiny_book(
        tmp_path,
        "```eval_rst\n.. autofunction:: nowhere.train\n```\n\n![Gone.](../img/gone.png)\n\nThe end is here.",
    )
    report = build_pdfs(load_config(conf), frameworks=["pytorch"])
    (outcome,) = report.outcomes
    assert outcome.status == "built with errors" and report.failed == [outcome]
    errors = [(Path(d.path).name, d.line, str(d.code)) for d in outcome.diagnostics if d.level == "error"]
    assert errors == [("tiny.md", 29, "api.module"), ("tiny.md", 32, "pdf.figure")]
    content = " ".join(pdftotext(outcome.target.pdf).split())
    assert "The end is here." in content and "Only PyTorch readers" in content
    stamp = read_stamp(outcome.target)
    assert stamp is not None and [str(e.code) for e in stamp.errors] == ["api.module", "pdf.figure"]


def test_a_latex_error_in_a_block_costs_that_block(tmp_path: Path) -> None:
    """Any other LaTeX error tied to one block of a chapter (here raw LaTeX it cannot run): the
    block is left out with a notice in its place, the error is said at its line, the PDF built."""
    conf = tiny_book(tmp_path, "```eval_rst\n.. raw:: latex\n\n   \\undefinedmacro\n```\n\nThe end is here.")
    report = build_pdfs(load_config(conf), frameworks=["pytorch"])
    (outcome,) = report.outcomes
    assert outcome.status == "built with errors", "\n".join(d.format() for d in outcome.diagnostics)
    (error,) = [d for d in outcome.diagnostics if d.level == "error"]
    assert (Path(error.path).name, str(error.code)) == ("tiny.md", "pdf.latex")
    assert "Undefined control sequence" in error.message and "left out of the PDF" in error.message
    content = " ".join(pdftotext(outcome.target.pdf).split())
    assert "[not set]" in content and "The end is here." in content and "Only PyTorch readers" in content


def test_the_tiny_book_builds_once_fixed_and_the_cli_summarises(tmp_path: Path) -> None:
    conf = tiny_book(tmp_path, "The last paragraph, fixed.")
    code, output = run_cli("--conf", str(conf), "build", "pdf", "--framework", "pytorch", "-j", "1")
    assert code == 0, output
    assert "1 built, 0 unchanged, 0 failed" in output
    target: PdfTarget = pdf_targets(load_config(conf), ["en"], ["pytorch"])[0]
    content = pdftotext(target.pdf)
    assert "Fig. 1.1" in content and "Only PyTorch readers" in content and "Only MXNet" not in content
    code, output = run_cli("--conf", str(conf), "build", "pdf")  # mxnet is new, pytorch unchanged
    assert code == 0 and "1 built, 1 unchanged, 0 failed" in output


def test_unknown_languages_and_frameworks_are_usage_errors(tmp_path: Path) -> None:
    conf = tiny_book(tmp_path, "The last paragraph.")
    code, output = run_cli("--conf", str(conf), "build", "pdf", "--lang", "xx")
    assert code == 2 and "not a language of this book: xx" in output
    code, output = run_cli("--conf", str(conf), "build", "pdf", "--framework", "jax")
    assert code == 2 and "not a framework of this book: jax" in output


def test_unicode_math_font_fallback_and_the_bibliography(tmp_path: Path) -> None:
    """A U+2212 minus and ≤ in display math, symbols and other scripts in the text, and a
    citation: the PDF builds, with the citation in the book's style and a bibliography."""
    conf = tiny_book(
        tmp_path,
        "The entropy $$H(X, Y) = −E_{x∼P}[\\log P(x)] ≤ α$$\n"
        "is small; a snowman ☃ → Ж, 한국어 and ह are set too, as :cite:`Lovelace.1843` shows.\n\n"
        "```python\nprint('☃ 한국어 ─┼─')  # in code too\n```\n\n"
        ":Sizes (after :cite:`Lovelace.1843`)\n\n|a|b|\n|-|-|\n|1|2|\n:label:`tab_sizes`\n\nSee :numref:`tab_sizes`.",
    )
    bib = "@article{Lovelace.1843,\n  title = {Notes on the engine},\n  author = {Lovelace, Ada},\n"
    (conf.parent / "chapters" / "en" / "refs.bib").write_text(bib + "  journal = {Memoirs},\n  year = {1843}\n}\n")
    conf.write_text(conf.read_text().replace('"build_dir": "build",', '"build_dir": "build", "bibfile": "refs.bib",'))
    report = build_pdfs(load_config(conf), frameworks=["pytorch"])
    (outcome,) = report.outcomes
    assert outcome.status == "built", "\n".join(d.format() for d in outcome.diagnostics)
    content = pdftotext(outcome.target.pdf)
    assert "(Lovelace, 1843)" in content and "Notes on the engine" in content
    assert "References" in content and "☃" in content and "한국어" in content
    assert "See Table 1.1" in content and "print('☃ 한국어 ─┼─')" in content


def test_chapters_the_toc_does_not_number_are_unnumbered_in_the_pdf(tmp_path: Path) -> None:
    """As d2lbook numbers: the preface (an unnumbered toc block) and the references (another)
    carry no number, the chapters of the :numbered: block are 1 and 2."""
    conf = tiny_book(tmp_path, "The last paragraph.")
    en = conf.parent / "chapters" / "en"
    (en / "index.md").write_text(
        "# Tiny Book\n\n```toc\n:maxdepth: 1\n\npreface\n```\n\n"
        "```toc\n:maxdepth: 2\n:numbered:\n\ntiny\nsecond\n```\n\n```toc\n:maxdepth: 1\n\nclosing\n```\n",
        encoding="utf-8",
    )
    (en / "preface.md").write_text(
        "# Preface\n\nWhy this book.\n\n## Who should read it\n\nEveryone.\n", encoding="utf-8"
    )
    (en / "second.md").write_text("# Second Steps\n\nMore.\n\n## A section\n\nText.\n", encoding="utf-8")
    (en / "closing.md").write_text("# Closing Words\n\nThe end.\n", encoding="utf-8")
    report = build_pdfs(load_config(conf), frameworks=["mxnet"])
    (outcome,) = report.outcomes
    assert outcome.status == "built", "\n".join(d.format() for d in outcome.diagnostics)
    text = pdftotext(outcome.target.pdf)
    contents = [line.strip() for line in text.split("\f")[1].splitlines() if line.strip()]  # the contents
    assert contents[:5] == ["CONTENTS", "Preface", "1", "1 Tiny Chapter", "2"] and "2 Second Steps" in contents
    assert "Closing Words" in contents
    assert not any(line.startswith(("0 Preface", "1 Preface", "3 Closing")) for line in contents)
    assert "2.1 A section" in text and "Who should read it" in text and "0.1 Who should read it" not in text


# -- every script typeset as its own ----------------------------------------------------------

#: A language code, a title and a paragraph in each script; the face the PDF must use for it
#: (as the xelatex log names the fonts it loaded), and a word the text layer must give back
#: (Arabic right to left: run by run, shaped; Korean with the spaces between its words).
SCRIPTS = [
    (
        "ko",
        "딥러닝 입문",
        "이 책은 딥러닝을 코드와 함께 설명합니다. 표와 그림이 있습니다.",
        "Noto Serif CJK KR",
        "코드와 함께",  # the space between the words kept
    ),
    ("vi", "Đắm mình vào Học Sâu", "Cuốn sách này giải thích học sâu bằng mã nguồn và hình vẽ.", "Noto Serif", "giải"),
    ("ru", "Погружение в глубокое обучение", "Эта книга объясняет глубокое обучение с кодом.", "Noto Serif", "книга"),
    ("el", "Βουτιά στη βαθιά μάθηση", "Αυτό το βιβλίο εξηγεί τη βαθιά μάθηση με κώδικα.", "Noto Serif", "βιβλίο"),
    ("hi", "गहन अध्ययन", "यह पुस्तक कोड के साथ गहन अध्ययन को समझाती है।", "Noto Serif Devanagari", "पुस्तक"),
    ("ja", "深層学習", "この本はコードと一緒に深層学習を説明します。", "Noto Serif CJK JP", "深層学習"),
    ("zh_TW", "動手學深度學習", "這本書用程式碼解釋深度學習。", "Noto Serif CJK TC", "深度學習"),
    ("ar", "الغوص في التعلم العميق", "يشرح هذا الكتاب التعلم العميق بالشيفرة.", "Noto Naskh Arabic", "الكتاب"),
]


def one_language_book(tmp_path: Path, code: str, title: str, text: str) -> Path:
    """The tiny book with one language, ``code``, whose chapter is written in ``text``'s script."""
    book = tmp_path / "book"
    shutil.copytree(FIXTURES / "pdf" / "tiny", book)
    chapters = book / "chapters"
    (chapters / "en").rename(chapters / code)
    chapter = chapters / code / "tiny.md"
    body = chapter.read_text(encoding="utf-8").replace("# Tiny Chapter", f"# {title}")
    chapter.write_text(body.replace("The last paragraph.", text), encoding="utf-8")
    conf = book / "conf.py"
    conf.write_text(
        conf.read_text(encoding="utf-8")
        .replace('"source_language": "en"', f'"source_language": "{code}"')
        .replace('"languages": {"en": {"name": "English"}}', f'"languages": {{"{code}": {{"name": "{title}"}}}}'),
        encoding="utf-8",
    )
    return conf


@pytest.mark.parametrize(("code", "title", "text", "face", "word"), SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_every_script_is_typeset_in_its_own_face(
    tmp_path: Path, code: str, title: str, text: str, face: str, word: str
) -> None:
    conf = one_language_book(tmp_path, code, title, text)
    report = build_pdfs(load_config(conf), frameworks=["mxnet"])
    (outcome,) = report.outcomes
    problems = [d for d in outcome.diagnostics if d.level == "error" or "Babel" in d.message]
    assert outcome.status == "built" and not problems, "\n".join(d.format() for d in outcome.diagnostics)
    log = outcome.target.log.read_text(encoding="utf-8", errors="replace")
    assert face.replace(" ", "") in log.replace(" ", ""), f"{face} not loaded"
    # NFKC: Arabic comes out of the text layer as the presentation forms it was shaped into
    assert word in unicodedata.normalize("NFKC", " ".join(pdftotext(outcome.target.pdf).split()))


def test_the_cover_fits_any_title_and_authors_and_names_framework_and_release(tmp_path: Path) -> None:
    """Sphinx's title page sets the authors in one tabular row: d2l's ran past the page's edge
    ("... Alexander J. Smol"). Every word of page 1 is inside the page, the framework is named as
    conf.py labels it and "Release 2.5.1" is the book's (before, "pytorch" stood where the release goes)."""
    conf = tiny_book(tmp_path, "The last paragraph.")
    title = "Dive into Deep Learning: Interactive Deep Learning Book with Code, Math, and Discussions"
    authors = ", ".join(
        [
            "Aston Zhang",
            "Zachary C. Lipton",
            "Mu Li",
            "Alexander J. Smola",
            "Brent Werness",
            "Rachel Hu",
            "Shuai Zhang",
            "Yi Tay",
            "Anirudh Dagar",
            "and Yuan Tang",
        ]
    )
    text = conf.read_text(encoding="utf-8").replace('project = "Tiny Book"', f'project = "{title}"')
    text = text.replace('author = "polybook tests"', f'author = "{authors}"\nrelease = "2.5.1"')
    text = text.replace(
        '"default_tab": "mxnet",', '"default_tab": "mxnet",\n    "framework_labels": {"pytorch": "PyTorch"},'
    )
    conf.write_text(text, encoding="utf-8")
    code, output = run_cli("--conf", str(conf), "build", "pdf", "--framework", "pytorch", "-j", "1")
    assert code == 0, output
    pdf = pdf_targets(load_config(conf), ["en"], ["pytorch"])[0].pdf
    bbox = subprocess.run(
        ["pdftotext", "-bbox", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    width = float(re.search(r'<page width="([\d.]+)"', bbox)[1])  # type: ignore[index]
    words = re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', bbox)
    shown = [word for _, _, word in words]
    assert "Smola," in shown and "Tang" in shown and "Discussions" in shown
    assert "PyTorch" in shown and "2.5.1" in shown and "pytorch" not in shown
    outside = [(word, x0, x1) for x0, x1, word in words if float(x0) < 0 or float(x1) > width]
    assert not outside, f"past the page's edge ({width}): {outside}"
    subprocess.run(
        ["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", "-singlefile", str(pdf), str(tmp_path / "cover")],
        check=True,
    )
    assert (tmp_path / "cover.png").stat().st_size > 0
