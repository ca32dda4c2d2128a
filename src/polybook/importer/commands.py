"""``polybook import``: bring an existing book in, one language at a time; mounted by :mod:`polybook.cli`."""

from __future__ import annotations

from pathlib import Path

import click


@click.group(name="import")
def import_group() -> None:
    """Import an existing book into this one, one language at a time."""


@import_group.command(name="d2lbook")
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--lang", required=True, help="The language code to import it as (e.g. en, zh, pt_BR).")
@click.option("--force", is_flag=True, help="Replace the language's folder if it exists already.")
@click.pass_context
def d2lbook_command(ctx: click.Context, path: Path, lang: str, force: bool) -> None:
    """Import the d2lbook project at PATH (a folder with config.ini) as language LANG.

    Copies its documents (and a translation's *_origin.md bases), resources and logos into
    <chapters>/LANG/, and merges its config.ini into conf.py (created when there is none),
    keeping everything else conf.py says. Prints what it copied, what it changed in conf.py
    and every setting it could not map, with its config.ini line. PATH is only read. Exits
    2, changing nothing, when PATH has no config.ini or LANG exists already (see --force).
    """
    from polybook.importer.d2lbook import ImportRefused, import_d2lbook
    from polybook.usage import UsageProblem

    conf = (ctx.obj or {}).get("conf")
    try:
        result = import_d2lbook(path, lang, conf, force)
    except ImportRefused as exc:
        raise UsageProblem(str(exc)) from None
    for line in result.report():
        click.echo(line)
