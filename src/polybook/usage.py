"""What every command needs from the command line, below the stages that define commands:
the book's config (``--conf`` or the nearest conf.py) and usage errors (exit 2).

Stages mount their own click commands (``polybook build html``, ``polybook build lib``...);
they import these from here, never from :mod:`polybook.cli`, which imports the stages.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from polybook.config import BookConfig


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
    config = config_at(ctx.obj["conf"], Path.cwd())
    if config is None:
        raise UsageProblem("no conf.py found here or above; pass --conf")
    return config


def known(names: tuple[str, ...], choices: Iterable[str], what: str) -> list[str]:
    """``names`` as a list, or a usage error naming every unknown one and the choices."""
    choices = list(choices)
    unknown = [name for name in names if name not in choices]
    if unknown:
        raise UsageProblem(f"not a {what} of this book: {', '.join(unknown)} ({what}s: {', '.join(choices)})")
    return list(names)
