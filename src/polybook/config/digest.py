"""conf.py's settings as digests, for the builds to tell what a change to it touches.

A build keeps what it made while the settings it was made from are the same. conf.py holds two
kinds: Sphinx's own settings (everything but the ``polybook`` dict -- Sphinx executes the file,
so a setting that is not a literal counts too) and polybook's. Each digest is taken from the
file as parsed, so a comment or a line break rebuilds nothing; the files Sphinx's settings name
(a logo, a static folder) count by their contents.

- :func:`sphinx_settings`: what Sphinx reads for the pages or the PDFs (``html_*`` settings are
  not the PDFs', nor ``latex_*`` the pages');
- :func:`book_settings`: the ``polybook`` dict, with one language's entry of the languages
  table (and the source's): adding a language rebuilds no other language's notebooks;
- :func:`named_paths`, :func:`named_files`: the files Sphinx's settings name, for the cheap
  fingerprint of the site and for ``serve`` to watch.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from polybook.config.model import BookConfig

#: Settings that name a file or folder, or a list of them, relative to conf.py's folder.
_PATH_SETTINGS = (
    "html_logo",
    "html_favicon",
    "html_static_path",
    "html_extra_path",
    "latex_logo",
    "latex_additional_files",
    "templates_path",
    "locale_dirs",
)
#: The settings of one builder only, by their prefix (the others concern every output).
_BUILDERS = {"html": "html_", "latex": "latex_"}
#: The polybook settings that decide nothing a reader sees: how and where code runs (its
#: results are the builds' inputs themselves; but ``execution.quiet_stderr``, which decides which
#: of their lines readers see) and the editions translations are checked against.
_UNSEEN = ("execution", "editions")


def _statements(path: Path) -> tuple[list[ast.stmt], ast.expr | None]:
    """conf.py's top-level statements but ``polybook = ...``, and that assignment's value."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    others, book = [], None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and [getattr(t, "id", None) for t in stmt.targets] == ["polybook"]:
            book = stmt.value
        else:
            others.append(stmt)
    return others, book


def _builder_of(name: str) -> str | None:
    """The one builder whose output a setting concerns (Sphinx's prefixes), None for all."""
    return next((builder for builder, prefix in _BUILDERS.items() if name.startswith(prefix)), None)


def _for(builder: str | None, name: str | None) -> bool:
    owner = _builder_of(name) if name else None
    return builder is None or owner is None or owner == builder


def named_paths(config: BookConfig, builder: str | None = None) -> list[Path]:
    """The files and folders Sphinx's literal settings name that exist (URLs left out); with
    ``builder``, those of its settings and the shared ones."""
    names: list[str] = []
    for key in (key for key in _PATH_SETTINGS if _for(builder, key)):
        value = config.sphinx.get(key)
        names += [value] if isinstance(value, str) else [v for v in value or () if isinstance(v, str)]
    paths = [config.root / name for name in names if "://" not in name]
    return [path for path in paths if path.exists()]


def named_files(config: BookConfig, builder: str | None = None) -> list[Path]:
    """The files of :func:`named_paths`, those below its folders included."""
    found: list[Path] = []
    for path in named_paths(config, builder):
        if path.is_dir():
            for folder, dirs, files in os.walk(path):  # no followlinks: a loop is never walked
                dirs.sort()
                found += [Path(folder, file) for file in sorted(files)]
        else:
            found.append(path)
    return found


def _assigned(stmt: ast.stmt) -> str | None:
    """The name a statement assigns, if it is an assignment to one name."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return names[0] if len(names) == 1 == len(targets) else None


def sphinx_settings(config: BookConfig, builder: str | None = None) -> str:
    """Everything Sphinx takes from conf.py: its statements but the ``polybook`` dict, as parsed,
    and the contents of the files its settings name. With ``builder`` (``html``, ``latex``), the
    other builders' settings (``latex_*`` for the HTML) are left out."""
    others, _ = _statements(config.path)
    kept = [stmt for stmt in others if _for(builder, _assigned(stmt))]
    digest = hashlib.sha256("\n".join(ast.dump(stmt) for stmt in kept).encode())
    for path in named_files(config, builder):
        try:
            content = path.read_bytes()
        except OSError:
            continue
        digest.update(f"\0{path.relative_to(config.root)}\0".encode() + hashlib.sha256(content).digest())
    return digest.hexdigest()


def book_settings(config: BookConfig, lang: str | None = None) -> str:
    """The ``polybook`` dict as parsed, but the settings no reader sees; with ``lang``, its
    languages table holds only ``lang``'s entry and the source language's."""
    _, node = _statements(config.path)
    try:
        raw: Any = ast.literal_eval(node) if node is not None else {}
    except ValueError:  # load_config refused it already; never here
        raw = ast.dump(node) if node is not None else {}
    if isinstance(raw, dict):
        execution = raw.get("execution")
        raw = {key: value for key, value in raw.items() if key not in _UNSEEN}
        if isinstance(execution, dict) and "quiet_stderr" in execution:  # the outputs readers see
            raw["quiet_stderr"] = execution["quiet_stderr"]
        languages = raw.get("languages")
        if lang is not None and isinstance(languages, dict):
            kept = {config.source_language, lang}
            raw["languages"] = {code: value for code, value in languages.items() if code in kept}
    blob = json.dumps(raw, ensure_ascii=False, default=repr)  # in order: the languages' is the site's
    return hashlib.sha256(blob.encode()).hexdigest()
