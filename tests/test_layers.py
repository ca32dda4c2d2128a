"""The packages import one way, as the pipeline runs: dialect -> config -> book -> library,
importer -> check -> sync, translate -> execute -> stage -> render, pdf, notebooks -> site -> cli. A module may import
from its own package and from any lower layer, never from a higher one nor from another package
of its own layer (HTML and PDF share what they share through ``stage``). Imports inside
functions count too: a lazy import is still a dependency."""

from __future__ import annotations

import ast
from pathlib import Path

import polybook

PACKAGE = Path(polybook.__file__).parent

#: The layers, lowest first; each name is a module or subpackage of polybook.
LAYERS = [
    {"polybook", "diagnostics", "files", "uvtool", "faults"},
    {"database"},
    {"forked"},
    {"dialect"},
    {"config", "toc", "models"},
    {"book", "usage"},
    {"library", "importer"},
    {"check"},
    {"sync", "translate"},
    {"execute"},
    {"stage"},
    {"render", "pdf", "notebooks"},
    {"site"},
    {"cli"},
]
LAYER = {name: level for level, names in enumerate(LAYERS) for name in names}


def _unit(module: str) -> str:
    """The first name below polybook: ``polybook.check.code`` -> ``check``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "polybook"


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, unit)`` of every polybook import in a module, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "polybook":
            names = [f"polybook.{a.name}" for a in node.names] if node.module == "polybook" else [node.module]
            found += [(node.lineno, _unit(name)) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, _unit(a.name)) for a in node.names if a.name.split(".")[0] == "polybook"]
    return [(line, unit) for line, unit in found if unit in LAYER or unit == "__version__"]


def _own_unit(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0].removesuffix(".py") if relative.parts[0] != "__init__.py" else "polybook"


def test_every_package_is_in_a_layer() -> None:
    units = {_own_unit(path) for path in PACKAGE.rglob("*.py")}
    assert units <= set(LAYER), f"put {sorted(units - set(LAYER))} in a layer of tests/test_layers.py"


def test_imports_run_down_the_pipeline_only() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        mine = _own_unit(path)
        for line, unit in _imports(path):
            unit = "polybook" if unit == "__version__" else unit
            if unit != mine and LAYER[unit] >= LAYER[mine]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {mine} imports {unit}")
    assert not wrong, "imports that run up or across the pipeline:\n" + "\n".join(wrong)


def test_every_name_imported_from_polybook_exists() -> None:
    """A lazy import (inside a function) is checked by nothing until it runs: a name renamed or
    removed in its module must not wait for the slow test that happens to reach it."""
    import importlib

    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("polybook")):
                continue
            module = importlib.import_module(node.module)
            for alias in node.names:
                if not hasattr(module, alias.name) and not _is_module(f"{node.module}.{alias.name}"):
                    missing.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.module}.{alias.name}")
    assert not missing, "\n".join(missing)


def _is_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
