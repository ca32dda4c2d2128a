"""Checker cases as files: a source chapter and its translation -> the findings expected.

Each folder of ``fixtures/check/`` holds ``en.md`` (the source), ``ja.md`` (its translation)
and ``expected.txt``: one finding a line, ``LEVEL CODE FILE:LINE: MESSAGE``, in the order the
checker reports them (the ``stale.*`` notes about sync records aside). A case may also hold
``edition.md`` (the chapter in an older edition of the source the book holds, which ja follows:
``languages.ja.base``) and ``ja_origin.md`` (the English ja was made from, as d2lbook keeps it).
A contributor adds a case
by adding a folder; ``pytest tests/test_check_cases.py --regen`` writes its ``expected.txt``
from the checker as it is, to be read and kept (or fixed) in review.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polybook.book import load_book
from polybook.check import check_book
from polybook.config import load_config

from conftest import FIXTURES
from minibook import make_book

CASES = sorted(path for path in (FIXTURES / "check").iterdir() if path.is_dir())


def findings(case: Path, root: Path) -> str:
    """The checker's findings of the case, one a line, as ``expected.txt`` writes them."""
    en, ja = ((case / f"{lang}.md").read_text(encoding="utf-8") for lang in ("en", "ja"))
    conf = make_book(root, en, ja)
    if (case / "ja_origin.md").is_file():
        shutil.copy(case / "ja_origin.md", root / "chapters" / "ja" / "intro_origin.md")
        text = conf.read_text(encoding="utf-8")
        text = text.replace('"chapters":', '"exclusions": ["*_origin.md"],\n    "chapters":')
        conf.write_text(text, encoding="utf-8")
    if (case / "edition.md").is_file():
        (root / "editions" / "en-0.1").mkdir(parents=True)
        shutil.copy(case / "edition.md", root / "editions" / "en-0.1" / "intro.md")
        text = conf.read_text(encoding="utf-8")
        text = text.replace('"name": "日本語"', '"name": "日本語", "base": "0.1"')
        text = text.replace('"chapters":', '"editions": {"0.1": {"folder": "editions/en-0.1"}},\n    "chapters":')
        conf.write_text(text, encoding="utf-8")
    result = check_book(load_book(load_config(conf)))
    lines = []
    for finding in result.active:
        if str(finding.code).startswith("stale."):
            continue
        where = f"{finding.lang}.md:{finding.primary.line}" if finding.location is not None else f"{finding.lang}.md"
        lines.append(f"{finding.level.upper()} {finding.code} {where}: {finding.message}")
    return "".join(f"{line}\n" for line in lines)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Path, tmp_path: Path, regen: bool) -> None:
    actual = findings(case, tmp_path)
    expected = case / "expected.txt"
    if regen:
        expected.write_text(actual, encoding="utf-8")
    assert actual == expected.read_text(encoding="utf-8")
