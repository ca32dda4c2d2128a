"""``polybook import``: bring an existing book in, one language at a time; mounted by :mod:`polybook.cli`."""

from __future__ import annotations

from pathlib import Path

import click


@click.group(name="import")
def import_group() -> None:
    """Import an existing book into this one, one language at a time."""


@import_group.command(name="d2lbook")
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-l", "--lang", required=True, help="The language code to import it as (e.g. en, zh, pt_BR).")
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


@click.command(name="init")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default=".")
@click.option(
    "-l", "--lang", "languages", multiple=True, required=True, help="A language code (repeatable; the first: source)."
)
@click.option("--title", default=None, help="The book's title (default: the folder's name).")
@click.option(
    "-f", "--framework", "frameworks", multiple=True, help="A framework, in tab order (repeatable; default: pytorch)."
)
def init_command(folder: Path, languages: tuple[str, ...], title: str | None, frameworks: tuple[str, ...]) -> None:
    """Start a new book in FOLDER (default: here): a conf.py with comments and
    chapters/LANG/index.md with its toc block, for each language. It builds and checks as it is.

    Refuses, writing nothing, when FOLDER has a conf.py already (exit 2). A d2lbook project
    comes in with polybook import d2lbook PATH --lang LANG instead.
    """
    from polybook.config import ConfigError, load_config
    from polybook.files import display_path
    from polybook.importer.start import BookExists, start_book
    from polybook.usage import UsageProblem

    fws = list(dict.fromkeys(frameworks)) or ["pytorch"]
    try:
        written = start_book(folder, list(dict.fromkeys(languages)), title or folder.resolve().name, fws)
    except BookExists as exc:
        raise UsageProblem(str(exc)) from None
    try:
        load_config(written[0])
    except ConfigError as exc:  # a language code or framework name conf.py does not take
        for path in written:
            path.unlink()
        raise UsageProblem(f"not a book polybook can read, nothing written:\n{exc}") from None
    for path in written:
        click.echo(f"wrote {display_path(path)}")
    click.echo("next: write chapters beside index.md and list them in its toc; polybook build html")
