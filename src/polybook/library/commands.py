"""``polybook build lib``: the thin click layer over :func:`polybook.library.write_library`."""

from __future__ import annotations

import click

from polybook.usage import verbose_option


@click.command("lib")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 when a file is not up to date.")
@verbose_option
@click.pass_context
def lib(ctx: click.Context, check_only: bool, verbose: bool) -> None:
    """Collect the #@save code into the book's library, one module per framework.

    As `d2lbook build lib`: the source language's documents in toc order (a framework only a
    translation has: that translation's), imports sorted, the docstring note "Defined in
    :numref:`sec_x`", the aliases of polybook.library; the module's header above its WARNING line
    is kept. A file is written only when it changes. Exits 1 when saved code does not parse
    (or, with --check, when a file is not up to date), 2 on usage errors.
    """
    from rich.console import Console
    from rich.table import Table

    from polybook.config import ConfigError
    from polybook.files import display_path
    from polybook.library import load_library_book, write_library
    from polybook.library.build import Written
    from polybook.usage import UsageProblem, book_config
    from polybook.usage import report as report_diagnostics

    config = book_config(ctx)
    try:
        book = load_library_book(config)
        report = write_library(book, check_only)
    except ConfigError as exc:
        raise UsageProblem(f"{len(exc.diagnostics)} problem(s) in polybook.library:\n{exc}") from None
    if not report.libraries:
        raise UsageProblem("polybook.library has no frameworks: nothing to build (see polybook.library.frameworks)")
    report_diagnostics(report.diagnostics, verbose)
    console = Console(stderr=True)
    folder = display_path(config.chapters_dir / config.source_language)
    table = Table(title=f"library in {folder}/")  # short: rich squeezes tables into 80 columns off a terminal
    for column in ("framework", "from", "blocks", "definitions", "file", "status"):
        table.add_column(column, justify="right" if column in ("blocks", "definitions") else "left")
    for framework, library in report.libraries.items():
        outcome = report.outcomes[framework]
        blocks, definitions = str(len(library.blocks)), str(len(library.definitions))
        source = config.chapters_dir / config.source_language
        # a translation's own library (zh's paddle module) is shown where it is
        file = (
            library.target.relative_to(source).as_posix()
            if library.target.is_relative_to(source)
            else display_path(library.target)
        )
        table.add_row(framework, library.language, blocks, definitions, file, outcome)
    console.print(table)
    if report.version:
        console.print(f"version file: {report.version}", highlight=False)
    stale = check_only and any(o is Written.STALE for o in [*report.outcomes.values(), report.version])
    if report.failed or stale:
        ctx.exit(1)
