"""`polybook sync`: repairs code and math from the source, never prose; idempotent; atomic."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook import sync
from polybook.book import load_book
from polybook.check import check_book
from polybook.check.staleness import LOCK_NAME
from polybook.check.suppress import baseline_json, load_baseline
from polybook.cli import main
from polybook.config import load_config
from polybook.sync.rewrite import rewrite_code

from conftest import FIXTURES
from minibook import cell, make_book


def synced(conf: Path, prune: bool = False) -> list[sync.ChapterSync]:
    book = load_book(load_config(conf))
    results = sync.sync_book(book, prune=prune)
    sync.write(book, results)
    return results


def test_rewrites_drifted_code_keeping_translated_comments(tmp_path: Path) -> None:
    en = cell("# warm up\ndevice = d2l.try_gpu()\nfor _ in range(10000):\n    y = x + 1\nnpx.waitall()")
    ja = cell(
        "# ウォームアップ\ndevice = d2l.try_gpu()\nfor _ in range(1000):  # ループ\n    y = x + 1\ny.wait_to_read()"
    )
    conf = make_book(tmp_path, en, ja)
    synced(conf)
    text = (tmp_path / "chapters" / "ja" / "intro.md").read_text(encoding="utf-8")
    assert text == cell(
        "# ウォームアップ\ndevice = d2l.try_gpu()\nfor _ in range(10000):  # ループ\n    y = x + 1\nnpx.waitall()"
    )
    assert [f.code for f in check_book(load_book(load_config(conf))).findings] == []


def test_syncs_math_but_never_prose(tmp_path: Path) -> None:
    en = "It takes $10000 t_2 > 9999 t_1$ steps, about 10000.\n"
    ja = "それは $1000 t_2 > 999 t_1$ ステップ、約 1000。\n"
    conf = make_book(tmp_path, en, ja)
    (result,) = synced(conf)
    assert result.new == "それは $10000 t_2 > 9999 t_1$ ステップ、約 1000。\n"
    assert [f.code for f in result.left] == ["numbers.missing"]  # prose numbers are a human's job


def test_inserts_missing_cells_and_prunes_only_on_request(tmp_path: Path) -> None:
    en = "# A\n:label:`a`\n\n" + cell("a = 1") + "\n" + cell("b = 2") + "\n" + cell("c = 3", "pytorch")
    ja = "# A\n:label:`a`\n\n" + cell("a = 1") + "\n" + cell("extra = 0") + "\n" + cell("c = 3", "pytorch")
    conf = make_book(tmp_path, en, ja)
    (result,) = synced(conf)
    text = result.new
    assert "polybook" not in text  # no note: the cell is the source's, where the checker told it missing
    assert text.index("a = 1") < text.index("b = 2") < text.index("extra = 0") < text.index("c = 3")
    assert "b = 2" in text and "extra = 0" in text
    assert [f.code for f in result.left] == ["code.extra"]
    (pruned,) = synced(conf, prune=True)
    assert "extra = 0" not in pruned.new
    assert [f.code for f in check_book(load_book(load_config(conf))).active] == []


def test_inserts_the_one_cell_of_a_framework_the_translation_lost(tmp_path: Path) -> None:
    # the chapter's only mxnet cell (untagged: the default tab) is gone; its `all` cells still run for
    # mxnet, so the check tells that cell missing, not mxnet left untranslated -- and sync agrees
    shared = cell("x = d2l.ones(3)", "all")
    en = (
        "# A\n\nSet up.\n\n"
        + cell("from d2l import mxnet as d2l")
        + "\n"
        + cell("from d2l import torch as d2l", "pytorch")
    )
    en += "\nThen.\n\n" + shared
    ja = "# A\n\n準備。\n\n" + cell("from d2l import torch as d2l", "pytorch") + "\n次に。\n\n" + shared
    conf = make_book(tmp_path, en, ja)
    told = [(f.code, f.location.line) for f in check_book(load_book(load_config(conf))).active]
    assert ("code.missing", 3) in told  # after the prose that introduces it
    (result,) = synced(conf)
    assert result.new == ja.replace("準備。\n\n", "準備。\n\n" + cell("from d2l import mxnet as d2l") + "\n")
    assert [f.code for f in check_book(load_book(load_config(conf))).active] == []
    (again,) = synced(conf)
    assert not again.changed


def test_second_run_changes_nothing(tmp_path: Path) -> None:
    book = tmp_path / "book"
    shutil.copytree(FIXTURES / "book", book)
    first = synced(book / "conf.py", prune=True)
    assert any(r.changed for r in first)
    again = synced(book / "conf.py", prune=True)
    assert not any(r.changed for r in again)
    lock = (book / "chapters" / "ja" / LOCK_NAME).read_text(encoding="utf-8")
    synced(book / "conf.py")
    assert (book / "chapters" / "ja" / LOCK_NAME).read_text(encoding="utf-8") == lock


def test_refuses_files_with_parse_errors(tmp_path: Path) -> None:
    book = tmp_path / "book"
    shutil.copytree(FIXTURES / "book", book)
    before = (book / "chapters" / "pt" / "async-computation.md").read_bytes()
    results = synced(book / "conf.py", prune=True)
    (pt,) = [r for r in results if r.lang == "pt" and r.name == "async-computation"]
    assert [(d.line, d.code) for d in pt.refused] == [(33, "directive.damaged")]
    assert (book / "chapters" / "pt" / "async-computation.md").read_bytes() == before
    assert not list((book / "chapters" / "pt").glob(".*"))  # no temporary files left behind


def test_translated_comment_survives_the_import_cell_rewrite(tmp_path: Path) -> None:
    book = tmp_path / "book"
    shutil.copytree(FIXTURES / "book", book)
    synced(book / "conf.py")
    tr = (book / "chapters" / "tr" / "async-computation.md").read_text(encoding="utf-8")
    assert "# GPU hesaplaması icin isinma" in tr
    assert "import os\nimport subprocess\nimport numpy\nfrom mxnet import" in tr


def test_cli_dry_run_prints_a_diff_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = tmp_path / "book"
    shutil.copytree(FIXTURES / "book", book)
    monkeypatch.chdir(book)
    before = (book / "chapters" / "tr" / "async-computation.md").read_bytes()
    result = CliRunner().invoke(main, ["sync", "tr"])
    assert result.exit_code == 0, result.output
    assert "--- a/chapters/tr/async-computation.md" in result.output
    assert "+import subprocess" in result.output
    assert (book / "chapters" / "tr" / "async-computation.md").read_bytes() == before
    assert not (book / "chapters" / "tr" / LOCK_NAME).exists()
    assert CliRunner().invoke(main, ["sync", "pt"]).exit_code == 1  # refused: parse errors
    assert CliRunner().invoke(main, ["sync", "xx"]).exit_code == 2


def test_repairs_labelled_equations_like_other_math(tmp_path: Path) -> None:
    en = "Loss:\n\n$$L = \\sum_i \\text{loss of } (y_i - 5)^2$$\n:eqlabel:`eq_loss`\n\nEnd.\n"
    ja = "損失:\n\n$$L = \\sum_i \\text{損失 } (y_i - 6)^2$$\n:eqlabel:`eq_loss`\n\n終わり。\n"
    conf = make_book(tmp_path, en, ja)
    (result,) = synced(conf)
    assert "(y_i - 5)^2$$\n:eqlabel:`eq_loss`" in result.new
    assert [f.code for f in check_book(load_book(load_config(conf))).active] == []
    en = "Loss:\n\n$$\nL = (y - 5)^2\n  + 3\n$$\n:eqlabel:`eq_loss`\n\nEnd $$a = 1$$ and $a = 1$.\n"
    ja = "損失:\n\n$$\nL = (y - 6)^2\n  + 3\n$$\n:eqlabel:`eq_loss`\n\n終わり $$a = 2$$ と $a = 2$。\n"
    (result,) = synced(make_book(tmp_path, en, ja))
    assert result.new == "損失:\n\n$$\nL = (y - 5)^2\n  + 3\n$$\n:eqlabel:`eq_loss`\n\n終わり $$a = 1$$ と $a = 1$。\n"


def test_repairs_a_display_formula_told_at_its_changed_row(tmp_path: Path) -> None:
    # the check tells a changed row of a formula of several lines at that row, not at its `$$`; and
    # of one formula written on two lines, the one on the line told is repaired
    rows = ["a &= 1+1,\\\\", "b &= 2+2,\\\\", "c &= 3+3,\\\\", "d &= 4+4."]
    en = (
        "Sums:\n\n$$\n\\begin{aligned}\n"
        + "\n".join(rows)
        + "\n\\end{aligned}\n$$\n\nThen $f(x)$ is\nthe map $f(x) = x$.\n"
    )
    ja = "和:" + en[5:].replace("c &= 3+3", "c &= 9+9").replace(
        "Then $f(x)$ is\nthe map $f(x) = x$.", "次に $f(x)$ は\n写像 $f(x)$。"
    )
    conf = make_book(tmp_path, en, ja)
    told = [(f.code, f.location.line) for f in check_book(load_book(load_config(conf))).active]
    assert ("math.changed", 7) in told and ("math.changed", 13) in told
    (result,) = synced(conf)
    assert result.new == ja.replace("c &= 9+9", "c &= 3+3").replace("写像 $f(x)$", "写像 $f(x) = x$")
    assert result.repaired == ["math at line 7", "math at line 13"]


def test_suppressed_differences_survive_sync(tmp_path: Path) -> None:
    why = 'reason="smaller loop for slow machines"'
    en = cell("x = 1") + "\n" + cell("for _ in range(10000):\n    pass") + "\n" + cell("y = 2")
    ja = (
        cell("x = 1")
        + f"\n<!-- polybook: ignore code.changed {why} -->\n"
        + cell("for _ in range(1000):\n    pass")
        + "\n"
        + cell("y = 3")
    )
    conf = make_book(tmp_path, en, ja)
    (result,) = synced(conf)
    assert "range(1000):" in result.new and "y = 2" in result.new  # the other cell is still repaired
    assert result.kept == ["kept: suppressed (smaller loop for slow machines): code.changed at line 7"]
    assert result.left == []
    (again,) = synced(conf)
    assert not again.changed


def test_baseline_entries_survive_sync(tmp_path: Path) -> None:
    en, ja = cell("for _ in range(10000):\n    pass"), cell("for _ in range(1000):\n    pass")
    conf = make_book(tmp_path, en, ja)
    book = load_book(load_config(conf))
    baseline = tmp_path / "baseline.json"
    baseline.write_text(baseline_json(check_book(book).active, "accepted for now"), encoding="utf-8")
    (result,) = sync.sync_book(book, baseline=load_baseline(baseline))
    assert not result.changed
    assert result.kept == ["kept: suppressed (accepted for now): code.changed at line 2"]
    (result,) = sync.sync_book(book)
    assert result.changed  # without the baseline, it is repaired


def test_math_repair_keeps_translated_words_in_text(tmp_path: Path) -> None:
    en = "The cost is $\\text{cost} = 10000 x$ and $$\\text{mean over } b = 7$$\n"
    ja = "コストは $\\text{コスト} = 1000 x$、$$\\text{バッチ平均 } b = 6$$\n"
    (result,) = synced(make_book(tmp_path, en, ja))
    assert result.new == "コストは $\\text{コスト} = 10000 x$、$$\\text{バッチ平均 } b = 7$$\n"
    en = "Cost $\\text{a} + \\text{b} = 2$.\n"  # the structure differs: the source's TeX as it is
    (result,) = synced(make_book(tmp_path, en, "コスト $\\text{合計} = 3$。\n"))
    assert result.new == "コスト $\\text{a} + \\text{b} = 2$。\n"


@pytest.mark.parametrize(
    ("translation", "source", "expected"),
    [
        (  # a comment line directly above a changed line
            "x = 1\n# ループ\nfor i in range(1000):\n    pass",
            "x = 1\n# loop\nfor i in range(10000):\n    pass",
            "x = 1\n# ループ\nfor i in range(10000):\n    pass",
        ),
        (  # a comment on a line whose tokens changed
            "x = 1\nfor i in range(1000):  # ループ\n    pass",
            "x = 1\nfor i in range(10000):  # loop\n    pass",
            "x = 1\nfor i in range(10000):  # ループ\n    pass",
        ),
        (  # ... also when the source's line has no comment
            "for i in range(1000):  # ループ\n    pass",
            "for i in range(10000):\n    pass",
            "for i in range(10000):  # ループ\n    pass",
        ),
        (  # a d2l marker on the source's line wins
            "def f(x):  # 関数\n    return x",
            "def f(x, y):  #@save\n    return x",
            "def f(x, y):  #@save\n    return x",
        ),
        (  # a line that is gone takes its comment with it; a new line brings the source's
            "# 準備\nx = 1\n# 表示\nprint(x)",
            "# setup\nx = 1\n# wait\nnpx.waitall()",
            "# 準備\nx = 1\n# wait\nnpx.waitall()",
        ),
        (  # a translated docstring and plot label stay when the cell is rewritten; a path does not
            'def f(n):\n    """抽取"""\n    plot(n, "損失")\n    return read("a.csv", n + 1)',
            'def f(n):\n    """Draw."""\n    plot(n, "loss")\n    return read("b.csv", n + 2)',
            'def f(n):\n    """抽取"""\n    plot(n, "損失")\n    return read("b.csv", n + 2)',
        ),
        (  # a deleted line comes back under the translated comment, without the source's beside it
            "# 準備\nx = 1\n# 表示\nprint(x)",
            "# setup\nx = 1\n# show\ny = x + 1\nprint(x)",
            "# 準備\nx = 1\n# 表示\ny = x + 1\nprint(x)",
        ),
        (  # ... one for one when the comments are as many
            "# 準備\n# 表示\nprint(x)",
            "# setup\nx = 1\n# show\nprint(x)",
            "# 準備\nx = 1\n# 表示\nprint(x)",
        ),
        (  # ... and at the end of a cell
            "x = 1\n# 表示",
            "x = 1\n# show\nprint(x)",
            "x = 1\n# 表示\nprint(x)",
        ),
    ],
)
def test_translated_comments_on_and_above_changed_lines_survive(translation: str, source: str, expected: str) -> None:
    assert rewrite_code(translation, source) == expected
    assert rewrite_code(expected, source) == expected


def test_what_is_left_for_a_human_is_in_line_order(tmp_path: Path) -> None:
    en = "We have 256 items.\n\n" + cell("a = 1") + "\nSee [d2l](https://d2l.ai).\n"
    ja = "項目。\n\n" + cell("a = 1") + "\n" + cell("extra = 0") + "\n見る。\n"
    (result,) = synced(make_book(tmp_path, en, ja))
    assert [(f.primary.line, f.code) for f in result.left] == [
        (1, "numbers.missing"),
        (7, "code.extra"),
        (11, "ref.link"),
    ]
