"""What every command needs from the command line, below the stages that define commands:
the book's config (``--conf`` or the nearest conf.py) and usage errors (exit 2).

Stages mount their own click commands (``polybook build html``, ``polybook build lib``...);
they import these from here, never from :mod:`polybook.cli`, which imports the stages.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from polybook.config import BookConfig
    from polybook.diagnostics import Code, Collapse, Diagnostic

F = TypeVar("F", bound=Callable[..., Any])


class UsageProblem(click.ClickException):
    """Bad config or arguments: exit 2, like click's own usage errors."""

    exit_code = 2


class DiskFull(click.ClickException):
    """The disk (or the quota) filled up: what polybook kept, and what to do -- never a traceback."""

    def __init__(self, error: OSError) -> None:
        from polybook.files import display_path

        named = isinstance(error.filename, str | bytes | os.PathLike)
        where = f" writing {display_path(Path(os.fsdecode(error.filename)))}" if named else ""
        super().__init__(
            f"no space left on device{where}: polybook stopped.\n"
            "  Kept: every file polybook had finished (each is written whole or not at all) and the last good "
            "site: a published folder or branch is only ever replaced whole; in build/html, a language this run "
            "did not reach is as it was, and one whose build it stopped is rebuilt in full by the next run "
            "(publish refuses it until then).\n"
            "  To do: free some space (`polybook cache info` shows the execution cache, `polybook cache clear` "
            "empties it) and run the command again: it redoes only what this run did not finish."
        )


def config_at(conf: Path | None, start: Path) -> BookConfig | None:
    """``conf`` (``--conf``), else the nearest conf.py above ``start``, read; None when there is none."""
    from polybook.config import ConfigError, find_config, load_config

    path = conf or find_config(start)
    if path is None:
        return None
    try:
        return load_config(path)
    except ConfigError as exc:
        raise UsageProblem(f"{len(exc.diagnostics)} problem(s) in {path}:\n{exc}") from None


def book_config(ctx: click.Context) -> BookConfig:
    """The book's config for a command: ``--conf`` or the nearest conf.py; usage error if none."""
    from polybook.config import CONFIG_NAME

    config = config_at(ctx.obj["conf"], Path.cwd())
    if config is None:
        raise UsageProblem(
            f"no {CONFIG_NAME} found in {Path.cwd()} nor any folder above it (or pass --conf PATH).\n"
            "To start a book here: polybook init --lang en (a new one), or "
            "polybook import d2lbook PATH --lang en (a d2lbook project's)"
        )
    _refuse_language_folders(config, ())
    return config


def languages_to_build(config: BookConfig, languages: tuple[str, ...]) -> list[str]:
    """``-l`` of a command that builds pages or PDFs of each language (every one by default),
    checked: a usage error for an unknown language, or one with no chapter to build."""
    chosen = known(languages, config.languages, "language")
    _refuse_language_folders(config, chosen or list(config.languages))
    return chosen


def _refuse_language_folders(config: BookConfig, built: Iterable[str]) -> None:
    """A usage error naming, at its conf.py line, each language whose chapters folder is missing
    (or empty, when it is ``built``)."""
    from polybook.config.validate import language_folder_problems

    if problems := language_folder_problems(config, set(built)):
        shown = "\n".join(d.format() for d in problems)
        raise UsageProblem(f"{len(problems)} problem(s) in {config.path}:\n{shown}")


def known(names: tuple[str, ...], choices: Iterable[str], what: str) -> list[str]:
    """``names`` as a list, or a usage error naming every unknown one and the choices."""
    choices = list(choices)
    unknown = [name for name in names if name not in choices]
    if unknown:
        raise UsageProblem(f"not a {what} of this book: {', '.join(unknown)} ({what}s: {', '.join(choices)})")
    return list(names)


def languages_and_frameworks(
    config: BookConfig, languages: tuple[str, ...], frameworks: tuple[str, ...]
) -> tuple[list[str], list[str]]:
    """``-l`` and ``-f`` of a command made per language and framework (a PDF, notebooks), checked:
    a usage error for an unknown one, or for a language named with none of the frameworks named
    (``-l zh -f jax`` when zh has no jax) -- it would make nothing -- naming which language has
    which frameworks."""
    langs = known(languages, config.languages, "language")
    fws = known(frameworks, config.frameworks, "framework")
    if not fws:
        return langs, fws
    chosen = langs or list(config.languages)
    without = [lang for lang in chosen if not set(fws) & set(config.languages[lang].frameworks)]
    if without if langs else len(without) == len(chosen):
        has = "; ".join(f"{lang}: {', '.join(config.languages[lang].frameworks)}" for lang in config.languages)
        verb = "has" if len(without) == 1 else "have"
        raise UsageProblem(f"nothing to build: {', '.join(without)} {verb} no {' or '.join(fws)} (frameworks: {has})")
    return langs, fws


class _Option(click.Option):
    """An option with names it accepts but does not show: an old spelling kept for scripts."""

    def __init__(self, *args: Any, hidden_names: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hidden_names = hidden_names

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown = self.opts
        self.opts = [name for name in self.opts if name not in self.hidden_names]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown


def lang_option(help: str = "Only this language (repeatable; default: all).") -> Callable[[F], F]:
    """``-l/--lang LANG`` (repeatable) into ``languages``: every command spells it so
    (``--language``, which ``build eval`` once took, still works)."""
    return click.option(
        "-l", "--lang", "--language", "languages", cls=_Option, hidden_names=("--language",), multiple=True, help=help
    )


def framework_option(help: str = "Only this framework (repeatable; default: all).") -> Callable[[F], F]:
    """``-f/--framework NAME`` (repeatable) into ``frameworks``: every command spells it so."""
    return click.option("-f", "--framework", "frameworks", multiple=True, help=help)


def verbose_option(function: F) -> F:
    """``-v/--verbose``: every diagnostic in full, not the summary table (:func:`report`)."""
    return click.option(
        "-v", "--verbose", is_flag=True, help="Print every warning and note in full, not a table by code."
    )(function)


def report(
    diagnostics: Iterable[Diagnostic],
    verbose: bool = False,
    collapsed: Mapping[Code, Collapse] | None = None,
    describe: Callable[[Diagnostic], str] | None = None,
) -> None:
    """A command's diagnostics on stderr, as :func:`polybook.diagnostics.report_lines` lays them
    out: errors in full, the rest a table by code (``verbose``: every line)."""
    from polybook.diagnostics import Diagnostic, report_lines

    lines = report_lines(diagnostics, verbose, collapsed, describe or Diagnostic.format)
    if lines:  # one write: click flushes after each echo (d2l: 16,000 lines with -v, a tenth of a second)
        click.echo("\n".join(lines), err=True)
