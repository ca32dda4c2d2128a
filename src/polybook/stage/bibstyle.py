"""The d2l citation style for sphinxcontrib-bibtex: author and year in round brackets.

d2lbook's books cite as "(Goodfellow et al., 2016)" and "Goodfellow et al. (2016)", in
HTML and -- through natbib's ``\\citep`` -- in PDF. sphinxcontrib-bibtex's own author-year
style uses square brackets; this Sphinx extension registers the same style with round
ones as ``author_year_round``, the default ``bibtex_reference_style`` of polybook's builds
(:func:`polybook.stage.settings.bibtex_settings`). A book may still choose another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sphinx.application import Sphinx

from polybook import __version__

STYLE = "author_year_round"


def _round() -> Any:
    from sphinxcontrib.bibtex.style.referencing import BracketStyle

    return BracketStyle(left="(", right=")")


def register() -> None:
    """Register ``author_year_round`` (once per process)."""
    from sphinxcontrib.bibtex.plugin import register_plugin
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

    @dataclass
    class RoundAuthorYear(AuthorYearReferenceStyle):  # type: ignore[misc]
        bracket_parenthetical: Any = field(default_factory=_round)
        bracket_textual: Any = field(default_factory=_round)
        bracket_author: Any = field(default_factory=_round)
        bracket_label: Any = field(default_factory=_round)
        bracket_year: Any = field(default_factory=_round)

    register_plugin("sphinxcontrib.bibtex.style.referencing", STYLE, RoundAuthorYear)


def setup(app: Sphinx) -> dict[str, Any]:
    register()
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
