"""``polybook build html``: mounted by :mod:`polybook.cli` as :data:`html`; its report, ``build/html-report.json``."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from polybook.diagnostics import Code, Collapse, collapse_missing_outputs, fails_build
from polybook.files import atomic_write
from polybook.render.build import SphinxStatus
from polybook.usage import lang_option, verbose_option

if TYPE_CHECKING:
    from polybook.config import BookConfig
    from polybook.render.build import HtmlResult

REPORT_NAME = "html-report.json"


@click.command("html")
@lang_option()
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Languages built at once (default: the cores, one more when the languages do not fill them evenly).",
)
@click.option("--strict", is_flag=True, help="Exit 1 on parse and render warnings too (Sphinx's included).")
@click.option("--no-eval", is_flag=True, help="Run no code: render the outputs already in build/eval.")
@verbose_option
@click.pass_context
def html(
    ctx: click.Context, languages: tuple[str, ...], jobs: int | None, strict: bool, no_eval: bool, verbose: bool
) -> None:
    """Build the site: evaluate code (cached), render every language with Sphinx, assemble
    build/html (language chooser, sitemap, 404 pages).

    Incremental: a language whose sources, outputs and settings did not change is not
    rebuilt. Exits 1 on errors (with --strict: on warnings too), 2 on usage errors.
    """
    from rich.console import Console
    from rich.table import Table

    from polybook.diagnostics import Level
    from polybook.execute.environment import KernelProblem
    from polybook.files import display_path
    from polybook.site.build import HtmlOptions, build_html
    from polybook.usage import UsageProblem, book_config, languages_to_build
    from polybook.usage import report as report_diagnostics

    config = book_config(ctx)
    languages_to_build(config, languages)
    console = Console(stderr=True)
    options = HtmlOptions(list(languages) or None, jobs, evaluate=not no_eval)
    try:
        with console.status("building html") as status:
            result = build_html(config, options, on_status=status.update, on_wait=lambda m: click.echo(m, err=True))
    except KernelProblem as exc:
        raise UsageProblem(str(exc)) from None
    report_diagnostics(result.all_diagnostics(), verbose, asked_for(no_eval))
    report, merged = write_report(config, result, strict)
    table = Table(title=f"html: {result.kernel_runs} kernel runs, {result.cache_hits} cached programs")
    for column in ("language", "pages", "sphinx", "seconds", "errors", "warnings"):
        table.add_column(column, justify="left" if column in ("language", "sphinx") else "right")
    # Each language's row counts what was printed for it: its chapters' parse, stage and
    # execution problems as well as Sphinx's (the merged report's entry holds them all).
    entries = {entry["language"]: entry for entry in merged["languages"]}
    for build in result.languages:
        said = entries[build.language]["diagnostics"]
        errors = sum(d["level"] == Level.ERROR for d in said)
        warnings = sum(d["level"] == Level.WARNING for d in said)
        table.add_row(
            build.language, str(build.pages), build.sphinx, f"{build.seconds:.1f}", str(errors), str(warnings)
        )
    console.print(table)
    click.echo(
        f"site: {display_path(result.outdir / 'index.html')} ({result.timings['total']:.1f}s; report "
        f"{display_path(report)})",
        err=True,
    )
    built = {b.language for b in result.languages}
    if merged["failed"] or any(entry["failed"] for entry in merged["languages"] if entry["language"] in built):
        ctx.exit(1)


def asked_for(no_eval: bool) -> dict[Code, Collapse]:
    """What an HTML build's options asked for, said in one line each: the cells ``--no-eval``
    shows without output."""
    return {Code.OUTPUT_MISSING: collapse_missing_outputs("--no-eval, and never evaluated")} if no_eval else {}


@dataclass(frozen=True, slots=True)
class LanguageReport:
    """One language's entry in ``build/html-report.json``: its last build, as merged."""

    language: str
    sphinx: SphinxStatus
    failed: bool  # the build failed (Sphinx, or a diagnostic that fails it as it was run)
    strict: bool  # it was run with --strict
    diagnostics: list[dict[str, Any]]  # as :meth:`Diagnostic.to_dict` writes them

    @classmethod
    def from_json(cls, entry: dict[str, Any]) -> LanguageReport:
        status = SphinxStatus(entry.get("sphinx", SphinxStatus.UP_TO_DATE))  # as an entry without one was read
        diagnostics = list(entry.get("diagnostics", []))
        return cls(str(entry["language"]), status, bool(entry.get("failed")), bool(entry.get("strict")), diagnostics)


@dataclass(frozen=True, slots=True)
class HtmlReport:
    """``build/html-report.json``: the last build of every language (:func:`merge_report`);
    this module writes it and reads it, for ``publish``."""

    languages: dict[str, LanguageReport]
    diagnostics: list[dict[str, Any]]  # those of no language
    strict: bool

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HtmlReport:
        entries = [LanguageReport.from_json(entry) for entry in data.get("languages", [])]
        return cls({e.language: e for e in entries}, list(data.get("diagnostics", [])), bool(data.get("strict")))


def read_report(config: BookConfig) -> HtmlReport | None:
    """The last ``build html``'s report; None when there is none (or it cannot be read)."""
    data = _previous(config.build_dir / REPORT_NAME)
    try:
        return HtmlReport.from_json(data) if data else None
    except (KeyError, ValueError, TypeError):
        return None


def write_report(config: BookConfig, result: HtmlResult, strict: bool) -> tuple[Path, dict[str, Any]]:
    """``build/html-report.json``: this build merged into the last one (:func:`merge_report`)."""
    report = config.build_dir / REPORT_NAME
    current = result.to_dict()
    built = {entry["language"] for entry in current["languages"]}
    previous = _previous(report) if not built >= set(config.languages) else {}  # kept: languages not built
    merged = merge_report(previous, current, config, strict)
    # one line: with ``indent`` the json module encodes in Python, not C (d2l: 15,000 diagnostics, 0.3 s)
    atomic_write(report, json.dumps(merged, ensure_ascii=False, separators=(",", ":")))
    return report, merged


def _previous(report: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(report.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return {}


def merge_report(previous: dict[str, Any], current: dict[str, Any], config: BookConfig, strict: bool) -> dict[str, Any]:
    """This run's report, keeping the last report's entries for the languages it did not
    build: a ``--lang`` build must not hide another language's errors from ``publish``.

    Each language entry gets the diagnostics of its own chapters (parse, stage, execution)
    beside Sphinx's, and ``failed``: whether its last build failed (with ``strict`` as run).
    """
    # a thousand diagnostics on a few hundred files, each looked at per language
    language_of_path = functools.cache(lambda name: config.language_of(Path(name)))

    def language_of(diagnostic: dict[str, Any]) -> str | None:
        return language_of_path(diagnostic["path"])

    built = {entry["language"] for entry in current["languages"]}
    languages = [entry for entry in previous.get("languages", []) if entry["language"] not in built]
    for entry in current["languages"]:
        own = [d for d in current["diagnostics"] if language_of(d) == entry["language"]]
        entry["diagnostics"] = [*own, *entry["diagnostics"]]
        failed = SphinxStatus(entry["sphinx"]).fatal
        entry["failed"] = failed or any(fails_build(d, strict) for d in entry["diagnostics"])
        entry["strict"] = strict
        languages.append(entry)
    order = list(config.languages)
    languages.sort(key=lambda entry: order.index(entry["language"]) if entry["language"] in order else len(order))
    rest = [d for d in current["diagnostics"] if language_of(d) is None]
    return {
        **current,
        "languages": languages,
        "diagnostics": rest,
        "strict": strict,
        "failed": any(fails_build(d, strict) for d in rest),
    }
