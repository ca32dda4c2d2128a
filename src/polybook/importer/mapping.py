"""What a d2lbook ``config.ini`` says, in polybook's terms, and what it says that polybook cannot use.

:func:`read_settings` interprets one project's config.ini (with d2lbook 1.0.3's defaults for
keys it does not set) into :class:`ProjectSettings`. Every value it does not map is kept as
an :class:`Unmapped` entry with its line and the reason, so that nothing is dropped silently.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from polybook.diagnostics import Code, Diagnostic
from polybook.importer.environments import Proposal
from polybook.importer.ini import IniFile, IniValue

#: d2lbook's defaults (config_default.ini) for the keys the import reads.
DEFAULT_NOTEBOOKS = ("**/*.md",)
#: The pattern keeping the ``X_origin.md`` bases of a translation out of the book.
ORIGIN_PATTERN = "**/*_origin.md"
#: A framework name for a book without ``[build] tabs`` (one code stream, no tabs).
UNTABBED = "python"
#: config.ini files whose path is copied and becomes a Sphinx setting (from the source language).
STATIC_SETTINGS = {
    ("html", "favicon"): "html_favicon",
    ("html", "html_logo"): "html_logo",
    ("pdf", "latex_logo"): "latex_logo",
}
#: [project] keys that are Sphinx settings of the same name.
SPHINX_PROJECT_KEYS = ("author", "copyright", "release")
#: Sphinx settings whose value is text or layout of one language: never made book-wide.
PER_LANGUAGE_SPHINX = {
    "language",
    "project",
    "author",
    "copyright",
    "release",
    "version",
    "today",
    "today_fmt",
    "numfig_format",
    "latex_elements",
    "latex_documents",
    "latex_engine",
    "html_title",
    "html_short_title",
    "html_search_language",
    "html_search_options",
    "man_pages",
    "texinfo_documents",
    "epub_title",
}
#: Settings the import maps or checks itself; the rest of a section is reported as not mapped.
_MAPPED = {
    "project": {"title", "lang", *SPHINX_PROJECT_KEYS},
    "translation": {"origin_lang"},
    "build": {"notebooks", "resources", "exclusions", "tabs", "sphinx_configs"},
    "html": {"favicon", "html_logo"},
    "pdf": {"latex_logo", "bibfile"},
    "library": {"version_file"},
}
#: Why a setting has no place in polybook, by section, then by key ("" for the whole section).
_WHY: dict[str, dict[str, str]] = {
    "project": {"name": "the file name of d2lbook's package and PDF; polybook names its outputs itself"},
    "translation": {
        "origin_repo": "the source is a language of the same book, not a repository",
        "translator": "machine translation is not part of polybook",
        "terminology": "machine translation is not part of polybook",
    },
    "build": {
        "index": "polybook's root document is each language's index.md",
        "eval_notebook": "polybook build eval runs every chapter; build html --no-eval renders stored outputs",
        "non-notebooks": "polybook treats every .md below the language folder as a document unless excluded",
        "rsts": "polybook reads Markdown only",
        "dependencies": "polybook rebuilds from content hashes, not from a list of files",
        "source_dir": "the project root is the language folder",
        "output_dir": "polybook's output folder is polybook.build_dir",
        "html_dir": "polybook's output folder is polybook.build_dir",
        "warning_is_error": "use polybook build html --strict",
        "sphinx_extensions": "add them to extensions in conf.py if the book needs them in every language",
        "origin_repo": "the source is a language of the same book, not a repository",
    },
    "html": {
        "header_links": "polybook's header has its own links (language switcher, PDFs); add links to the theme",
        "include_css": "add the files to html_css_files in conf.py",
        "include_js": "add the files to html_js_files in conf.py",
    },
    "pdf": {
        "post_latex": "a d2lbook LaTeX post-processing script; polybook's PDF stage writes its own LaTeX",
        "main_font": "polybook's PDF stage chooses fonts per language",
        "sans_font": "polybook's PDF stage chooses fonts per language",
        "mono_font": "polybook's PDF stage chooses fonts per language",
        "latex_url": "polybook's PDF stage uses Sphinx's LaTeX style",
        "style": "polybook's PDF stage uses Sphinx's LaTeX style",
    },
    "library": {"": "deprecated in d2lbook"},
    "deploy": {
        "google_analytics_tracking_id": "analytics are not part of polybook's site; add them to the theme",
        "": "publishing is polybook publish (--to, --branch); set html_baseurl in conf.py",
    },
    "colab": {"": "notebooks for Colab are not part of polybook"},
    "sagemaker": {"": "notebooks for SageMaker are not part of polybook"},
    "slides": {"": "slides are not part of polybook"},
}


@dataclass(frozen=True, slots=True)
class Unmapped:
    """A config.ini setting the import did not carry over, and why."""

    path: str
    line: int
    section: str
    key: str
    value: str
    why: str

    def diagnostic(self) -> Diagnostic:
        message = f"not mapped: [{self.section}] {self.key} = {_shorten(self.value)} ({self.why})"
        return Diagnostic.make(self.path, self.line, Code.IMPORT_UNMAPPED, message)


@dataclass(frozen=True, slots=True)
class SphinxSetting:
    """A ``name = literal`` statement of ``[build] sphinx_configs``."""

    name: str
    value: Any
    line: int


@dataclass(slots=True)
class ProjectSettings:
    """One d2lbook project's config.ini, interpreted; paths are relative to the project root."""

    ini: IniFile
    lang: str
    title: str | None = None
    sphinx: dict[str, str] = field(default_factory=dict)  # author, copyright, release
    origin: str | None = None
    tabs: tuple[str, ...] = ()
    notebooks: tuple[str, ...] = DEFAULT_NOTEBOOKS
    exclusions: tuple[str, ...] = ()
    resources: list[tuple[str, int]] = field(default_factory=list)  # (pattern, line)
    static: dict[str, tuple[str, int]] = field(default_factory=dict)  # Sphinx setting -> (path, line)
    bibfile: str | None = None
    library: dict[str, Any] = field(default_factory=dict)
    sphinx_configs: list[SphinxSetting] = field(default_factory=list)
    environments: Proposal = field(default_factory=Proposal)  # what each framework's kernel needs
    unmapped: list[Unmapped] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)

    def warn(self, line: int, message: str) -> None:
        """A setting of config.ini the import overrides."""
        self.warnings.append(self.ini.diagnostic(line, Code.IMPORT_SETTING, message))

    def not_mapped(self, value: IniValue, why: str, shown: str | None = None, line: int | None = None) -> None:
        text = value.raw if shown is None else shown
        self.unmapped.append(Unmapped(str(self.ini.path), line or value.line, value.section, value.key, text, why))


def read_settings(ini: IniFile, lang: str) -> ProjectSettings:
    """Interpret ``ini`` as the config of language ``lang``."""
    settings = ProjectSettings(ini, lang)
    _project(settings)
    _build(settings)
    _static(settings)
    settings.library = _library(settings)
    _report_unmapped(settings)
    return settings


def _project(settings: ProjectSettings) -> None:
    ini = settings.ini
    settings.title = ini.value("project", "title") or None
    for key in SPHINX_PROJECT_KEYS:
        if ini.value("project", key):
            settings.sphinx[key] = ini.value("project", key)
    declared = ini.get("project", "lang")
    if declared is not None and declared.raw and declared.raw != settings.lang:
        settings.warn(declared.line, f"[project] lang = {declared.raw} but it is imported as {settings.lang}")
    settings.origin = ini.value("translation", "origin_lang") or None
    if settings.origin == settings.lang:
        origin = ini.get("translation", "origin_lang")
        settings.warn(origin.line if origin else 1, f"[translation] origin_lang is {settings.lang} itself: ignored")
        settings.origin = None


def _build(settings: ProjectSettings) -> None:
    ini = settings.ini
    tabs = ini.get("build", "tabs")
    if tabs is not None:
        # d2lbook lower-cases the tabs; the first is the default tab.
        settings.tabs = tuple(dict.fromkeys(tab.lower() for tab in tabs.items()))
    notebooks = ini.get("build", "notebooks")
    if notebooks is not None and notebooks.words():
        settings.notebooks = tuple(notebooks.words())
        if set(settings.notebooks) != set(DEFAULT_NOTEBOOKS):
            why = (
                "polybook takes every .md below the language folder that exclusions do not exclude; "
                ".md files these patterns do not match were not copied"
            )
            settings.not_mapped(notebooks, why)
    exclusions = ini.get("build", "exclusions")
    settings.exclusions = tuple(exclusions.words()) if exclusions is not None else ()
    resources = ini.get("build", "resources")
    if resources is not None:
        for index, line in enumerate(resources.lines):
            settings.resources.extend((word, resources.line_of(index)) for word in line.split())
    configs = ini.get("build", "sphinx_configs")
    if configs is not None and configs.raw:
        _sphinx_configs(settings, configs)
    settings.bibfile = ini.value("pdf", "bibfile") or next(
        (name.rstrip("/") for name, _ in settings.resources if name.endswith(".bib")), None
    )


def _sphinx_configs(settings: ProjectSettings, value: IniValue) -> None:
    """d2lbook pastes ``sphinx_configs`` into its Sphinx conf.py as Python: keep each literal
    ``name = value`` statement; report what is not one."""
    source = "\n".join(value.lines).replace("%%", "%")  # one text line per value line
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        line = value.line_of((exc.lineno or 1) - 1)
        settings.not_mapped(value, f"not Python: {exc.msg}", line=line)
        return
    for statement in tree.body:
        line = value.line_of(statement.lineno - 1)
        text = ast.get_source_segment(source, statement) or ""
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        if not isinstance(target, ast.Name) or not isinstance(statement, ast.Assign):
            settings.not_mapped(value, "not a `name = value` statement", shown=text, line=line)
            continue
        try:
            literal = ast.literal_eval(statement.value)
        except ValueError:
            settings.not_mapped(value, "not a Python literal", shown=text, line=line)
            continue
        settings.sphinx_configs.append(SphinxSetting(target.id, literal, line))


def _static(settings: ProjectSettings) -> None:
    for (section, key), setting in STATIC_SETTINGS.items():
        found = settings.ini.get(section, key)
        if found is not None and found.raw:
            settings.static[setting] = (found.raw.removeprefix("./"), found.line)


def _library(settings: ProjectSettings) -> dict[str, Any]:
    """``[library]`` and ``[library-<framework>]`` as ``polybook["library"]``; alias values
    stay the raw config.ini text."""
    ini = settings.ini
    library: dict[str, Any] = {}
    if ini.value("library", "version_file"):
        library["version_file"] = ini.value("library", "version_file")
    frameworks: dict[str, dict[str, str]] = {}
    for section, values in ini.sections.items():
        if not section.startswith("library-"):
            continue
        framework = section.removeprefix("library-").lower()
        if settings.tabs and framework not in settings.tabs:
            for value in values.values():
                settings.not_mapped(value, f"{framework} is not one of [build] tabs; d2lbook ignores it")
            continue
        frameworks[framework] = {key: value.raw for key, value in values.items()}
    if frameworks:
        library["frameworks"] = frameworks
    return library


def _report_unmapped(settings: ProjectSettings) -> None:
    """Every non-empty value neither mapped nor reported yet, with why."""
    reported = {(u.section, u.key) for u in settings.unmapped}
    for value in settings.ini:
        section, key = value.section, value.key
        if not value.raw or (section, key) in reported or section.startswith("library-"):
            continue
        if key in _MAPPED.get(section, set()):
            continue
        reasons = _WHY.get(section)
        if reasons is None:
            why = "not a d2lbook setting polybook knows"
        else:
            why = reasons.get(key) or reasons.get("") or "polybook has no such setting"
        settings.not_mapped(value, why)
    settings.unmapped.sort(key=lambda u: u.line)


def _shorten(text: str, width: int = 72) -> str:
    first, _, rest = text.strip().partition("\n")
    more = rest.count("\n") + 1 if rest else 0
    shown = first if len(first) <= width else first[: width - 1] + "…"
    return f"{shown} … (+{more} line{'s' if more > 1 else ''})" if more else shown
