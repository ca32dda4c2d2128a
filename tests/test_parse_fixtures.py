"""Input Markdown -> expected outline and diagnostics (with line numbers).

Each ``fixtures/parse/NAME.md`` is parsed with the default dialect settings (frameworks
mxnet and pytorch, mxnet the default tab), or with those of ``NAME.json`` when there is one
(``{"frameworks": [...], "default_tab": ...}``); its outline must equal ``NAME.out``.
Run ``pytest --regen`` to rewrite the ``.out`` files, then review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybook.dialect import DialectSettings, parse_file
from polybook.dialect.outline import outline

from conftest import FIXTURES

CASES = sorted((FIXTURES / "parse").glob("*.md"))


@pytest.mark.parametrize("source", CASES, ids=[c.stem for c in CASES])
def test_outline(source: Path, regen: bool) -> None:
    expected_file = source.with_suffix(".out")
    settings = DialectSettings(None, ("mxnet", "pytorch"), "mxnet")
    if source.with_suffix(".json").is_file():
        given = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
        settings = DialectSettings(given.get("language"), tuple(given["frameworks"]), given["default_tab"])
    actual = outline(parse_file(source, settings, display=source.name)) + "\n"
    if regen:
        expected_file.write_text(actual, encoding="utf-8")
    assert actual == expected_file.read_text(encoding="utf-8")
