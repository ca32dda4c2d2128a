"""``polybook.notebooks`` in conf.py: where the launch notebooks of each language and framework are
published, for the "Open in Colab" and "Open in SageMaker Studio Lab" links of every page::

    "notebooks": {
        # every language x framework, or a mapping "lang/framework" (or "lang", or "*") -> place
        "launch": "d2l-ai/d2l-notebooks@{lang}-{framework}",   # GitHub owner/name[@branch]
    }

A place is a GitHub repository and branch (``owner/name@branch``; the branch ``notebooks`` when
none is written); ``{lang}`` and ``{framework}`` are filled in, so one line can give each language
and framework a repository or a branch of its own. A mapping names places per
``lang/framework``, per ``lang`` or for ``*`` (the most precise wins); ``None`` there means no
launch links. Inside the branch a notebook lies at ``<lang>/<framework>/<document>.ipynb``, as
``polybook publish --notebooks-branch`` commits them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from polybook.config.checks import Checks, key_node

_KEYS = {"launch": "where launch notebooks are published: 'owner/name@branch', or a mapping 'lang/framework' -> that"}
_PLACE_RE = re.compile(r"^[\w.{}-]+/[\w.{}-]+(@[\w./{}-]+)?$")
DEFAULT_BRANCH = "notebooks"


@dataclass(frozen=True, slots=True)
class LaunchPlace:
    """Where one language and framework's launch notebooks are: a GitHub repository and branch."""

    repository: str  # owner/name
    branch: str

    def folder(self, lang: str, framework: str) -> str:
        """The folder of the notebooks inside the branch."""
        return f"{lang}/{framework}"


@dataclass(frozen=True, slots=True)
class NotebooksConfig:
    """``polybook.notebooks``: patterns by ``*``, ``lang`` or ``lang/framework`` (None: no launch links)."""

    launch: dict[str, str | None] = field(default_factory=dict)

    def place(self, lang: str, framework: str) -> LaunchPlace | None:
        """Where ``lang`` x ``framework``'s launch notebooks are published, if conf.py says."""
        for key in (f"{lang}/{framework}", lang, "*"):
            if key in self.launch:
                pattern = self.launch[key]
                if pattern is None:
                    return None
                filled = pattern.replace("{lang}", lang).replace("{framework}", framework)
                repository, _, branch = filled.partition("@")
                return LaunchPlace(repository, branch or DEFAULT_BRANCH)
        return None


def read_notebooks(checks: Checks, value: Any, node: ast.expr | None) -> NotebooksConfig:
    """``polybook.notebooks`` (``value``, at ``node``), every problem said through ``checks``."""
    if not isinstance(value, dict):
        checks.error("polybook.notebooks", node, "must be a dict, e.g. {'launch': 'owner/name@branch'}")
        return NotebooksConfig()
    checks.unknown_keys(value, _KEYS, "polybook.notebooks", node, f"known keys: {', '.join(_KEYS)}")
    raw = value.get("launch", {})
    where = key_node(node, "launch") or node
    launch: dict[str, str | None] = {}
    if isinstance(raw, str):
        raw = {"*": raw}
    if not isinstance(raw, dict):
        checks.error("polybook.notebooks.launch", where, "must be 'owner/name@branch' or a mapping of them")
        return NotebooksConfig()
    for key, pattern in raw.items():
        if pattern is not None and (not isinstance(pattern, str) or not _PLACE_RE.match(pattern)):
            message = f"{pattern!r} is not a GitHub repository 'owner/name' or 'owner/name@branch'"
            checks.error(f"polybook.notebooks.launch.{key}", key_node(where, key) or where, message)
            continue
        launch[str(key)] = pattern
    return NotebooksConfig(launch)
