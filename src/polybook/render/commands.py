"""``polybook build html``: mounted by :mod:`polybook.cli` as :data:`html`."""

from __future__ import annotations

import json

import click

REPORT_NAME = "html-report.json"


@click.command("html")
@click.option("-l", "--lang", "languages", multiple=True, help="Only these languages (repeatable; default: all).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Parallel builds (default: cores).")
@click.option("--strict", is_flag=True, help="Exit 1 on parse and render warnings too (Sphinx's included).")
@click.option("--no-eval", is_flag=True, help="Run no code: render the outputs already in build/eval.")
@click.pass_context
def html(ctx: click.Context, languages: tuple[str, ...], jobs: int | None, strict: bool, no_eval: bool) -> None:
    """Build the site: evaluate code (cached), render every language with Sphinx, assemble
    build/html (language chooser, sitemap, 404 pages).

    Incremental: a language whose sources, outputs and settings did not change is not
    rebuilt. Exits 1 on errors (with --strict: on warnings too), 2 on usage errors.
    """
    from rich.console import Console
    from rich.table import Table

    from polybook.book import display_path
    from polybook.cli import UsageProblem, book_config, known
    from polybook.diagnostics import Level, sort_key
    from polybook.execute.environment import KernelProblem
    from polybook.render.build import HtmlOptions, build_html

    config = book_config(ctx)
    known(languages, config.languages, "language")
    console = Console(stderr=True)
    options = HtmlOptions(list(languages) or None, jobs, evaluate=not no_eval)
    try:
        with console.status("building html") as status:
            result = build_html(config, options, on_status=lambda message: status.update(message))
    except KernelProblem as exc:
        raise UsageProblem(str(exc)) from None
    found = result.all_diagnostics()
    for diag in sorted(found, key=sort_key):
        click.echo(diag.format(), err=True)
    report = config.build_dir / REPORT_NAME
    report.write_text(json.dumps(result.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
    table = Table(title=f"html: {result.kernel_runs} kernel runs, {result.cache_hits} cached programs")
    for column in ("language", "pages", "sphinx", "seconds", "errors", "warnings"):
        table.add_column(column, justify="left" if column in ("language", "sphinx") else "right")
    for build in result.languages:
        errors = sum(d.level is Level.ERROR for d in build.diagnostics)
        warnings = sum(d.level is Level.WARNING for d in build.diagnostics)
        table.add_row(
            build.language, str(build.pages), build.sphinx, f"{build.seconds:.1f}", str(errors), str(warnings)
        )
    console.print(table)
    click.echo(
        f"site: {display_path(result.outdir / 'index.html')} ({result.timings['total']:.1f}s; report "
        f"{display_path(report)})",
        err=True,
    )
    failed = any(b.sphinx == "failed" for b in result.languages)
    # --strict fails on warnings of parsing and rendering; execution keeps its own policy
    # (a "needs a GPU" cell is an error only with polybook.execution.fail_on_needs_gpu).
    strict_warnings = [d for d in found if d.level is Level.WARNING and not str(d.code).startswith("exec.")]
    if failed or any(d.level is Level.ERROR for d in found) or (strict and strict_warnings):
        ctx.exit(1)
