"""One language's d2lbook settings merged into the book's: the ``polybook`` dict and Sphinx settings.

The merge is the same whatever order the languages are imported in: the source language is
the one the translations name as their origin once it is imported (until then the first
language imported), its settings win where languages differ (library, default tab, logos),
and a translation only adds what the book lacks (its own frameworks, library frameworks).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from polybook.importer.mapping import (
    ORIGIN_PATTERN,
    PER_LANGUAGE_SPHINX,
    UNTABBED,
    ProjectSettings,
    Unmapped,
)


@dataclass(slots=True)
class BookSettings:
    """What conf.py holds now: the ``polybook`` dict (None when it has none), its literal
    top-level settings, and the names it assigns in any way."""

    polybook: dict[str, Any] | None = None
    literals: dict[str, Any] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)
    imported: dict[str, str] = field(default_factory=dict)  # setting -> the language an import took it from


@dataclass(slots=True)
class Merged:
    polybook: dict[str, Any]
    top: dict[str, Any]  # top-level settings to set, new or changed
    marks: dict[str, str] = field(default_factory=dict)  # setting -> the language it comes from
    notes: list[str] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)


def language_name(code: str) -> str:
    """The language's name in itself (babel, which Sphinx installs), capitalised; else the code."""
    try:
        from babel import Locale

        name = Locale.parse(code.replace("-", "_")).get_display_name(code.replace("-", "_"))
    except Exception:  # babel missing, or a code it does not know: the code stands in
        return code
    return name[:1].upper() + name[1:] if name else code


def merge(
    book: BookSettings,
    settings: ProjectSettings,
    copied: set[str],
    origin_pattern: bool,
    front_pages: list[str] | None = None,
) -> Merged:
    """The book's settings with language ``settings.lang`` added. ``copied``: the files copied,
    relative to the language folder; ``origin_pattern``: whether exclusions must gain
    :data:`~polybook.importer.mapping.ORIGIN_PATTERN` to keep the copied origin files out;
    ``front_pages``: the documents whose raw HTML file (d2l's front page) the import carried."""
    lang = settings.lang
    polybook = copy.deepcopy(book.polybook) if book.polybook is not None else {}
    merged = Merged(polybook, {})
    old_source = polybook.get("source_language") or None
    before = _effective_tabs(polybook)
    _language(polybook, settings)
    source = _source(polybook, lang)
    if old_source and source != old_source:
        merged.notes.append(f"source language: {old_source} -> {source} (the language the translations follow)")
    polybook["source_language"] = source
    is_source = source == lang
    entry = polybook["languages"][lang]
    if is_source or not polybook.get("default_tab"):
        polybook["default_tab"] = entry["default_tab"]
    _pin_tabs(polybook, before, lang, merged)
    _title(polybook, settings)
    _exclusions(polybook, settings, origin_pattern)
    _bibfile(polybook, settings, copied, is_source, merged)
    _library(polybook, settings, is_source)
    _environments(polybook, settings, is_source, merged)
    _project(book, settings, merged, old_source, is_source)
    _static(book, settings, merged, copied, is_source)
    _sphinx_configs(book, settings, merged, is_source)
    _front_pages(polybook, settings, front_pages or [], is_source, merged)
    return merged


def _front_pages(
    polybook: dict[str, Any], settings: ProjectSettings, documents: list[str], is_source: bool, merged: Merged
) -> None:
    """The source language's front page keeps its scripts and styles (``trusted_html``); a
    translation's is cleaned by the allow-list, by design: said."""
    if not documents:
        return
    shown = ", ".join(documents)
    if is_source and not settings.origin:
        trusted = list(polybook.get("trusted_html") or [])
        polybook["trusted_html"] = trusted + [name for name in documents if name not in trusted]
        merged.notes.append(f"front page {shown}: its raw HTML is kept as written, scripts and styles (trusted_html)")
    else:
        merged.notes.append(
            f"front page {shown}: a translation's raw HTML is cleaned by the allow-list (scripts, styles and ids "
            "go; text, images and links stay): only the source language's pages trusted_html names keep theirs "
            "(docs/html.md)"
        )


def _language(polybook: dict[str, Any], settings: ProjectSettings) -> None:
    languages = polybook.get("languages")
    if not isinstance(languages, dict):
        languages = polybook["languages"] = {}
    entry = languages.setdefault(settings.lang, {})
    entry.setdefault("name", language_name(settings.lang))
    tabs = list(settings.tabs) or [UNTABBED]
    entry["frameworks"] = tabs
    entry["default_tab"] = tabs[0]
    if settings.origin:
        entry["origin"] = settings.origin
    frameworks = list(polybook.get("frameworks") or [])
    polybook["frameworks"] = frameworks + [tab for tab in tabs if tab not in frameworks]


def _effective_tabs(polybook: dict[str, Any]) -> dict[str, tuple[list[str], str]]:
    """Each language's frameworks and default tab, its own or the book's (as conf.py is read)."""
    book = list(polybook.get("frameworks") or [])
    tab = polybook.get("default_tab") or (book[0] if book else "")
    out = {}
    for lang, entry in (polybook.get("languages") or {}).items():
        if isinstance(entry, dict):
            own = list(entry.get("frameworks") or book)
            out[lang] = (own, entry.get("default_tab") or (tab if tab in own else (own[0] if own else "")))
    return out


def _pin_tabs(polybook: dict[str, Any], before: dict[str, tuple[list[str], str]], lang: str, merged: Merged) -> None:
    """Languages that took the book's frameworks or default tab keep what they had: the book's
    growing by this import's frameworks must not change what the other languages mean."""
    after = _effective_tabs(polybook)
    for other, (frameworks, tab) in before.items():
        if other == lang or other not in after:
            continue
        entry = polybook["languages"][other]
        if after[other][0] != frameworks:
            entry["frameworks"] = frameworks
            merged.notes.append(f"{other} keeps its frameworks {frameworks} (they were the book's)")
        if after[other][1] != tab:
            entry["default_tab"] = tab
            merged.notes.append(f"{other} keeps its default tab {tab} (it was the book's)")


def _source(polybook: dict[str, Any], lang: str) -> str:
    """The origin the imported translations name, once it is imported; else the current source
    language (the first language imported)."""
    languages = polybook["languages"]
    origins = [entry.get("origin") for entry in languages.values() if isinstance(entry, dict) and entry.get("origin")]
    imported = [origin for origin in origins if origin in languages]
    current = polybook.get("source_language")
    if imported:
        return current if current in imported else imported[0]
    return current if current in languages else lang


def _title(polybook: dict[str, Any], settings: ProjectSettings) -> None:
    if not settings.title:
        return
    title = polybook.get("title")
    if title is None:
        polybook["title"] = {settings.lang: settings.title}
    elif isinstance(title, dict):
        title[settings.lang] = settings.title
    elif title != settings.title:  # one title for all: this language gets its own
        polybook["languages"][settings.lang]["title"] = settings.title


def _exclusions(polybook: dict[str, Any], settings: ProjectSettings, origin_pattern: bool) -> None:
    patterns = list(polybook.get("exclusions") or [])
    wanted = [*settings.exclusions, *([ORIGIN_PATTERN] if origin_pattern else [])]
    polybook["exclusions"] = patterns + [p for p in dict.fromkeys(wanted) if p not in patterns]


def _bibfile(
    polybook: dict[str, Any], settings: ProjectSettings, copied: set[str], is_source: bool, merged: Merged
) -> None:
    if not settings.bibfile:
        return
    if settings.bibfile not in copied:
        merged.notes.append(f"bibliography {settings.bibfile} was not copied (not among the resources, or missing)")
        return
    if is_source or not polybook.get("bibfile"):
        polybook["bibfile"] = settings.bibfile


def _library(polybook: dict[str, Any], settings: ProjectSettings, is_source: bool) -> None:
    """The source language's library settings win; a translation adds frameworks the book lacks."""
    if not settings.library:
        return
    library = polybook.get("library")
    if not isinstance(library, dict):
        library = polybook["library"] = {}
    if "version_file" in settings.library and (is_source or "version_file" not in library):
        library["version_file"] = settings.library["version_file"]
    frameworks = library.setdefault("frameworks", {})
    for framework, values in settings.library.get("frameworks", {}).items():
        if is_source or framework not in frameworks:
            frameworks[framework] = dict(values)


def _environments(polybook: dict[str, Any], settings: ProjectSettings, is_source: bool, merged: Merged) -> None:
    """The execution environments the project's setup.py and install lines propose: the source
    language's win (as its library settings do); a translation adds frameworks the book lacks."""
    proposal = settings.environments
    if not proposal.environments:
        return
    execution = polybook.get("execution")
    if not isinstance(execution, dict):
        execution = polybook["execution"] = {}
    environments = execution.get("environments")
    if not isinstance(environments, dict):
        environments = execution["environments"] = {}
    if proposal.as_of and (is_source or "as_of" not in execution):
        execution["as_of"] = proposal.as_of
    taken = []
    for framework, requirements in proposal.environments.items():
        if is_source or framework not in environments:
            environments[framework] = list(requirements)
            taken.append(framework)
    if not taken:
        return
    sources = [
        f"{framework}: {', '.join(proposal.sources[framework])}" for framework in taken if proposal.sources[framework]
    ]
    where = [proposal.common] if proposal.common else []
    dated = f", installed as the registry was on {proposal.as_of} (the project's date)" if proposal.as_of else ""
    merged.notes.append(f"environments proposed from {'; '.join([*where, *sources]) or 'nothing'}{dated}")
    for framework in [f for f in taken if f in proposal.added]:
        module = proposal.imports[framework][0]
        merged.notes.append(
            f"{framework}: {module} imports what no install line names: added {', '.join(proposal.added[framework])}"
        )
    for framework in [f for f in taken if f in proposal.unresolved]:
        why = proposal.unresolved[framework]
        merged.notes.append(
            f"warning: the {framework} environment cannot be installed with this Python: {why} -- edit its pins "
            f"in polybook.execution.environments[{framework!r}], or its programs will not run"
        )
    for framework in [f for f in proposal.missing if f in taken]:
        merged.notes.append(
            f"no text tab of {framework} installs it (`pip install ...`): its environment has the common requirements "
            f"only; add its packages to polybook.execution.environments[{framework!r}]"
        )


def _project(
    book: BookSettings, settings: ProjectSettings, merged: Merged, old_source: str | None, is_source: bool
) -> None:
    """``project`` follows the source language's title while it is the one an import wrote;
    author, copyright and release are set when conf.py lacks them, and the source language's
    replace those an import took from a translation (marked in conf.py); what the user
    wrote is kept, and said."""
    title = settings.title or settings.lang
    if "project" not in book.assigned:
        merged.top["project"] = title
    elif is_source and old_source and old_source != settings.lang:
        old_titles = (book.polybook or {}).get("title")
        old_title = old_titles.get(old_source) if isinstance(old_titles, dict) else old_titles
        if book.literals.get("project") == old_title and old_title != title:
            merged.top["project"] = title
    for key, value in settings.sphinx.items():
        line = settings.ini.get("project", key)
        where = settings.ini.where(line.line if line else 1)
        was = book.literals.get(key, "(not a literal)")
        if key not in book.assigned:
            merged.top[key], merged.marks[key] = value, settings.lang
        elif book.literals.get(key) == value:
            continue
        elif is_source and book.imported.get(key, settings.lang) != settings.lang:
            # An import wrote it from a translation: the book's author, copyright and release are the source's.
            merged.top[key], merged.marks[key] = value, settings.lang
            merged.notes.append(f"{key}: {was!r} -> {value!r} (the source, {where})")
        else:
            merged.notes.append(f"kept {key} = {was!r} ({where} says {value!r})")


def _static(book: BookSettings, settings: ProjectSettings, merged: Merged, copied: set[str], is_source: bool) -> None:
    """The source language's favicon and logos, as paths from the book root. A path an earlier
    import set for another language (``chapters/<lang>/...``) gives way to the source's."""
    chapters = str(merged.polybook.get("chapters") or "chapters").rstrip("/")
    for setting, (path, line) in settings.static.items():
        if path not in copied:
            continue  # reported when the files were selected
        if not is_source:
            continue
        wanted = f"{chapters}/{settings.lang}/{path}"
        current = book.literals.get(setting)
        ours = isinstance(current, str) and current.startswith(f"{chapters}/")
        if setting not in book.assigned or (ours and current != wanted):
            merged.top[setting] = wanted
        elif current != wanted:
            merged.notes.append(f"kept {setting} = {current!r} ({settings.ini.where(line)} names {path!r})")


def _sphinx_configs(book: BookSettings, settings: ProjectSettings, merged: Merged, is_source: bool) -> None:
    """``[build] sphinx_configs``: a literal setting conf.py lacks becomes book-wide when it comes
    from the source language (not a translation standing in for it until its origin is
    imported) and is not one language's text or layout."""
    path = str(settings.ini.path)
    for setting in settings.sphinx_configs:
        why = None
        if setting.name in PER_LANGUAGE_SPHINX:
            why = "one language's text or layout; polybook's HTML and PDF stages set it per language"
        elif setting.name in book.assigned:
            if book.literals.get(setting.name) != setting.value:
                why = "conf.py sets it already"
        elif not is_source or settings.origin:  # a translation is never the final source
            why = "a translation's own Sphinx setting; the book takes the source language's"
        else:
            merged.top[setting.name] = setting.value
        if why:
            shown = f"{setting.name} = {setting.value!r}"
            merged.unmapped.append(Unmapped(path, setting.line, "build", "sphinx_configs", shown, why))
