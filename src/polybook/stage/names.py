"""How the book's downloads are named -- its PDFs and its notebooks' zips -- and the release they carry."""

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


_VERSION_RE = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.M)


def library_version(config: BookConfig, lang: str, framework: str) -> str:
    """The version of the library the build used: its version file's ``__version__`` (in
    ``build eval``'s mirror, else the language's folder, else the source's), else conf.py's release."""
    from polybook.execute.workdir import run_root

    version_file = config.library.version_file
    if version_file:
        for base in (
            run_root(config, lang, framework),
            config.chapters_dir / lang,
            config.chapters_dir / config.source_language,
        ):
            try:
                found = _VERSION_RE.search((base / version_file).read_text(encoding="utf-8"))
            except OSError:
                continue
            if found:
                return found.group(1)
    return str(config.sphinx.get("release") or "")
