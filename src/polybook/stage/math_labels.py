"""Numbered amsmath environments get the same anchor on every build (pages and PDFs).

MyST gives a numbered ``\\begin{equation}``/``align`` block a random label (a UUID4), so its
anchor (``#equation-…``) changes with every build of its page: a link to it breaks, and a page
built again after an edit -- or after an interrupted build -- is never the page a cold build
makes. MyST draws the label from one method of its renderer, ``_random_label``; this extension
gives it the page's name and the block's place among the page's numbered blocks instead, which
stay the same while the page does (and are unique in the book, as Sphinx's equations must be).
"""

from __future__ import annotations

import re
from typing import Any

#: What of a page's name an anchor keeps (Sphinx makes ids of the rest).
_UNSAFE = re.compile(r"[^A-Za-z0-9]+")


def _stable_label(renderer: Any) -> str:
    """The next numbered block's label in the page ``renderer`` renders."""
    count = getattr(renderer, "_polybook_amsmath", 0) + 1
    renderer._polybook_amsmath = count
    env = getattr(renderer, "sphinx_env", None)
    page = getattr(env, "docname", "") or "page"
    return f"amsmath-{_UNSAFE.sub('-', page).strip('-')}-{count}"


def setup(app: Any) -> dict[str, Any]:
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer

    if not hasattr(SphinxRenderer, "_random_label"):  # a MyST release without the hook: say so
        raise RuntimeError("myst-parser no longer has SphinxRenderer._random_label: amsmath anchors would be random")
    SphinxRenderer._random_label = _stable_label  # one process per build: its own renderer class
    return {"parallel_read_safe": True, "parallel_write_safe": True}
