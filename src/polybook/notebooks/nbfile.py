"""A notebook as a valid nbformat 4 file: checked against nbformat's own schema and written as
Jupyter writes it.

nbformat is not imported here: its import pulls jsonschema, whose format checkers compile their
grammars on import (0.7 s, most of a small book's notebooks). The schema is nbformat's file, checked
with fastjsonschema -- what nbformat itself uses with ``NBFORMAT_VALIDATOR=fastjsonschema`` -- and
the file is laid out as nbformat's ``split_lines`` lays it out (multi-line strings as lists of
lines, keys sorted, one space of indent); tests check both against nbformat itself.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA = "nbformat.v4.5.schema.json"
#: Output data that nbformat writes as lists of lines (text, and these); the rest (base64) whole.
_SPLIT_DATA = ("application/javascript", "image/svg+xml")


@cache
def _validator() -> Any:
    import fastjsonschema

    spec = importlib.util.find_spec("nbformat")
    assert spec is not None and spec.submodule_search_locations, "nbformat is a dependency of polybook"
    folder = Path(next(iter(spec.submodule_search_locations))) / "v4"
    return fastjsonschema.compile(json.loads((folder / SCHEMA).read_text(encoding="utf-8")))


def validation_problem(notebook: dict[str, Any]) -> str | None:
    """Why ``notebook`` is not a valid nbformat 4.5 notebook (None: it is)."""
    import fastjsonschema

    try:
        _validator()(notebook)
    except fastjsonschema.JsonSchemaException as exc:
        return f"not a valid notebook: {exc.message}"
    ids = [cell.get("id") for cell in notebook.get("cells", [])]
    if len(ids) != len(set(ids)):
        return "not a valid notebook: two cells have the same id"
    return None


def notebook_bytes(notebook: dict[str, Any]) -> bytes:
    """The file as Jupyter writes it (multi-line strings as lists of lines, keys sorted)."""
    cells = []
    for cell in notebook["cells"]:
        cell = {**cell, "source": _lines(cell["source"])}
        if cell["cell_type"] == "code":
            cell["outputs"] = [_output(output) for output in cell["outputs"]]
        cells.append(cell)
    data = {**notebook, "cells": cells}
    return (json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def _output(output: dict[str, Any]) -> dict[str, Any]:
    if output.get("output_type") == "stream":
        return {**output, "text": _lines(output.get("text", ""))}
    if "data" in output:
        data = {
            mime: _lines(value) if mime.startswith("text/") or mime in _SPLIT_DATA else value
            for mime, value in output["data"].items()
        }
        return {**output, "data": data}
    return output


def _lines(value: Any) -> Any:
    return value.splitlines(True) if isinstance(value, str) else value
