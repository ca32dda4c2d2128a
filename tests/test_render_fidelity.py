"""What real d2l chapters need from the renderer, on small chapters written for these tests:
slide marks, labelled equations and figures that end a paragraph, IPython cells, no
empty tab panel, the bibliography, eval_rst API pages and files, Unicode math in PDFs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.dialect import DialectSettings, parse_text
from polybook.pdf.fonts import plan_fonts
from polybook.pdf.unicode_math import latex_math
from polybook.render.settings import overrides, site_info
from polybook.render.stage import stage_language
from polybook.stage.bibliography import BibliographyPlan
from polybook.stage.myst import transpile
from polybook.stage.outputs import ChapterResults, OutputRenderer

from conftest import FIXTURES

SETTINGS = DialectSettings(frameworks=("mxnet", "pytorch"), default_tab="mxnet")


def myst(source: str, framework: str | None = None, **options: object) -> str:
    return transpile(parse_text(source, "chapters/en/x.md", SETTINGS), "en", framework=framework, **options).text


def test_slide_marks_leave_the_book_but_links_and_code_stay() -> None:
    source = (
        "# A [**heading**]\n\n"
        "We [**keep this**] (~~drop this~~) and (**this,\nover two lines**).\n"
        "A [**bold link**](https://example.org) and `f(**kwargs)` stay.\n\n"
        "- an item (**marked**) [~~and a slide-only aside\nof two lines~~]\n- next\n"
    )
    text = myst(source)
    assert "# A heading" in text
    assert "We keep this  and this,\nover two lines." in text
    assert "[**bold link**](https://example.org) and `f(**kwargs)` stay." in text
    assert "- an item marked \n- next" in text  # still one list: no blank line where the aside was
    assert "drop this" not in text and "slide-only" not in text
    # The model keeps what the author wrote (the checker compares it).
    doc = parse_text(source, "chapters/en/x.md", SETTINGS)
    assert "[**keep this**] (~~drop this~~)" in doc.nodes[1].source  # type: ignore[attr-defined]


def test_a_paragraph_ending_with_math_or_an_image_gives_a_labelled_equation_or_figure() -> None:
    source = (FIXTURES / "parse" / "paragraph_labels.md").read_text(encoding="utf-8")
    out = transpile(parse_text(source, "chapters/en/x.md", SETTINGS), "en")
    text = out.text
    assert "The fundamental theorem, written in expanded form as\n\n```{math}\n:label: eq_theorem" in text
    assert "```{math}\n:label: eq_limit\n\nf'(x) = \\lim_{h \\rightarrow 0}" in text
    assert "(**" not in text.split("eq_limit")[1].split("```")[1]  # the marks stay out of the equation
    assert ":::{figure} ../img/box.svg\n:name: fig_box" in text and ":name: fig_wheel" in text
    assert "See {eq}`eq_theorem`" in text
    lines = text.split("\n")
    assert out.lines[lines.index(":label: eq_theorem")] == 4  # the $$ line of the chapter
    assert out.lines[lines.index(":name: fig_box")] == 13


def test_ipython_cells_and_fences_are_highlighted_as_ipython() -> None:
    text = myst(
        "```{.python .input}\n%matplotlib inline\nx = 1\n```\n\n"
        "```{.python .input}\n!ls -lh my_mlp*\n```\n\n"
        "```{.python .input}\nx != 1\n```\n\n```python\n%%time\nx = 2\n```\n\n```bash\n!ls\n```\n"
    )
    assert text.count("```ipython3\n") == 3 and "```python\nx != 1" in text and "```bash\n!ls" in text


def _results(*cells: dict[str, object]) -> ChapterResults:
    return ChapterResults.from_doc({"programs": {}, "cells": list(cells)})


def test_no_tab_panel_is_ever_empty_and_none_says_it_has_nothing() -> None:
    """As d2lbook's tab groups: a framework with nothing in a group (an empty text tab, a cell that
    printed nothing where another's printed something) has no tab in it, rather than a notice."""
    source = (
        "```{.python .input}\n#@tab all\nx = 1\n```\n\n"
        ":begin_tab:`mxnet`\nOnly MXNet.\n:end_tab:\n\n:begin_tab:`pytorch`\n\n:end_tab:\n"
    )
    doc = parse_text(source, "chapters/en/x.md", SETTINGS)
    (cell,) = doc.cells("mxnet")
    from polybook.execute.outputs import code_hashes

    ok = {"framework": "mxnet", "index": 0, "code": code_hashes([cell.code])[0], "status": "ok", "outputs": []}
    labels = {"mxnet": "MXNet", "pytorch": "PyTorch"}.__getitem__  # conf.py's framework_labels
    text = transpile(doc, "en", outputs=OutputRenderer("en", _results(ok), str, label=labels), label=labels).text
    panels = text.split("{tab-item}")[1:]
    assert [panel.split("\n", 1)[0].strip() for panel in panels] == ["PyTorch", "MXNet"]
    for panel in panels:
        body = panel.split("\n", 4)[4]
        assert body.strip(": \n"), panel  # sphinx-design refuses a tab without content
    assert "No outputs: this cell has not been executed." in text and "Only MXNet." in text
    assert "No output for" not in text and "Nothing specific" not in text
    assert ":class: polybook-tabs polybook-outputs polybook-lacks-mxnet polybook-default-mxnet" in text
    assert ":class: polybook-tabs polybook-text polybook-lacks-pytorch polybook-default-mxnet" in text


def test_the_references_page_lists_every_work_else_the_first_page_citing_it() -> None:
    def doc(text: str, name: str):
        return parse_text(text, f"chapters/en/{name}.md", SETTINGS)

    a = doc("# A\n\nSee :cite:`Turing.1950` and :citet:`Lovelace.1843,Turing.1950`.\n", "a")
    b = doc("# B\n\nAgain :cite:`Turing.1950`, and :cite:`Hopper.1952`; broken :cite:`Van- Gool.2006`.\n", "b")
    refs = doc("# References\n\n:bibliography:`../refs.bib`\n", "refs")
    bib = [Path("refs.bib")]
    with_page = BibliographyPlan.make("ja", {"a": a, "b": b, "refs": refs}, bib, None)
    assert with_page.references_pages == ["refs"] and with_page.page_end("a") == []
    assert transpile(refs, "ja", bibliography=with_page.references()).text.endswith("```{bibliography}\n```\n")
    plan = BibliographyPlan.make("ja", {"a": a, "b": b}, bib, None)
    assert plan.listed_on == {"a": ["Turing.1950", "Lovelace.1843"], "b": ["Hopper.1952"]}
    end = "\n".join(plan.page_end("b"))
    assert "{rubric} 参考文献" in end and ':filter: key in {"hopper.1952"}' in end and ":style: alpha" in end
    found: list = []
    cite = plan.cite_handler(b, found, "html.cite.no_bib")  # type: ignore[arg-type]
    assert cite("cite", "Van- Gool.2006", 3) == "\\[Van- Gool.2006\\]" and cite("cite", "Hopper.1952", 3) is None
    assert not found
    assert [d.code for d in b.diagnostics] == ["cite.key"] and b.diagnostics[0].line == 3


def book_with_library(tmp_path: Path) -> tuple[Path, Path]:
    """The render fixture book, its conf.py naming its library ``mylib``, and the package
    ``mylib`` where the evaluation mirrors the book's library (``build/run/en/mxnet/mylib``:
    the default tab's mirror)."""
    book = tmp_path / "book"
    shutil.copytree(FIXTURES / "render" / "book", book)
    declare_library(book / "conf.py", "mylib/core.py")
    library = book / "build" / "run" / "en" / "mxnet" / "mylib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("", encoding="utf-8")
    return book, library


def declare_library(conf: Path, lib_file: str) -> None:
    """conf.py's ``polybook.library``: the only package an API page may document."""
    setting = f'    "library": {{"frameworks": {{"mxnet": {{"lib_file": "{lib_file}"}}}}}},\n}}\n'
    conf.write_text(conf.read_text(encoding="utf-8").removesuffix("}\n") + setting, encoding="utf-8")


def test_api_pages_document_the_books_own_module_or_say_which_is_missing(tmp_path: Path) -> None:
    book, library = book_with_library(tmp_path)
    api = (
        "# API\n\n```eval_rst\n.. automodule:: mylib.core\n   :members:\n```\n\n"
        "```eval_rst\n.. automodule:: mylib.missing\n   :members:\n```\n\n"
        "```eval_rst\n.. raw:: html\n   :file: front.html\n```\n\n"
        "```eval_rst\n.. raw:: html\n   :file: nowhere.html\n```\n\n"
        "```eval_rst\n.. currentmodule:: mylib.core\n\n.. autofunction:: helper\n.. autoclass:: Newer\n```\n\n"
        "```eval_rst\n.. raw:: html\n   :url: https://evil.example/page.html\n```\n"
    )
    (book / "chapters" / "en" / "api.md").write_text(api, encoding="utf-8")
    (book / "chapters" / "en" / "front.html").write_text("<p>front</p>\n", encoding="utf-8")
    core = "import json\nimport numpy\nfrom not_installed_framework import nn\n\ndef helper():\n    pass\n"
    (library / "core.py").write_text(core, encoding="utf-8")
    config = load_config(book / "conf.py")
    doc = parse_text(api, "chapters/en/api.md", SETTINGS)
    stage = stage_language(config, "en", {"api": doc}, {}, {}, tmp_path / "src", [])
    found = [(d.line, d.code) for d in stage.diagnostics]
    assert found == [(9, "api.module"), (20, "rst.file"), (27, "api.module"), (32, "rst.file")]
    assert "a URL is read while the book is built" in stage.diagnostics[3].message
    assert "mylib.core (" in stage.diagnostics[2].message and "has no 'Newer'" in stage.diagnostics[2].message
    assert "'mylib.missing' is not found" in stage.diagnostics[0].message
    text = stage.docs["api"].text
    # documented from the source (as autodoc would: the module, its function), not imported
    assert ".. automodule::" not in text and ".. py:module:: mylib.core" in text
    assert ".. py:function:: helper()\n   :module: mylib.core" in text
    assert ".. polybook: automodule mylib.missing left out" in text
    assert ":file: _book/chapters/en/front.html" in text and (tmp_path / "src/_book/chapters/en/front.html").is_file()
    assert "nowhere.html" in text.split(".. polybook: left out: raw:: html")[1]
    assert stage.api.modules == [library / "core.py"]  # what the page was written from (its digest)
    assert "polybook_import_roots" not in overrides(config, "en", site_info(config, {}), [], stage)
    assert "evil.example" in text.split(".. polybook: left out: raw:: html")[2]


def test_the_fork_servers_imports_leave_a_failing_module_to_the_worker(tmp_path: Path) -> None:
    """What the Sphinx workers' fork server imports ahead (polybook.stage.workers): a module
    that is missing or raises on import does not stop it."""
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('no GPU here')\n", encoding="utf-8")
    check = (
        "import sys, polybook.stage.preload; "
        "print('raises_on_import' in sys.modules, 'sphinx.application' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "POLYBOOK_SPHINX_PRELOAD": "raises_on_import,not_a_module_at_all"}
    done = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_unicode_in_math_becomes_what_latex_math_can_set() -> None:
    assert latex_math("H(X, Y) = −E_{x∼P} ≤ α Γ Α ϵ ℝ") == (
        "H(X, Y) = -E_{x\\sim P} \\leq  \\alpha  \\Gamma  A  \\epsilon  \\mathbb{R}"
    )
    assert latex_math("x_{批}") == "x_{\\text{批}}"  # text: the preamble gives it a font


def test_fallback_fonts_follow_the_script_of_the_character_not_the_language() -> None:
    from polybook.pdf.fonts import font_charsets

    if not {"Noto Serif", "Noto Sans Math", "Noto Serif CJK KR"} <= set(font_charsets()):
        pytest.skip("the Noto fonts are missing: run scripts/setup-pdf.sh")
    plan = plan_fonts(["a − b → ☃, Ж, 한국어, カナ and 中文, ह"], "Noto Serif")
    families = {char: plan.families[command] for char, command in plan.chars.items()}
    assert "Ж" not in families  # Noto Serif has Cyrillic
    assert families["한"] == "Noto Serif CJK KR" and families["カ"] == "Noto Serif CJK JP"
    assert families["中"] == "Noto Serif CJK JP"  # kana in the same text: Japanese forms
    assert families["ह"].endswith("Devanagari") and families["−"] == "Noto Sans Math"
    preamble = plan.preamble()
    assert "\\newfontfamily\\polybookfontA{" in preamble
    assert "\\newunicodechar{한}{{\\polybookfont" in preamble and '\\symbol{"D55C}}}' in preamble
    boxes = plan_fonts(["─┼─"], "Noto Serif")
    assert '\\newunicodechar{─}{\\polybookchar{"2500}' in boxes.preamble()  # code keeps its own font
    cjk = plan_fonts(["中文 → x"], "Noto Serif", "Noto Serif CJK SC")
    assert "中" not in cjk.chars  # xeCJK sets it


def test_the_checker_compares_a_paragraph_ending_equation_by_its_label(tmp_path: Path) -> None:
    from polybook.book import load_book
    from polybook.check import check_book

    from minibook import make_book

    en = "# T\n\nIn expanded form\n$$f(x) = x + 1.$$\n:eqlabel:`eq_f`\n\nSee :eqref:`eq_f`.\n"
    ja = "# T\n\n展開すると\n$$f(x) = x + 2.$$\n:eqlabel:`eq_f`\n\n:eqref:`eq_f` を参照。\n"
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    found = [(f.code, f.location.line) for f in result.active if f.code.startswith(("math", "ref", "label"))]
    assert found == [("math.changed", 4)]


def test_a_rebuilt_library_changes_the_digest_of_its_api_pages(tmp_path: Path) -> None:
    book, library = book_with_library(tmp_path)
    (library / "core.py").write_text("def f():\n    pass\n", encoding="utf-8")
    config = load_config(book / "conf.py")
    doc = parse_text("# API\n\n```eval_rst\n.. automodule:: mylib.core\n```\n", "chapters/en/api.md", SETTINGS)
    first = stage_language(config, "en", {"api": doc}, {}, {}, tmp_path / "src", []).digest
    (library / "core.py").write_text("def f():\n    '''Documented now.'''\n", encoding="utf-8")
    assert stage_language(config, "en", {"api": doc}, {}, {}, tmp_path / "src", []).digest != first


def test_a_table_with_d2ls_caption_and_label_is_numbered() -> None:
    source = (
        "# T\n\nSee :numref:`tab_sizes`.\n\n:Sizes of things (after :cite:`Turing.1950`)\n\n"
        "|thing|size|\n|-|-|\n|cat|small|\n:label:`tab_sizes`\n\n"
        ":numref:`tab_sizes` starts this paragraph, which is no caption.\n\n|a|b|\n|-|-|\n|1|2|\n"
    )
    out = transpile(parse_text(source, "chapters/en/x.md", SETTINGS), "en")
    assert ":::{table} Sizes of things (after {cite:p}`Turing.1950`)\n:name: tab_sizes\n\n|thing|size|" in out.text
    assert "{numref}`tab_sizes` starts this paragraph" in out.text and out.text.count("{table}") == 1
    lines = out.text.split("\n")
    assert out.lines[lines.index(":name: tab_sizes")] == 5  # the caption's line
    assert out.lines[lines.index("|cat|small|")] == 9


@pytest.mark.slow  # jieba's dictionary, loaded in two processes
def test_the_chinese_search_dictionary_loaded_ahead_leaves_jieba_as_sphinx_leaves_it() -> None:
    """What the fork server does for a zh build (polybook.stage.sphinx_speed) gives the worker
    the jieba Sphinx's own set-up gives: the same word counts, the same words."""
    script = (
        "import sys\n"
        "from polybook.stage import sphinx_speed\n"
        "if sys.argv[1] == 'ahead':\n"
        "    sphinx_speed.load_chinese_dictionary()\n"
        "from sphinx.search.zh import SearchChinese\n"
        "SearchChinese({})  # Sphinx's set-up of a zh index\n"
        "import jieba\n"
        "print(jieba.dt.total, '|'.join(jieba.cut_for_search('我们在训练深度学习模型时使用随机梯度下降')))\n"
    )
    plain, ahead = (
        subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, check=True).stdout
        for mode in ("plain", "ahead")
    )
    assert plain == ahead and int(plain.split()[0]) > 0 and "梯度" in plain


def test_d2l_en_1_0s_table_form_caption_label_table_is_numbered() -> None:
    """d2l-en 1.0 writes the caption, its :label:, then the table ("Fix table references"): the
    label is the table's, and no orphan."""
    source = "# T\n\nSee :numref:`tab_ec2`.\n\n:EC2 instance types\n:label:`tab_ec2`\n\n|name|gpu|\n|-|-|\n|g2|K520|\n"
    doc = parse_text(source, "chapters/en/x.md", SETTINGS)
    assert doc.diagnostics == [] and doc.labels["tab_ec2"].kind == "table"
    out = transpile(doc, "en")
    assert ":::{table} EC2 instance types\n:name: tab_ec2\n\n|name|gpu|" in out.text
