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
@click.option(
    "--as-base",
    is_flag=True,
    help="Import an older edition of the source language, which translations are checked against "
    "(into editions/LANG-EDITION/; not a language of the site).",
)
@click.option(
    "--edition", metavar="NAME", default=None, help="The edition's name with --as-base (default: its release)."
)
@click.pass_context
def d2lbook_command(ctx: click.Context, path: Path, lang: str, force: bool, as_base: bool, edition: str | None) -> None:
    """Import the d2lbook project at PATH (a folder with config.ini) as language LANG.

    Copies its documents (and a translation's *_origin.md bases), resources and logos into
    <chapters>/LANG/, and merges its config.ini into conf.py (created when there is none),
    keeping everything else conf.py says. Prints what it copied, what it changed in conf.py
    and every setting it could not map, with its config.ini line. PATH is only read. Exits
    2, changing nothing, when PATH has no config.ini or LANG exists already (see --force).

    With --as-base, PATH is an older edition of the source language (d2l-en v0.17.6, which the
    translations were made from): its documents go to editions/LANG-EDITION/, and translations
    that follow no edition yet follow it -- each is then checked against it, and what the source
    changed since is a migration plan.
    """
    from polybook.importer.d2lbook import ImportRefused, import_d2lbook
    from polybook.usage import UsageProblem

    conf = (ctx.obj or {}).get("conf")
    try:
        if as_base:
            from polybook.importer.edition import import_edition

            for line in import_edition(path, lang, edition, conf, force).report():
                click.echo(line)
            return
        result = import_d2lbook(path, lang, conf, force)
    except ImportRefused as exc:
        raise UsageProblem(str(exc)) from None
    for line in result.report():
        click.echo(line)
