"""Click commands of the execution stage, mounted by :mod:`polybook.cli`:
``polybook build eval`` (:data:`eval_command`), ``polybook build env`` (:data:`env_command`)
and ``polybook cache info|clear`` (:data:`cache`).

They read the config exactly as the other commands do (``polybook.cli._config`` with the
``--conf`` of the main group), and import the heavy machinery only when they run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from polybook.usage import framework_option, lang_option, verbose_option


@click.command("eval")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Programs run at once (default: cores).")
@click.option("--rerun-failed", is_flag=True, help="Run again programs whose stored result is a failure.")
@click.option("--freeze", is_flag=True, help="Also export successful results to the frozen folder (commit it).")
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Run on a Dask cluster (tcp://host:8786). Programs whose code asks for a GPU go only to workers "
    "started with --resources GPU=1; without one they are not run and reported as needing a GPU.",
)
@lang_option("Only these languages (repeatable).")
@verbose_option
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.pass_context
def eval_command(
    ctx: click.Context,
    jobs: int | None,
    rerun_failed: bool,
    freeze: bool,
    scheduler: str | None,
    languages: tuple[str, ...],
    paths: tuple[Path, ...],
    verbose: bool,
) -> None:
    """Execute every chapter's programs (one kernel per framework program, shared by all
    languages whose code is the same) and write build/eval-report.json and build/eval/.

    PATHS (documents or folders of any language, e.g. chapters/en/chapter_preliminaries/):
    only their programs; every other document's results stay as they are.

    Exits 1 when a program failed (an error, a timeout, a dead kernel; "needs a GPU" only
    if polybook.execution.fail_on_needs_gpu is set), after running all the others.
    """
    from rich.console import Console

    from polybook.book import load_book
    from polybook.execute.environment import KernelProblem
    from polybook.execute.evaluate import EvalOptions, evaluate
    from polybook.execute.outputs import write_outputs
    from polybook.execute.progress import EvalProgress
    from polybook.execute.report import diagnostics, print_table, summary_table, write_report
    from polybook.execute.selection import NotADocument, documents_at
    from polybook.files import display_path
    from polybook.usage import UsageProblem, book_config, known
    from polybook.usage import report as report_diagnostics

    config = book_config(ctx)
    known(languages, config.languages, "language")
    try:
        documents = documents_at(config, paths, languages) if paths else None
    except NotADocument as exc:
        raise UsageProblem(str(exc)) from None
    book = load_book(config, list(languages) or None, cached=True)
    options = EvalOptions(jobs=jobs, rerun_failed=rerun_failed, freeze=freeze, scheduler=scheduler)
    console = Console(stderr=True)
    try:
        with EvalProgress(console) as progress:
            evaluation = evaluate(book, options, progress.event, progress.plan, documents)
    except KernelProblem as exc:
        raise UsageProblem(str(exc)) from None
    report = write_report(evaluation)
    write_outputs(evaluation)
    report_diagnostics(diagnostics(evaluation), verbose)
    print_table(console, summary_table(evaluation))
    frozen = f", {len(evaluation.frozen)} frozen into {display_path(config.execution.frozen_dir)}" if freeze else ""
    click.echo(f"report: {display_path(report)} ({evaluation.wall_time:.1f}s{frozen})", err=True)
    if evaluation.fatal():
        ctx.exit(1)


@click.command("env")
@framework_option()
@click.pass_context
def env_command(ctx: click.Context, frameworks: tuple[str, ...]) -> None:
    """Make the frameworks' environments (polybook.execution.environments) that are missing,
    in parallel, with those the book's #required_libs documents need; a made one is kept, one
    that failed before is tried again (builds only say its failure again). Says the disk they
    take, package files shared between them (and with uv's cache) counted once.

    Exits 1 when one could not be made, saying why at its conf.py line.
    """
    from rich.console import Console

    from polybook.book import load_book
    from polybook.execute.envs import disk_usage, ensure_environments, environment_problem
    from polybook.execute.evaluate import environments_wanted
    from polybook.execute.report import print_table
    from polybook.usage import UsageProblem, book_config, known

    config = book_config(ctx)
    own = list(config.execution.environments)
    if not own:
        raise UsageProblem("conf.py declares no environments (polybook.execution.environments)")
    chosen = known(frameworks, own, "framework with an environment") or own
    wanted: dict[tuple[str, tuple[str, ...]], tuple[str, int] | None] = {(f, ()): None for f in chosen}
    wanted.update({w: at for w, at in environments_wanted(load_book(config, cached=True)).items() if w[0] in chosen})
    console = Console(stderr=True)
    made = ensure_environments(config, wanted, say=lambda message: console.print(message, markup=False), retry=True)
    failed = [want for want, env in made.items() if env.reason]
    for want in failed:
        click.echo(environment_problem(config, made[want], wanted[want]).format(), err=True)
    print_table(console, environments_table(config, made))
    folders = [env.spec.folder for env in made.values() if env.ready]
    click.echo(f"environments: {disk_usage(folders)}", err=True)
    if failed:
        ctx.exit(1)


def environments_table(config: Any, made: dict[tuple[str, tuple[str, ...]], Any]) -> Any:
    """One row per environment: what it is, where, and what this command did with it."""
    from rich.table import Table

    from polybook.execute.envs import EnvState, env_dir
    from polybook.files import display_path

    table = Table(title=f"environments in {display_path(env_dir(config.execution))}")
    for column in ("framework", "identity", "python", "packages", "path", "time", "status"):
        table.add_column(column, justify="right" if column == "time" else "left")
    shown = {EnvState.MADE: "[green]made[/green]", EnvState.KEPT: "kept", EnvState.FAILED: "[red]failed[/red]"}
    for env in made.values():
        versions = env.installed()
        packages = ", ".join(f"{name} {version}" for name, version in versions.items() if version)
        table.add_row(
            env.spec.label,
            env.spec.identity[:12],
            env.record.python if env.record else env.spec.python,
            packages,
            display_path(env.spec.folder),
            "kept" if env.state is EnvState.KEPT else f"{env.seconds:.1f}s",
            shown.get(env.state, str(env.state)),
        )
    return table


@click.group("cache")
def cache() -> None:
    """Inspect or clear the execution cache (polybook.execution.cache_dir)."""


@cache.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def cache_info(ctx: click.Context, as_json: bool) -> None:
    """Entries, size, statuses, and how many of each language's programs are cached.

    Without the kernel installed, the keys of the book's programs cannot be computed (a
    framework's environment need not be made: its programs' keys come from conf.py): the entries
    are still counted, how many of them the book uses is left unknown (null).
    """
    from rich.console import Console
    from rich.table import Table

    from polybook.book import load_book
    from polybook.execute.cache import Store
    from polybook.execute.environment import KernelProblem
    from polybook.execute.evaluate import plan
    from polybook.execute.programs import build_programs
    from polybook.execute.report import print_table
    from polybook.files import display_path
    from polybook.usage import book_config

    config = book_config(ctx)
    store = Store(config.execution.cache_dir)
    entries = list(store.entries())
    statuses: dict[str, int] = {}
    for _, payload, _ in entries:
        status = str(payload.get("status")) if payload else "corrupt"
        statuses[status] = statuses.get(status, 0) + 1
    book = load_book(config, cached=True)
    problem = None
    try:
        programs = plan(book)  # no environment is made (nor needed) to key the programs
    except KernelProblem as exc:
        problem = str(exc)  # the programs, keyed without an environment: counted, not matched
        programs = build_programs(book, {framework: {} for framework in config.frameworks})
    cached = {key for key, payload, _ in entries if payload}
    known = problem is None
    per_language: dict[str, dict[str, int | None]] = {
        lang: {
            "programs": sum(lang in p.languages for p in programs),
            "cached": sum(lang in p.languages and p.key in cached for p in programs) if known else None,
        }
        for lang in config.languages
    }
    info = {
        "cache_dir": str(config.execution.cache_dir),
        "entries": len(entries),
        "bytes": sum(size for *_, size in entries),
        "statuses": statuses,
        "book_programs": len(programs),
        "book_programs_cached": sum(1 for p in programs if p.key in cached) if known else None,
        "unused_entries": len(cached - {p.key for p in programs}) if known else None,
        "languages": per_language,
        "kernel_problem": problem,
    }
    if as_json:
        click.echo(json.dumps(info, indent=1))
        return
    usage = f"{info['unused_entries']} not used by the book as it is" if known else "which ones the book uses: unknown"
    click.echo(
        f"{display_path(config.execution.cache_dir)}: {info['entries']} entries, {info['bytes'] / 1e6:.2f} MB, "
        + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
        + f"; {usage}"
    )
    if problem:
        click.echo(f"warning: {problem}", err=True)
    table = Table(title="programs per language")
    for column in ("language", "programs", "cached"):
        table.add_column(column, justify="left" if column == "language" else "right")
    for lang, row in per_language.items():
        table.add_row(lang, str(row["programs"]), "?" if row["cached"] is None else str(row["cached"]))
    print_table(Console(), table)


@cache.command("clear")
@click.pass_context
def cache_clear(ctx: click.Context) -> None:
    """Remove every cached result (frozen results are not touched)."""
    from polybook.execute.cache import Store
    from polybook.files import display_path
    from polybook.usage import book_config

    config = book_config(ctx)
    removed = Store(config.execution.cache_dir).clear()
    click.echo(f"removed {removed} entries from {display_path(config.execution.cache_dir)}")
