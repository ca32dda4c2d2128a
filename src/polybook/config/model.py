"""What conf.py's ``polybook`` settings become: :class:`BookConfig` and the settings it holds,
each validated by :mod:`polybook.config.validate`."""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.config.globs import exclusion_regex
from polybook.config.library import LibrarySettings
from polybook.config.notebooks import NotebooksConfig
from polybook.config.tree import ChapterTree, walk_chapters
from polybook.diagnostics import Code, Diagnostic, DiagnosticError
from polybook.dialect import DialectSettings
from polybook.files import display_path, resolved


class ConfigError(DiagnosticError):
    """conf.py is unusable; ``diagnostics`` lists every problem found."""


#: The machine translation engines ``polybook translate`` knows.
ENGINES = ("command", "openai", "deepl", "aws")


@dataclass(frozen=True, slots=True)
class TranslateConfig:
    """``polybook.translate``: the engine that drafts translations and how to reach it. The key
    itself is never in conf.py: ``key_env`` names the environment variable that holds it."""

    engine: str | None = None
    model: str | None = None
    endpoint: str | None = None
    key_env: str | None = None
    command: str | None = None
    batch: int = 20  # segments per request
    line: int = 1  # conf.py's line of the setting, for errors found when the engine starts


@dataclass(frozen=True, slots=True)
class LanguageConfig:
    lang: str
    name: str
    title: str
    frameworks: tuple[str, ...]
    default_tab: str
    origin: str | None = None  # the language this one was translated from (d2lbook's origin_lang)
    base: str | None = None  # the edition of the source it was translated from (a key of ``editions``)

    @property
    def settings(self) -> DialectSettings:
        return DialectSettings(self.lang, self.frameworks, self.default_tab)


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


#: stderr lines of library start-up chatter, left out of the outputs readers see (``polybook.
#: execution.quiet_stderr``'s default; each searched in one line): TensorFlow's and XLA's C++ log
#: lines (``2023-08-18 07:02:10.520395: I tensorflow/core/...``, ``E external/local_xla/...``, absl's
#: ``W0000 00:00:1700000000.123456 12 file.cc:38] ...``), what they carry on the next line, CUDA
#: plugin registration, JAX's CPU fallback and oneDNN's notice.
QUIET_STDERR = (
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] (tensorflow|external|third_party|xla)/\S+:\d+\] ",
    r"^[IWEF]\d{4} [\d:.]+ +\d+ \S+:\d+\] ",
    r"^WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR$",
    r"^To enable the following instructions: .*rebuild TensorFlow with the appropriate compiler flags\.$",
    r"Unable to register cu(DNN|FFT|BLAS) factory: Attempting to register factory for plugin",
    r"^(WARNING:[\w.]+:)?No GPU/TPU found, falling back to CPU\.",
    r"^(WARNING:[\w.]+:)?An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed\.",
    r"oneDNN custom operations are on\. You may see slightly different numerical results",
)


@dataclass(frozen=True, slots=True)
class ExecutionConfig:
    """``polybook.execution``: see ``validate._EXECUTION_KEYS`` for each setting."""

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
    quiet_stderr: tuple[str, ...] = QUIET_STDERR  # regexes of stderr lines readers are not shown

    def kernel_for(self, framework: str) -> str:
        """The kernel of a framework without an environment (one with has its own kernel)."""
        return self.kernels.get(framework, "python3")

    def packages_for(self, framework: str) -> tuple[str, ...]:
        """Distributions whose versions key the framework's programs: its environment's
        requirements, else the ``packages`` setting, else its own name; d2l and numpy always."""
        environment = self.environments.get(framework)
        own = environment.names if environment else self.packages.get(framework, (framework,))
        return tuple(dict.fromkeys((*own, "d2l", "numpy")))

    def chapter(self, name: str) -> ChapterExecution:
        """Per-chapter settings with the book-wide defaults filled in."""
        own = self.chapters.get(name, ChapterExecution())
        return ChapterExecution(
            own.timeout if own.timeout is not None else self.timeout,
            own.allow_errors if own.allow_errors is not None else self.allow_errors,
        )


@functools.lru_cache(maxsize=16384)
def _file_in(folder: Path, name: str, lang: str = "") -> Path:
    """``folder / lang / f"{name}.md"`` (no ``lang``: ``folder / f"{name}.md"``), memoised: a check
    asks for each document's file from many places (bookmix: 7,000 times for 1,200 files), and
    each ``/`` of pathlib parses the parts again. A path is never changed, so one serves all."""
    return folder / lang / f"{name}.md" if lang else folder / f"{name}.md"


def _link_shown(path: str) -> str:
    """A link's own path as shown (its folder resolved, not the link)."""
    folder, name = os.path.split(path)
    return os.path.join(display_path(Path(folder)), name)


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
    library: LibrarySettings = field(default_factory=LibrarySettings)
    localised_links: tuple[str, ...] = ()  # globs (fnmatch) of links a translation has its own of
    framework_labels: dict[str, str] = field(default_factory=dict)
    editions: dict[str, EditionConfig] = field(default_factory=dict)
    # The problems of ``library``: only the commands that build or import the library stop on
    # them (polybook build lib, build eval); the others run on what is usable.
    library_problems: tuple[Diagnostic, ...] = ()
    notebooks: NotebooksConfig = field(default_factory=NotebooksConfig)  # where launch notebooks are published
    # globs (fnmatch) of source-language document names whose raw HTML the site keeps as written
    trusted_html: tuple[str, ...] = ()
    translate: TranslateConfig = field(default_factory=lambda: TranslateConfig())  # polybook translate's engine

    def edition_path(self, edition: str, name: str) -> Path:
        """The file of document ``name`` in a held edition of the source language."""
        return _file_in(self.editions[edition].folder, name)

    def trusts_html(self, lang: str, name: str) -> bool:
        """Whether document ``name`` of ``lang`` puts its raw HTML on the page as written
        (``trusted_html``): only the source language's can; a translation's is always cleaned."""
        return lang == self.source_language and any(fnmatch.fnmatchcase(name, glob) for glob in self.trusted_html)

    def label_of(self, framework: str) -> str:
        """How the book writes ``framework`` for readers (tabs, notices, PDF names)."""
        return self.framework_labels.get(framework, framework)

    @property
    def root(self) -> Path:
        return self.path.parent

    @property
    def translations(self) -> list[str]:
        return [lang for lang in self.languages if lang != self.source_language]

    def language_of(self, path: Path) -> str | None:
        """The language whose chapter folder holds ``path``, if any."""
        try:
            rel = resolved(path).relative_to(resolved(self.chapters_dir))
        except ValueError:
            return None
        return rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] in self.languages else None

    def settings_for(self, path: Path) -> DialectSettings:
        code = self.language_of(path)
        if code is None:
            return DialectSettings(None, self.frameworks, self.default_tab)
        return self.languages[code].settings

    def chapter_files(self, lang: str) -> list[Path]:
        """The language's documents: every ``.md`` below its folder, at any depth, but the
        excluded ones and those in hidden folders (``.ipynb_checkpoints``), sorted by name."""
        return [self.document_path(lang, name) for name in self.document_names(lang)]

    def document_names(self, lang: str) -> list[str]:
        """The names of :meth:`chapter_files`: ``chapter_x/section``."""
        return sorted(self.document_sizes(lang))

    def document_sizes(self, lang: str) -> dict[str, int]:
        """:meth:`document_names`, each with its file's size in bytes (the look at the file that
        tells it is one tells its size: ``polybook check`` orders its work by it)."""
        pattern = exclusion_regex(self.exclusions)
        excluded = self.excluded(lang) if pattern is None else set()
        sizes = {}
        for relative, size in self._tree(lang).files:
            if relative in excluded or (pattern is not None and pattern.fullmatch(relative)):
                continue
            sizes[relative[: -len(".md")]] = size
        return sizes

    def refused_links(self, lang: str) -> list[Diagnostic]:
        """An error at each symbolic link below the language's folder that is not followed: it
        loops, or it leaves the book (:mod:`polybook.config.tree`)."""
        return [
            Diagnostic.make(_link_shown(path), 1, Code.CHAPTERS_LINK, f"{why}: not followed")
            for path, why in sorted(self._tree(lang).refused)
        ]

    def _tree(self, lang: str) -> ChapterTree:
        # scandir and strings, not Path.rglob: every command lists every language (twice as fast)
        return walk_chapters(str(self.chapters_dir / lang), (str(self.root), str(self.chapters_dir)))

    def excluded(self, lang: str) -> set[str]:
        """Paths (relative to the language folder) that ``exclusions`` match, with glob's
        meaning (``*`` stays within a folder, ``**`` crosses folders), as d2lbook reads them."""
        folder = self.chapters_dir / lang
        return {p.relative_to(folder).as_posix() for pattern in self.exclusions for p in folder.glob(pattern)}

    def document_path(self, lang: str, name: str) -> Path:
        """The file of document ``name`` in ``language``."""
        return _file_in(self.chapters_dir, name, lang)

    def document_name(self, path: Path) -> str | None:
        """The document name of a chapter file, if it lies in a language folder."""
        language = self.language_of(path)
        if language is None:
            return None
        return resolved(path).relative_to(resolved(self.chapters_dir / language)).with_suffix("").as_posix()

    def locate(self, lang: str, document: str, ref: str) -> tuple[Path, bool] | None:
        """The file that ``ref`` (a relative path written in document ``document``) names:
        the language's own, else -- when the path stays inside the language folder -- the
        source language's file at the same place (``fallback`` True), so a translation
        carries only the files it translated. None when neither exists."""
        own = resolved(self.document_path(lang, document).parent / ref)  # a link loop: as far as it goes
        if own.is_file():
            return own, False
        folder = (self.chapters_dir / lang).resolve()
        if lang != self.source_language and own.is_relative_to(folder):
            other = (self.chapters_dir / self.source_language).resolve() / own.relative_to(folder)
            if other.is_file():
                return other, True
        return None

    def bibliography(self, lang: str) -> Path | None:
        """The language's ``bibfile`` (the source language's when it has none)."""
        if not self.bibfile:
            return None
        found = self.locate(lang, "index", self.bibfile)
        return found[0] if found else None
