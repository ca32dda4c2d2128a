"""``polybook check``: every translation compared with the source, statically.

Nothing here imports or runs book code: chapters are parsed, cells are tokenised.
Every check but one is local to a chapter, so the work splits over chapters
(:func:`check_config` runs the chunks in worker processes); whether a reference resolves
needs every label of the book and is decided when the chunks are merged.
"""

from __future__ import annotations

from polybook.check.chapter import check_chapter, parse_findings
from polybook.check.findings import CheckResult, Finding
from polybook.check.merge import Baseline
from polybook.check.run import check_book, check_config

__all__ = ["Baseline", "CheckResult", "Finding", "check_book", "check_chapter", "check_config", "parse_findings"]
