"""The book's one config: ``conf.py``, read once into a validated :class:`BookConfig`.

``conf.py`` is Sphinx's config file too. polybook reads it *statically*: top-level
assignments whose value is a Python literal are evaluated with :func:`ast.literal_eval`
and nothing in the file is executed, so ``polybook check`` is safe on pull requests
from forks. Sphinx still executes the file when it builds. Every mistake in the
``polybook`` settings is collected and reported at once, with its key and line.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.diagnostics import Code, Diagnostic
from polybook.dialect import DialectSettings

CONFIG_NAME = "conf.py"
_LANG_RE = re.compile(r"^[a-z]{2,3}(_[A-Z]{2}|-[A-Za-z]{2,4})?$")
_NAME_RE = re.compile(r"^[A-Za-z_][\w-]*$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_BOOK_KEYS = {
    "title": "book title: a string, or a mapping language -> title",
    "source_language": "code of the language translations follow (e.g. 'en')",
    "frameworks": "frameworks of the book, in tab order (e.g. ['mxnet', 'pytorch'])",
    "default_tab": "framework of untagged cells and of the first tab",
    "languages": "mapping language code -> {name, frameworks?, default_tab?, title?, origin?, base?}",
    "chapters": "folder holding one sub-folder of chapters per language",
    "build_dir": "output folder",
    "execution": "how code cells run: timeout, kernel, cache_dir, frozen_dir, ... (polybook build eval)",
    "exclusions": "globs, relative to each language's folder, of Markdown files that are not documents",
    "bibfile": "the bibliography, relative to each language's folder (the source language's when missing)",
    "library": "the book's own package, collected from #@save cells (polybook build lib)",
    "localised_links": "globs of links each language has its own of (d2l: ['https://discuss.d2l.ai/t/*'], which "
    "polybook import d2lbook finds and writes): polybook check asks only that each section of the source that has "
    "one still has one",
    "framework_labels": "mapping framework -> how tabs, notices and PDF names write it (default: its name as "
    "written, as d2lbook shows it), e.g. {'pytorch': 'PyTorch'}",
    "editions": "mapping edition name -> {folder, frameworks?, default_tab?}: an older edition of the source "
    "language's documents (polybook import d2lbook --as-base), which translations made from it are checked against",
}
_LANGUAGE_KEYS = {"name", "title", "frameworks", "default_tab", "origin", "base"}
_EXECUTION_KEYS = {
    "timeout": "seconds a cell may run before it is stopped (default 300)",
    "kernel": "Jupyter kernel name, or a mapping framework -> kernel name (default 'python3')",
    "jobs": "programs run at once (default: the number of cores)",
    "cache_dir": "content-addressed store of results (default <build_dir>/cache)",
    "frozen_dir": "committed results reused by key, written by --freeze (default 'frozen')",
    "allow_errors": "keep running a program after a cell raises (default False)",
    "fail_on_needs_gpu": "count 'needs a GPU' failures as build failures (default False)",
    "packages": "mapping framework -> distributions whose versions enter the cache key",
    "environments": "mapping framework -> PEP 508 requirements: the framework runs in a virtualenv of its own, "
    "made from them (polybook build env)",
    "env_dir": "where the environments live (default <build_dir>/envs)",
    "as_of": "a date (YYYY-MM-DD): environments install packages as the registry had them that day (what "
    "requirements leave open resolves the same way years later; polybook import sets the project's date)",
    "chapters": "mapping chapter name -> {timeout?, allow_errors?}",
}
_CHAPTER_EXECUTION_KEYS = {"timeout", "allow_errors"}


class ConfigError(Exception):
    """conf.py is unusable; ``diagnostics`` lists every problem found."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.format() for d in diagnostics))


@dataclass(frozen=True, slots=True)
class LanguageConfig:
    code: str
    name: str
    title: str
    frameworks: tuple[str, ...]
    default_tab: str
    origin: str | None = None  # the language this one was translated from (d2lbook's origin_lang)
    base: str | None = None  # the edition of the source it was translated from (a key of ``editions``)

    @property
    def settings(self) -> DialectSettings:
        return DialectSettings(self.code, self.frameworks, self.default_tab)


@dataclass(frozen=True, slots=True)
class EditionConfig:
    """``polybook.editions[name]``: a folder of an older edition of the source language, read with
    its own tabs (d2l-en 0.17's untagged cells are MXNet's, 1.0's PyTorch's)."""

    name: str
    folder: Path  # absolute
    settings: DialectSettings


@dataclass(frozen=True, slots=True)
class ChapterExecution:
    timeout: int | None = None
    allow_errors: bool | None = None


@dataclass(frozen=True, slots=True)
class EnvironmentConfig:
    """``polybook.execution.environments[framework]``: what the framework's own virtualenv is
    made from (:mod:`polybook.execute.envs`)."""

    requirements: tuple[str, ...]  # PEP 508 strings, as written
    line: int = field(default=1, compare=False, repr=False)  # of its entry in conf.py

    @property
    def names(self) -> tuple[str, ...]:
        """The distributions the requirements name, normalised (``TorchVision==0.15.1`` ->
        ``torchvision``), in order."""
        from packaging.requirements import Requirement
        from packaging.utils import canonicalize_name

        return tuple(dict.fromkeys(str(canonicalize_name(Requirement(r).name)) for r in self.requirements))


@dataclass(frozen=True, slots=True)
class ExecutionConfig:
    """``polybook.execution``: see ``_EXECUTION_KEYS`` for each setting."""

    cache_dir: Path
    frozen_dir: Path
    timeout: int = 300
    kernels: dict[str, str] = field(default_factory=dict)  # framework -> kernel name
    jobs: int | None = None
    allow_errors: bool = False
    fail_on_needs_gpu: bool = False
    packages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    chapters: dict[str, ChapterExecution] = field(default_factory=dict)
    environments: dict[str, EnvironmentConfig] = field(default_factory=dict)
    env_dir: Path | None = None  # None: <build_dir>/envs, filled in by load_config
    as_of: str | None = None  # YYYY-MM-DD: packages as the registry had them that day

    def kernel_for(self, framework: str) -> str:
        """The kernel of a framework without an environment (one with has its own kernel)."""
        return self.kernels.get(framework, "python3")

    def packages_for(self, framework: str) -> tuple[str, ...]:
        """Distributions whose versions key the framework's programs: its environment's
        requirements, else the ``packages`` setting, else its own name; d2l and numpy always."""
        environment = self.environments.get(framework)
        own = environment.names if environment else self.packages.get(framework, (framework,))
        return tuple(dict.fromkeys((*own, "d2l", "numpy")))

    def chapter(self, stem: str) -> ChapterExecution:
        """Per-chapter settings with the book-wide defaults filled in."""
        own = self.chapters.get(stem, ChapterExecution())
        return ChapterExecution(
            own.timeout if own.timeout is not None else self.timeout,
            own.allow_errors if own.allow_errors is not None else self.allow_errors,
        )


@dataclass(frozen=True, slots=True)
class BookConfig:
    """The book: ``chapters/<lang>/`` holds each language's documents at any depth. A document is
    named by its path below the language folder without ``.md`` (``chapter_x/section``), the
    same name in every language."""

    path: Path  # conf.py
    title: str
    source_language: str
    frameworks: tuple[str, ...]
    default_tab: str
    languages: dict[str, LanguageConfig]  # source language first
    chapters_dir: Path
    build_dir: Path
    execution: ExecutionConfig
    sphinx: dict[str, Any] = field(default_factory=dict)  # the other literal settings
    exclusions: tuple[str, ...] = ()
    bibfile: str | None = None
    library: dict[str, Any] = field(default_factory=dict)
    localised_links: tuple[str, ...] = ()  # globs (fnmatch) of links a translation has its own of
    framework_labels: dict[str, str] = field(default_factory=dict)
    editions: dict[str, EditionConfig] = field(default_factory=dict)

    def edition_path(self, edition: str, name: str) -> Path:
        """The file of document ``name`` in a held edition of the source language."""
        return self.editions[edition].folder / f"{name}.md"

    def label_of(self, framework: str) -> str:
        """How the book writes ``framework`` for readers (tabs, notices, PDF names)."""
        return self.framework_labels.get(framework, framework)

    @property
    def root(self) -> Path:
        return self.path.parent

    @property
    def translations(self) -> list[str]:
        return [code for code in self.languages if code != self.source_language]

    def language_of(self, chapter: Path) -> str | None:
        """The language whose chapter folder holds ``chapter``, if any."""
        try:
            rel = chapter.resolve().relative_to(self.chapters_dir.resolve())
        except ValueError:
            return None
        return rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] in self.languages else None

    def settings_for(self, chapter: Path) -> DialectSettings:
        code = self.language_of(chapter)
        if code is None:
            return DialectSettings(None, self.frameworks, self.default_tab)
        return self.languages[code].settings

    def chapter_files(self, language: str) -> list[Path]:
        """The language's documents: every ``.md`` below its folder, at any depth, but the
        excluded ones and those in hidden folders (``.ipynb_checkpoints``), sorted by name."""
        return [self.document_path(language, name) for name in self.document_names(language)]

    def document_names(self, language: str) -> list[str]:
        """The names of :meth:`chapter_files`: ``chapter_x/section``."""
        folder = self.chapters_dir / language
        excluded = self.excluded(language)
        names = []
        for path in folder.rglob("*.md"):
            relative = path.relative_to(folder)
            if relative.as_posix() in excluded or any(part.startswith(".") for part in relative.parts):
                continue
            if path.is_file():
                names.append(relative.with_suffix("").as_posix())
        return sorted(names)

    def excluded(self, language: str) -> set[str]:
        """Paths (relative to the language folder) that ``exclusions`` match, with glob's
        meaning (``*`` stays within a folder, ``**`` crosses folders), as d2lbook reads them."""
        folder = self.chapters_dir / language
        return {p.relative_to(folder).as_posix() for pattern in self.exclusions for p in folder.glob(pattern)}

    def document_path(self, language: str, name: str) -> Path:
        """The file of document ``name`` in ``language``."""
        return self.chapters_dir / language / f"{name}.md"

    def document_name(self, path: Path) -> str | None:
        """The document name of a chapter file, if it lies in a language folder."""
        language = self.language_of(path)
        if language is None:
            return None
        return path.resolve().relative_to((self.chapters_dir / language).resolve()).with_suffix("").as_posix()

    def locate(self, language: str, document: str, ref: str) -> tuple[Path, bool] | None:
        """The file that ``ref`` (a relative path written in document ``document``) names:
        the language's own, else -- when the path stays inside the language folder -- the
        source language's file at the same place (``fallback`` True), so a translation
        carries only the files it translated. None when neither exists."""
        own = (self.document_path(language, document).parent / ref).resolve()
        if own.is_file():
            return own, False
        folder = (self.chapters_dir / language).resolve()
        if language != self.source_language and own.is_relative_to(folder):
            other = (self.chapters_dir / self.source_language).resolve() / own.relative_to(folder)
            if other.is_file():
                return other, True
        return None

    def bibliography(self, language: str) -> Path | None:
        """The language's ``bibfile`` (the source language's when it has none)."""
        if not self.bibfile:
            return None
        found = self.locate(language, "index", self.bibfile)
        return found[0] if found else None


def find_config(start: Path) -> Path | None:
    """The nearest conf.py in ``start`` or its parents."""
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path) -> BookConfig:
    """Read and validate ``path``; raises :class:`ConfigError` listing every problem."""
    shown = str(path)
    try:
        tree = ast.parse(path.read_bytes(), filename=shown)
    except OSError as exc:
        raise ConfigError(
            [Diagnostic.make(shown, 1, Code.CONFIG, f"cannot read config: {exc.strerror or exc}")]
        ) from None
    except SyntaxError as exc:
        raise ConfigError([Diagnostic.make(shown, exc.lineno or 1, Code.CONFIG, f"syntax error: {exc.msg}")]) from None
    return _Validator(path, tree).run()


def _literals(tree: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            yield stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            yield stmt.target.id, stmt.value


class _Validator:
    def __init__(self, path: Path, tree: ast.Module) -> None:
        self.path = path
        self.tree = tree
        self.errors: list[Diagnostic] = []
        self.nodes: dict[str, ast.expr] = dict(_literals(tree))

    def error(self, key: str, node: ast.AST | None, message: str) -> None:
        line = getattr(node, "lineno", 1) if node is not None else 1
        self.errors.append(Diagnostic.make(str(self.path), line, Code.CONFIG, f"{key}: {message}"))

    def key_node(self, mapping: ast.expr | None, key: str) -> ast.expr | None:
        """The value node of ``key`` in a dict literal, for its line number."""
        if isinstance(mapping, ast.Dict):
            for k, v in zip(mapping.keys, mapping.values, strict=True):
                if isinstance(k, ast.Constant) and k.value == key:
                    return v
        return None

    def run(self) -> BookConfig:
        sphinx: dict[str, Any] = {}
        for name, node in self.nodes.items():
            try:
                sphinx[name] = ast.literal_eval(node)
            except ValueError:
                if name == "polybook":
                    self.error("polybook", node, "must be a literal dict (it is read without running conf.py)")
        raw = sphinx.pop("polybook", None)
        node = self.nodes.get("polybook")
        if raw is None and node is None:
            self.error("polybook", None, "conf.py has no `polybook = {...}` settings")
        if raw is not None and not isinstance(raw, dict):
            self.error("polybook", node, f"must be a dict, not {type(raw).__name__}")
            raw = None
        config = self.book(raw or {}, node, sphinx) if raw is not None else None
        if self.errors or config is None:
            raise ConfigError(self.errors)
        return config

    def book(self, raw: dict[str, Any], node: ast.expr | None, sphinx: dict[str, Any]) -> BookConfig | None:
        for key in raw:
            if key not in _BOOK_KEYS:
                close = difflib.get_close_matches(str(key), list(_BOOK_KEYS), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(_BOOK_KEYS)}"
                self.error(f"polybook.{key}", self.key_node(node, key) or node, f"unknown setting{hint}")
        frameworks = self.names(raw.get("frameworks"), "polybook.frameworks", self.key_node(node, "frameworks") or node)
        default_tab = raw.get("default_tab", frameworks[0] if frameworks else "")
        if frameworks and default_tab not in frameworks:
            self.error(
                "polybook.default_tab",
                self.key_node(node, "default_tab"),
                f"{default_tab!r} is not in frameworks {list(frameworks)}",
            )
        title = raw.get("title", sphinx.get("project", ""))
        if not isinstance(title, str | dict):
            self.error(
                "polybook.title", self.key_node(node, "title"), "must be a string or a mapping language -> string"
            )
            title = ""
        languages = self.languages(
            raw.get("languages"), self.key_node(node, "languages") or node, frameworks, default_tab, title
        )
        source = raw.get("source_language")
        src_node = self.key_node(node, "source_language") or node
        if not isinstance(source, str) or not source:
            self.error(
                "polybook.source_language", src_node, "is required: the code of the language translations follow"
            )
        elif languages and source not in languages:
            self.error(
                "polybook.source_language", src_node, f"{source!r} is not one of the languages {list(languages)}"
            )
        root = self.path.parent
        dirs = {}
        for key, default in (("chapters", "chapters"), ("build_dir", "build")):
            value = raw.get(key, default)
            if not isinstance(value, str) or not value:
                self.error(f"polybook.{key}", self.key_node(node, key), "must be a folder path (a string)")
                value = default
            dirs[key] = (root / value).resolve()
        if not dirs["chapters"].is_dir():
            self.error(
                "polybook.chapters",
                self.key_node(node, "chapters") or node,
                f"folder {dirs['chapters']} does not exist",
            )
        execution = self.execution(
            raw.get("execution", {}), self.key_node(node, "execution") or node, frameworks, dirs["build_dir"]
        )
        exclusions = self.strings(raw.get("exclusions", []), "polybook.exclusions", self.key_node(node, "exclusions"))
        bibfile = raw.get("bibfile")
        if bibfile is not None and (not isinstance(bibfile, str) or not bibfile):
            self.error("polybook.bibfile", self.key_node(node, "bibfile"), "must be a file path (a string)")
            bibfile = None
        library = raw.get("library", {})
        if not isinstance(library, dict):
            self.error("polybook.library", self.key_node(node, "library"), "must be a dict (see polybook build lib)")
            library = {}
        localised = raw.get("localised_links", [])
        localised = self.strings(localised, "polybook.localised_links", self.key_node(node, "localised_links") or node)
        labels = self.framework_labels(
            raw.get("framework_labels", {}), self.key_node(node, "framework_labels") or node, frameworks
        )
        editions = self.editions(
            raw.get("editions", {}), self.key_node(node, "editions") or node, languages, node, frameworks, default_tab
        )
        if self.errors or not isinstance(source, str):
            return None
        ordered = {source: languages[source], **{k: v for k, v in languages.items() if k != source}}
        book_title = title if isinstance(title, str) else str(title.get(source, ""))
        return BookConfig(
            self.path.resolve(),
            book_title,
            source,
            frameworks,
            default_tab,
            ordered,
            dirs["chapters"],
            dirs["build_dir"],
            execution,
            sphinx,
            exclusions,
            bibfile,
            library,
            localised,
            labels,
            editions,
        )

    def editions(
        self,
        value: Any,
        node: ast.expr | None,
        languages: dict[str, LanguageConfig],
        book: ast.expr | None,
        frameworks: tuple[str, ...],
        default_tab: str,
    ) -> dict[str, EditionConfig]:
        """``editions``: name -> {folder, frameworks?, default_tab?} (or just the folder); every
        language's ``base`` must name one of them."""
        key = "polybook.editions"
        out: dict[str, EditionConfig] = {}
        if not isinstance(value, dict) or not all(isinstance(k, str) and k for k in value):
            self.error(
                key, node, "must map edition names to {'folder': ...}, e.g. {'0.17.6': {'folder': 'editions/en'}}"
            )
            value = {}
        source = next(iter(languages), None)
        for name, entry in value.items():
            at = self.key_node(node, name) or node
            entry = {"folder": entry} if isinstance(entry, str) else entry
            folder = entry.get("folder") if isinstance(entry, dict) else None
            if not isinstance(folder, str) or not folder:
                self.error(f"{key}.{name}", at, "must be a folder path, or a dict with 'folder'")
                continue
            path = (self.path.parent / folder).resolve()
            if not path.is_dir():
                self.error(f"{key}.{name}", at, f"folder {path} does not exist")
            own = entry.get("frameworks")
            fws = self.names(own, f"{key}.{name}.frameworks", at) if own is not None else frameworks
            tab = entry.get("default_tab") or (fws[0] if own is not None and fws else default_tab)
            if fws and tab not in fws:
                self.error(f"{key}.{name}.default_tab", at, f"{tab!r} is not one of its frameworks {list(fws)}")
            out[name] = EditionConfig(name, path, DialectSettings(source, fws, str(tab)))
        lnodes = self.key_node(book, "languages")
        for code, language in languages.items():
            if language.base is not None and language.base not in out:
                lnode = self.key_node(self.key_node(lnodes, code), "base") or lnodes
                close = difflib.get_close_matches(language.base, list(out), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; the book's editions: {list(out)}"
                self.error(f"polybook.languages.{code}.base", lnode, f"{language.base!r} is not an edition{hint}")
        return out

    def framework_labels(self, value: Any, node: ast.expr | None, frameworks: tuple[str, ...]) -> dict[str, str]:
        key = "polybook.framework_labels"
        if not isinstance(value, dict) or not all(isinstance(v, str) and v.strip() for v in value.values()):
            self.error(key, node, "must map framework names to labels, e.g. {'pytorch': 'PyTorch'}")
            return {}
        for name in value:
            if name not in frameworks:
                close = difflib.get_close_matches(str(name), list(frameworks), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; the book's frameworks: {list(frameworks)}"
                self.error(f"{key}.{name}", self.key_node(node, name) or node, f"not in polybook.frameworks{hint}")
        return {str(k): str(v) for k, v in value.items()}

    def strings(self, value: Any, key: str, node: ast.AST | None) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
            self.error(key, node, "must be a list of non-empty strings")
            return ()
        return tuple(value)

    def names(self, value: Any, key: str, node: ast.AST | None) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not value:
            self.error(key, node, "must be a non-empty list of framework names")
            return ()
        bad = [v for v in value if not isinstance(v, str) or not _NAME_RE.match(v)]
        if bad:
            self.error(key, node, f"invalid framework name(s) {bad}")
        if len(set(value)) != len(value):
            self.error(key, node, "lists a framework twice")
        return tuple(v for v in value if isinstance(v, str))

    def languages(
        self,
        value: Any,
        node: ast.expr | None,
        frameworks: tuple[str, ...],
        default_tab: str,
        title: str | dict[str, Any],
    ) -> dict[str, LanguageConfig]:
        if not isinstance(value, dict) or not value:
            self.error(
                "polybook.languages", node, "must map language codes to settings, e.g. {'en': {'name': 'English'}}"
            )
            return {}
        out: dict[str, LanguageConfig] = {}
        for code, settings in value.items():
            key = f"polybook.languages.{code}"
            lnode = self.key_node(node, code) or node
            if not isinstance(code, str) or not _LANG_RE.match(code):
                self.error(key, lnode, "is not a language code like 'en', 'pt' or 'zh_CN'")
                continue
            if not isinstance(settings, dict):
                self.error(key, lnode, "must be a dict with at least 'name'")
                continue
            for extra in set(settings) - _LANGUAGE_KEYS:
                self.error(
                    f"{key}.{extra}",
                    self.key_node(lnode, extra) or lnode,
                    f"unknown setting; known: {sorted(_LANGUAGE_KEYS)}",
                )
            name = settings.get("name")
            if not isinstance(name, str) or not name:
                self.error(
                    f"{key}.name", self.key_node(lnode, "name") or lnode, "is required: the language's name in itself"
                )
            fws = frameworks
            if "frameworks" in settings:
                fws = self.names(
                    settings["frameworks"], f"{key}.frameworks", self.key_node(lnode, "frameworks") or lnode
                )
                extra_fw = [f for f in fws if f not in frameworks]
                if extra_fw:
                    self.error(
                        f"{key}.frameworks",
                        self.key_node(lnode, "frameworks"),
                        f"{extra_fw} not in polybook.frameworks",
                    )
            tab = settings.get("default_tab", default_tab if default_tab in fws else (fws[0] if fws else ""))
            if fws and tab not in fws:
                self.error(
                    f"{key}.default_tab",
                    self.key_node(lnode, "default_tab") or lnode,
                    f"{tab!r} is not one of its frameworks {list(fws)}",
                )
            origin = settings.get("origin")
            if origin is not None and (not isinstance(origin, str) or not _LANG_RE.match(origin)):
                self.error(
                    f"{key}.origin",
                    self.key_node(lnode, "origin") or lnode,
                    f"{origin!r} is not a language code like 'en', 'pt' or 'zh_CN'",
                )
                origin = None
            lang_title = settings.get("title") or (title.get(code) if isinstance(title, dict) else title) or ""
            base = settings.get("base")
            if base is not None and (not isinstance(base, str) or not base):
                self.error(f"{key}.base", self.key_node(lnode, "base") or lnode, "must name an edition (a string)")
                base = None
            out[code] = LanguageConfig(code, str(name or code), str(lang_title), fws, str(tab), origin, base)
        return out

    def execution(self, value: Any, node: ast.expr | None, frameworks: tuple[str, ...], build: Path) -> ExecutionConfig:
        root = self.path.parent
        default = ExecutionConfig(build / "cache", (root / "frozen").resolve())
        if not isinstance(value, dict):
            self.error("polybook.execution", node, "must be a dict of execution settings")
            return default
        for key in value:
            if key not in _EXECUTION_KEYS:
                close = difflib.get_close_matches(str(key), list(_EXECUTION_KEYS), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(_EXECUTION_KEYS)}"
                self.error(f"polybook.execution.{key}", self.key_node(node, key) or node, f"unknown setting{hint}")
        at = {key: self.key_node(node, key) or node for key in _EXECUTION_KEYS}
        timeout = self.positive(value.get("timeout", 300), "polybook.execution.timeout", at["timeout"])
        jobs = value.get("jobs")
        if jobs is not None:
            jobs = self.positive(jobs, "polybook.execution.jobs", at["jobs"])
        flags = {}
        for key in ("allow_errors", "fail_on_needs_gpu"):
            flags[key] = value.get(key, False)
            if not isinstance(flags[key], bool):
                self.error(f"polybook.execution.{key}", at[key], "must be True or False")
                flags[key] = False
        paths = {}
        for key, fallback in (("cache_dir", build / "cache"), ("frozen_dir", root / "frozen")):
            raw = value.get(key)
            if raw is not None and (not isinstance(raw, str) or not raw):
                self.error(f"polybook.execution.{key}", at[key], "must be a folder path (a string)")
                raw = None
            paths[key] = (root / raw).resolve() if raw else fallback.resolve()
        kernel = value.get("kernel", "python3")
        kernels = {f: kernel for f in frameworks} if isinstance(kernel, str) else kernel
        if not isinstance(kernels, dict) or not all(isinstance(v, str) and _NAME_RE.match(v) for v in kernels.values()):
            self.error(
                "polybook.execution.kernel", at["kernel"], "must be a kernel name or a mapping framework -> name"
            )
            kernels = {}
        packages = value.get("packages", {})
        if not isinstance(packages, dict) or not all(
            isinstance(v, list | tuple) and all(isinstance(p, str) for p in v) for v in packages.values()
        ):
            self.error("polybook.execution.packages", at["packages"], "must map frameworks to lists of package names")
            packages = {}
        for key, mapping in (("kernel", kernels), ("packages", packages)):
            unknown = [f for f in mapping if f not in frameworks]
            if unknown:
                self.error(f"polybook.execution.{key}", at[key], f"{unknown} not in polybook.frameworks")
        environments = self.environments(value.get("environments", {}), at["environments"], frameworks)
        env_dir = value.get("env_dir")
        if env_dir is not None and (not isinstance(env_dir, str) or not env_dir):
            self.error("polybook.execution.env_dir", at["env_dir"], "must be a folder path (a string)")
            env_dir = None
        as_of = value.get("as_of")
        if as_of is not None and not (isinstance(as_of, str) and _DATE_RE.match(as_of)):
            self.error("polybook.execution.as_of", at["as_of"], f"must be a date like '2023-08-18', not {as_of!r}")
            as_of = None
        return ExecutionConfig(
            paths["cache_dir"],
            paths["frozen_dir"],
            timeout,
            dict(kernels),
            jobs,
            flags["allow_errors"],
            flags["fail_on_needs_gpu"],
            {f: tuple(v) for f, v in packages.items()},
            self.chapter_execution(value.get("chapters", {}), at["chapters"]),
            environments,
            (root / env_dir).resolve() if env_dir else (build / "envs").resolve(),
            as_of,
        )

    def environments(
        self, value: Any, node: ast.expr | None, frameworks: tuple[str, ...]
    ) -> dict[str, EnvironmentConfig]:
        """framework -> its requirements, each a valid PEP 508 string; errors at the entry's line."""
        from packaging.requirements import InvalidRequirement, Requirement

        key = "polybook.execution.environments"
        if not isinstance(value, dict):
            self.error(key, node, "must map frameworks to lists of requirements, e.g. {'pytorch': ['torch==2.0.0']}")
            return {}
        out = {}
        for framework, requirements in value.items():
            entry = self.key_node(node, framework) or node
            if framework not in frameworks:
                close = difflib.get_close_matches(str(framework), list(frameworks), n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(frameworks)}"
                self.error(f"{key}.{framework}", entry, f"not in polybook.frameworks; {hint}")
                continue
            if not isinstance(requirements, list | tuple) or not all(isinstance(r, str) for r in requirements):
                self.error(f"{key}.{framework}", entry, "must be a list of requirement strings ('torch==2.0.0')")
                continue
            bad = False
            for requirement in requirements:
                try:
                    Requirement(requirement)
                except InvalidRequirement as exc:
                    self.error(f"{key}.{framework}", entry, f"{requirement!r} is not a PEP 508 requirement: {exc}")
                    bad = True
            if not bad:
                out[framework] = EnvironmentConfig(tuple(requirements), getattr(entry, "lineno", 1))
        return out

    def chapter_execution(self, value: Any, node: ast.expr | None) -> dict[str, ChapterExecution]:
        if not isinstance(value, dict):
            self.error("polybook.execution.chapters", node, "must map chapter names to {timeout?, allow_errors?}")
            return {}
        out = {}
        for stem, settings in value.items():
            key, cnode = f"polybook.execution.chapters.{stem}", self.key_node(node, stem) or node
            if not isinstance(settings, dict):
                self.error(key, cnode, "must be a dict like {'timeout': 600}")
                continue
            for extra in set(settings) - _CHAPTER_EXECUTION_KEYS:
                self.error(
                    f"{key}.{extra}",
                    self.key_node(cnode, extra) or cnode,
                    f"unknown setting; known: {sorted(_CHAPTER_EXECUTION_KEYS)}",
                )
            timeout = settings.get("timeout")
            if timeout is not None:
                timeout = self.positive(timeout, f"{key}.timeout", self.key_node(cnode, "timeout") or cnode)
            allow = settings.get("allow_errors")
            if allow is not None and not isinstance(allow, bool):
                self.error(
                    f"{key}.allow_errors", self.key_node(cnode, "allow_errors") or cnode, "must be True or False"
                )
                allow = None
            out[str(stem)] = ChapterExecution(timeout, allow)
        return out

    def positive(self, value: Any, key: str, node: ast.AST | None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.error(key, node, f"must be a positive whole number, not {value!r}")
            return 1
        return value
