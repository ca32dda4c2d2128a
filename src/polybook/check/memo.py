"""A chapter's findings kept between runs: a whole book is checked once, then only what changed.

Everything a translated chapter's checks read is in its key: both files' bytes and shown paths,
the translation's sync record and its base's file (``X_origin.md``, an edition's document),
conf.py, and the checker's and parser's own code. The book-wide parts (references resolved
over every label, the toc, suppressions, the library) are put together after, on every run.
Used by the commands (``polybook check``, the status pages of ``build html``) through the
build folder; a corrupt entry is a miss.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from polybook.check.bases import Base
from polybook.check.findings import Finding, Location
from polybook.check.keys import checker_version, file_digest, key_of, package_version
from polybook.check.plan import Changes, Counts, DocumentPlan
from polybook.check.staleness import LOCK_NAME, SyncRecord, origin_file
from polybook.config import BookConfig
from polybook.config.glossary import GLOSSARY_NAME
from polybook.database import Shelf, store_at
from polybook.dialect.nodes import Document
from polybook.files import kept, pickled_by_fields, swept
from polybook.models import MODELS_DIR

FINDINGS_DIR = "findings"
DOCUMENTS = "documents.sqlite"  # in FINDINGS_DIR: each document's shelf of findings and bases
# what kept findings (and the chunks' results the workers send back) are made of
pickled_by_fields(Finding, Location, DocumentPlan, Changes, Counts)


def findings_dir(config: BookConfig) -> Path:
    """``build/.polybook/findings``: beside the kept parsed documents; the chunks', renames' and
    library's findings are kept in folders of it. Swept of what no run uses (:func:`swept`)."""
    return swept((config.build_dir / MODELS_DIR).parent / FINDINGS_DIR)


def chapter_findings(
    store: Path | Shelf | None,
    config: BookConfig,
    lang: str,
    name: str,
    source: Document | None,
    translation: Document,
    lock: dict[str, SyncRecord],
    base: Base,
    compute: Callable[[], list[Finding]],
    notes: bool = True,
) -> list[Finding]:
    """``compute()``, or what it gave last time for the same inputs (``store``: the document's
    shelf (:func:`document_shelf`), or a folder of kept findings; None to compute every time);
    ``notes``: whether ``compute`` works out the ``stale.source`` notes (kept apart from the
    findings without them: :func:`polybook.check.chapter.check_chapter`)."""
    if store is None:
        return compute()
    record = lock.get(name)
    target_file = config.document_path(lang, name)
    key = key_of([
        checker_version(),
        file_digest(config.path),
        source.path if source is not None else "",
        translation.path,
        file_digest(config.document_path(config.source_language, name)),
        file_digest(target_file),
        repr(record),
        base.kind,
        str(base.file or ""),
        file_digest(base.file) if base.file is not None else b"",
        file_digest(config.chapters_dir / lang / GLOSSARY_NAME),
        str(notes),
    ])  # fmt: skip
    if isinstance(store, Shelf):
        return store.get(("findings", lang) if notes else ("findings", lang, "folded"), key, list, compute)
    return kept(store / key[:2] / f"{key}.pickle", list, compute)


def document_shelf(config: BookConfig, name: str) -> Shelf:
    """The findings and bases kept for document ``name`` in every language: one
    :class:`~polybook.database.Shelf` for them all, in the findings' database."""
    return Shelf(store_at(findings_dir(config) / DOCUMENTS), key_of([name]))


def chunk_key(
    config: BookConfig, names: list[str], langs: list[str], present: dict[str, list[str]], also: Iterable[Path]
) -> str:
    """The key of a chunk's whole result (:func:`polybook.check.check_config` keeps it, so that
    an unchanged book is not loaded at all): every file its chapters read in every language --
    the document, its ``X_origin.md``, the held edition's, the language's sync records -- the
    languages' document names, ``also`` (the source's documents misspelt names are checked
    against), conf.py, the working directory (paths are shown relative to it) and polybook's code."""
    source = config.source_language
    parts: list[str | bytes] = [package_version(), file_digest(config.path), os.getcwd(), repr(langs), repr(present)]
    for lang in [source, *langs]:
        parts.append(file_digest(config.chapters_dir / lang / LOCK_NAME))
        parts.append(file_digest(config.chapters_dir / lang / GLOSSARY_NAME))
        edition = config.languages[lang].base
        for name in names:
            document = config.document_path(lang, name)
            parts += [name, file_digest(document), file_digest(origin_file(document))]
            if edition is not None:
                held = config.edition_path(edition, name)
                parts += [str(held.is_file()), file_digest(held)]
    parts += [file_digest(path) for path in also]
    return key_of(parts)
