"""The ``polybook`` command: a thin click layer over the pipeline's stages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from polybook import __version__

if TYPE_CHECKING:
    from polybook.config import BookConfig


class UsageProblem(click.ClickException):
    """Bad config or arguments: exit 2, like click's own usage errors."""

    exit_code = 2


def _config(conf: Path | None, start: Path) -> BookConfig | None:
    from polybook.config import ConfigError, find_config, load_config

    path = conf or find_config(start)
    if path is None:
        return None
    try:
        return load_config(path)
    except ConfigError as exc:
        raise UsageProblem(f"{len(exc.diagnostics)} problem(s) in {path}:\n{exc}") from None


@click.group()
@click.version_option(__version__, prog_name="polybook")
@click.option(
    "--conf",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The book's conf.py (default: the nearest one above the current folder).",
)
@click.pass_context
def main(ctx: click.Context, conf: Path | None) -> None:
    """polybook: one book, five languages, every framework executed and checked."""
    ctx.obj = {"conf": conf}


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Dump the document model as JSON.")
@click.pass_context
def parse(ctx: click.Context, paths: tuple[Path, ...], as_json: bool) -> None:
    """Parse chapters and print their outline and diagnostics.

    Exits 1 when any error diagnostic is found.
    """
    from polybook.book import display_path
    from polybook.diagnostics import has_errors
    from polybook.dialect import DialectSettings, parse_file
    from polybook.dialect.outline import outline

    files = [f for p in paths for f in (sorted(p.rglob("*.md")) if p.is_dir() else [p])]
    docs = []
    for file in files:
        config = _config(ctx.obj["conf"], file.parent)
        settings = config.settings_for(file) if config else DialectSettings()
        docs.append(parse_file(file, settings, display_path(file)))
    if as_json:
        click.echo(json.dumps({"documents": [d.to_dict() for d in docs]}, ensure_ascii=False, indent=1))
    else:
        click.echo("\n\n".join(outline(d) for d in docs))
    if has_errors(x for d in docs for x in d.diagnostics):
        ctx.exit(1)


@main.group(invoke_without_command=True)
@click.option("--strict", is_flag=True, help="Exit 1 when any chapter has an error diagnostic.")
@click.pass_context
def build(ctx: click.Context, strict: bool) -> None:
    """Build the book. Today: parse every chapter into build/model/<lang>/<chapter>.json."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.console import Console
    from rich.table import Table

    from polybook.book import load_book
    from polybook.diagnostics import Level

    config = _config(ctx.obj["conf"], Path.cwd())
    if config is None:
        raise UsageProblem("no conf.py found here or above; pass --conf")
    book = load_book(config)
    table = Table(title=f"{config.title}: document model")
    for column in ("language", "chapters", *(f"{f} cells" for f in config.frameworks), "errors", "warnings"):
        table.add_column(column, justify="left" if column == "language" else "right")
    errors = 0
    for code, chapters in book.chapters.items():
        out = config.build_dir / "model" / code
        out.mkdir(parents=True, exist_ok=True)
        diags = [d for doc in chapters.values() for d in doc.diagnostics]
        for stem, doc in chapters.items():
            (out / f"{stem}.json").write_text(json.dumps(doc.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        for d in diags:
            click.echo(d.format(), err=True)
        n_err = sum(d.level is Level.ERROR for d in diags)
        errors += n_err
        cells = [str(sum(len(doc.cells(f)) for doc in chapters.values())) for f in config.frameworks]
        warnings = sum(d.level is Level.WARNING for d in diags)
        table.add_row(code, str(len(chapters)), *cells, str(n_err), str(warnings))
    Console(stderr=True).print(table)
    if strict and errors:
        ctx.exit(1)
