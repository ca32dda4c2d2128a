"""``polybook build pdf``: the thin click layer over :func:`polybook.pdf.build.build_pdfs`."""

from __future__ import annotations

import click

from polybook.usage import framework_option, lang_option, verbose_option


@click.command("pdf")
@lang_option()
@framework_option()
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="PDFs built at once (default: cores).")
@click.option("--force", is_flag=True, help="Rebuild even the PDFs whose inputs did not change.")
@verbose_option
@click.pass_context
def pdf(
    ctx: click.Context,
    languages: tuple[str, ...],
    frameworks: tuple[str, ...],
    jobs: int | None,
    force: bool,
    verbose: bool,
) -> None:
    """Build one PDF per language and framework into build/pdf/<lang>/<book>-<framework>.pdf.

    Code cells and their outputs come from the execution results (polybook build eval).
    A PDF whose inputs did not change is not rereport. Exits 1 when a PDF fails (a LaTeX
    error, or a character no font has), 2 on usage errors.
    """
    from rich.console import Console
    from rich.table import Table

    from polybook.diagnostics import Code, Level, collapse_missing_outputs, format_grouped, grouped
    from polybook.files import display_path
    from polybook.pdf.build import PdfOutcome, PdfStatus, build_pdfs
    from polybook.usage import book_config, languages_and_frameworks, languages_to_build
    from polybook.usage import report as report_diagnostics

    config = book_config(ctx)
    languages_to_build(config, languages)  # LaTeX cannot be made of a language without chapters
    langs, fws = languages_and_frameworks(config, languages, frameworks)
    console = Console(stderr=True)

    def progress(outcome: PdfOutcome) -> None:
        if outcome.status is not PdfStatus.UNCHANGED:
            console.print(f"pdf {outcome.target.name}: {outcome.status} ({outcome.seconds:.1f} s)", highlight=False)

    report = build_pdfs(
        config,
        langs or None,
        fws or None,
        jobs=jobs,
        force=force,
        on_done=progress,
        say=lambda message: click.echo(message, err=True),
    )
    # A chapter's problem is found once per framework PDF: said once, with the PDFs that found it.
    shown = [(d, o.target.name) for o in report.outcomes for d in o.diagnostics if d.level is not Level.INFO]
    found = dict(grouped(shown))
    report_diagnostics(
        found,
        verbose,
        {Code.OUTPUT_MISSING: collapse_missing_outputs("never evaluated (a PDF runs no code)")},
        lambda diagnostic: format_grouped(diagnostic, found[diagnostic], len(report.outcomes)),
    )
    folder = display_path(config.build_dir / "pdf")
    table = Table(title=f"{config.title}: PDF books in {folder}/")
    for column in ("PDF", "status", "pages", "seconds", "errors", "warnings"):
        table.add_column(column, justify="left" if column in ("PDF", "status") else "right")
    for o in report.outcomes:
        pages = str(o.pages) if o.pages is not None else ""
        seconds = f"{o.seconds:.1f}" if o.seconds else ""
        errors, warnings = (sum(d.level is level for d in o.diagnostics) for level in (Level.ERROR, Level.WARNING))
        table.add_row(f"{o.target.language}/{o.target.pdf.name}", o.status, pages, seconds, str(errors), str(warnings))
    console.print(table)
    counts = {status: sum(o.status is status for o in report.outcomes) for status in PdfStatus}
    with_errors = f", {counts[PdfStatus.WITH_ERRORS]} built with errors" if counts[PdfStatus.WITH_ERRORS] else ""
    console.print(
        f"{counts[PdfStatus.BUILT]} built, {counts[PdfStatus.UNCHANGED]} unchanged, "
        f"{counts[PdfStatus.FAILED]} failed{with_errors} — {report.seconds:.2f} s",
        highlight=False,
    )
    if report.failed:
        ctx.exit(1)
