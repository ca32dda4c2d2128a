"""``polybook port``: a translation an edition behind, carried to the source as it is now.

The book below is the one of test_check_bases: en moved on from its edition 0.1 (a sentence and
a cell changed, a paragraph added, a chapter renamed, one dropped, one new); ja translated 0.1.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from polybook.book import load_book
from polybook.check import check_book
from polybook.cli import main
from polybook.config import load_config

OLD_EN = """\
# Loops
:label:`sec_loops`

We count to ten.

```{.python .input}
for i in range(10):
    print(i)
```

The loop ends.

Counting is fun.
"""
NEW_EN = (
    OLD_EN.replace("range(10)", "range(100)")
    .replace("to ten", "to a hundred")
    .replace("Counting is fun.\n", "A brand new paragraph.\n")
)
JA = """\
# ループ
:label:`sec_loops`

十まで数えます。

```{.python .input}
for i in range(10):
    print(i)  # 数える
```

ループが終わります。

数えるのは楽しい。
"""
MOVED_EN = "# Moving\n:label:`sec_moving`\n\nWe move.\n"
MOVED_JA = "# 移動\n:label:`sec_moving`\n\n移動します。\n"
CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet"],
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語", "base": "0.1"}},
    "editions": {"0.1": {"folder": "editions/en-0.1"}},
}
"""


def book(root: Path) -> Path:
    files = {
        "chapters/en/loops.md": NEW_EN,
        "chapters/en/fresh.md": "# Fresh\n\nAll new.\n",
        "chapters/en/part/moving.md": MOVED_EN,
        "chapters/ja/loops.md": JA,
        "chapters/ja/moving.md": MOVED_JA,
        "chapters/ja/gone.md": "# 消えた\n\nさようなら。\n",
        "editions/en-0.1/loops.md": OLD_EN,
        "editions/en-0.1/moving.md": MOVED_EN,
        "editions/en-0.1/gone.md": "# Gone\n\nGoodbye.\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    return root / "conf.py"


def port(conf: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["--conf", str(conf), "port", "ja", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_dry_run_prints_the_change_and_writes_nothing(tmp_path: Path) -> None:
    conf = book(tmp_path)
    out = port(conf)
    assert "rename from chapters/ja/moving.md\nrename to chapters/ja/part/moving.md" in out
    assert "+<!-- polybook:untranslated document -->" in out  # fresh.md, new in the source
    assert "would port ja: 1 documents carried forward, 1 renamed, 1 new (untranslated), 1 gone" in out
    assert (tmp_path / "chapters/ja/loops.md").read_text(encoding="utf-8") == JA


def test_the_port_keeps_every_translated_sentence_and_takes_the_rest_from_the_source(tmp_path: Path) -> None:
    conf = book(tmp_path)
    port(conf, "--write")
    loops = (tmp_path / "chapters/ja/loops.md").read_text(encoding="utf-8")
    assert "ループが終わります。" in loops  # unchanged in the source: its translation kept in place
    assert (
        "<!-- polybook:stale\nWe count to a hundred.\npolybook:was\nWe count to ten.\n-->\n十まで数えます。" in loops
    )  # changed: marked, then and now
    assert "<!-- polybook:untranslated -->\nA brand new paragraph." in loops  # new: the source's text
    assert "<!-- polybook:aside\n数えるのは楽しい。\n-->" in loops  # dropped by the source: kept aside
    # code from the source; the translated comment of the line it kept carried into it, nothing aside
    assert "```{.python .input}\nfor i in range(100):\n    print(i)  # 数える\n```" in loops
    assert "range(10)" not in loops
    assert (tmp_path / "chapters/ja/part/moving.md").read_text(encoding="utf-8") == MOVED_JA  # renamed as is
    assert not (tmp_path / "chapters/ja/moving.md").exists()
    assert (tmp_path / "editions/ja-0.1/gone.md").read_text(encoding="utf-8") == "# 消えた\n\nさようなら。\n"
    assert (
        (tmp_path / "chapters/ja/fresh.md")
        .read_text(encoding="utf-8")
        .startswith("<!-- polybook:untranslated document -->\n\n# Fresh")
    )
    assert "polybook-sync.json" in {p.name for p in (tmp_path / "chapters/ja").iterdir()}  # the new base


def test_the_ported_translation_has_no_consistency_findings_only_what_is_left_to_translate(tmp_path: Path) -> None:
    conf = book(tmp_path)
    port(conf, "--write")
    result = check_book(load_book(load_config(conf)))
    found = {(str(f.code), str(f.level), f.name) for f in result.active}
    assert {f for f in found if f[1] != "info"} == set()
    assert ("stale.marked", "info", "loops") in found and ("stale.marked", "info", "fresh") in found
    assert not any(code == "stale.plan" for code, *_ in found)  # nothing behind any more
    marked = next(f for f in result.active if str(f.code) == "stale.marked" and f.name == "loops")
    assert marked.message == (
        "left by `polybook port`: 1 stale, 1 untranslated blocks; translate them and remove their marks"
    )


def test_a_second_port_changes_nothing(tmp_path: Path) -> None:
    conf = book(tmp_path)
    port(conf, "--write")
    assert "would port ja: 3 documents carried forward, 0 renamed, 0 new" in port(conf)
    assert "diff --polybook" not in port(conf)


def test_a_port_refuses_uncommitted_changes_unless_forced(tmp_path: Path) -> None:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        import pytest

        pytest.skip("git is not installed")
    conf = book(tmp_path)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "book"], check=True)
    (tmp_path / "chapters/ja/loops.md").write_text(JA + "\n未保存。\n", encoding="utf-8")
    refused = CliRunner().invoke(main, ["--conf", str(conf), "port", "ja", "--write"])
    assert refused.exit_code == 2
    assert "port of ja refused (--force to port anyway):" in refused.output
    assert "uncommitted change:  M chapters/ja/loops.md" in refused.output
    assert "未保存。" in (tmp_path / "chapters/ja/loops.md").read_text(encoding="utf-8")  # untouched
    port(conf, "--write", "--force")
    assert "未保存。" in (tmp_path / "chapters/ja/loops.md").read_text(encoding="utf-8")  # kept aside, never lost


def test_the_reader_is_told_in_their_language_what_is_not_translated_yet(tmp_path: Path) -> None:
    from polybook.dialect import parse_text
    from polybook.stage.myst import transpile

    conf = book(tmp_path)
    port(conf, "--write")
    fresh = (tmp_path / "chapters/ja/fresh.md").read_text(encoding="utf-8")
    page = transpile(parse_text(fresh, "fresh.md", None), "ja").text
    assert page.index("# Fresh") < page.index(":class: polybook-untranslated")  # under the title
    assert "このページはまだ翻訳されていません。原文のまま表示しています。" in page
    loops = transpile(parse_text((tmp_path / "chapters/ja/loops.md").read_text(encoding="utf-8"), "l.md", None), "ja")
    # one notice a page, under its title, with the counts; a small mark at each block
    assert loops.text.count("```{note}") == 1 and ":class: polybook-page-notice" in loops.text
    assert "（未翻訳 1 箇所、原文変更 1 箇所）" in loops.text
    assert loops.text.index("# ループ") < loops.text.index("polybook-page-notice")
    stale = '<div class="polybook-mark polybook-mark-stale"><details><summary>'
    assert loops.text.index(stale) < loops.text.index("十まで数えます。")  # before the block it marks
    assert '<div class="polybook-mark-text" style="white-space:pre-wrap">We count to a hundred.</div>' in loops.text
    assert "We count to <del>ten.</del> <ins>a hundred.</ins>" in loops.text  # the word diff, then -> now
    assert '<div class="polybook-mark polybook-mark-untranslated">' in loops.text
    assert "数えるのは楽しい。" not in loops.text  # an aside is for translators only


def test_the_status_page_shows_the_plan_before_the_port_and_what_is_left_after(tmp_path: Path) -> None:
    from polybook.site.status import collect, page_html

    conf = book(tmp_path)
    before = load_book(load_config(conf))
    page = page_html(collect(before), "ja", before)
    assert '<table class="table polybook-status-plan">' in page
    assert '<tr data-plan="renamed"><td>renamed</td><td>moving -&gt; part/moving</td>' in page
    assert "ja follows 0.1 (editions/en-0.1)" not in page and "0.1 (editions/en-0.1); documents:" in page
    port(conf, "--write")
    after = load_book(load_config(conf))
    page = page_html(collect(after), "ja", after)
    assert "polybook-status-plan" not in page  # nothing behind any more
    assert "stale.marked" in page  # what the port left to translate, per chapter


def test_the_status_page_counts_documents_and_blocks_as_the_plan_then_the_marks_say(tmp_path: Path) -> None:
    """Before the port from the plan (loops: 1 block changed, 1 added; fresh: new, 2 blocks),
    after it from the marks: the same counts, and a document wholly untranslated is never up to date."""
    import re

    from polybook.site.status import collect, page_html

    conf = book(tmp_path)
    expected = {
        "documents-untranslated": 2,  # fresh (new: wholly the source's), loops (a new paragraph)
        "documents-stale": 0,
        "documents-review": 0,
        "documents-current": 1,  # moving, renamed part/moving
        "blocks-untranslated": 3,
        "blocks-stale": 1,
        "blocks-review": 0,
        "blocks-current": 4,
    }
    for ported in (False, True):
        if ported:
            port(conf, "--write")
        loaded = load_book(load_config(conf))
        page = page_html(collect(loaded), "ja", loaded)
        row = re.search(r'<tr data-progress-lang="ja"[^>]*>(.*?)</tr>', page)
        assert row is not None, page
        assert dict(re.findall(r'data-progress="([\w-]+)">([\d,]+)<', row.group(1))) == {
            key: str(n) for key, n in expected.items()
        }, ported
    assert 'data-chapter="fresh" data-state="missing"' in page  # wholly untranslated: not "up to date"
    assert 'data-chapter="loops" data-state="behind"' in page  # its marks: behind the source


def test_a_heading_the_source_replaced_is_not_taken_for_a_changed_one() -> None:
    from polybook.dialect import parse_text
    from polybook.sync.port_document import port_document

    base = parse_text("# Intro\n\nText.\n\n## Summary\n\nShort.\n", "b.md", None)
    source_text = "# Intro\n\nText.\n\n## Discussion\n\nShort.\n"
    source = parse_text(source_text, "s.md", None)
    target_text = "# 序論\n\nテキスト。\n\n## まとめ\n\n短い。\n"
    target = parse_text(target_text, "t.md", None)
    ported = port_document(base, source, source_text, target, target_text)
    assert "<!-- polybook:untranslated -->\n## Discussion" in ported.text  # not "## まとめ" marked stale
    assert "<!-- polybook:aside\n## まとめ\n-->" in ported.text  # the old heading kept aside
    assert (ported.counts.kept, ported.counts.untranslated, ported.counts.aside) == (3, 1, 1)
