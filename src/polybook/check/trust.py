"""What a translation adds that the build would import, run or read: ``polybook check``'s side
of the trust model (docs/trust.md).

A translation is text: a pull request that changes one should change nothing a build runs.
So an ``eval_rst`` directive that imports, runs or reads something (autodoc's ``automodule``,
``.. currentmodule::``, an ``exec``-like directive, ``include``/``literalinclude``, ``raw``)
is the source language's to write: one a translated chapter has and its source does not is an
error (``trust.directive``), and so is a Python module file in a language's folder (``.py``,
``.pyc``, an extension module) that the source language's folder -- or the edition the
language follows -- does not have at the same place (``trust.module``): the build documents
only the book's library and imports nothing, but ``build eval`` runs a language's code with
its folder's modules importable.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
from collections import Counter
from pathlib import Path

from polybook.check.documents import by_identity
from polybook.check.findings import Finding, Location
from polybook.check.segments import walked
from polybook.config import BookConfig
from polybook.diagnostics import Code
from polybook.dialect.nodes import Document, EvalRst
from polybook.dialect.rst import Reach, RstDirective, read_directives
from polybook.files import display_path

#: What a directive that reaches beyond the page does, as a finding says it.
_DOES = {
    Reach.IMPORTS: "documents a module, which autodoc would import",
    Reach.MODULE: "chooses the module the API directives after it document",
    Reach.RUNS: "would run code while the book is built",
    Reach.FILE: "reads a file into the page",
    Reach.RAW: "puts raw output (HTML and its scripts) into the page",
}
#: The endings of files Python imports as modules (``.py``, ``.pyc``, ``.cpython-311-*.so``...).
MODULE_SUFFIXES = tuple(importlib.machinery.all_suffixes())


def added_directives(
    lang: str,
    name: str,
    translation: Document,
    source: Document | None,
    current: Document | None = None,
    library: frozenset[str] = frozenset(),
) -> list[Finding]:
    """The directives of ``translation``'s eval_rst blocks that reach beyond the page and that
    neither its ``source`` (the text it was made from) nor the source's ``current`` text has.
    An API directive of the book's ``library`` (its packages: ``d2l``) is no finding: the build
    documents that from its source and imports nothing (zh's ``currentmodule:: d2l.paddle``, its
    own framework's module)."""
    known: Counter[str] = Counter()
    for doc in {id(doc): doc for doc in (source, current) if doc is not None}.values():
        found = Counter(_key(directive) for _, directive in _reaching(doc))
        known |= found
    findings = []
    module = ""  # the page's current module: what an object named alone belongs to
    for line, directive in _reaching(translation):
        if directive.reach is Reach.MODULE or directive.name.removeprefix("py:") == "automodule":
            module = directive.argument.strip()
        if _of_library(directive, module, library):
            continue
        key = _key(directive)
        if known[key] > 0:
            known[key] -= 1
            continue
        reach = directive.reach
        assert reach is not None
        message = (
            f"the translation adds `{directive.written}`, which the source does not have: it {_DOES[reach]}; "
            "remove it, or have it added to the source first (an eval_rst "
            "directive that imports, runs or reads files is the source's to write; docs/trust.md)"
        )
        findings.append(
            Finding.make(Code.TRUST_DIRECTIVE, message, lang, name, Location(translation.path, line), subject=(key, ""))
        )
    return findings


@by_identity
def _reaching(doc: Document) -> list[tuple[int, RstDirective]]:
    """Each directive of ``doc``'s eval_rst blocks that reaches beyond the page, with its line.
    Memoised, on the walk the checks share: a source (or base) is read for every language."""
    return [
        (node.line + 1 + directive.start, directive)
        for node in walked(doc)
        if isinstance(node, EvalRst)
        for directive in read_directives(node.source)
        if directive.reach is not None
    ]


def _of_library(directive: RstDirective, module: str, library: frozenset[str]) -> bool:
    """An API directive naming a module of the library's packages (``d2l.paddle``) or an object of
    one, written in full or alone under the page's current ``module``."""
    if directive.reach not in (Reach.IMPORTS, Reach.MODULE) or not directive.argument.strip():
        return False
    named = directive.argument.strip()
    alone = directive.reach is Reach.IMPORTS and directive.name.removeprefix("py:") != "automodule" and "." not in named
    return (module if alone else named).split(".")[0] in library


def _key(directive: RstDirective) -> str:
    """What two directives share when they are the same: the directive as written, and for
    one whose content is what it runs or shows (``raw``, ``exec``...), that content."""
    if directive.reach in (Reach.RAW, Reach.RUNS):
        return "\n".join(line.strip() for line in directive.text.split("\n") if line.strip())
    return directive.written


def added_modules(config: BookConfig, langs: list[str]) -> list[Finding]:
    """The Python module files of each of ``langs``' folders that the source language's folder
    (or the edition the language follows) does not have at the same place; ``__pycache__``
    folders aside (what Python writes beside a module it imported). A module the language's own
    #@save code gives (zh's ``d2l/paddle.py``, a framework only it has) is the language's
    library, compared as code with that code (``lib.stale``), not an added module."""
    from polybook.library.build import module_target

    findings = []
    source_folder = _folder(config, config.source_language)
    settings = config.library
    own_modules = (
        {module_target(config, settings, f) for f in settings.frameworks} if not config.library_problems else set()
    )
    for lang in langs:
        folder = _folder(config, lang)
        if not folder.is_dir() or folder == source_folder:
            continue
        sources = [source_folder]
        edition = config.languages[lang].base
        if edition is not None and edition in config.editions:
            sources.append(config.editions[edition].folder)
        for path in sorted(folder.rglob("*")):
            if not path.name.endswith(MODULE_SUFFIXES) or "__pycache__" in path.parts or not path.is_file():
                continue
            relative = path.relative_to(folder)
            if path in own_modules or any((other / relative).is_file() for other in sources):
                continue
            findings.append(_module_finding(lang, path, relative, source_folder))
    return findings


def _module_finding(lang: str, path: Path, relative: Path, source_folder: Path) -> Finding:
    message = (
        f"{relative.as_posix()} is a Python module the source language does not have "
        f"(no {display_path(source_folder / relative)}): `polybook build eval` would run the {lang} chapters' code "
        "with it importable; remove it, or have it added to the source first (a translation adds text, "
        "not code; docs/trust.md)"
    )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return Finding.make(
        Code.TRUST_MODULE, message, lang, "", Location(display_path(path), 1), subject=(str(relative), digest)
    )


def _folder(config: BookConfig, lang: str) -> Path:
    return config.document_path(lang, "x").parent
