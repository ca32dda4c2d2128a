"""``polybook.library`` in conf.py, read into a validated :class:`LibrarySettings`.

The shape is d2lbook's ``config.ini`` sections ``[library]`` and ``[library-<framework>]``, as the
importer writes them::

    "library": {
        "version_file": "d2l/__init__.py",
        "frameworks": {
            "pytorch": {"lib_file": "d2l/torch.py", "lib_name": "torch",
                        "simple_alias": "ones, zeros, concat -> cat", "fluent_alias": "...",
                        "alias": "...", "reverse_alias": "...", "args_alias": "..."},
        },
    }

Paths are relative to the language folder (``chapters/<lang>/``), where d2lbook's were relative
to the project root. The alias settings keep config.ini's raw text (a list of lines is accepted
too) and are parsed as d2lbook parses them (:func:`parse_mapping`). Whether a key is present
matters, as in d2lbook: an empty ``alias`` or ``fluent_alias`` still adds a line.
Every problem is a ``polybook.config`` diagnostic at the key's line in conf.py; :func:`read_library`
is the part of conf.py's one validation (:mod:`polybook.config.validate`) that reads this setting.
"""

from __future__ import annotations

import ast
import posixpath
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from polybook.config.checks import Checks, did_you_mean, key_node
from polybook.diagnostics import Diagnostic


class _Book(Protocol):
    """What the library's paths need of the book's config (:class:`polybook.config.BookConfig`)."""

    @property
    def chapters_dir(self) -> Path: ...

    @property
    def source_language(self) -> str: ...


_LIBRARY_KEYS = {
    "version_file": "file whose `__version__` line gets conf.py's `release` (relative to the language folder)",
    "frameworks": "mapping framework -> {lib_file, lib_name?, simple_alias?, fluent_alias?, alias?, ...}",
}
_FRAMEWORK_KEYS = {
    "lib_file": "the framework's module, e.g. 'd2l/torch.py' (relative to the language folder)",
    "lib_name": "the framework's own module name in the library, e.g. 'torch' (needed by the aliases)",
    "simple_alias": "'ones, concat -> cat': d2l.ones = torch.ones, d2l.concat = torch.cat",
    "fluent_alias": "'numpy -> asnumpy': d2l.numpy(x) calls x.asnumpy()",
    "alias": "Python lines written as they are at the end of the module",
    "args_alias": "one 'name(args) -> expression' per line: a function returning the expression",
    "reverse_alias": "one 'text -> replacement' per line, replaced in the code readers see (as written, not a regex)",
}
_TEXT_KEYS = ("simple_alias", "fluent_alias", "alias", "args_alias", "reverse_alias")

Mapping = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class FrameworkLibrary:
    """One framework's module. A mapping is None when its key is absent (d2lbook tells the two apart)."""

    framework: str
    lib_file: str  # relative to the language folder, posix
    lib_name: str | None = None
    simple_alias: Mapping | None = None
    fluent_alias: Mapping | None = None
    args_alias: Mapping | None = None
    alias: str | None = None
    reverse_alias: Mapping | None = None


@dataclass(frozen=True, slots=True)
class LibrarySettings:
    """The book's library: one module per framework that has one, in the book's framework order."""

    frameworks: dict[str, FrameworkLibrary] = field(default_factory=dict)
    version_file: str | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.frameworks)

    @property
    def packages(self) -> frozenset[str]:
        """The top-level names of the library's modules (``d2l`` for ``d2l/torch.py``): the only
        modules an API page may document."""
        return frozenset(
            PurePosixPath(library.lib_file).parts[0].removesuffix(".py")
            for library in self.frameworks.values()
            if library.lib_file
        )

    def target(self, config: _Book, framework: str) -> Path:
        """Where ``framework``'s module is written: below the source language's folder."""
        return config.chapters_dir / config.source_language / self.frameworks[framework].lib_file

    def version_path(self, config: _Book) -> Path | None:
        if not self.version_file:
            return None
        return config.chapters_dir / config.source_language / self.version_file


def parse_mapping(text: str, split_line: bool = True) -> Mapping:
    """``"numpy -> asnumpy, reshape"`` -> ``(("numpy", "asnumpy"), ("reshape", "reshape"))``.

    d2lbook's rule: terms are separated by commas (or only by lines with ``split_line=False``),
    a term with exactly one ``->`` maps its left side to its right side, any other maps to itself.
    """
    return tuple(pair for _, pair in _terms(text, split_line))


def _terms(text: str, split_line: bool) -> list[tuple[str, tuple[str, str]]]:
    """Each term of an alias setting as written, and the pair d2lbook reads it as."""
    terms: list[str] = []
    for line in text.splitlines():
        terms.extend(line.split(",") if split_line else [line])
    out = []
    for raw in terms:
        term = raw.strip()
        if not term:
            continue
        sides = term.split("->")
        out.append((raw, (sides[0].strip(), sides[1].strip()) if len(sides) == 2 else (term, term)))
    return out


def _alias_problem(kind: str, raw: str, pair: tuple[str, str]) -> str | None:
    """Why d2lbook would misread one term of an alias setting (None: it reads it as meant)."""
    if raw.count("->") > 1:
        return "has more than one '->'"
    left, right = pair
    if kind == "reverse_alias":
        if "->" not in raw:
            return "write 'text -> replacement'"
        return "replaces nothing: its left side is empty" if not left else None
    if kind == "args_alias":
        if "->" not in raw:
            return "write 'name(a_x, key=value) -> expression'"
        if not _parses(left) or not re.fullmatch(r"[A-Za-z_]\w*\s*\(.*\)", left):
            return "its left side must be a call such as name(a_x, key=value)"
        return None if _parses(right) else "its right side is not a Python expression"
    if not left.removesuffix("(").isidentifier():
        return "its left side must be a name (d2l.<name>)"
    if kind == "simple_alias":
        ok = all(part.isidentifier() for part in right.removesuffix("(").split("."))
        return None if ok else "its right side must be a name of the module, such as random.normal"
    return None if _parses(f"x.{right}") else "its right side must be a method, such as detach().numpy"


def _parses(expression: str) -> bool:
    try:
        ast.parse(expression, mode="eval")
    except SyntaxError:
        return False
    return True


def read_library(
    path: Path, value: dict[str, Any], node: ast.expr | None, frameworks: tuple[str, ...]
) -> tuple[LibrarySettings, list[Diagnostic]]:
    """``polybook.library`` (``value``, written at ``node`` of conf.py ``path``) for a book with
    ``frameworks``; every problem is a diagnostic, the settings keep what is usable."""
    reader = _Reader(path, node, frameworks)
    return reader.run(value), reader.errors


class _Reader(Checks):
    def __init__(self, path: Path, node: ast.expr | None, frameworks: tuple[str, ...]) -> None:
        super().__init__(path)
        self.node = node
        self.frameworks = frameworks

    def error(self, key: str, node: ast.AST | None, message: str) -> None:
        """A problem of ``polybook.library<key>``, at the library's own line when ``node`` has none."""
        super().error(f"polybook.library{key}", node or self.node, message)

    def run(self, raw: dict[str, Any]) -> LibrarySettings:
        if not raw:
            return LibrarySettings()
        self.unknown_keys(raw, _LIBRARY_KEYS, "", self.node, f"known: {', '.join(_LIBRARY_KEYS)}")
        version_file = raw.get("version_file")
        if version_file is not None:
            version_file = self.relative_path(version_file, ".version_file", key_node(self.node, "version_file"))
        frameworks_node = key_node(self.node, "frameworks")
        frameworks = raw.get("frameworks", {})
        if not isinstance(frameworks, dict):
            self.error(".frameworks", frameworks_node, "must map framework names to {lib_file: ..., ...}")
            frameworks = {}
        for name in frameworks:
            if name not in self.frameworks:
                hint = did_you_mean(name, self.frameworks) or f" ({', '.join(self.frameworks)})"
                self.error(f".frameworks.{name}", key_node(frameworks_node, name), f"not in polybook.frameworks{hint}")
        ordered = {name: frameworks[name] for name in self.frameworks if name in frameworks}
        out: dict[str, FrameworkLibrary] = {}
        files: dict[str, str] = {}
        for name, value in ordered.items():
            library = self.framework(name, value, key_node(frameworks_node, name))
            if library is None:
                continue
            if library.lib_file in files:
                message = f"lib_file {library.lib_file!r} is also {files[library.lib_file]!r}'s"
                self.error(
                    f".frameworks.{name}.lib_file", key_node(key_node(frameworks_node, name), "lib_file"), message
                )
                continue
            files[library.lib_file] = name
            out[name] = library
        if version_file is not None and version_file in files:
            self.error(".version_file", key_node(self.node, "version_file"), "is also a framework's lib_file")
            version_file = None
        return LibrarySettings(out, version_file)

    def framework(self, name: str, value: Any, node: ast.expr | None) -> FrameworkLibrary | None:
        key = f".frameworks.{name}"
        if not isinstance(value, dict):
            self.error(key, node, "must be a dict with at least 'lib_file'")
            return None
        self.unknown_keys(value, _FRAMEWORK_KEYS, key, node, f"known: {', '.join(_FRAMEWORK_KEYS)}")
        lib_file = self.relative_path(value.get("lib_file"), f"{key}.lib_file", key_node(node, "lib_file") or node)
        if lib_file is not None and not lib_file.endswith(".py"):
            self.error(f"{key}.lib_file", key_node(node, "lib_file"), f"{lib_file!r} is not a Python file (.py)")
            lib_file = None
        lib_name = value.get("lib_name")
        if lib_name is not None and (not isinstance(lib_name, str) or not lib_name.isidentifier()):
            self.error(f"{key}.lib_name", key_node(node, "lib_name"), f"must be a module name, not {lib_name!r}")
            lib_name = None
        texts = {k: self.text(value[k], f"{key}.{k}", key_node(node, k)) for k in _TEXT_KEYS if k in value}
        if lib_name is None:
            for alias_key in ("simple_alias", "fluent_alias", "args_alias"):
                if alias_key in value:
                    self.error(f"{key}.{alias_key}", key_node(node, alias_key), "needs lib_name (the module aliased)")
        if lib_file is None:
            return None
        mappings = {
            k: self.mapping(texts.get(k), k, f"{key}.{k}", key_node(node, k))
            for k in ("simple_alias", "fluent_alias", "args_alias", "reverse_alias")
        }
        alias = texts.get("alias")
        if alias is not None:
            self.alias_lines(alias, f"{key}.alias", key_node(node, "alias"))
        return FrameworkLibrary(
            name,
            lib_file,
            lib_name,
            mappings["simple_alias"],
            mappings["fluent_alias"],
            mappings["args_alias"],
            alias,
            mappings["reverse_alias"],
        )

    def mapping(self, text: str | None, kind: str, key: str, node: ast.expr | None) -> Mapping | None:
        """An alias setting's terms, as d2lbook parses them; a term d2lbook would misread (or
        crash on) is an error and left out."""
        if text is None:
            return None
        kept = []
        for raw, pair in _terms(text, split_line=kind in ("simple_alias", "fluent_alias")):
            problem = _alias_problem(kind, raw, pair)
            if problem:
                self.error(key, node, f"{raw.strip()!r}: {problem}")
            else:
                kept.append(pair)
        return tuple(kept)

    def alias_lines(self, text: str, key: str, node: ast.expr | None) -> None:
        """``alias`` is written into the module as it is: it must be Python."""
        try:
            ast.parse(textwrap.dedent(text).strip())
        except SyntaxError as exc:
            self.error(key, node, f"is not Python (line {exc.lineno} of it: {exc.msg}); the module would not import")

    def relative_path(self, value: Any, key: str, node: ast.expr | None) -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.error(key, node, "is required: a file path relative to the language folder")
            return None
        path = posixpath.normpath(value.strip().replace("\\", "/"))
        if path.startswith(("/", "../")) or path in ("..", "."):
            self.error(key, node, f"{value!r} must stay inside the language folder")
            return None
        return path

    def text(self, value: Any, key: str, node: ast.expr | None) -> str | None:
        """config.ini's raw text, or a list of its lines."""
        if isinstance(value, str):
            return value
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return "\n".join(value)
        self.error(key, node, "must be a string (config.ini's text) or a list of strings")
        return None
