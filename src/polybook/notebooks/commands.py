"""``polybook build notebooks``: the thin click layer over :func:`polybook.notebooks.build.build_notebooks`."""

from __future__ import annotations

import click

from polybook.usage import framework_option, lang_option, verbose_option


@click.command("notebooks")
@lang_option()
@framework_option()
@click.option("--force", is_flag=True, help="Make again even the notebooks whose inputs did not change.")
@click.option(
    "--check-install",
    is_flag=True,
    help="Resolve every launch notebook's install cell against the package index (uv; nothing installed).",
)
@verbose_option
@click.pass_context
def notebooks(
    ctx: click.Context,
    languages: tuple[str, ...],
    frameworks: tuple[str, ...],
    force: bool,
    check_install: bool,
    verbose: bool,
) -> None:
    """Make one notebook per document, language and framework in build/notebooks/<lang>/<framework>/.

    The outputs are those polybook build eval recorded (nothing is run); cross references link
    to the published pages. Unchanged languages are not made again. With conf.py's
    polybook.notebooks.launch, launch notebooks (build/launch/<lang>/<framework>/) start with a
    cell installing what the outputs were computed with. Exits 1 when a notebook does not
    validate (or, with --check-install, an install cell cannot be installed), 2 on usage errors.
    """
    from rich.console import Console
    from rich.table import Table

    from polybook.diagnostics import Code, Level, collapse_missing_outputs, format_grouped, grouped
    from polybook.files import display_path
    from polybook.notebooks.build import NotebookStatus, build_notebooks, install_problems
    from polybook.usage import book_config, languages_and_frameworks
    from polybook.usage import report as report_diagnostics

    config = book_config(ctx)
    langs, fws = languages_and_frameworks(config, languages, frameworks)
    console = Console(stderr=True)
    report = build_notebooks(
        config,
        langs or None,
        fws or None,
        force=force,
        say=lambda message: click.echo(message, err=True),
    )
    uninstallable = []
    if check_install:
        with console.status("resolving the launch notebooks' install cells"):
            uninstallable = install_problems(report)
    found = grouped((d, o.target.name) for o in report.outcomes for d in o.diagnostics if d.level is not Level.INFO)
    targets = dict(found)
    report_diagnostics(
        [*uninstallable, *targets],
        verbose,
        {Code.OUTPUT_MISSING: collapse_missing_outputs("never evaluated (notebooks are made without running code)")},
        lambda d: format_grouped(d, targets[d], len(report.outcomes)) if d in targets else d.format(),
    )
    folder = display_path(config.build_dir / "notebooks")
    table = Table(title=f"{config.title}: notebooks in {folder}/")
    for column in ("notebooks", "status", "count", "written", "seconds", "errors", "warnings"):
        table.add_column(column, justify="left" if column in ("notebooks", "status") else "right")
    for o in report.outcomes:
        errors, warnings = (sum(d.level is level for d in o.diagnostics) for level in (Level.ERROR, Level.WARNING))
        seconds = f"{o.seconds:.1f}" if o.seconds else ""
        row = (o.target.name, o.status, str(o.notebooks), str(o.written), seconds, str(errors), str(warnings))
        table.add_row(*row)
    console.print(table)
    counts = {status: sum(o.status is status for o in report.outcomes) for status in NotebookStatus}
    total = sum(o.notebooks for o in report.outcomes)
    console.print(
        f"{total} notebooks: {counts[NotebookStatus.BUILT]} built, {counts[NotebookStatus.UNCHANGED]} unchanged, "
        f"{counts[NotebookStatus.FAILED]} failed — {report.seconds:.2f} s",
        highlight=False,
    )
    if check_install:
        cells = len({key for o in report.outcomes for key in o.installs})
        console.print(f"install cells: {cells} resolved, {len(uninstallable)} cannot be installed", highlight=False)
    if report.failed or uninstallable:
        ctx.exit(1)
