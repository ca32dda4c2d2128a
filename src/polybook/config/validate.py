"""``conf.py``, read once into a validated :class:`BookConfig`.

``conf.py`` is Sphinx's config file too. polybook reads it *statically*: top-level
assignments whose value is a Python literal are evaluated with :func:`ast.literal_eval`
and nothing in the file is executed, so ``polybook check`` is safe on pull requests
from forks. Sphinx still executes the file when it builds. Every mistake in the
``polybook`` settings is collected and reported at once, with its key and line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from polybook.config.checks import Checks, did_you_mean, key_node
from polybook.config.library import read_library
from polybook.config.model import (
    ENGINES,
    QUIET_STDERR,
    BookConfig,
    ChapterExecution,
    ConfigError,
    EditionConfig,
    EnvironmentConfig,
    ExecutionConfig,
    LanguageConfig,
    TranslateConfig,
)
from polybook.config.notebooks import read_notebooks
from polybook.diagnostics import Code, Diagnostic
from polybook.dialect import DialectSettings

CONFIG_NAME = "conf.py"
_LANG_RE = re.compile(r"^[a-z]{2,3}(_[A-Z]{2}|-[A-Za-z]{2,4})?$")
_NAME_RE = re.compile(r"^[A-Za-z_][\w-]*$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: A requirement that is a project's name, its extras and at most a release it is pinned to
#: (``torch==2.0.0``, ``jax[cpu]==0.4.13``): PEP 508's grammar holds it, so packaging -- some
#: 25 ms to import, before every command -- is asked only for the others.
_PINNED = re.compile(
    r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
    r"(?:,[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)*\])?(?:==[0-9]+(?:\.[0-9]+)*)?"
)
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
    "notebooks": "the notebooks for readers (polybook build notebooks): {'launch': 'owner/name@branch'}, where "
    "the launch notebooks are published",
    "translate": "the machine translation engine polybook translate drafts with: {engine, model?, endpoint?, "
    "key_env?, command?, batch?}",
    "trusted_html": "globs (fnmatch) of source-language document names whose raw HTML the site keeps as written, "
    "scripts and all (d2l: ['index'], its front page); every other page's, and every translation's, is cleaned "
    "(default: none)",
}
_LANGUAGE_KEYS = {
    "name": "how readers see the language (the language switch, notices); default: its name in babel",
    "title": "the book's title in this language (default: polybook.title)",
    "frameworks": "the frameworks this language's chapters have, in tab order (default: polybook.frameworks)",
    "default_tab": "framework of this language's untagged cells and first tab (default: polybook.default_tab)",
    "origin": "the language this one is translated from, when it is not the source language",
    "base": "the edition (a key of polybook.editions) this translation was made from",
}
_TRANSLATE_KEYS = {
    "engine": "command (any program: JSON on stdin and stdout), openai (an OpenAI-compatible chat-completions "
    "endpoint), deepl or aws (Amazon Translate); --engine overrides it",
    "model": "the engine's model (openai: e.g. 'gpt-4o-mini'; deepl: 'quality_optimized'...); written in each "
    "draft's mark and part of the cache's key",
    "endpoint": "the engine's URL, when not its public one (an OpenAI-compatible server, a DeepL or AWS endpoint)",
    "key_env": "the name of the environment variable holding the engine's key (never the key itself); default "
    "OPENAI_API_KEY, DEEPL_AUTH_KEY, or AWS's own credentials chain",
    "command": "the program of the command engine, with its arguments (e.g. 'python mt.py --to {lang}'); "
    "--command overrides it",
    "batch": "segments sent per request (default 20)",
}
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
    "quiet_stderr": "regular expressions (Python's re, searched in each line) of stderr lines the pages, PDFs and "
    "notebooks leave out of a cell's outputs -- libraries' start-up chatter; the stored results keep every line. "
    "Default: TensorFlow/XLA/absl C++ log lines ('2023-08-18 07:02:10.520395: I tensorflow/core/...', "
    "'W0000 00:00:1700000000.1 12 x.cc:38] ...'), TensorFlow's 'To enable the following instructions' line, "
    "CUDA's 'Unable to register cuDNN factory', JAX's 'No GPU/TPU found, falling back to CPU' and 'An NVIDIA GPU "
    "may be present', oneDNN's 'custom operations are on' (polybook.config.model.QUIET_STDERR); [] shows all",
}
_CHAPTER_EXECUTION_KEYS = {
    "timeout": "seconds a cell of this chapter may run (default: polybook.execution.timeout)",
    "allow_errors": "keep running this chapter's programs after a cell raises",
}


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


def language_folder_problems(config: BookConfig, built: Collection[str] = ()) -> list[Diagnostic]:
    """A language whose chapters folder is missing -- a misspelt code (``jp`` for the folder
    ``ja``) -- or, for the languages ``built`` (a site or a PDF, which Sphinx cannot make of
    nothing), holds no Markdown: each at its line of conf.py, with the folder under ``chapters``
    it may have meant. Not part of :func:`load_config`: ``polybook import`` validates conf.py
    before it puts the language's folder in place, and a translation just begun may be empty."""
    chapters = config.chapters_dir
    problems = []
    for lang in config.languages:
        folder = chapters / lang
        if folder.is_dir() and (lang not in built or next(folder.rglob("*.md"), None) is not None):
            continue
        present = sorted(p.name for p in chapters.iterdir() if p.is_dir() and not p.name.startswith("."))
        unclaimed = [name for name in present if name not in config.languages]
        shown = folder.relative_to(config.root) if folder.is_relative_to(config.root) else folder
        what = "holds no Markdown (.md) file: nothing to build" if folder.is_dir() else "does not exist"
        listed = f"; folders there: {', '.join(present)}" if present else ""
        hint = did_you_mean(lang, unclaimed, cutoff=0.5) or listed
        message = f"polybook.languages.{lang}: its chapters folder {shown.as_posix()}/ {what}{hint}"
        problems.append(Diagnostic.make(str(config.path), _language_line(config.path, lang), Code.CONFIG, message))
    return problems


def _language_line(path: Path, lang: str) -> int:
    """The line of ``lang``'s entry in conf.py's ``polybook.languages`` (1 when not found)."""
    try:
        nodes = dict(_literals(ast.parse(path.read_bytes())))
    except (OSError, SyntaxError):
        return 1
    languages = key_node(nodes.get("polybook"), "languages")
    entry = key_node(languages, lang) or languages or nodes.get("polybook")
    return getattr(entry, "lineno", 1)


def _literals(tree: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            yield stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            yield stmt.target.id, stmt.value


class _Validator(Checks):
    def __init__(self, path: Path, tree: ast.Module) -> None:
        super().__init__(path)
        self.tree = tree
        self.nodes: dict[str, ast.expr] = dict(_literals(tree))

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
        self.unknown_keys(raw, _BOOK_KEYS, "polybook", node, f"known keys: {', '.join(_BOOK_KEYS)}")
        frameworks = self.names(raw.get("frameworks"), "polybook.frameworks", key_node(node, "frameworks") or node)
        default_tab = raw.get("default_tab", frameworks[0] if frameworks else "")
        if frameworks and default_tab not in frameworks:
            self.error(
                "polybook.default_tab",
                key_node(node, "default_tab"),
                f"{default_tab!r} is not in frameworks {list(frameworks)}",
            )
        title = raw.get("title", sphinx.get("project", ""))
        if not isinstance(title, str | dict):
            self.error("polybook.title", key_node(node, "title"), "must be a string or a mapping language -> string")
            title = ""
        languages = self.languages(
            raw.get("languages"), key_node(node, "languages") or node, frameworks, default_tab, title
        )
        source = self.source_language(raw.get("source_language"), key_node(node, "source_language") or node, languages)
        dirs = self.folders(raw, node)
        execution = self.execution(
            raw.get("execution", {}), key_node(node, "execution") or node, frameworks, dirs["build_dir"]
        )
        exclusions = self.strings(raw.get("exclusions", []), "polybook.exclusions", key_node(node, "exclusions"))
        bibfile = raw.get("bibfile")
        if bibfile is not None and (not isinstance(bibfile, str) or not bibfile):
            self.error("polybook.bibfile", key_node(node, "bibfile"), "must be a file path (a string)")
            bibfile = None
        library = raw.get("library", {})
        if not isinstance(library, dict):
            self.error("polybook.library", key_node(node, "library"), "must be a dict (see polybook build lib)")
            library = {}
        library_settings, library_problems = read_library(self.path, library, key_node(node, "library"), frameworks)
        localised = raw.get("localised_links", [])
        localised = self.strings(localised, "polybook.localised_links", key_node(node, "localised_links") or node)
        labels = self.framework_labels(
            raw.get("framework_labels", {}), key_node(node, "framework_labels") or node, frameworks
        )
        editions = self.editions(
            raw.get("editions", {}), key_node(node, "editions") or node, languages, node, frameworks, default_tab
        )
        notebooks = read_notebooks(self, raw.get("notebooks", {}), key_node(node, "notebooks") or node)
        trusted_html = self.document_globs(raw.get("trusted_html", []), "polybook.trusted_html", node)
        translate = self.translate(raw.get("translate", {}), key_node(node, "translate") or node)
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
            library_settings,
            localised,
            labels,
            editions,
            tuple(library_problems),
            notebooks,
            trusted_html,
            translate,
        )

    def translate(self, value: Any, node: ast.expr | None) -> TranslateConfig:
        """``polybook.translate``: the engine's settings, each checked at its line."""
        line = getattr(node, "lineno", 1)
        if not isinstance(value, dict):
            self.error("polybook.translate", node, "must be a dict, e.g. {'engine': 'deepl', 'key_env': 'DEEPL_KEY'}")
            return TranslateConfig(line=line)
        self.unknown_keys(value, _TRANSLATE_KEYS, "polybook.translate", node, f"known: {', '.join(_TRANSLATE_KEYS)}")
        found: dict[str, Any] = {}
        for key in ("engine", "model", "endpoint", "key_env", "command"):
            item = value.get(key)
            if item is not None and (not isinstance(item, str) or not item.strip()):
                self.error(f"polybook.translate.{key}", key_node(node, key) or node, "must be a non-empty string")
            elif item is not None:
                found[key] = item
        engine = found.get("engine")
        if engine is not None and engine not in ENGINES:
            hint = did_you_mean(engine, ENGINES) or f"; known: {', '.join(ENGINES)}"
            self.error(
                "polybook.translate.engine", key_node(node, "engine") or node, f"unknown engine {engine!r}{hint}"
            )
        key_env = found.get("key_env")
        if key_env is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key_env):
            self.error(
                "polybook.translate.key_env",
                key_node(node, "key_env") or node,
                f"{key_env!r} is not an environment variable's name: name the variable that holds the key, "
                "never the key itself",
            )
        batch = self.positive(value.get("batch", 20), "polybook.translate.batch", key_node(node, "batch") or node)
        return TranslateConfig(**found, batch=batch, line=line)

    def source_language(self, source: Any, node: ast.expr | None, languages: dict[str, LanguageConfig]) -> Any:
        """``polybook.source_language``: one of the languages (said when it is not)."""
        if not isinstance(source, str) or not source:
            self.error("polybook.source_language", node, "is required: the code of the language translations follow")
        elif languages and source not in languages:
            self.error("polybook.source_language", node, f"{source!r} is not one of the languages {list(languages)}")
        return source

    def folders(self, raw: dict[str, Any], node: ast.expr | None) -> dict[str, Path]:
        """``chapters`` (which must exist) and ``build_dir``, resolved from the book's root."""
        dirs = {}
        for key, default in (("chapters", "chapters"), ("build_dir", "build")):
            value = raw.get(key, default)
            if not isinstance(value, str) or not value:
                self.error(f"polybook.{key}", key_node(node, key), "must be a folder path (a string)")
                value = default
            dirs[key] = (self.path.parent / value).resolve()
        if not dirs["chapters"].is_dir():
            self.error(
                "polybook.chapters", key_node(node, "chapters") or node, f"folder {dirs['chapters']} does not exist"
            )
        return dirs

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
            at = key_node(node, name) or node
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
        lnodes = key_node(book, "languages")
        for lang, language in languages.items():
            if language.base is not None and language.base not in out:
                lnode = key_node(key_node(lnodes, lang), "base") or lnodes
                hint = did_you_mean(language.base, out) or f"; the book's editions: {list(out)}"
                self.error(f"polybook.languages.{lang}.base", lnode, f"{language.base!r} is not an edition{hint}")
        return out

    def framework_labels(self, value: Any, node: ast.expr | None, frameworks: tuple[str, ...]) -> dict[str, str]:
        key = "polybook.framework_labels"
        if not isinstance(value, dict) or not all(isinstance(v, str) and v.strip() for v in value.values()):
            self.error(key, node, "must map framework names to labels, e.g. {'pytorch': 'PyTorch'}")
            return {}
        for name in value:
            if name not in frameworks:
                hint = did_you_mean(name, frameworks) or f"; the book's frameworks: {list(frameworks)}"
                self.error(f"{key}.{name}", key_node(node, name) or node, f"not in polybook.frameworks{hint}")
        return {str(k): str(v) for k, v in value.items()}

    def strings(self, value: Any, key: str, node: ast.AST | None) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
            self.error(key, node, "must be a list of non-empty strings")
            return ()
        return tuple(value)

    def document_globs(self, value: Any, key: str, book: ast.expr | None) -> tuple[str, ...]:
        """Globs of document names (``index``, ``chapter_*/intro``): no ``.md``, no language folder."""
        node = key_node(book, key.rpartition(".")[2]) or book
        globs = self.strings(value, key, node)
        for glob in globs:
            if glob.endswith(".md") or glob.startswith("/"):
                name = glob.removesuffix(".md").lstrip("/")
                self.error(key, node, f"{glob!r}: name a document as the toc does (below its language's folder, "
                           f"without .md): {name!r}")  # fmt: skip
        return globs

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
        for lang, settings in value.items():
            key = f"polybook.languages.{lang}"
            lnode = key_node(node, lang) or node
            if not isinstance(lang, str) or not _LANG_RE.match(lang):
                self.error(key, lnode, "is not a language code like 'en', 'pt' or 'zh_CN'")
                continue
            if not isinstance(settings, dict):
                self.error(key, lnode, "must be a dict with at least 'name'")
                continue
            self.unknown_keys(settings, _LANGUAGE_KEYS, key, lnode, f"known: {sorted(_LANGUAGE_KEYS)}")
            name = settings.get("name")
            if not isinstance(name, str) or not name:
                self.error(
                    f"{key}.name", key_node(lnode, "name") or lnode, "is required: the language's name in itself"
                )
            fws = frameworks
            if "frameworks" in settings:
                fws = self.names(settings["frameworks"], f"{key}.frameworks", key_node(lnode, "frameworks") or lnode)
                extra_fw = [f for f in fws if f not in frameworks]
                if extra_fw:
                    self.error(
                        f"{key}.frameworks",
                        key_node(lnode, "frameworks"),
                        f"{extra_fw} not in polybook.frameworks",
                    )
            tab = settings.get("default_tab", default_tab if default_tab in fws else (fws[0] if fws else ""))
            if fws and tab not in fws:
                self.error(
                    f"{key}.default_tab",
                    key_node(lnode, "default_tab") or lnode,
                    f"{tab!r} is not one of its frameworks {list(fws)}",
                )
            origin = settings.get("origin")
            if origin is not None and (not isinstance(origin, str) or not _LANG_RE.match(origin)):
                self.error(
                    f"{key}.origin",
                    key_node(lnode, "origin") or lnode,
                    f"{origin!r} is not a language code like 'en', 'pt' or 'zh_CN'",
                )
                origin = None
            lang_title = settings.get("title") or (title.get(lang) if isinstance(title, dict) else title) or ""
            base = settings.get("base")
            if base is not None and (not isinstance(base, str) or not base):
                self.error(f"{key}.base", key_node(lnode, "base") or lnode, "must name an edition (a string)")
                base = None
            out[lang] = LanguageConfig(lang, str(name or lang), str(lang_title), fws, str(tab), origin, base)
        return out

    def execution(self, value: Any, node: ast.expr | None, frameworks: tuple[str, ...], build: Path) -> ExecutionConfig:
        root = self.path.parent
        default = ExecutionConfig(build / "cache", (root / "frozen").resolve())
        if not isinstance(value, dict):
            self.error("polybook.execution", node, "must be a dict of execution settings")
            return default
        self.unknown_keys(value, _EXECUTION_KEYS, "polybook.execution", node, f"known: {', '.join(_EXECUTION_KEYS)}")
        at = {key: key_node(node, key) or node for key in _EXECUTION_KEYS}
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
        quiet = self.patterns(value.get("quiet_stderr", QUIET_STDERR), "polybook.execution.quiet_stderr", at)
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
            quiet,
        )

    def patterns(self, value: Any, key: str, at: dict[str, ast.expr | None]) -> tuple[str, ...]:
        """A list of regular expressions, each said at its own line when it is not one."""
        node = at[key.rsplit(".", 1)[-1]]
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            self.error(key, node, "must be a list of regular expressions (strings)")
            return QUIET_STDERR
        items = node.elts if isinstance(node, ast.List | ast.Tuple) and len(node.elts) == len(value) else []
        kept = []
        for index, pattern in enumerate(value):
            try:
                re.compile(pattern)
            except re.error as exc:
                self.error(f"{key}[{index}]", items[index] if items else node, f"{pattern!r} is not a regex: {exc}")
                continue
            kept.append(pattern)
        return tuple(kept)

    def environments(
        self, value: Any, node: ast.expr | None, frameworks: tuple[str, ...]
    ) -> dict[str, EnvironmentConfig]:
        """framework -> its requirements, each a valid PEP 508 string; errors at the entry's line."""
        key = "polybook.execution.environments"
        if not isinstance(value, dict):
            self.error(key, node, "must map frameworks to lists of requirements, e.g. {'pytorch': ['torch==2.0.0']}")
            return {}
        out = {}
        for framework, requirements in value.items():
            entry = key_node(node, framework) or node
            if framework not in frameworks:
                hint = did_you_mean(framework, frameworks) or f"; known: {', '.join(frameworks)}"
                self.error(f"{key}.{framework}", entry, f"not in polybook.frameworks{hint}")
                continue
            if not isinstance(requirements, list | tuple) or not all(isinstance(r, str) for r in requirements):
                self.error(f"{key}.{framework}", entry, "must be a list of requirement strings ('torch==2.0.0')")
                continue
            bad = False
            for requirement in requirements:
                if _PINNED.fullmatch(requirement):
                    continue  # a name (extras) pinned to a release: PEP 508 for sure (packaging is not imported)
                from packaging.requirements import InvalidRequirement, Requirement

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
        for name, settings in value.items():
            key, cnode = f"polybook.execution.chapters.{name}", key_node(node, name) or node
            if not isinstance(settings, dict):
                self.error(key, cnode, "must be a dict like {'timeout': 600}")
                continue
            known = sorted(_CHAPTER_EXECUTION_KEYS)
            self.unknown_keys(settings, _CHAPTER_EXECUTION_KEYS, key, cnode, f"known: {known}")
            timeout = settings.get("timeout")
            if timeout is not None:
                timeout = self.positive(timeout, f"{key}.timeout", key_node(cnode, "timeout") or cnode)
            allow = settings.get("allow_errors")
            if allow is not None and not isinstance(allow, bool):
                self.error(f"{key}.allow_errors", key_node(cnode, "allow_errors") or cnode, "must be True or False")
                allow = None
            out[str(name)] = ChapterExecution(timeout, allow)
        return out

    def positive(self, value: Any, key: str, node: ast.AST | None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.error(key, node, f"must be a positive whole number, not {value!r}")
            return 1
        return value
