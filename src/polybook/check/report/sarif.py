"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and SARIF viewers.

One run; a rule per code that occurs; a result per finding, suppressed ones included with a
``suppressions`` entry (SARIF wants the property on every result once one has it, so active
results carry an empty list). The translation is the result's location, the source its
related location 1. ``partialFingerprints`` carry the finding's own fingerprint, which hashes
content rather than line numbers, so an alert survives edits above it.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote

from polybook import __version__
from polybook.check.findings import CheckResult, Finding, Location
from polybook.check.report.common import inline_diff, json_listing, ordered
from polybook.diagnostics import DEFAULT_LEVEL, Code, Level

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {Level.ERROR: "error", Level.WARNING: "warning", Level.INFO: "note"}
FINGERPRINT_KEY = "polybook/v1"

#: One sentence per code: the rule's shortDescription.
RULE_TEXT: dict[Code, str] = {
    Code.CONFIG: "The book's configuration is invalid.",
    Code.READ: "A chapter could not be read.",
    Code.ENCODING: "A chapter is not valid UTF-8.",
    Code.FENCE_UNCLOSED: "A code fence is never closed.",
    Code.FENCE_ATTRS: "A code fence has attributes polybook does not understand.",
    Code.TAB_UNCLOSED: "A text tab is never closed.",
    Code.TAB_NESTED: "A text tab is opened inside another one.",
    Code.TAB_UNMATCHED: "A text tab is closed without being opened.",
    Code.TAB_UNKNOWN: "A tab names a framework the book does not have.",
    Code.TAB_MISPLACED: "A tab marker is where it has no effect.",
    Code.TAB_BRANCH: "An `if tab.selected(...)` branch cannot be resolved per framework.",
    Code.TAB_SETUP: "A d2lbook.tab cell holds something it cannot declare.",
    Code.CELL_MISPLACED: "A code cell is indented inside a list or quote, so it never runs.",
    Code.DIRECTIVE_DAMAGED: "A directive was damaged, often by translation.",
    Code.ROLE_DAMAGED: "A role was damaged, often by translation.",
    Code.LABEL_DUPLICATE: "A label is defined twice.",
    Code.LABEL_ORPHAN: "A label is not attached to anything.",
    Code.HEADING_DAMAGED: "A heading was damaged.",
    Code.LABEL_KIND: "A label directive is used on the wrong kind of block (:eqlabel: on a figure).",
    Code.SLIDE_MARK: "A slide mark ([**…**], (~~…~~)) is not closed or overlaps another.",
    Code.CITE_KEY: "A citation key cannot be a BibTeX key (it has a space inside).",
    Code.TOC_MISSING: "A toc entry names no document.",
    Code.TOC_UNREACHED: "A document is in no toc block.",
    Code.CODE_MISSING: "A code cell of the source is missing from the translation.",
    Code.CODE_EXTRA: "The translation has a code cell the source does not have.",
    Code.CODE_CHANGED: "A code cell differs from the source.",
    Code.CODE_SAVED: "A #@save code cell differs from the source's: readers would get another library.",
    Code.CODE_STRINGS: "Strings in a code cell differ from the source (they may be translated on purpose).",
    Code.CODE_MARKERS: "d2lbook markers in a code cell differ from the source.",
    Code.CODE_TABS: "The frameworks of a code cell differ from the source.",
    Code.CODE_COVERAGE: "A chapter offers a framework its counterpart does not (coverage, not drift).",
    Code.MATH_CHANGED: "A formula differs from the source.",
    Code.MATH_MISSING: "A formula of the source is missing from the translation.",
    Code.MATH_EXTRA: "The translation has a formula the source does not have.",
    Code.NUMBERS_MISSING: "Numbers of the source are missing from the translated text.",
    Code.REF_LABEL: "A label of the source is missing or renamed in the translation.",
    Code.REF_TARGET: "A reference points at a label that does not exist.",
    Code.REF_FIGURE: "A figure differs from the source.",
    Code.REF_LINK: "A link differs from the source.",
    Code.REF_FALLBACK: "A translation uses the source language's file (a figure or link it has not translated).",
    Code.STRUCTURE_HEADING: "The heading levels differ from the source.",
    Code.STRUCTURE_SECTION: "The sections differ from the source.",
    Code.STRUCTURE_TEXTTAB: "The text tabs differ from the source.",
    Code.STRUCTURE_CHAPTER: "A chapter of the source is missing from the translation, or the other way round.",
    Code.TRUST_DIRECTIVE: "A translation adds an eval_rst directive that imports, runs or reads code or files.",
    Code.TRUST_MODULE: "A translation adds a Python module file the source language does not have.",
    Code.HTML_ACTIVE: "A translation's raw HTML has a script, event handler, javascript: URL, frame, form or style "
    "its source has not there: the site takes it out.",
    Code.STALE_SOURCE: "The source changed after the translation was last updated.",
    Code.STALE_PLAN: "A document's row of the migration plan: renamed, new, gone or changed since its base.",
    Code.STALE_MARKED: "Blocks a port left untranslated or stale: translate them and remove their marks.",
    Code.TERMS_MISSING: "The source uses a term of the glossary the translation renders neither as the glossary "
    "says nor as a variant it declares.",
    Code.TERMS_UNFOLLOWED: "The translation renders a term of the glossary otherwise in most blocks that use it: "
    "declare its rendering as a variant in the glossary, or follow the glossary.",
    Code.STALE_BASE: "The translation was made from an edition of the source the book does not hold.",
    Code.STALE_UNKNOWN: "Whether the translation is up to date cannot be told from the history.",
    Code.STALE_LOCK: "An entry of the translation's sync lock file is invalid (its commit is not a commit hash).",
    Code.SUPPRESSION: "A suppression is invalid or no longer matches anything.",
    Code.SUPPRESSION_UNUSED: "An inline suppression no longer matches any finding.",
    Code.EXEC_ERROR: "A code cell raised an error when executed.",
    Code.EXEC_NEEDS_GPU: "A code cell needs a GPU this machine does not have.",
    Code.EXEC_TIMEOUT: "A code cell ran longer than the configured timeout.",
    Code.EXEC_KERNEL_DIED: "The kernel died while running a code cell.",
    Code.EXEC_ALLOWED_ERROR: "A code cell raised an error its options allow.",
    Code.EXEC_OPTION: "A code cell's execution option is not understood.",
    Code.EXEC_DOWNLOAD: "A cell could not download what it needs (no network); the URL is named.",
    Code.EXEC_NO_FRAMEWORK: "A framework the book uses is not installed in the kernel.",
    Code.HTML_SPHINX: "Sphinx warned while building the HTML pages.",
    Code.HTML_FIGURE_OUTSIDE: "A figure path points outside the book.",
    Code.HTML_FIGURE_MISSING: "A figure file does not exist.",
    Code.HTML_LINK_OUTSIDE: "A link points to a file outside the book.",
    Code.OUTPUT_MISSING: "No stored output matches a code cell (run polybook build eval).",
    Code.HTML_CITE_NO_BIB: "A citation is used but no bibliography is configured.",
    Code.HTML_MATHJAX: "MathJax is not installed locally, so math shows as TeX.",
    Code.HTML_PDF: "A PDF is not what its stamp says (a copy a full disk cut short): it is not put on the site.",
    Code.CHAPTERS_LINK: "A symbolic link in the chapters loops or leaves the book: it is not followed.",
    Code.API_MODULE: "An API page names a module that is not the book's library, or one not built (build the library).",
    Code.RST_CODE: "An eval_rst directive would run code while the book is built; it is left out.",
    Code.RST_FILE: "A file an eval_rst block names is not in the book.",
    Code.PDF_SPHINX: "Sphinx warned while building the LaTeX sources.",
    Code.PDF_LATEX: "LaTeX failed on the chapter.",
    Code.PDF_FORMULA: "A formula LaTeX cannot set; the PDF shows it as its text.",
    Code.PDF_GLYPH: "No configured font has a character of the chapter.",
    Code.PDF_FIGURE: "A figure could not be converted for the PDF, or does not exist.",
    Code.PDF_TOOLS: "The TeX tools the PDF build needs are not installed.",
    Code.PDF_CITE_NO_BIB: "A citation is used but no bibliography is configured.",
    Code.NOTEBOOK_REF: "A cross reference in a notebook names no label of its language.",
    Code.NOTEBOOK_FIGURE: "A figure a notebook shows is not inside the book: its download lacks it.",
    Code.NOTEBOOK_INVALID: "A notebook nbformat does not validate.",
    Code.NOTEBOOK_LINKS: "Without html_baseurl, a notebook's links to the published pages are relative.",
    Code.NOTEBOOK_INSTALL: "A launch notebook's install cell cannot be satisfied by the package index.",
    Code.LIB_SYNTAX: "Code marked #@save does not parse, so it cannot go into the book's library.",
    Code.LIB_CLASS: "@d2l.add_to_class names a class that no earlier #@save code defines.",
    Code.LIB_UNREACHED: "Code marked #@save is in a document no toc reaches, so it is not in the library.",
    Code.LIB_HEADER: "A library file has no WARNING line, so the whole file is replaced when it is built.",
    Code.LIB_VERSION: "The library's version file is missing or has no __version__ line.",
    Code.LIB_STALE: "A library file is not what the book's #@save code gives (run polybook build lib).",
    Code.LIB_COPY: "A translation's own copy of a library module differs from the book's library.",
    Code.IMPORT_INI: "The d2lbook project's config.ini cannot be read, or configparser would refuse it.",
    Code.IMPORT_CONF: "conf.py cannot be read, or cannot be edited in place (not Python, a setting not a literal).",
    Code.IMPORT_SETTING: "A config.ini setting the import overrides (the project's language, its origin).",
    Code.IMPORT_MISSING: "A file the project's config.ini names does not exist, so it was not copied.",
    Code.IMPORT_UNMAPPED: "A config.ini setting polybook has no place for; the import leaves it out.",
}


def render(result: CheckResult) -> str:
    found = document(result)
    results = found["runs"][0]["results"]
    found["runs"][0]["results"] = []
    return json_listing(found, found["runs"][0]["results"], results)


def document(result: CheckResult) -> dict[str, Any]:
    findings = ordered(result.findings)
    codes = sorted({f.code for f in findings})
    driver: dict[str, Any] = {"name": "polybook", "version": __version__, "semanticVersion": __version__}
    if uri := information_uri():
        driver["informationUri"] = uri
    driver["rules"] = [_rule(code) for code in codes]
    index = {code: i for i, code in enumerate(codes)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": [_result(f, index[f.code]) for f in findings]}],
    }


def information_uri() -> str | None:
    """The project's URL from the installed package's metadata, if it declares one (importlib.metadata
    is imported here: every other report, the terminal's of a kept check too, is made without it)."""
    from importlib import metadata

    try:
        meta = metadata.metadata("polybook")
    except metadata.PackageNotFoundError:
        return None
    urls = [entry.split(",", 1)[-1].strip() for entry in meta.get_all("Project-URL") or []]
    return next(iter(urls), None) or meta.get("Home-page")


def _rule(code: Code) -> dict[str, Any]:
    return {
        "id": f"polybook.{code}",
        "shortDescription": {"text": RULE_TEXT.get(code, f"polybook.{code}")},
        "defaultConfiguration": {"level": SARIF_LEVEL[DEFAULT_LEVEL[code]]},
    }


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    text = finding.message + (f": {inline_diff(finding)}" if finding.diff else "")
    result: dict[str, Any] = {
        "ruleId": f"polybook.{finding.code}",
        "ruleIndex": rule_index,
        "level": SARIF_LEVEL[finding.level],
        "message": {"text": text},
        "locations": [{"physicalLocation": _physical(finding.primary)}],
    }
    if finding.source is not None and finding.source != finding.primary:
        result["relatedLocations"] = [
            {"id": 1, "physicalLocation": _physical(finding.source), "message": {"text": "source"}}
        ]
    result["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    result["suppressions"] = (
        []
        if finding.suppressed is None
        else [{"kind": "external", "status": "accepted", "justification": finding.suppressed}]
    )
    result["properties"] = {
        "lang": finding.lang,
        "chapter": finding.name,
        "framework": finding.framework,
        "cell": finding.cell,
    }
    return result


def _physical(where: Location) -> dict[str, Any]:
    return {
        "artifactLocation": {"uri": _uri(where.path), "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": max(1, where.line)},
    }


@functools.lru_cache(maxsize=16384)
def _uri(path: str) -> str:
    """A relative URI reference: forward slashes; spaces, non-ASCII, '%', '#' and '?' escaped
    (memoised: a book's findings name a few hundred files)."""
    return quote(path.replace("\\", "/"), safe="/!$&'()*+,;=:@~")
