"""A language's staging kept between builds: an edit that leaves every page's shape as it was
is staged alone.

Staging a language (:func:`polybook.render.stage.stage_language`) transpiles every document
again, a second of a one-paragraph edit of a d2l language. What staging a page reads besides its
own text is small: the book's settings and files other than the chapters' Markdown, the
stored results, and the *shape* of the language's documents and the source's headings
(:func:`polybook.stage.shape.shape`). All of that is one digest, the *context*
(:func:`context`). After every staging, the stage -- each page's MyST with its line map, the
diagnostics, what the API pages were written from -- is kept in ``build/.sphinx/<lang>/``
with the context and each document's text digest. The next build whose context is the same
stages only the documents whose text changed, and takes the rest from the kept stage: their
staged files are on disk as they were written. Any other change -- a setting, a figure, a
result, a heading, a label, a new page -- stages the language whole, as does a kept stage that
cannot be read.

The stage's digest then is the kept one's with the restaged pages': it changes whenever a page
was restaged, so Sphinx runs (and reads only the files whose bytes changed).
"""

from __future__ import annotations

import hashlib
import json
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.dialect.nodes import Document, Heading
from polybook.files import atomic_write_bytes
from polybook.render.stage import stage_language
from polybook.stage.documents import Stage
from polybook.stage.eval_rst import ApiPages
from polybook.stage.shape import shape

#: The kept stage, in the language's Sphinx work folder.
KEPT = "kept-stage.pickle"
#: Its format: a kept stage of another is not read.
_FORMAT = 1


@dataclass(frozen=True, slots=True)
class StagingInputs:
    """What a language is staged from, as :func:`stage_language` takes it."""

    lang: str
    docs: dict[str, Document]
    source_headings: dict[str, list[Heading]]
    results: dict[str, dict[str, Any]]
    srcdir: Path
    bibfiles: list[Path]
    generated: dict[str, str] | None
    stored: bool
    notebooks: tuple[Any, ...]


@dataclass(slots=True)
class KeptStage:
    context: str
    texts: dict[str, str]  # docname -> digest of its chapter file's text
    digest: str
    docs: dict[str, Any]
    paths: dict[str, str]
    diagnostics: list[Any]
    catalog: str
    modules: list[Path]

    def stage(self, lang: str, srcdir: Path) -> Stage:
        return Stage(
            lang, srcdir, dict(self.docs), dict(self.paths), list(self.diagnostics),
            _Digest(self.digest), self.catalog, ApiPages(list(self.modules)),
        )  # fmt: skip


class _Digest:
    """A stage's digest known already (:attr:`Stage.digest` reads ``hexdigest()``): the kept
    one, as it was when the language was last staged, or that with the pages restaged."""

    def __init__(self, value: str) -> None:
        self.value = value

    def hexdigest(self) -> str:
        return self.value


def context(fingerprint: str, inputs: StagingInputs) -> str:
    """The digest of what staging ``inputs.lang`` reads besides its documents' text:
    ``fingerprint`` (the language's inputs without its chapters' Markdown:
    :meth:`polybook.render.inputs.SiteInputs.of`), its documents' shapes (code included), the
    source's headings, the generated pages, and how it is staged."""
    material = [
        fingerprint,
        {name: shape(doc) for name, doc in inputs.docs.items()},
        {name: [(h.level, h.text, h.label) for h in found] for name, found in inputs.source_headings.items()},
        inputs.generated,
        inputs.stored,
        repr(inputs.notebooks),
        [str(path) for path in inputs.bibfiles],
    ]
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=repr).encode()).hexdigest()


def texts(config: BookConfig, lang: str) -> dict[str, str]:
    """Each document of ``lang``, as a digest of its chapter file's bytes ("" when it cannot be
    read). Taken *before* the book is parsed: a file saved in between is staged from the newer
    text and kept as the older, so the next build stages it again -- never the reverse."""
    out = {}
    for name in config.document_names(lang):
        try:
            out[name] = hashlib.sha256(config.document_path(lang, name).read_bytes()).hexdigest()
        except OSError:
            out[name] = ""
    return out


def read(work: Path) -> KeptStage | None:
    try:
        with (work / KEPT).open("rb") as file:
            found = pickle.load(file)
    except Exception:  # missing, half-written, from another polybook: staged whole
        return None
    if not isinstance(found, tuple) or len(found) != 2 or found[0] != _FORMAT or not isinstance(found[1], KeptStage):
        return None
    return found[1]


def stage_kept(
    config: BookConfig, inputs: StagingInputs, fingerprint: str, digests: dict[str, str] | None
) -> tuple[Stage, int]:
    """Stage ``inputs`` -- the documents whose text changed alone, when the kept stage's context
    is this one -- and keep the stage; the stage and how many documents were transpiled.
    ``digests``: the documents' :func:`texts` (None: staged whole, and not kept)."""
    work = inputs.srcdir.parent
    now = context(fingerprint, inputs)
    kept = read(work)
    (work / KEPT).unlink(missing_ok=True)  # a build stopped from now on stages whole next time
    usable = (
        kept is not None
        and digests is not None
        and kept.context == now
        and set(kept.texts) == set(digests) == set(inputs.docs)
        and "" not in digests.values()
    )
    if not usable:
        stage = _stage(config, inputs)
        transpiled = len(inputs.docs)
    else:
        assert kept is not None
        changed = {name for name, digest in digests.items() if kept.texts[name] != digest}
        stage = kept.stage(inputs.lang, inputs.srcdir)
        if changed:
            fresh = _stage(config, inputs, only=changed)
            restaged = {kept.paths[name] for name in changed}
            stage.diagnostics = [d for d in stage.diagnostics if d.path not in restaged] + fresh.diagnostics
            stage.docs.update(fresh.docs)
            stage.paths.update(fresh.paths)
            stage.hasher = _Digest(hashlib.sha256(f"{kept.digest}\n{fresh.digest}".encode()).hexdigest())
        transpiled = len(changed)
    if digests is not None:
        _keep(work, KeptStage(
            now, digests, stage.digest, stage.docs, stage.paths, stage.diagnostics, stage.catalog, stage.api.modules,
        ))  # fmt: skip
    return stage, transpiled


def _stage(config: BookConfig, inputs: StagingInputs, only: set[str] | None = None) -> Stage:
    return stage_language(
        config, inputs.lang, inputs.docs, inputs.source_headings, inputs.results, inputs.srcdir,
        inputs.bibfiles, inputs.generated, stored=inputs.stored, notebooks=inputs.notebooks, only=only,
    )  # fmt: skip


def _keep(work: Path, kept: KeptStage) -> None:
    atomic_write_bytes(work / KEPT, pickle.dumps((_FORMAT, kept), protocol=pickle.HIGHEST_PROTOCOL))
