"""A translation an edition behind: checked against what it was made from, and told how far behind.

The book's source moved on (a new edition: a cell changed, a chapter renamed away, a chapter
added); its Japanese translation was made from the old edition, which the book holds
(``polybook import d2lbook OLD --lang en --as-base``). Consistency -- what CI fails on -- is
checked against that edition; what the source changed since is said as notes.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from polybook.book import load_book
from polybook.check import check_book
from polybook.check.bases import BaseKind, base_of
from polybook.cli import main
from polybook.config import ConfigError, load_config

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
    return sorted((str(f.code), str(f.level), f.chapter, f.message) for f in result.active)


def test_without_the_edition_every_change_of_the_source_looks_like_a_mistake(tmp_path: Path) -> None:
    found = findings(book(tmp_path, edition=False))
    assert ("code.changed", "error", "loops") in {f[:3] for f in found}  # range(10) vs the new range(100)
    assert ("structure.chapter", "error", "gone") in {f[:3] for f in found}  # "has no source chapter"


def test_against_its_edition_the_translation_is_consistent_and_told_how_far_behind(tmp_path: Path) -> None:
    found = findings(book(tmp_path, edition=True))
    assert [f for f in found if f[1] in ("error", "warning")] == []  # nothing for CI to fail on
    notes = {(code, chapter) for code, level, chapter, _ in found if level == "info"}
    assert ("stale.source", "loops") in notes  # the cell and the sentence the source changed since 0.1
    assert ("structure.chapter", "fresh") in notes  # new in the source since 0.1
    assert ("stale.source", "gone") in notes  # the source dropped it
    messages = [m for code, _, chapter, m in found if code == "stale.source" and chapter == "loops"]
    assert any("cell 1 changed since 0.1, the edition the translation follows" in m for m in messages)
    new = "chapter 'fresh' is new in the source since 0.1; not translated into ja yet: translate "
    assert any(f[3].startswith(new) and f[3].endswith(" when ja takes up the source's newer edition") for f in found)


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
