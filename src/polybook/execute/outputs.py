"""Attach program results back to the cells of every language that shares the program.

One file per chapter and language, ``<build_dir>/eval/<lang>/<chapter>.json``: for each
code cell and framework, its outputs (nbformat output dicts), status and duration, plus
each program's key, source and provenance. This is what the HTML and PDF stages render;
a cell whose comments are translated gets the outputs of the shared run all the same.

A cell's results are found by its place in its framework's program (``index``) and the
hash of the normalised code of the program up to and including it (``code``, see
:func:`code_hashes`; the code as the framework's reader sees it and the program ran it,
:mod:`polybook.library.reader_code`, wherever results are matched), never by line: a
paragraph inserted above moves every line but keeps the outputs, and a code edit -- of this
cell or of one before it, which its outputs depend on -- leaves them unmatched rather than
showing old outputs under new code.
``line`` is kept for people reading the file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.normalize import normalize_code
from polybook.files import atomic_write, display_path
from polybook.library.reader_code import reader_code

if TYPE_CHECKING:
    from polybook.execute.evaluate import Evaluation


def raw_hashes(codes: list[str]) -> list[str]:
    """Per cell, a hash of the code exactly as written up to and including it: when it still
    matches, the cell's results are its own without normalising the code (cheap)."""
    digest = hashlib.sha256()
    hashes = []
    for code in codes:
        digest.update(code.encode("utf-8") + b"\0")
        hashes.append(digest.copy().hexdigest()[:24])
    return hashes


def code_hashes(codes: list[str]) -> list[str]:
    """Per cell of a program, a hash of its normalised code and of every cell before it
    (comments, docstrings and whitespace do not count, as in the program key)."""
    digest = hashlib.sha256()
    hashes = []
    for code in codes:
        digest.update(normalize_code(code).encode("utf-8") + b"\0")
        hashes.append(digest.copy().hexdigest()[:24])
    return hashes


def chapter_outputs(evaluation: Evaluation) -> dict[tuple[str, str], dict[str, Any]]:
    """(language, chapter) -> the JSON document described above."""
    reader = reader_code(evaluation.book.config)  # the code each use's cells ran, as its reader sees it
    docs: dict[tuple[str, str], dict[str, Any]] = {}
    for outcome in evaluation.outcomes:
        program, result = outcome.program, outcome.result
        for use in program.uses:
            doc = docs.setdefault(
                (use.language, use.name),
                {"path": use.path, "language": use.language, "chapter": use.name, "programs": {}, "cells": []},
            )
            failure = result.failure.to_json() if result.failure is not None else {}
            doc["programs"][program.framework] = {
                "key": program.key,
                "status": str(result.status),
                "source": str(outcome.source),
                "languages": program.languages,
                "provenance": result.provenance,
                "failure": {k: failure[k] for k in ("cell", "kind", "url", "module") if k in failure} or None,
            }
            codes = reader.program(use.cells, program.framework)
            hashes, raw = code_hashes(codes), raw_hashes(codes)
            for index, (cell, cell_result) in enumerate(zip(use.cells, result.cells, strict=True)):
                doc["cells"].append(
                    {
                        "index": index,
                        "code": hashes[index],
                        "raw": raw[index],
                        "line": cell.line,
                        "code_line": cell.code_line,
                        "framework": program.framework,
                        "status": str(cell_result.status),
                        "duration": cell_result.duration,
                        "outputs": cell_result.outputs,
                    }
                )
    for doc in docs.values():
        doc["cells"].sort(key=lambda c: (c["line"], c["framework"]))
    return docs


def write_outputs(evaluation: Evaluation, root: Path | None = None) -> list[Path]:
    root = root or evaluation.book.config.build_dir / "eval"
    written = []
    for (language, name), doc in chapter_outputs(evaluation).items():
        path = root / language / f"{name}.json"
        text = json.dumps(doc, ensure_ascii=False, indent=1)
        try:
            if path.read_text(encoding="utf-8") == text:  # unchanged: no write (a book has hundreds)
                continue
        except OSError:
            path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
        written.append(path)
    return written


def read_outputs(build_dir: Path, lang: str, damaged: list[Diagnostic] | None = None) -> dict[str, dict[str, Any]]:
    """Document name -> its results file, as the last :func:`write_outputs` left them in
    ``<build_dir>/eval/<language>/`` (nested folders for nested documents). A file that does
    not read as results (cut short by a full disk, edited by hand) is left out, as a missing one
    is -- the execution cache treats a corrupt entry the same way -- and said in ``damaged``."""
    folder = build_dir / "eval" / lang
    found = {}
    for path in sorted(folder.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("cells", []), list):
                raise ValueError("not a chapter's results")
        except (OSError, ValueError) as exc:
            if damaged is not None:
                damaged.append(damaged_output(path, exc))
            continue
        found[path.relative_to(folder).with_suffix("").as_posix()] = data
    return found


#: What becomes of a damaged results file where it is only read (notebooks, PDFs, --no-eval).
READ_AS_NONE = "read as none, no stored output; `polybook build eval` writes them again"


def damaged_output(path: Path, exc: Exception) -> Diagnostic:
    """The warning for a results file that does not read, at the line its JSON breaks."""
    line = exc.lineno if isinstance(exc, json.JSONDecodeError) else 1
    reason = exc.msg if isinstance(exc, json.JSONDecodeError) else getattr(exc, "strerror", None) or str(exc)
    message = f"stored results are damaged ({reason}): {READ_AS_NONE}"
    return Diagnostic.make(display_path(path), line, Code.OUTPUT_MISSING, message)


def read_output(build_dir: Path, lang: str, name: str) -> dict[str, Any] | None:
    """Document ``name``'s results file alone, as :func:`read_outputs` reads it; None when there is
    none (or it cannot be read)."""
    try:
        return dict(json.loads((build_dir / "eval" / lang / f"{name}.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
