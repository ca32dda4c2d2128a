"""A translation an edition behind: checked against what it was made from, and told how far behind.

The book's source moved on (a new edition: a cell changed, a chapter renamed away, a chapter
added); its Japanese translation was made from the old edition, which the book holds
(``polybook import d2lbook OLD --lang en --as-base``). Consistency -- what CI fails on -- is
checked against that edition; what the source changed since is said as notes.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.check import check_book, check_config
from polybook.check.bases import BaseKind, base_of
from polybook.check.findings import Finding
from polybook.cli import main
from polybook.config import ConfigError, load_config
from polybook.diagnostics import Code

from conftest import FIXTURES

OLD_EN = """\
# Loops
:label:`sec_loops`

We count to ten.

```{.python .input}
for i in range(10):
    print(i)
```
"""
NEW_EN = OLD_EN.replace("range(10)", "range(100)").replace("to ten", "to a hundred")
JA = """\
# ループ
:label:`sec_loops`

十まで数えます。

```{.python .input}
for i in range(10):  # 数える
    print(i)
```
"""
GONE = "# Gone\n:label:`sec_gone`\n\n```{.python .input}\nx = 1\n```\n"
CONF = """\
polybook = {
    "source_language": "en",
    "frameworks": ["mxnet"],
    "languages": {"en": {"name": "English"}, "ja": {"name": "日本語"%s}},
    %s
}
"""


def book(root: Path, edition: bool) -> Path:
    """en has loops (changed since the edition) and fresh (new); ja has loops and gone (which
    the source dropped); the edition, when held, has loops and gone as ja translated them."""
    for lang, files in {"en": {"loops": NEW_EN, "fresh": "# Fresh\n"}, "ja": {"loops": JA, "gone": GONE}}.items():
        (root / "chapters" / lang).mkdir(parents=True)
        for name, text in files.items():
            (root / "chapters" / lang / f"{name}.md").write_text(text, encoding="utf-8")
    if edition:
        (root / "editions" / "en-0.1").mkdir(parents=True)
        (root / "editions" / "en-0.1" / "loops.md").write_text(OLD_EN, encoding="utf-8")
        (root / "editions" / "en-0.1" / "gone.md").write_text(GONE, encoding="utf-8")
        settings = (', "base": "0.1"', '"editions": {"0.1": {"folder": "editions/en-0.1"}},')
    else:
        settings = ("", "")
    (root / "conf.py").write_text(CONF % settings, encoding="utf-8")
    return root / "conf.py"


def findings(conf: Path) -> list[tuple[str, str, str, str]]:
    result = check_book(load_book(load_config(conf)))
    return sorted((str(f.code), str(f.level), f.name, f.message) for f in result.active)


def test_without_the_edition_every_change_of_the_source_looks_like_a_mistake(tmp_path: Path) -> None:
    found = findings(book(tmp_path, edition=False))
    assert ("code.changed", "error", "loops") in {f[:3] for f in found}  # range(10) vs the new range(100)
    assert ("structure.chapter", "error", "gone") in {f[:3] for f in found}  # "has no source chapter"


def test_against_its_edition_the_translation_is_consistent_and_told_how_far_behind(tmp_path: Path) -> None:
    found = findings(book(tmp_path, edition=True))
    assert [f for f in found if f[1] in ("error", "warning")] == []  # nothing for CI to fail on
    notes = {(code, chapter) for code, level, chapter, _ in found if level == "info"}
    assert ("stale.source", "loops") in notes  # the cell and the sentence the source changed since 0.1
    messages = [m for code, _, chapter, m in found if code == "stale.source" and chapter == "loops"]
    assert any("cell 1 changed since 0.1, the edition the translation follows" in m for m in messages)
    plan = {chapter: m for code, _, chapter, m in found if code == "stale.plan"}  # one row per document
    assert plan["fresh"].startswith("new in the source since 0.1, not in ja: 1 words to translate")
    assert plan["gone"].startswith("the source dropped this document since 0.1")
    assert plan["loops"].startswith(
        "the source changed since 0.1: paragraph: 1 changed; code cell: 1 changed; 2 words to translate"  # "a hundred"
    )


def test_the_migration_plan_finds_a_renamed_document_by_the_labels_it_shares(tmp_path: Path) -> None:
    """The source moved ``gone`` to ``kept/moved`` (same label): one row, renamed, not gone + new."""
    conf = book(tmp_path, edition=True)
    (tmp_path / "chapters" / "en" / "kept").mkdir()
    (tmp_path / "chapters" / "en" / "kept" / "moved.md").write_text(GONE + "\nA new sentence.\n", encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    plan = result.plans()["ja"]
    rows = {(str(row.state), row.name, row.source_name) for row in plan.rows}
    assert ("renamed", "gone", "kept/moved") in rows
    assert not any(row.name == "kept/moved" for row in plan.rows)  # not also new
    renamed = next(row for row in plan.rows if row.name == "gone")
    assert renamed.shared == ("sec_gone",) and renamed.changes.paragraphs.added == 1 and renamed.changes.words == 3
    assert (
        plan.summary() == "ja: 1 renamed, 1 new, 1 changed; 2 of 3 paragraphs unchanged; 6 words to translate"
    )  # 3 + 1 + "a hundred"


def test_the_plan_is_a_table_in_the_terminal_and_a_key_in_json(tmp_path: Path) -> None:
    conf = book(tmp_path, edition=True)
    runner = CliRunner()
    text = runner.invoke(main, ["--conf", str(conf), "check"]).output
    assert "Migration plan for ja (behind the source; `polybook port ja` carries it forward)" in text
    rows = [line.split() for line in text.splitlines() if line.startswith("  ")]
    assert ["state", "paragraphs", "cells", "formulas", "words", "document"] in rows  # the document last, unpadded
    assert any(row[0] == "new" and row[-1] == "fresh" for row in rows)
    assert any(row[0] == "gone" and row[-1] == "gone" for row in rows)
    assert "ja follows 0.1 (editions/en-0.1); documents: 2 against the edition" in text
    data = json.loads(runner.invoke(main, ["--conf", str(conf), "check", "--format", "json"]).output)
    assert data["migration"]["ja"]["documents"] == {"renamed": 0, "new": 1, "gone": 1, "changed": 1, "unchanged": 0}
    assert {row["chapter"] for row in data["migration"]["ja"]["rows"]} == {"fresh", "gone", "loops"}
    sarif = json.loads(runner.invoke(main, ["--conf", str(conf), "check", "--format", "sarif"]).output)
    notes = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "polybook.stale.plan"]
    assert len(notes) == 3 and {r["level"] for r in notes} == {"note"}


def test_the_terminal_sums_up_the_plans_notes_and_lists_them_when_asked(tmp_path: Path) -> None:
    """A language behind the source: its table sums up what changed, paragraph by paragraph; the
    text report lists those notes only with --notes (JSON always has them). Without --notes the
    check does not work out a note for each change of a changed document -- its plan's row sums
    them up -- and the report says so and how to have them; what else it finds is the same."""
    conf = book(tmp_path, edition=True)
    runner = CliRunner()
    text = runner.invoke(main, ["--conf", str(conf), "check"]).output
    assert "[polybook.stale.source]" not in text and "[polybook.stale.plan]" not in text
    data = json.loads(runner.invoke(main, ["--conf", str(conf), "check", "--format", "json"]).output)
    folded = [f for f in data["findings"] if f["code"] in ("polybook.stale.source", "polybook.stale.plan")]
    rows = [f for f in folded if f["code"] == "polybook.stale.plan"]
    assert rows and len(folded) > len(rows)  # the changed document's notes: in JSON, not worked out for the text
    said = f"summed up in the plans above ({len(rows)} rows and notes): --notes works out and lists a note for each"
    assert said in text and f"0 errors, 0 warnings, {len(rows)} info" in text
    listed = runner.invoke(main, ["--conf", str(conf), "check", "--notes"]).output
    assert listed.count("[polybook.stale.source]") + listed.count("[polybook.stale.plan]") == len(folded)
    assert "are summed up in the plans above" not in listed and "Migration plan for ja" in listed
    asked = runner.invoke(main, ["--conf", str(conf), "check", "--code", "stale.source", "--notes"]).output
    notes = len(folded) - len(rows)
    assert asked.count("[polybook.stale.source]") == notes and f"0 errors, 0 warnings, {notes} info" in asked
    named = runner.invoke(main, ["--conf", str(conf), "check", "--code", "stale.source"]).output
    assert f"0 errors, 0 warnings, {notes} info" in named  # asked for by their code: worked out, summed up


@pytest.mark.parametrize("jobs", [1, 2])
def test_without_notes_the_check_finds_the_same_but_the_changed_documents_notes(tmp_path: Path, jobs: int) -> None:
    """``check_config(notes=False)`` (the text report's) leaves out exactly the ``stale.source``
    notes of the documents the source changed, says so on its result, keeps them apart from a
    check with notes (each kept its own), and does not tell a suppression of those notes as
    matching nothing: it was not asked to match."""
    conf = book(tmp_path, edition=True)
    ja = tmp_path / "chapters" / "ja" / "loops.md"
    ignore = '<!-- polybook: ignore stale.source reason="counted later" -->\n\n'
    ja.write_text(JA.replace("十まで", ignore + "十まで"), encoding="utf-8")
    config = load_config(conf)

    def key(f: Finding) -> tuple[str, str, str, str, str | None]:
        return str(f.code), f.lang, f.name, f.fingerprint, f.suppressed

    for _ in range(2):  # cold, then as kept
        full, _ = check_config(config, jobs=jobs)
        folded, _ = check_config(config, jobs=jobs, notes=False)
        assert full.notes and not folded.notes
        left_out = [f for f in full.findings if key(f) not in set(map(key, folded.findings))]
        assert left_out and {(str(f.code), f.name) for f in left_out} == {("stale.source", "loops")}
        assert sorted(map(key, folded.findings)) == sorted(key(f) for f in full.findings if f not in left_out)
        assert any(f.suppressed == "counted later" for f in left_out)  # the suppression matches with notes
        assert not [f for f in [*full.findings, *folded.findings] if f.code is Code.SUPPRESSION_UNUSED]


def test_a_base_the_book_does_not_hold_is_one_warning_that_says_how_to_give_it(tmp_path: Path) -> None:
    """ja has three documents the source no longer has, and nothing to check them against: it
    was made from an edition the book does not hold. One warning says how to hold it; the
    differences from today's source are notes until then, never a wall of errors."""
    conf = book(tmp_path, edition=False)
    for name in ("old1", "old2"):
        (tmp_path / "chapters" / "ja" / f"{name}.md").write_text(GONE.replace("sec_gone", name), encoding="utf-8")
    found = findings(conf)
    loud = [f for f in found if f[1] in ("error", "warning")]
    assert [f[:2] for f in loud] == [("stale.base", "warning")]
    assert loud[0][3].startswith("3 of ja's 4 documents are not in the source (gone, old1, old2): ja was made from")
    assert "`polybook import d2lbook OLD --lang en --as-base`" in loud[0][3]
    assert ("code.changed", "info", "loops") in {f[:3] for f in found}  # still said, as a note


def test_the_base_is_the_text_the_translation_matches(tmp_path: Path) -> None:
    """An X_origin.md names what a document was made from -- unless the translation's code,
    formulas and labels follow another text better (d2l-zh kept old origin files while its code
    followed later sources)."""
    conf = book(tmp_path, edition=True)
    config = load_config(conf)
    docs = load_book(config)
    current, target = docs.chapters["en"]["loops"], docs.chapters["ja"]["loops"]
    assert base_of(config, "ja", "loops", current, None, None, target).kind is BaseKind.EDITION
    origin = tmp_path / "chapters" / "ja" / "loops_origin.md"
    origin.write_text(OLD_EN.replace("# Loops", "# Loops, as translated"), encoding="utf-8")
    assert base_of(config, "ja", "loops", current, None, None, target).kind is BaseKind.ORIGIN  # a tie: the origin
    origin.write_text(NEW_EN.replace("sec_loops", "sec_other"), encoding="utf-8")  # matches nothing of ja's
    assert base_of(config, "ja", "loops", current, None, None, target).kind is BaseKind.EDITION


def test_a_base_naming_no_edition_is_a_config_error(tmp_path: Path) -> None:
    conf = book(tmp_path, edition=True)
    conf.write_text(conf.read_text(encoding="utf-8").replace('"base": "0.1"', '"base": "0.2"'), encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"polybook\.languages\.ja\.base: '0\.2' is not an edition; did you mean '0\.1'"
    ):
        load_config(conf)


def test_an_edition_is_imported_beside_the_book_and_translations_follow_it(tmp_path: Path) -> None:
    """``polybook import d2lbook OLD --lang en --as-base``: the old project's documents go to
    editions/en-<release>/, read with its own tabs; translations without a base follow it."""
    root = tmp_path / "book"
    root.mkdir()
    runner = CliRunner()
    with contextlib.chdir(root):
        for lang in ("en", "ja"):
            result = runner.invoke(main, ["import", "d2lbook", str(FIXTURES / "d2lbook" / lang), "--lang", lang])
            assert result.exit_code == 0, result.output
    old = tmp_path / "old"
    shutil.copytree(FIXTURES / "d2lbook" / "en", old)
    args = ["--conf", str(root / "conf.py"), "import", "d2lbook", str(old), "--lang", "en", "--as-base"]
    first = runner.invoke(main, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    config = load_config(root / "conf.py")
    (edition,) = config.editions.values()
    assert edition.name == "0.3.0" and edition.folder == (root / "editions" / "en-0.3.0").resolve()
    assert (edition.folder / "chapter_basics" / "counting.md").is_file()
    assert config.languages["ja"].base == "0.3.0" and config.languages["en"].base is None
    assert "ja now follow 0.3.0" in first.output
    again = runner.invoke(main, args, catch_exceptions=False)
    assert again.exit_code == 2 and "--force" in again.output  # nothing replaced without --force
    assert runner.invoke(main, [*args, "--force"], catch_exceptions=False).exit_code == 0
    ja_only = runner.invoke(main, [*args[:-2], "ja", "--as-base"], catch_exceptions=False)
    assert ja_only.exit_code == 2 and "an edition of the source language (en), not ja" in ja_only.output


def test_top_cuts_each_plan_table_and_says_how_many_rows_more(tmp_path: Path) -> None:
    conf = book(tmp_path, edition=True)
    text = CliRunner().invoke(main, ["--conf", str(conf), "check", "--top", "1"]).output
    table = text[text.index("Migration plan for ja") :].splitlines()
    assert table[1].split() == ["state", "paragraphs", "cells", "formulas", "words", "document"]
    assert table[3] == "  … 2 more documents past --top 1 (without it: every one)"
    assert table[4].startswith("  ja: 1 new, 1 gone, 1 changed")  # the totals stay the plan's
