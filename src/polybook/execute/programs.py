"""Programs: one framework's code cells of one chapter, in order, keyed by their content.

A program is what one kernel runs: the code its framework's reader sees
(:mod:`polybook.library.reader_code`: the library's aliases applied, imports sorted, as d2lbook
runs it). Its key hashes the framework, the normalised code of every cell
(comments, docstrings and whitespace do not count, so translated comments do
not split the cache), the cells' execution options and the kernel environment's
fingerprint. Prose never enters it. Languages whose programs have the same key share one
run: :func:`build_programs` groups them, and each :class:`Use` remembers where the cells
live in its language, so results and errors can be reported at ``path:line`` everywhere.

The effective timeouts are not in the key (raising a timeout must not re-run what
succeeded, nor orphan frozen results; a stored timeout is re-run once the cell may run
longer), but uses are only grouped when their timeouts agree too: identical code in a
chapter allowed more time runs with its own timeouts (same key, so the cache is shared).
A shared program runs in the first use's document folder of that language's run mirror
(``build/run/<language>/chapter_x``, :mod:`polybook.execute.workdir`): never in the sources.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.book import Book
from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.nodes import CodeCell
from polybook.dialect.normalize import normalize_code
from polybook.execute.envs import Wanted, kernel_dir
from polybook.execute.workdir import run_folder, run_root
from polybook.library.reader_code import reader_code

if TYPE_CHECKING:
    from polybook.config import BookConfig
    from polybook.execute.library import KernelLibrary

KEY_VERSION = 2  # 2: a cell that is just a string keeps it (it is displayed)
#: Fence attributes that change how a cell runs: ``{.python .input timeout=600 allow_errors=true}``.
CELL_OPTIONS = ("timeout", "allow_errors")
_TRUE, _FALSE = {"true", "yes", "1"}, {"false", "no", "0"}
#: Code that asks for a GPU: such programs go to GPU workers under ``--scheduler``.
_GPU_CODE_RE = re.compile(
    r"\bcuda\b|try_gpu|try_all_gpus|num_gpus|npx\s*\.\s*gpu|mx\s*\.\s*gpu|devices\s*\(\s*['\"](?:gpu|cuda)"
)


#: (language, name): one language's copy of a document.
Document = tuple[str, str]


@dataclass(frozen=True, slots=True)
class CellOptions:
    timeout: int  # effective: cell attribute, else chapter, else book
    allow_errors: bool  # effective
    explicit: dict[str, Any] = field(default_factory=dict)  # what the cell itself says (enters the key)


@dataclass(slots=True)
class Use:
    """One language's copy of a program: the cells as written there."""

    language: str
    name: str
    path: str  # as shown in diagnostics
    cells: list[CodeCell]

    def location(self, index: int) -> str:
        return f"{self.path}:{self.cells[index].line}"


def asks_for_gpu(code: str) -> bool:
    """Whether code asks for a GPU (``d2l.try_gpu``, ``npx.gpu``, ``.cuda()``...)."""
    return bool(_GPU_CODE_RE.search(normalize_code(code)))


@dataclass(slots=True)
class Program:
    key: str
    framework: str
    name: str
    kernel: str
    cwd: Path  # the document's folder in the language's run mirror (polybook.execute.workdir)
    sources: list[str]  # code that runs: the first use's cells, comments and all
    options: list[CellOptions]
    fingerprint: dict[str, Any]
    uses: list[Use] = field(default_factory=list)
    pythonpath: Path | None = None  # the mirror's root: the book's package folder is found there
    environment: Wanted | None = None  # the environment it runs in: (framework, extra requirements)
    kernel_dir: Path | None = None  # where that environment's kernel spec is written

    @property
    def languages(self) -> list[str]:
        """The languages served, once each (a program may serve two chapters of one language)."""
        return list(dict.fromkeys(use.language for use in self.uses))

    @property
    def gpu_cell(self) -> int | None:
        """The first cell whose code asks for a GPU, if any."""
        return next((i for i, src in enumerate(self.sources) if asks_for_gpu(src)), None)

    @property
    def wants_gpu(self) -> bool:
        return self.gpu_cell is not None

    def locations(self, index: int) -> list[str]:
        """``path:line`` of cell ``index`` in every language that uses this program."""
        return [use.location(index) for use in self.uses]

    def label(self) -> str:
        return f"{self.name}/{self.framework} [{','.join(self.languages)}]"


def cell_options(
    cell: CodeCell, timeout: int, allow_errors: bool, problems: list[Diagnostic] | None = None
) -> CellOptions:
    """The options a cell runs with; unreadable attributes become warnings at the cell's line."""
    explicit: dict[str, Any] = {}
    raw = cell.attrs.get("timeout")
    if raw is not None:
        if raw.isdigit() and int(raw) > 0:
            explicit["timeout"] = int(raw)
        elif problems is not None:
            message = f"cell option timeout={raw!r} is not a positive number of seconds; ignored"
            problems.append(Diagnostic.make(cell.path, cell.line, Code.EXEC_OPTION, message))
    raw = cell.attrs.get("allow_errors")
    if raw is not None:
        if raw.lower() in _TRUE | _FALSE:
            explicit["allow_errors"] = raw.lower() in _TRUE
        elif problems is not None:
            message = f"cell option allow_errors={raw!r} is not true or false; ignored"
            problems.append(Diagnostic.make(cell.path, cell.line, Code.EXEC_OPTION, message))
    return CellOptions(explicit.get("timeout", timeout), explicit.get("allow_errors", allow_errors), explicit)


def program_key(
    framework: str,
    cells: list[str],
    options: list[CellOptions],
    fingerprint: dict[str, Any],
    library: str | None = None,
) -> str:
    """sha256 of what decides a program's outputs (and nothing else: no prose, no comments);
    ``library``: what it imports of the book's own package (:meth:`KernelLibrary.key`)."""
    material: dict[str, Any] = {
        "version": KEY_VERSION,
        "framework": framework,
        "cells": [
            [normalize_code(code), {**opt.explicit, "allow_errors": opt.allow_errors}]
            for code, opt in zip(cells, options, strict=True)
        ],
        "environment": fingerprint,
    }
    if library is not None:
        material["library"] = library
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def build_programs(
    book: Book,
    fingerprints: dict[str, dict[str, Any]],
    problems: list[Diagnostic] | None = None,
    library: KernelLibrary | None = None,
    derived: dict[tuple[str, tuple[str, ...]], dict[str, Any]] | None = None,
) -> list[Program]:
    """Every (language, chapter, framework) program, identical ones merged, in book order.

    ``fingerprints`` maps framework -> environment fingerprint (see :mod:`.environment`);
    ``library``: the book's package as the kernels import it (:mod:`.library`); ``derived``:
    (framework, a document's ``required_libs``) -> the fingerprint of the environment made
    for them (:mod:`.envs`), whose kernel then runs that document's programs.
    """
    config = book.config
    reader = reader_code(config)
    programs: dict[tuple[str, tuple[int, ...]], Program] = {}
    for lang, chapters in book.chapters.items():
        for name, doc in chapters.items():
            settings = config.execution.chapter(name)
            for framework in config.languages[lang].frameworks:
                cells = doc.cells(framework)
                if not cells or not doc.offers(framework):  # no version for it, as in d2lbook
                    continue
                options = [cell_options(c, settings.timeout or 1, bool(settings.allow_errors), problems) for c in cells]
                want = (framework, doc.required_libs)
                fingerprint = (derived or {}).get(want, fingerprints[framework])
                if want not in (derived or {}):
                    want = (framework, ())
                kernel = fingerprint.get("kernel") or config.execution.kernel_for(framework)
                sources = reader.program(cells, framework)
                imported = library.key(lang, framework, name) if library is not None else None
                key = program_key(framework, sources, options, fingerprint, imported)
                group = (key, tuple(opt.timeout for opt in options))
                program = programs.get(group)
                if program is None:
                    program = programs[group] = Program(
                        key,
                        framework,
                        name,
                        kernel,
                        run_folder(config, lang, framework, name),
                        sources,
                        options,
                        fingerprint,
                        pythonpath=run_root(config, lang, framework),
                    )
                    if framework in config.execution.environments:
                        program.environment, program.kernel_dir = want, kernel_dir(config)
                program.uses.append(Use(lang, name, doc.path, cells))
    return list(programs.values())


def select_programs(config: BookConfig, programs: list[Program], documents: Collection[Document]) -> list[Program]:
    """The programs that serve ``documents``, each serving those only and running from the first
    one's folder of its language's run mirror (``polybook build eval PATHS``)."""
    selected = []
    for program in programs:
        uses = [use for use in program.uses if (use.language, use.name) in documents]
        if not uses:
            continue
        first = uses[0]
        program.uses, program.name = uses, first.name
        program.cwd = run_folder(config, first.language, program.framework, first.name)
        program.pythonpath = run_root(config, first.language, program.framework)
        selected.append(program)
    return selected
