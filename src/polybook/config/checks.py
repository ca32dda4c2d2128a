"""What every part of conf.py's validation shares: a problem is a ``polybook.config`` diagnostic at
its key's line, and an unknown key is reported one way, with a "did you mean" hint when a known
key is close to it."""

from __future__ import annotations

import ast
import difflib
from collections.abc import Collection
from pathlib import Path
from typing import Any

from polybook.diagnostics import Code, Diagnostic


def did_you_mean(name: object, known: Collection[str], cutoff: float = 0.6) -> str:
    """``"; did you mean 'x'?"`` naming the known name closest to ``name``; ``""`` when none is close
    (``cutoff``: difflib's; 0.5 lets a two-letter code differ in one letter, ``jp`` for ``ja``)."""
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=cutoff)
    return f"; did you mean {close[0]!r}?" if close else ""


def key_node(mapping: ast.AST | None, key: object) -> ast.expr | None:
    """The value node of ``key`` in a dict literal, for its line number."""
    if isinstance(mapping, ast.Dict):
        for k, v in zip(mapping.keys, mapping.values, strict=True):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
    return None


class Checks:
    """The problems found in one conf.py, each at the line of the node it is about (1 without one)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.errors: list[Diagnostic] = []

    def error(self, key: str, node: ast.AST | None, message: str) -> None:
        line = getattr(node, "lineno", 1) if node is not None else 1
        self.errors.append(Diagnostic.make(str(self.path), line, Code.CONFIG, f"{key}: {message}"))

    def unknown_keys(
        self, value: dict[Any, Any], known: Collection[str], key: str, node: ast.AST | None, listed: str
    ) -> None:
        """Each key of ``value`` that is not ``known``: ``<key>.<name>: unknown setting`` at its line,
        with the close known key, else ``listed`` (the known keys, as the setting lists them)."""
        for name in value:
            if name not in known:
                hint = did_you_mean(name, known) or f"; {listed}"
                self.error(f"{key}.{name}", key_node(node, name) or node, f"unknown setting{hint}")
