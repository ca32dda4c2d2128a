"""Kept findings: a second check of an unchanged book gives the same findings from the build
folder, and an edited chapter is checked again."""

from __future__ import annotations

import shutil
from pathlib import Path

from polybook.check import check_config
from polybook.config import load_config

from conftest import FIXTURES


def test_kept_findings_are_the_same_and_an_edit_is_checked_again(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "book", tmp_path / "book", ignore=shutil.ignore_patterns("build"))
    config = load_config(tmp_path / "book" / "conf.py")
    first, _ = check_config(config, jobs=1)
    kept = list((config.build_dir / ".polybook" / "findings").rglob("*.pickle"))
    assert len(kept) == 8  # 4 translations x 2 documents
    again, _ = check_config(config, jobs=1)
    assert [f.to_dict() for f in again.findings] == [f.to_dict() for f in first.findings]
    pt = tmp_path / "book" / "chapters" / "pt" / "async-computation.md"
    pt.write_text(pt.read_text(encoding="utf-8").replace("range(1000)", "range(10000)"), encoding="utf-8")
    edited, _ = check_config(config, jobs=1)
    assert len([f for f in edited.findings if "range(1000)" in f.message]) < len(
        [f for f in first.findings if "range(1000)" in f.message]
    )
