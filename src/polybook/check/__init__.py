"""``polybook check``: every translation compared with the source, statically.

Nothing here imports or runs book code: chapters are parsed, cells are tokenised.
Every check but one is local to a chapter, so the work splits over chapters
(:func:`check_config` runs the chunks in worker processes); whether a reference resolves
needs every label of the book and is decided when the chunks are merged.

The package's names are imported when first asked for (as :mod:`importlib` allows a module's
``__getattr__``): a stage that needs one small module of the checker -- the page's word diff of a
stale block -- does not import the whole checker with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polybook.check.chapter import check_chapter, parse_findings
    from polybook.check.findings import CheckResult, Finding
    from polybook.check.merge import Baseline
    from polybook.check.run import check_book, check_config

__all__ = ["Baseline", "CheckResult", "Finding", "check_book", "check_chapter", "check_config", "parse_findings"]

_MODULES = {
    "check_chapter": "chapter",
    "parse_findings": "chapter",
    "CheckResult": "findings",
    "Finding": "findings",
    "Baseline": "merge",
    "check_book": "run",
    "check_config": "run",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)
    globals()[name] = value  # asked once
    return value
