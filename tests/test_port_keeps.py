"""``polybook port`` loses nothing a language wrote and follows what the source moved: cells of
the language's own frameworks (d2l-zh's paddle) stay with their tab group, translated text in
code comes into the new cell, a moved section keeps its translation, an aside holds translation
only, a heading that swallowed its paragraph is split, and a port after a port changes nothing.
"""

from __future__ import annotations

from polybook.dialect import DialectSettings, parse_text
from polybook.sync.port_document import PortedText, port_document
from polybook.sync.translated import known, translated_lines

EN = DialectSettings("en", ("mxnet", "pytorch"), "mxnet")
ZH = DialectSettings("zh", ("mxnet", "pytorch", "paddle"), "mxnet")


def cell(tab: str, code: str) -> str:
    return f"```{{.python .input}}\n#@tab {tab}\n{code}\n```\n\n"


def port(base: str, source: str, target: str, settings: DialectSettings = ZH) -> PortedText:
    b, s = parse_text(base, "b.md", EN), parse_text(source, "s.md", EN)
    return port_document(b, s, source, parse_text(target, "t.md", settings), target)


def again(source: str, once: str, settings: DialectSettings = ZH) -> str:
    """The second port: the first's result carried from the source it was ported to."""
    return port(source, source, once, settings).text


BASE = (
    "# Data\n\nLoad it.\n\n"
    + cell("mxnet", "from mxnet import np")
    + cell("pytorch", "import torch")
    + "Plot it.\n\n"
    + cell("mxnet, pytorch", "d2l.plot(x)")
    + cell("pytorch", "y = x + 1")
    + "The old way.\n\n"
    + cell("mxnet", "old_mx()")
    + cell("pytorch", "old_pt()")
    + "The end.\n"
)
SOURCE = (
    BASE.replace("d2l.plot(x)", "d2l.plot(x, y)")
    .replace("The old way.\n\n" + cell("mxnet", "old_mx()") + cell("pytorch", "old_pt()"), "")
    .replace("The end.", "The very end.")
)
ZH_TEXT = (
    "# 数据\n\n加载。\n\n"
    + cell("mxnet", "from mxnet import np")
    + cell("pytorch", "import torch")
    + cell("paddle", "import paddle")
    + "画图。\n\n"
    + cell("mxnet, pytorch, paddle", "d2l.plot(x)")
    + cell("pytorch, paddle", "y = x + 1")
    + "旧的方法。\n\n"
    + cell("mxnet", "old_mx()")
    + cell("pytorch", "old_pt()")
    + cell("paddle", "old_pd()")
    + "结束。\n"
)


def test_cells_of_the_languages_own_framework_stay_beside_their_group_or_go_to_the_archive() -> None:
    out = port(BASE, SOURCE, ZH_TEXT)
    assert cell("pytorch", "import torch") + cell("paddle", "import paddle") in out.text + "\n"  # beside its group
    # the source changed the shared cell: its new code for its frameworks, the old for paddle alone
    assert cell("mxnet, pytorch", "d2l.plot(x, y)") + cell("paddle", "d2l.plot(x)") in out.text + "\n"
    assert cell("pytorch, paddle", "y = x + 1") in out.text + "\n"  # unchanged: paddle stays in its tab list
    assert "old_pd()" not in out.text  # its group is gone from the source: archived, said in the counts
    assert out.archived == [cell("paddle", "old_pd()").strip()]
    assert out.counts.own_archived == 1 and out.counts.own_kept >= 2
    assert again(SOURCE, out.text) == out.text


def test_the_tab_declaration_names_the_languages_own_framework() -> None:
    setup = "```{.python .input}\n%load_ext d2lbook.tab\ntab.interact_select(['mxnet', 'pytorch'])\n```\n\n"
    out = port(BASE, setup + SOURCE, ZH_TEXT).text
    assert "tab.interact_select(['mxnet', 'pytorch', 'paddle'])" in out
    document = parse_text(out, "o.md", ZH)
    assert "paddle" in document.setup.frameworks  # type: ignore[union-attr]


def test_a_text_tab_of_the_languages_own_framework_stays_and_a_shared_one_keeps_it() -> None:
    base = "Intro.\n\n:begin_tab:`mxnet`\nUse MXNet.\n:end_tab:\n\n:begin_tab:`pytorch`\nUse PyTorch.\n:end_tab:\n"
    target = (
        "介绍。\n\n:begin_tab:`mxnet`\n用 MXNet。\n:end_tab:\n\n"
        ":begin_tab:`pytorch, paddle`\n用 PyTorch。\n:end_tab:\n\n"
        ":begin_tab:`paddle`\n用 Paddle。\n:end_tab:\n"
    )
    out = port(base, base, target).text
    assert ":begin_tab:`pytorch, paddle`\n用 PyTorch。\n:end_tab:\n\n:begin_tab:`paddle`\n用 Paddle。\n:end_tab:" in out
    assert "polybook:aside" not in out


def test_translated_strings_and_comments_come_into_the_changed_cell_line_by_line() -> None:
    base = "Train.\n\n```{.python .input}\nw = train(lr=0.1)\n# Print the error\nprint(f'error in w: {w}')\n```\n"
    source = base.replace("lr=0.1", "lr=0.03")
    target = "训练。\n\n```{.python .input}\nw = train(lr=0.1)\n# 打印误差\nprint(f'w的估计误差: {w}')\n```\n"
    out = port(base, source, target, EN).text
    assert "w = train(lr=0.03)\n# 打印误差\nprint(f'w的估计误差: {w}')" in out
    assert "polybook:aside" not in out
    changed = source.replace("print(f'error in w: {w}')", "print(f'error in w: {w - 1}')")
    out = port(base, changed, target, EN).text  # the line itself changed: its translation kept aside
    assert "print(f'error in w: {w - 1}')" in out and "<!-- polybook:aside\n```{.python .input}" in out


def test_a_section_the_source_moved_takes_its_translation_with_it() -> None:
    section = "## Model\n\nThe model stacks many layers of attention and feed forward networks.\n\n"
    rest = "First words.\n\nSecond words here.\n\nThird words there.\n\n"
    base = "# T\n\n" + section + rest
    source = "# T\n\n" + rest + section.replace("many layers", "several layers")
    target = "# T\n\n## 模型\n\n模型堆叠了许多层。\n\n第一。\n\n第二。\n\n第三。\n"
    out = port(base, source, target, EN).text
    assert "untranslated" not in out and "aside" not in out
    assert out.index("第三。") < out.index("## 模型") < out.index("模型堆叠了许多层。")
    assert "<!-- polybook:stale\nThe model stacks several layers" in out


def test_an_aside_holds_translation_not_an_old_copy_of_the_source() -> None:
    base = "Text.\n\n```{.python .input}\n# Make data\nx = make(3)\n```\n\nGone paragraph.\n\nEnd.\n"
    source = "Text.\n\nEnd.\n"
    target = "文。\n\n```{.python .input}\n# Make data\nx = make(2)\n```\n\n消えた段落。\n\n終わり。\n"
    out = port(base, source, target, EN).text
    assert "<!-- polybook:aside\n消えた段落。\n-->" in out
    assert "make(2)" not in out  # an old English cell is no translation: not kept aside


def test_a_heading_that_swallowed_its_paragraph_is_split_as_the_base_shows() -> None:
    base = "# T\n\n## Gaussian\n\nNow we try a different experiment.\n\n## Summary\n\n* One point.\n* Two.\n"
    target = (
        "# T\n\n## Gaussian Agora tentamos um experimento diferente, mas relacionado. Veja.\n\n"
        "## Resumo * Um ponto sobre o assunto todo aqui. * Dois pontos.\n"
    )
    out = port(base, base, target, EN).text
    assert "## Gaussian\n\nAgora tentamos" in out
    assert "## Resumo\n\n* Um ponto" in out
    japanese = (
        "# T\n\n## ポアソンさっそく思考実験をしてみよう。"
        "私たちはバス停に立っていて、次の1分間に何本のバスが到着するか知りたいです。\n"
    )
    base = "# T\n\n## Poisson\n\nLet us now perform a thought experiment.\n"
    out = port(base, base, japanese, EN).text  # no space tells where the title ends: nothing guessed
    assert "<!-- polybook:untranslated -->\n## Poisson" in out
    assert "<!-- polybook:review\nLet us now perform a thought experiment.\n-->\nポアソンさっそく" in out
    assert again(base, out, EN) == out


def test_translated_lines_are_told_from_old_copies_of_the_source() -> None:
    found = known(["We count.\n", "x = make(3)  # Make data\n"])
    text = "十まで。\n\nContamos até dez.\n\n$$y = Xw$$\n\n```python\nx = make(2)  # Make data\nprint('olá')\n```\n"
    assert translated_lines(text, found) == ["十まで。", "Contamos até dez.", "print('olá')"]


def test_a_cell_for_all_frameworks_runs_the_languages_own_too_and_is_not_doubled() -> None:
    base = "Show.\n\n" + cell("all", "for x in data:\n    print('premise:', x)")
    target = "展示。\n\n" + cell("all", "for x in data:\n    print('前提：', x)")
    source = base.replace("for x in data", "for x in data[:3]")
    out = port(base, source, target)
    assert cell("all", "for x in data[:3]:\n    print('前提：', x)") in out.text + "\n"
    assert "#@tab paddle" not in out.text
    assert again(source, out.text) == out.text


def test_a_block_the_source_rewrote_in_place_keeps_its_translation_marked_stale() -> None:
    old = "Due to the length of this book, we cannot possibly introduce every single function and class."
    new = "While we cannot possibly introduce every function and class, the documentation does."
    base = f"# Docs\n\n{old}\n\nEnd.\n"
    target = "# 文書\n\n本の長さのため、すべての関数とクラスを紹介することはできません。\n\n終わり。\n"
    out = port(base, base.replace(old, new), target, EN).text
    assert f"<!-- polybook:stale\n{new}\npolybook:was\n{old}\n-->\n本の長さのため" in out  # the text then, too
    assert "untranslated" not in out and "aside" not in out


def test_a_cell_holding_no_translation_is_the_sources_as_it_is() -> None:
    """pt's 0.17 cell lacks the docstring its base has (code compares without docstrings): it
    translates nothing, so the source's cell is written, docstring and all."""
    base = '```{.python .input}\ndef f(x):\n    """Twice x."""\n    return 2 * x\n```\n'
    target = "```{.python .input}\ndef f(x):\n    return 2 * x\n```\n"
    assert '"""Twice x."""' in port(base, base, target, EN).text


def test_a_section_the_source_moved_is_counted_moved_and_its_translation_goes_with_it() -> None:
    first, second, third = "Alpha comes first here.", "Beta stands in the middle.", "Gamma closes the page."
    base = f"# Doc\n\n{first}\n\n{second}\n\n{third}\n"
    source = f"# Doc\n\n{third}\n\n{first}\n\n{second}\n"  # the last paragraph moved to the top
    target = "# 文書\n\nアルファが最初。\n\nベータが中ほど。\n\nガンマが最後。\n"
    ported = port(base, source, target, EN)
    assert ported.counts.moved == 1  # one block moved, not the two it jumped over
    assert ported.text.index("ガンマが最後。") < ported.text.index("アルファが最初。") < ported.text.index("ベータ")
