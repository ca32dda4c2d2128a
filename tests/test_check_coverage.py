"""Coverage is not drift: a translation of fewer frameworks (ja without jax) or of more (zh with
paddle) is said once per chapter, its cells and text tabs are compared for the frameworks both
offer, and links each language has its own of are asked for per section only."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook import sync
from polybook.book import load_book
from polybook.check import CheckResult, check_book
from polybook.config import ConfigError, load_config

from minibook import cell

CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet", "pytorch", "jax", "paddle"],
    "languages": {
        "en": {"name": "English", "frameworks": ["mxnet", "pytorch", "jax"]},
        "ja": {"name": "日本語", "frameworks": ["mxnet", "pytorch"]},
        "zh": {"name": "中文", "frameworks": ["mxnet", "pytorch", "jax", "paddle"]},
    },
    "localised_links": ["https://forum.example.org/t/*"],
}
"""

EN = (
    "# Counting sheep\n:label:`sec_sheep`\n\nWe count the sheep in the field.\n\n"
    + cell("n = 3", "all")
    + "\n"
    + cell("sheep = list(range(n))")
    + "\n"
    + cell("import torch\nsheep = torch.arange(n)", "pytorch")
    + "\n"
    + cell("import jax.numpy as jnp\nsheep = jnp.arange(n)", "jax")
    + "\n"
    + cell("total = len(sheep)", "all")
    + "\n:begin_tab:`jax`\nArrays in jax cannot be changed in place.\n:end_tab:\n\n"
    + "## Exercises\n\n1. Count the goats too; see [the guide](https://guide.example.org/goats).\n\n"
    + ":begin_tab:`mxnet`\n[Discuss](https://forum.example.org/t/11)\n:end_tab:\n\n"
    + ":begin_tab:`pytorch`\n[Discuss](https://forum.example.org/t/12)\n:end_tab:\n\n"
    + ":begin_tab:`jax`\n[Discuss](https://forum.example.org/t/13)\n:end_tab:\n"
)
JA = (
    "# 羊を数える\n:label:`sec_sheep`\n\n野原の羊を数える。\n\n"
    + cell("n = 3", "all")
    + "\n"
    + cell("sheep = list(range(n))")
    + "\n"
    + cell("import torch\nsheep = torch.arange(n)", "pytorch")
    + "\n"
    + cell("total = len(sheep)")  # untagged: mxnet only, where the source runs it for all
    + "\n## 練習\n\n1. ヤギも数える。[案内](https://guide.example.org/goats)を参照。\n\n"
    + ":begin_tab:`mxnet`\n[議論](https://forum.example.org/t/801)\n:end_tab:\n\n"
    + ":begin_tab:`pytorch`\n[議論](https://forum.example.org/t/802)\n:end_tab:\n"
)
ZH = (
    "# 数羊\n:label:`sec_sheep`\n\n我们数田野里的羊。\n\n"
    + cell("n = 3", "all")
    + "\n"
    + cell("sheep = list(range(n))")
    + "\n"
    + cell("import torch\nsheep = torch.arange(n)", "pytorch")
    + "\n"
    + cell("import paddle\nsheep = paddle.arange(n)", "paddle")
    + "\n"
    + cell("import jax.numpy as jnp\nsheep = jnp.arange(n)", "jax")
    + "\n"
    + cell("total = len(sheep)", "all")
    + "\n:begin_tab:`jax`\njax 的数组不能原地修改。\n:end_tab:\n\n"
    + ":begin_tab:`paddle`\npaddle 的张量可以原地修改。\n:end_tab:\n\n"
    + "## 练习\n\n1. 也数一数山羊，见[指南](https://guide.example.org/goats)和[论坛](https://other.example.org/x)。\n\n"
    + ":begin_tab:`mxnet`\n[讨论](https://forum.example.org/t/901)\n:end_tab:\n\n"
    + ":begin_tab:`jax`\n[讨论](https://forum.example.org/t/903)\n:end_tab:\n\n"
    + ":begin_tab:`paddle`\n[讨论](https://forum.example.org/t/904)\n:end_tab:\n"
)


def write_book(root: Path, chapters: dict[str, str], conf: str = CONF) -> Path:
    for lang, text in chapters.items():
        (root / "chapters" / lang).mkdir(parents=True, exist_ok=True)
        (root / "chapters" / lang / "sheep.md").write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(conf, encoding="utf-8")
    return root / "conf.py"


@pytest.fixture
def result(tmp_path: Path) -> CheckResult:
    return check_book(load_book(load_config(write_book(tmp_path, {"en": EN, "ja": JA, "zh": ZH}))))


def findings(result: CheckResult, lang: str) -> list[tuple[str, int, str]]:
    return sorted(
        (f.code, f.primary.line, f.message) for f in result.active if f.lang == lang and f.code != "stale.unknown"
    )


def test_a_translation_without_a_framework_is_told_once_and_real_tab_drift_stays(result: CheckResult) -> None:
    assert findings(result, "ja") == [
        # told where the source's jax cell belongs: after the pytorch cell both have (ja offers no jax)
        ("code.coverage", 19, "no jax cells: 1 in the source; translate them to offer jax"),
        (
            "code.tabs",
            21,
            "mxnet cell 3 runs for [mxnet] here but for [mxnet, pytorch, jax] in the source: "
            "write the source's `#@tab` (polybook sync --write)",
        ),
    ]


def test_a_translation_with_another_framework_is_told_once_per_language(result: CheckResult) -> None:
    zh = findings(result, "zh")
    paddle = "zh offers paddle, which the source does not: 1 cells in 1 chapters; nothing to fix"
    assert ("code.coverage", 21, paddle) in zh
    # zh's `#@tab all` runs for paddle too; its paddle text tab and discussion link are its own
    assert not [f for f in zh if f[0] in ("code.tabs", "structure.texttab", "code.extra")]


def test_localised_links_are_asked_for_per_section_and_framework(result: CheckResult) -> None:
    links = [(line, message) for code, line, message in findings(result, "zh") if code == "ref.link"]
    assert links == [
        (48, "link https://other.example.org/x is not in the source: remove it, unless the translation adds it "
         "on purpose"),
        (55, "no link like https://forum.example.org/t/* for [pytorch] in this section: add this language's own in "
         "a `:begin_tab:`pytorch`` text tab (the source's is https://forum.example.org/t/12)"),
    ]  # fmt: skip
    assert not [f for f in findings(result, "ja") if f[0] == "ref.link"]  # jax is ja's coverage


def test_a_link_naming_its_language_is_the_translations_own(tmp_path: Path) -> None:
    en = (
        "# A\n\nSee [the code](https://git.example.org/book-en/tree) and [the site](https://book.example.org/a.html).\n"
    )
    ja = "# A\n\n[コード](https://git.example.org/book-ja/tree)と[サイト](https://ja.book.example.org/a.html)を見る。\n"
    conf = write_book(tmp_path, {"en": en, "ja": ja}, CONF.replace('"zh": {', '# "zh": {'))
    assert not [f for f in check_book(load_book(load_config(conf))).active if f.code == "ref.link"]


def test_sync_leaves_another_frameworks_cells_and_tabs_alone(tmp_path: Path) -> None:
    conf = write_book(tmp_path, {"en": EN, "ja": JA, "zh": ZH})
    book = load_book(load_config(conf))
    zh, ja = sync.sync_book(book, ["zh"], prune=True)[0], sync.sync_book(book, ["ja"], prune=True)[0]
    assert zh.new == ZH  # paddle cells are not pruned, `#@tab all` keeps meaning paddle too
    assert "#@tab all\ntotal = len(sheep)" in ja.new  # the real drift is repaired for ja's frameworks
    assert "jnp" not in ja.new  # the jax cell is coverage, not a missing cell


def test_localised_links_must_be_a_list_of_patterns(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "conf.py").write_text(CONF.replace('["https://forum.example.org/t/*"]', '"t/*"'), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"polybook\.localised_links: must be a list of non-empty strings"):
        load_config(tmp_path / "conf.py")


def test_two_cells_joined_into_one_are_a_changed_cell_not_a_missing_one(tmp_path: Path) -> None:
    from minibook import make_book

    en = cell("a = 1") + "\n" + cell("b = 2") + "\n" + cell("c = a + b")
    ja = cell("a = 1\nb = 2") + "\n" + cell("c = a + b")
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    assert sorted(f.code for f in result.active if f.code.startswith("code")) == ["code.changed"]


def test_a_function_joined_into_another_cell_and_changed_there_is_not_missing(tmp_path: Path) -> None:
    """An older translation keeps a helper in the cell before it, and the helper has changed
    since: the joined cell differs (code.changed), the helper's own cell is not missing."""
    from minibook import make_book

    en = cell("def load(n):\n    return list(range(n))") + "\n" + cell("def batch(n, k):\n    return load(n)[:k]")
    en += "\n" + cell("print(batch(5, 2))")
    ja = cell("def load(n):\n    return list(range(n))\n\ndef batch(n):\n    return load(n)") + "\n"
    ja += cell("print(batch(5, 2))")
    result = check_book(load_book(load_config(make_book(tmp_path, en, ja))))
    codes = sorted(f.code for f in result.active if f.code.startswith("code"))
    assert "code.missing" not in codes and "code.changed" in codes, codes


def test_a_cell_split_by_framework_is_told_once_with_the_frameworks_none_of_its_cells_runs(tmp_path: Path) -> None:
    # zh's `#@tab mxnet, pytorch` and a `#@tab paddle` copy for the source's `#@tab all`: only jax lacks it
    zh = ZH.replace(cell("total = len(sheep)", "all"), cell("total = len(sheep)", "mxnet, pytorch") + "\n"
                    + cell("total = len(sheep)", "paddle"))  # fmt: skip
    result = check_book(load_book(load_config(write_book(tmp_path, {"en": EN, "ja": JA, "zh": zh}))))
    tabs = [message for code, _, message in findings(result, "zh") if code == "code.tabs"]
    assert tabs == [
        "mxnet cell 3: the source's cell runs for [mxnet, pytorch, jax], and the cells here that hold it for "
        "[mxnet, pytorch]; none for [jax]: add jax to the `#@tab` of one of them"
    ]
