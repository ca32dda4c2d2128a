"""``polybook port`` as a reviewer and a maintainer meet it: the summary first, the translation's
documents apart from what the port rewrites, a chapter at a time, references that follow the
labels the source renamed, refusals and a write that is whole or not at all.

en moved on from its edition 0.1: ``b/two.md`` was relabelled (``sec_two`` -> ``sec_second``, and
the source's own reference in ``a/one.md`` with it), ``a/one.md``'s label respelled (``sec_one``
-> ``sec-one``), ``c/gone.md`` dropped with its label; en's default tab is pytorch now, ja's
(0.1's) mxnet.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.check import check_book
from polybook.cli import main
from polybook.config import load_config

OLD_ONE = "# One\n:label:`sec_one`\n\nText one.\n\nSee :numref:`sec_two`.\n"
NEW_ONE = "# One\n:label:`sec-one`\n\nText one.\n\nSee :numref:`sec_second`.\n"
OLD_TWO = "# Two\n:label:`sec_two`\n\nText two, as in :numref:`sec_one`.\n\n```{.python .input}\nprint(2)\n```\n"
NEW_TWO = OLD_TWO.replace("sec_two", "sec_second").replace("sec_one", "sec-one")
THREE = "# Three\n:label:`sec_three`\n\nThree, after :numref:`sec_gone`.\n"
NEW_THREE = "# Three\n:label:`sec_three`\n\nThree, after all.\n"
GONE = "# Gone\n:label:`sec_gone`\n\nGone.\n"
JA_ONE = "# 一\n:label:`sec_one`\n\n一の文。\n\n:numref:`sec_two` を見よ。\n"
JA_TWO = "# 二\n:label:`sec_two`\n\n二の文、:numref:`sec_one` のように。\n\n```{.python .input}\nprint(2)  # 二\n```\n"
JA_THREE = "# 三\n:label:`sec_three`\n\n:numref:`sec_gone` の後の三。\n"
JA_GONE = "# 消えた\n:label:`sec_gone`\n\n消えた。\n"
CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["pytorch", "mxnet"],
    "languages": {
        "en": {"name": "English", "frameworks": ["pytorch", "mxnet"], "default_tab": "pytorch"},
        "ja": {"name": "日本語", "frameworks": ["mxnet"], "default_tab": "mxnet", "base": "0.1"},
    },
    "editions": {"0.1": {"folder": "editions/en-0.1", "frameworks": ["mxnet"], "default_tab": "mxnet"}},
}
"""


def book(root: Path) -> Path:
    files = {
        "chapters/en/index.md": "# Book\n\n```toc\na/one\nb/two\nb/three\n```\n",
        "chapters/en/a/one.md": NEW_ONE,
        "chapters/en/b/two.md": NEW_TWO,
        "chapters/en/b/three.md": NEW_THREE,
        "chapters/ja/index.md": "# 本\n\n```toc\na/one\nb/two\nb/three\nc/gone\n```\n",
        "chapters/ja/a/one.md": JA_ONE,
        "chapters/ja/b/two.md": JA_TWO,
        "chapters/ja/b/three.md": JA_THREE,
        "chapters/ja/c/gone.md": JA_GONE,
        "editions/en-0.1/index.md": "# Book\n\n```toc\na/one\nb/two\nb/three\nc/gone\n```\n",
        "editions/en-0.1/a/one.md": OLD_ONE,
        "editions/en-0.1/b/two.md": OLD_TWO,
        "editions/en-0.1/b/three.md": THREE,
        "editions/en-0.1/c/gone.md": GONE,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    return root / "conf.py"


def port(conf: Path, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, ["--conf", str(conf), "port", "ja", *args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def read(root: Path, name: str) -> str:
    return (root / name).read_text(encoding="utf-8")


def files_of(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in root.rglob("*") if p.is_file()}


def test_the_summary_comes_first_per_chapter_then_the_translations_documents_diff(tmp_path: Path) -> None:
    conf = book(tmp_path)
    out = port(conf)
    summary, _, diff = out.partition("\ndiff --polybook ")
    assert summary.startswith("would port ja: 4 documents carried forward, 0 renamed, 0 new (untranslated), 1 gone")
    header = next(line for line in summary.splitlines() if line.lstrip().startswith("chapter "))
    assert header.split() == ["chapter", "documents", "moved", "kept", "stale", "new", "aside", "review"]
    rows = {line.split()[0]: line.split()[1:] for line in summary.splitlines()[3:8] if line.strip()}
    assert set(rows) >= {"a", "b", "c", "index", "all"}
    assert rows["b"][0] == "2" and rows["c"][0] == "1"  # b/two and b/three; c/gone, moved out
    assert "the translation's documents: 5 files" in summary
    assert "rewritten from the source, no translator's work: 1 conf.py" in summary
    assert "--rewrites shows them" in summary and "b/conf.py" not in diff
    assert "a/chapters/ja/b/two.md" in diff  # the translation's own change is shown


def test_stat_lists_the_files_without_a_diff_and_rewrites_shows_the_rest(tmp_path: Path) -> None:
    conf = book(tmp_path)
    out = port(conf, "--stat")
    assert "diff --polybook" not in out
    assert re.search(r"^ ported +chapters/ja/b/two\.md +\| \+\d+ -\d+$", out, re.M)
    assert re.search(r"^ gone +chapters/ja/c/gone\.md -> editions/ja-0\.1/c/gone\.md +\| \+0 -0$", out, re.M)
    assert "conf.py" not in out.split("\n\n")[-1]
    assert re.search(r"^ settings +conf\.py", port(conf, "--stat", "--rewrites"), re.M)
    assert "diff --polybook a/conf.py b/conf.py" in port(conf, "--rewrites")


def test_references_follow_labels_the_source_renamed_and_those_to_dropped_labels_are_said(tmp_path: Path) -> None:
    conf = book(tmp_path)
    out = port(conf, "--write")
    assert ":numref:`sec_second` を見よ。" in read(tmp_path, "chapters/ja/a/one.md")  # by the source's own reference
    assert ":numref:`sec-one` のように" in read(tmp_path, "chapters/ja/b/two.md")  # by the labelled heading
    assert "references to labels the source dropped (1)" in out
    three = read(tmp_path, "chapters/ja/b/three.md")
    assert ":numref:`sec_gone` の後の三。" in three  # a translator mends it
    line = next(n for n, text in enumerate(three.splitlines(), 1) if ":numref:`sec_gone` の後の三。" in text)
    assert f"chapters/ja/b/three.md:{line}: :numref:`sec_gone` names a label the source no longer has" in out


def test_a_chapter_at_a_time_each_document_checked_against_its_own_base(tmp_path: Path) -> None:
    conf = book(tmp_path)
    out = port(conf, "--chapter", "b", "--write")
    assert out.startswith("ported ja: 2 documents carried forward, 0 renamed, 0 new (untranslated), 0 gone")
    assert "a half port" in out
    two = read(tmp_path, "chapters/ja/b/two.md")
    assert "```{.python .input}\n%%tab pytorch\nprint(2)  # 二\n```" in two  # reads as pytorch's while ja's is mxnet
    assert read(tmp_path, "chapters/ja/c/gone.md") == JA_GONE  # not asked for: not ported
    one = read(tmp_path, "chapters/ja/a/one.md")
    assert one == JA_ONE.replace("sec_two", "sec_second")  # not ported; its reference follows b/two's new label
    settings = load_config(conf).languages["ja"]
    assert (settings.frameworks, settings.default_tab) == (("pytorch", "mxnet"), "mxnet")  # a.md's cells are mxnet's
    result = check_book(load_book(load_config(conf)))
    ja = [f for f in result.active if f.lang == "ja"]
    assert [f.format() for f in ja if str(f.level) == "error" and f.name.startswith("b/")] == []
    planned = {f.name for f in ja if str(f.code) == "stale.plan"}
    assert "a/one" in planned and "b/two" not in planned  # a/one still follows 0.1; b/two the source
    port(conf, "--chapter", "c/gone", "--write")  # out of the book: out of the toc that is not ported yet
    assert read(tmp_path, "chapters/ja/index.md") == "# 本\n\n```toc\na/one\nb/two\nb/three\n```\n"
    out = port(conf, "--chapter", "a", "--chapter", "index", "--write")
    assert "a half port" not in out
    settings = load_config(conf).languages["ja"]
    assert settings.default_tab == "pytorch"  # the last chapter ported: ja reads as the source
    assert (tmp_path / "editions/ja-0.1/c/gone.md").is_file()


def test_a_chapter_the_book_or_the_source_does_not_have_is_refused_saying_why(tmp_path: Path) -> None:
    conf = book(tmp_path)
    before = files_of(tmp_path)
    out = port(conf, "--chapter", "b/tow", "--write", code=2)
    assert "port of ja refused: --chapter b/tow: no chapter folder or document of that name; did you mean b/two" in out
    out = port(conf, "--chapter", "c", "--write", code=2)  # a chapter the source no longer has
    assert "--chapter c: the source has no chapter c any more; its documents go: c/gone -> dropped: to the" in out
    assert files_of(tmp_path) == before


def test_a_parse_error_in_a_chapter_to_port_is_refused_at_its_line(tmp_path: Path) -> None:
    conf = book(tmp_path)
    broken = JA_TWO.replace("print(2)", "%%tab nosuch\nprint(2)")
    (tmp_path / "chapters/ja/b/two.md").write_text(broken, encoding="utf-8")
    before = files_of(tmp_path)
    out = port(conf, "--write", code=2)
    assert "port of ja refused (--force to port anyway):" in out
    assert re.search(r"chapters/ja/b/two\.md:7: error: unknown framework 'nosuch'", out)
    assert files_of(tmp_path) == before
    port(conf, "--chapter", "a", "--write")  # the chapter with the error is not ported: no refusal


def test_an_interrupted_write_leaves_every_file_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = book(tmp_path)
    before = files_of(tmp_path)
    replace, calls = os.replace, []

    def interrupted(src: str | Path, dst: str | Path) -> None:
        calls.append(dst)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C after two files were renamed in
        replace(src, dst)

    monkeypatch.setattr(os, "replace", interrupted)
    result = CliRunner().invoke(main, ["--conf", str(conf), "port", "ja", "--write"])
    assert result.exit_code != 0 and len(calls) == 3
    monkeypatch.setattr(os, "replace", replace)
    assert files_of(tmp_path) == before  # no file changed, none left staged, no sync record
    port(conf, "--write")
    assert files_of(tmp_path) != before


def test_another_languages_references_follow_once_it_follows_the_source_and_not_before(tmp_path: Path) -> None:
    conf = book(tmp_path)
    zh = '"zh": {"name": "中文", "frameworks": ["mxnet"], "default_tab": "mxnet", "base": "0.1"},'
    text = CONF.replace('"base": "0.1"},', '"base": "0.1"},\n        ' + zh)
    conf.write_text(text, encoding="utf-8")
    for name in ("index", "a/one", "b/two", "b/three", "c/gone"):
        (tmp_path / f"chapters/zh/{name}.md").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f"chapters/zh/{name}.md").write_text(read(tmp_path, f"chapters/ja/{name}.md"), encoding="utf-8")
    out = port(conf, "--stat")
    assert "chapters/zh/" not in out  # zh follows 0.1 still: its references to 0.1's labels are right
    result = CliRunner().invoke(main, ["--conf", str(conf), "port", "zh", "--write"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    added = (
        read(tmp_path, "chapters/zh/a/one.md") + "\n:numref:`sec_two` 再び。\n"
    )  # a zh translator copies an old reference
    (tmp_path / "chapters/zh/a/one.md").write_text(added, encoding="utf-8")
    out = port(conf, "--write", "--stat")
    assert re.search(r"^ references +chapters/zh/a/one\.md +\| \+1 -1$", out, re.M)  # shown with ja's own
    assert read(tmp_path, "chapters/zh/a/one.md") == added.replace("`sec_two` 再び", "`sec_second` 再び")


def test_a_toc_not_ported_follows_the_documents_a_half_port_moved(tmp_path: Path) -> None:
    from test_port import book as renaming_book

    conf = renaming_book(tmp_path)  # ja's moving.md is en's part/moving.md now
    (tmp_path / "chapters/en/index.md").write_text("# B\n\n```toc\nloops\npart/moving\nfresh\n```\n", encoding="utf-8")
    (tmp_path / "chapters/ja/index.md").write_text("# 本\n\n```toc\nloops\nmoving\ngone\n```\n", encoding="utf-8")
    out = port(conf, "--chapter", "part", "--write", "--stat")  # the source's folder takes the renamed document
    assert re.search(r"^ renamed +chapters/ja/moving\.md -> chapters/ja/part/moving\.md", out, re.M)
    assert read(tmp_path, "chapters/ja/index.md") == "# 本\n\n```toc\nloops\npart/moving\ngone\n```\n"
    result = check_book(load_book(load_config(conf)))
    assert [f.format() for f in result.active if f.lang == "ja" and str(f.code).startswith("toc.")] == []


def test_a_half_ported_documents_untagged_cells_are_written_with_the_sources_default_tab() -> None:
    from polybook.dialect import DialectSettings, parse_text
    from polybook.sync.port_select import with_explicit_tabs

    source = DialectSettings("en", ("pytorch", "mxnet"), "pytorch")
    text = "# A\n\n```{.python .input}\nx = 1\n```\n\n```{.python .input}\n%%tab mxnet\ny = 2\n```\n\n"
    text += "  ```{.python .input}\n  z = 3\n  ```\n"  # a fence indented: its tab line too
    tagged = with_explicit_tabs(text, source)
    assert tagged.count("%%tab pytorch") == 2 and "  ```{.python .input}\n  %%tab pytorch\n  z = 3" in tagged
    old = DialectSettings("ja", ("pytorch", "mxnet"), "mxnet")  # the language's, not ported yet
    cells = [n for n in parse_text(tagged, "t.md", old).walk() if type(n).__name__ == "CodeCell"]
    assert [c.frameworks for c in cells] == [("pytorch",), ("mxnet",), ("pytorch",)]  # as the source reads them
    assert [c.code for c in cells] == ["x = 1", "y = 2", "z = 3"]
