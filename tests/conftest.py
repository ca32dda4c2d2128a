from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def copy_conf(root: Path) -> Path:
    """The bundled book's conf.py in ``root``, making its framework environments where ``make site``
    does (``build/envs`` of this checkout): they are kept by what they are made from, so a copy of
    the book makes them once, and each one's kernel spec keeps pointing at one folder."""
    text = (ROOT / "conf.py").read_text(encoding="utf-8")
    shared = f'"execution": {{\n        "env_dir": {str(ROOT / "build" / "envs")!r},'
    (root / "conf.py").write_text(text.replace('"execution": {', shared, 1), encoding="utf-8")
    return root / "conf.py"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--regen", action="store_true", help="Rewrite expected fixture outputs from the current code.")


@pytest.fixture
def regen(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen"))
