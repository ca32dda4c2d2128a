"""The translation-status page: per language and chapter, what ``polybook check`` finds and
how far the source has moved since the translation was last synced (git).

:func:`pages` gives each language's tables as HTML; the site build fills them into a
fixed page frame after Sphinx (:mod:`polybook.render.status_page`), so the findings never
enter a language's digest and an edit of the source rebuilds no translation. The numbers
are the check's active findings, counted exactly as ``polybook check --format json``
counts them (suppressed ones apart); the tables carry ``data-*`` attributes so tests and
scripts can read them back.
"""

from __future__ import annotations

import functools
import html
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from polybook.book import Book
from polybook.check import check_book
from polybook.check.findings import CheckResult, Finding
from polybook.check.plan import LanguagePlan
from polybook.check.report.common import by_importance
from polybook.check.report.plan_table import HEADER, document_name
from polybook.check.staleness import read_lock, run_git
from polybook.diagnostics import Code, Level
from polybook.dialect.marks import document_mark
from polybook.render.status_page import DOCNAME
from polybook.site.progress import Progress, language_progress, progress_table
from polybook.stage.block_marks import block_counts
from polybook.stage.documents import cross_language_anchors, heading_slug, headings
from polybook.stage.i18n import text

LEVELS = (Level.ERROR, Level.WARNING, Level.INFO)
#: Font Awesome icons (shipped with pydata-sphinx-theme; emoji depend on the reader's fonts).
ICONS = {
    Level.ERROR: "fa-solid fa-circle-xmark",
    Level.WARNING: "fa-solid fa-triangle-exclamation",
    Level.INFO: "fa-solid fa-circle-info",
}
#: A chapter's state, worst first: icon and i18n key.
STATES = {
    "failing": ("fa-solid fa-circle-xmark", "status_failing"),
    "missing": ("fa-regular fa-circle", "status_missing"),
    "behind": ("fa-solid fa-clock-rotate-left", "status_behind"),
    "ok": ("fa-solid fa-circle-check", "status_ok"),
}
_FAMILIES = {"code", "math", "numbers", "ref", "structure", "stale", "suppression", "terms"}


@dataclass(slots=True)
class ChapterStatus:
    name: str
    translated: bool
    findings: list[Finding] = field(default_factory=list)  # active ones
    suppressed: int = 0
    synced: str | None = None  # the source commit of the last sync
    changes_since: int | None = None  # source commits touching the chapter since; None: unknown
    marked: int = 0  # blocks a port or a machine left behind the source (untranslated, stale, review, draft)

    def count(self, level: Level) -> int:
        return sum(f.level is level for f in self.findings)

    @property
    def kinds(self) -> Counter[str]:
        """Findings per kind: the code's family (``code``, ``math``...), parse problems as ``parse``."""
        return Counter(family(f.code) for f in self.findings)

    @property
    def state(self) -> str:
        if not self.translated:
            return "missing"
        if self.count(Level.ERROR):
            return "failing"
        if self.count(Level.WARNING) or self.changes_since or self.marked:
            return "behind"
        return "ok"


@dataclass(slots=True)
class LanguageStatus:
    language: str
    chapters: list[ChapterStatus] = field(default_factory=list)
    plan: LanguagePlan | None = None  # how far behind the source, when it is
    follows: str = ""  # what it follows and its documents are checked against
    progress: Progress | None = None  # documents and blocks by state (a translation's)

    def count(self, level: Level) -> int:
        return sum(c.count(level) for c in self.chapters)

    @property
    def suppressed(self) -> int:
        return sum(c.suppressed for c in self.chapters)

    def states(self) -> Counter[str]:
        return Counter(c.state for c in self.chapters)


def family(code: Code) -> str:
    head = str(code).split(".")[0]
    return head if head in _FAMILIES else "parse"


def collect(book: Book, result: CheckResult | None = None) -> dict[str, LanguageStatus]:
    """Every language's status (the source language's holds the source's own problems)."""
    config = book.config
    result = result or check_book(book, cached=True)  # a site build: the findings kept in build/
    source = config.source_language
    names = sorted({n for docs in book.chapters.values() for n in docs})
    by_place: dict[tuple[str, str], list[Finding]] = {}
    for finding in result.findings:
        by_place.setdefault((finding.lang, finding.name), []).append(finding)
    counter = CommitCounter(config.chapters_dir / source)
    plans = result.plans()
    statuses: dict[str, LanguageStatus] = {}
    for lang in config.languages:
        plan = plans.get(lang)
        status = LanguageStatus(lang, plan=plan if plan is not None and plan.behind else None)
        status.follows = result.follows.get(lang, "")
        status.progress = language_progress(book, lang, plan) if lang != source else None
        docs = book.chapters.get(lang, {})
        lock = read_lock(config.chapters_dir / lang) if lang != source else {}
        for name in names:
            if name not in book.chapters.get(source, {}) and name not in docs:
                continue
            found = by_place.get((lang, name), [])
            doc = docs.get(name)  # wholly the source's text (a port's new document): not translated
            translated = doc is not None and document_mark(doc) is None
            row = ChapterStatus(name, translated, [f for f in found if f.suppressed is None])
            row.marked = sum(block_counts(doc).values()) if translated and doc is not None else 0
            row.suppressed = len(found) - len(row.findings)
            record = lock.get(name)
            if record and record.commit:
                row.synced = record.commit
                row.changes_since = counter.since(record.commit, f"{name}.md")
            status.chapters.append(row)
        statuses[lang] = status
    return statuses


class CommitCounter:
    """Source commits touching a chapter since a commit (``git rev-list --count``), memoised."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cache: dict[tuple[str, str], int | None] = {}

    def since(self, commit: str, name: str) -> int | None:
        key = (commit, name)
        if key not in self.cache:
            out = run_git(self.folder, "rev-list", "--count", "--end-of-options", f"{commit}..HEAD", "--", name)
            self.cache[key] = int(out) if out and out.strip().isdigit() else None
        return self.cache[key]


#: (chapter, path) -> each section's first line and anchor: what :func:`section_anchor` looks up.
SectionMemo = dict[tuple[str, str], list[tuple[int, "str | None"]]]


def finding_link(
    finding: Finding, config_sphinx: dict, root: Path, book: Book | None = None, memo: SectionMemo | None = None
) -> tuple[str, str]:
    """(href, label) of a finding's line: the repository's file view when conf.py names the
    repository the way pydata-sphinx-theme's "edit this page" button does (``html_context``
    ``github_user``, ``github_repo``, ``github_version``, ``doc_path``); else the section of
    the chapter's page that holds the line. ``memo``: kept between the findings of one page."""
    where = finding.primary
    path = book_relative(where.path, root)
    label = f"{path}:{where.line}"
    context = config_sphinx.get("html_context") or {}
    if context.get("github_user") and context.get("github_repo"):
        prefix = str(context.get("doc_path") or "").strip("/")
        full = f"{prefix}/{path}" if prefix else path
        version = context.get("github_version") or "main"
        return (
            f"https://github.com/{context['github_user']}/{context['github_repo']}/blob/{version}/{full}#L{where.line}",
            label,
        )
    anchor = section_anchor(book, finding, memo) if book is not None else None
    return f"{finding.name}.html" + (f"#{anchor}" if anchor else ""), label


def section_anchor(book: Book, finding: Finding, memo: SectionMemo | None = None) -> str | None:
    """The page anchor of the section that holds the finding's line (the nearest earlier
    section with an anchor: one every language shares, see :func:`cross_language_anchors`,
    else the section's own id)."""
    where = finding.primary
    memo = {} if memo is None else memo
    key = (finding.name, where.path)
    if key not in memo:
        memo[key] = _sections(book, finding.name, where.path)
    found = None
    for line, anchor in memo[key]:
        if line > where.line:
            break
        found = anchor or found
    return found


def _sections(book: Book, name: str, path: str) -> list[tuple[int, str | None]]:
    """Each section of the chapter's document at ``path`` (as findings show it): its line and
    anchor (the shared one, else the page's own id)."""
    source_doc = book.chapters.get(book.config.source_language, {}).get(name)
    for docs in book.chapters.values():
        doc = docs.get(name)
        if doc is None or doc.path != path:  # findings carry their document's path as shown
            continue
        sections = headings(doc)
        anchors = cross_language_anchors(sections, headings(source_doc) if source_doc else None)
        return [
            (heading.line, anchor or heading_slug(heading)) for heading, anchor in zip(sections, anchors, strict=True)
        ]
    return []


def book_relative(path: str, root: Path) -> str:
    """Finding paths are shown relative to the working folder; the page uses the book root so
    its text (and the stage digest) does not depend on where the build was started."""
    return _book_relative(path, root, os.getcwd())


@functools.lru_cache(maxsize=4096)  # thousands of findings on a few hundred files
def _book_relative(path: str, root: Path, cwd: str) -> str:
    try:
        return (Path(cwd) / path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def page_html(statuses: dict[str, LanguageStatus], lang: str, book: Book, linked: set[str] | None = None) -> str:
    """``lang``'s status tables: an overview of every language (linking the status pages
    of the languages in ``linked``, default all), then this language's chapters and findings.
    The page's title and explanation are the frame's (:func:`polybook.render.status_page.frame`)."""
    config = book.config
    t = _translator(lang)
    source = config.source_language
    names = {other: settings.name for other, settings in config.languages.items()}
    out = [
        "<style>",
        ".polybook-status td.n{text-align:right;font-variant-numeric:tabular-nums}",
        ".polybook-status tr.current{font-weight:600}",
        ".polybook-status :is(td,i):is(.failing,.error){color:var(--pst-color-danger,#c62828)}",
        ".polybook-status :is(td,i):is(.behind,.warning){color:var(--pst-color-warning,#b26a00)}",
        ".polybook-status :is(td,i).info{color:var(--pst-color-info,#0277bd)}",
        ".polybook-status :is(td,i).ok{color:var(--pst-color-success,#2e7d32)}",
        ".polybook-status :is(td,i):is(.missing,.zero){color:var(--pst-color-text-muted,#777)}",
        ".polybook-status li.finding other{font-size:.85em}",
        "</style>",
        '<div class="polybook-status">',
        f'<table class="table polybook-status-overview"><thead><tr><th>{t("status_language")}</th>',
        "".join(f"<th>{_icon(STATES[s][0], s)} {t(STATES[s][1])}</th>" for s in STATES),
        "".join(f"<th>{_icon(ICONS[level], str(level))} {t('status_' + str(level))}</th>" for level in LEVELS),
        f"<th>{t('status_suppressed')}</th></tr></thead><tbody>",
    ]
    for other, status in statuses.items():
        states = status.states()
        current = ' class="current"' if other == lang else ""
        name = html.escape(names[other])
        shown = f'<a href="../{other}/{DOCNAME}.html">{name}</a>' if linked is None or other in linked else name
        cells = (
            "".join(_count(states[s], s, "data-state") for s in STATES)
            if other != source
            else (f'<td colspan="{len(STATES)}">{t("status_source")}</td>')
        )
        out.append(
            f'<tr data-lang="{other}"{current}><td>{shown}</td>{cells}'
            + "".join(_count(status.count(level), str(level)) for level in LEVELS)
            + _count(status.suppressed, "suppressed")
            + "</tr>"
        )
    out.append("</tbody></table>")
    progress = {other: status.progress for other, status in statuses.items() if status.progress is not None}
    out.append(progress_table(progress, lang, t, names) if progress else "")
    mine = statuses[lang]
    if lang != source:
        out.append(_plan_table(mine, t))
        out.append(_chapter_table(mine, t, source))
    out.append(_findings(mine, t, book))
    out.append("</div>")
    return "\n".join(line for line in out if line)


Translate = Callable[..., str]


def _translator(lang: str) -> Translate:
    """The page's UI strings in ``language``, HTML-escaped."""
    return lambda key, **values: html.escape(text(lang, key, **values))


def _icon(classes: str, what: str) -> str:
    return f'<i class="{classes} {what}" aria-hidden="true"></i>'


def _count(n: int, what: str, attribute: str = "data-level") -> str:
    css = "n zero" if n == 0 else f"n {what}"
    return f'<td class="{css}" {attribute}="{what}">{n}</td>'


def _plan_table(status: LanguageStatus, t: Translate) -> str:
    """The migration plan: what the language follows, then a row per document the source
    renamed, added, dropped or changed since (as ``polybook check`` prints it)."""
    plan = status.plan
    if plan is None:
        return ""
    head = "".join(f"<th>{html.escape(name)}</th>" for name in HEADER)
    rows = []
    for row in plan.rows:
        cells = [str(row.state), document_name(row), row.changes.paragraphs.short(), row.changes.cells.short()]
        cells += [row.changes.formulas.short(), f"{row.changes.words:,}"]
        tds = "".join(f"<td{' class=n' if i > 1 else ''}>{html.escape(cell)}</td>" for i, cell in enumerate(cells))
        rows.append(f'<tr data-plan="{row.state}">{tds}</tr>')
    return (
        f'<h2 id="migration-plan">{t("status_plan")}</h2>'
        f"<p>{html.escape(status.follows)}</p><p><strong>{html.escape(plan.summary())}</strong></p>"
        f'<table class="table polybook-status-plan"><thead><tr>{head}</tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )


def _chapter_table(status: LanguageStatus, t: Translate, source: str) -> str:
    rows = [
        f'<table class="table polybook-status-chapters"><thead><tr><th>{t("status_chapter")}</th>'
        f"<th>{t('status_state')}</th>"
        + "".join(f'<th title="{t("status_" + str(level))}">{_icon(ICONS[level], str(level))}</th>' for level in LEVELS)
        + f"<th>{t('status_kinds')}</th><th>{t('status_synced')}</th><th>{t('status_since')}</th></tr></thead><tbody>"
    ]
    for row in status.chapters:
        icon, key = STATES[row.state]
        href = f"{row.name}.html" if row.translated else f"../{source}/{row.name}.html"
        kinds = ", ".join(f"{kind} × {n}" for kind, n in sorted(row.kinds.items()))
        synced = f"<code>{row.synced[:10]}</code>" if row.synced else t("status_unknown")
        since = "—" if row.changes_since is None else str(row.changes_since)
        since_css = "n behind" if row.changes_since else "n zero"
        rows.append(
            f'<tr data-chapter="{html.escape(row.name)}" data-state="{row.state}">'
            f'<td><a href="{href}">{html.escape(row.name)}</a></td>'
            f'<td class="{row.state}">{_icon(icon, row.state)} {t(key)}</td>'
            + "".join(_count(row.count(level), str(level)) for level in LEVELS)
            + f'<td>{html.escape(kinds)}</td><td>{synced}</td><td class="{since_css}" data-since="">{since}</td></tr>'
        )
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _findings(status: LanguageStatus, t: Translate, book: Book) -> str:
    config = book.config
    with_findings = [c for c in status.chapters if c.findings]
    if not with_findings:
        return f"<p>{t('status_none')}</p>"
    out = [f"<h2>{t('status_findings')}</h2>"]
    memo: SectionMemo = {}
    for row in with_findings:
        out.append(f'<details data-chapter="{html.escape(row.name)}"><summary><strong>')
        out.append(f"{html.escape(row.name)}</strong> — {len(row.findings)}</summary><ul>")
        for finding in by_importance(row.findings):
            href, label = finding_link(finding, config.sphinx, config.root, book, memo)
            message = html.escape(" ".join(finding.message.split()))
            icon = _icon(ICONS[finding.level], finding.level)
            out.append(
                f'<li class="finding {finding.level}" data-level="{finding.level}">{icon} '
                f'<a href="{html.escape(href)}">{html.escape(label)}</a> {message} '
                f"<code>polybook.{finding.code}</code></li>"
            )
        out.append("</ul></details>")
    return "\n".join(out)


def pages(
    book: Book, languages: list[str], result: CheckResult | None = None, linked: set[str] | None = None
) -> dict[str, str]:
    """language -> its status tables (:func:`page_html`), for ``languages``."""
    statuses = collect(book, result)
    return {lang: page_html(statuses, lang, book, linked) for lang in languages}
