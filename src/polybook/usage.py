"""What every command needs from the command line, below the stages that define commands:
the book's config (``--conf`` or the nearest conf.py) and usage errors (exit 2).

Stages mount their own click commands (``polybook build html``, ``polybook build lib``...);
they import these from here, never from :mod:`polybook.cli`, which imports the stages.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from polybook.config import BookConfig


class UsageProblem(click.ClickException):
    """Bad config or arguments: exit 2, like click's own usage errors."""

    exit_code = 2


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
