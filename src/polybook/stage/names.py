"""How the book's downloads are named: its PDFs and its notebooks' zips."""

from __future__ import annotations

import re
import unicodedata

from polybook.config import BookConfig


def book_name(config: BookConfig) -> str:
    """File-name stem of the book's downloads: the project's name as a slug."""
    project = str(config.sphinx.get("project") or config.title or "book")
    # letters with marks keep their base letter ("Đắm mình" -> "dam-minh"), not a dash each
    plain = unicodedata.normalize("NFKD", project.replace("Đ", "D").replace("đ", "d"))
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-") or "book"
