"""Input Markdown -> expected outline and diagnostics (with line numbers).

Each ``fixtures/parse/NAME.md`` is parsed with the default dialect settings (frameworks
mxnet and pytorch, mxnet the default tab); its outline must equal ``NAME.out``.
Run ``pytest --regen`` to rewrite the ``.out`` files, then review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.dialect import parse_file
from polybook.dialect.outline import outline

from conftest import FIXTURES

CASES = sorted((FIXTURES / "parse").glob("*.md"))


@pytest.mark.parametrize("source", CASES, ids=[c.stem for c in CASES])
def test_outline(source: Path, regen: bool) -> None:
    expected_file = source.with_suffix(".out")
    actual = outline(parse_file(source, display=source.name)) + "\n"
    if regen:
        expected_file.write_text(actual, encoding="utf-8")
    assert actual == expected_file.read_text(encoding="utf-8")
