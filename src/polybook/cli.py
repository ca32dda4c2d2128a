"""The ``polybook`` command: a thin click layer over the pipeline's stages."""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from polybook import __version__
from polybook.usage import DiskFull, UsageProblem, book_config, config_at, known, lang_option, report, verbose_option

__all__ = ["UsageProblem", "book_config", "known", "main", "run"]

if TYPE_CHECKING:
    from polybook.config import BookConfig


class _LazyGroup(click.Group):
    """A group whose commands may live in other modules (``lazy``: name -> ``module:attribute``),
    imported when the command is looked up -- click's documented pattern for lazy subcommands."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def invoke(self, ctx: click.Context) -> Any:
        """The command; a full disk, wherever it is met (here or in a worker process), is one
        clear error saying what was kept and what to do (:class:`DiskFull`), not a traceback."""
        try:
            return super().invoke(ctx)
        except click.ClickException:
            raise
        except Exception as exc:
            from polybook.files import disk_full

            full = disk_full(exc)
            if full is None:
                raise
            raise DiskFull(full) from None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, _, attribute = self.lazy[cmd_name].partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)


class _MainGroup(_LazyGroup):
    """The ``polybook`` group: its help, run inside a book, ends with the book's languages."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        from polybook.config import ConfigError, find_config, load_config

        path = find_config(Path.cwd())
        try:
            config = load_config(path) if path else None
        except ConfigError:
            return  # a command will say what is wrong with it
        if config is not None:
            with formatter.section(f"This book ({path})"):
                languages = ", ".join(f"{lang} ({c.name})" for lang, c in config.languages.items())
                formatter.write_text(f"languages: {languages}; source: {config.source_language}")
                formatter.write_text(f"frameworks: {', '.join(config.frameworks)}")


@click.group(cls=_MainGroup)
@click.version_option(__version__, prog_name="polybook")
@click.option(
    "--conf",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The book's conf.py (default: the nearest one above the current folder).",
)
@click.pass_context
def main(ctx: click.Context, conf: Path | None) -> None:
    """polybook: one book in several languages and frameworks -- its code executed, its
    translations checked, built into one site, PDFs and notebooks."""
    ctx.obj = {"conf": conf}


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Dump the document model as JSON.")
@click.pass_context
def parse(ctx: click.Context, paths: tuple[Path, ...], as_json: bool) -> None:
    """Parse chapters and print their outline and diagnostics.

    Exits 1 when any error diagnostic is found.
    """
    from polybook.diagnostics import has_errors
    from polybook.dialect import DialectSettings, parse_file
    from polybook.dialect.outline import outline
    from polybook.files import display_path

    docs = []
    for file in _files_to_parse(ctx, paths):
        config = config_at(ctx.obj["conf"], file.parent)
        settings = config.settings_for(file) if config else DialectSettings()
        docs.append(parse_file(file, settings, display_path(file)))
    if as_json:
        click.echo(json.dumps({"documents": [d.to_dict() for d in docs]}, ensure_ascii=False, indent=1))
    else:
        click.echo("\n\n".join(outline(d) for d in docs))
    if has_errors(x for d in docs for x in d.diagnostics):
        ctx.exit(1)


def _files_to_parse(ctx: click.Context, paths: tuple[Path, ...]) -> list[Path]:
    """The files named, and the Markdown files below the folders named -- but those a book's
    ``exclusions`` leave out (``*_origin.md``, README.md...): they are not its documents."""
    from polybook.files import resolved

    files = []
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        config = config_at(ctx.obj["conf"], path)
        excluded: dict[str, set[str]] = {}
        for file in sorted(path.rglob("*.md")):
            lang = config.language_of(file) if config else None
            if lang is not None and config is not None:
                relative = resolved(file).relative_to(resolved(config.chapters_dir / lang)).as_posix()
                if lang not in excluded:
                    excluded[lang] = config.excluded(lang)
                if relative in excluded[lang]:
                    continue
            files.append(file)
    return files


@main.group(cls=_LazyGroup, invoke_without_command=True)
@click.option("--strict", is_flag=True, help="Exit 1 when any chapter has an error diagnostic.")
@verbose_option
@click.pass_context
def build(ctx: click.Context, strict: bool, verbose: bool) -> None:
    """Build the book, stage by stage: eval (run the code), pdf, html (the site).

    Without a stage: parse every chapter into build/model/<lang>/<chapter>.json.
    """
    if ctx.invoked_subcommand is not None:
        return
    from rich.console import Console
    from rich.table import Table

    from polybook.book import load_book
    from polybook.diagnostics import Level
    from polybook.files import atomic_write

    config = book_config(ctx)
    book = load_book(config, cached=True)
    table = Table(title=f"{config.title}: document model")
    for column in ("language", "chapters", *(f"{f} cells" for f in config.frameworks), "errors", "warnings"):
        table.add_column(column, justify="left" if column == "language" else "right")
    errors = 0
    found = []
    for lang, chapters in book.chapters.items():
        out = config.build_dir / "model" / lang
        diags = [*config.refused_links(lang), *(d for doc in chapters.values() for d in doc.diagnostics)]
        for name, doc in chapters.items():
            atomic_write(out / f"{name}.json", json.dumps(doc.to_dict(), ensure_ascii=False, indent=1))
        found += diags
        n_err = sum(d.level is Level.ERROR for d in diags)
        errors += n_err
        cells = [str(sum(len(doc.cells(f)) for doc in chapters.values())) for f in config.frameworks]
        warnings = sum(d.level is Level.WARNING for d in diags)
        table.add_row(lang, str(len(chapters)), *cells, str(n_err), str(warnings))
    report(found, verbose)
    Console(stderr=True).print(table)
    if strict and errors:
        ctx.exit(1)


def _check_languages(config: BookConfig, languages: tuple[str, ...]) -> list[str]:
    return known(languages, config.translations, "translation")


@main.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "sarif", "github", "junit"]),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here.")
@lang_option("Only this translation (repeatable).")
@click.option("--chapter", "chapters", multiple=True, help="Only this document, by name (chapter_x/section, no .md).")
@click.option(
    "--fail-on", type=click.Choice(["error", "warning"]), default="error", show_default=True, help="Exit 1 from here."
)
@click.option("--baseline", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Accepted findings.")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path), help="Accept today's findings.")
@click.option("--reason", help="Why the findings written by --write-baseline are accepted (required with it).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: cores).")
@click.option(
    "--notes",
    is_flag=True,
    help="Text: work out and list each change of the source a migration plan sums up (json has them).",
)
@click.option(
    "--code",
    "codes",
    multiple=True,
    help="Only findings of this code (repeatable): ref.label, or every code under a prefix: ref.",
)
@click.option(
    "--top", type=click.IntRange(min=1), default=None, help="Text: list the first N findings of each language."
)
@click.pass_context
def check(
    ctx: click.Context,
    fmt: str,
    output: Path | None,
    languages: tuple[str, ...],
    chapters: tuple[str, ...],
    fail_on: str,
    baseline: Path | None,
    write_baseline: Path | None,
    reason: str | None,
    jobs: int | None,
    notes: bool,
    codes: tuple[str, ...],
    top: int | None,
) -> None:
    """Check every translation against the source language, statically.

    Never imports or runs book code. Exits 0 when nothing reaches --fail-on, 1 when
    something does, 2 on usage errors or unreadable chapters.
    """
    import gc
    import os
    import sys

    from polybook.check import check_config
    from polybook.check.report import render, write_step_summary
    from polybook.check.report.common import codes_named, with_codes
    from polybook.check.suppress import baseline_json
    from polybook.diagnostics import RANK, Code, Level
    from polybook.dialect.shortcuts import cycle_collection_paused
    from polybook.files import atomic_write

    if write_baseline and not (reason and reason.strip()):
        raise UsageProblem("--write-baseline needs --reason: every accepted finding must say why")
    if top is not None and fmt != "text":
        raise UsageProblem(f"--top is for the text report; --format {fmt} has every finding")
    try:
        chosen = codes_named(codes) if codes else None
    except ValueError as exc:
        raise UsageProblem(f"--code: {exc}") from None
    config = book_config(ctx)
    langs = _check_languages(config, languages)
    if chapters:  # every language's documents listed: only to tell a wrong name
        known(chapters, _chapter_names(config), "chapter")
    accepted = _baseline(baseline)
    # the notes of each change the source made are worked out for the reports that list them (the
    # text report sums up a changed document's in its plan's row, unless --notes)
    listed = fmt != "text" or notes or bool(write_baseline) or (chosen is not None and Code.STALE_SOURCE in chosen)
    # the cycle collector stays off until the report is made (as while the book is checked): it
    # would walk the book's findings, which hold no cycle (bookmix: 0.015 s of the report's time)
    with cycle_collection_paused():
        result, bad = check_config(config, langs or None, list(chapters) or None, accepted, jobs, listed)
        if chosen is not None:  # the report, the baseline and the exit status: those codes alone
            result = with_codes(result, chosen)
        checked = [config.source_language, *(langs or config.translations)]
        bad = [*(d for lang in checked for d in config.refused_links(lang)), *bad]  # links not followed
        if bad:
            raise UsageProblem("unreadable input:\n" + "\n".join(d.format() for d in bad))
        if write_baseline:
            atomic_write(write_baseline, baseline_json(result.active, str(reason).strip()))
            click.echo(f"wrote {len(result.active)} finding(s) to {write_baseline}", err=True)
        tty = sys.stdout.isatty()
        color = fmt == "text" and output is None and tty and "NO_COLOR" not in os.environ
        report = render(result, fmt, color=color, notes=notes, top=top)
        if _process_ends_with_command:  # nor after it: nothing the check made is ever collected
            gc.freeze()
    if output:
        atomic_write(output, report + "\n")
    else:
        click.echo(report)
    if fmt == "github":
        write_step_summary(result)
    threshold = RANK[Level(fail_on)]
    if any(RANK[f.level] >= threshold for f in result.active) and not write_baseline:
        ctx.exit(1)


def _chapter_names(config: BookConfig) -> list[str]:
    return sorted({name for lang in config.languages for name in config.document_names(lang)})


def _baseline(path: Path | None) -> dict[tuple[str, str, str, str], str]:
    """The accepted findings of a ``--baseline`` file (empty without one)."""
    from polybook.check.suppress import load_baseline

    if path is None:
        return {}
    try:
        return load_baseline(path)
    except (ValueError, KeyError) as exc:
        raise UsageProblem(f"bad baseline file {path}: {exc}") from None


@main.command()
@click.argument("languages", nargs=-1)
@click.option("--write", is_flag=True, help="Apply the changes (default: print them as a unified diff).")
@click.option("--prune", is_flag=True, help="Also remove cells the source does not have.")
@click.option(
    "--baseline",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Accepted findings (as for check): the differences they accept are kept.",
)
@click.pass_context
def sync(ctx: click.Context, languages: tuple[str, ...], write: bool, prune: bool, baseline: Path | None) -> None:
    """Repair translations' code and math from the source; prose is never changed.

    Prints what it would change as a unified diff; --write applies it (atomically) and
    records the source commit. Lists what it cannot repair, and the differences it keeps
    because a suppression (inline or --baseline) accepts them. Exits 1 when a chapter was
    refused because of parse errors.
    """
    from polybook import sync as syncing
    from polybook.book import load_book

    config = book_config(ctx)
    langs = _check_languages(config, languages)
    book = load_book(config, [config.source_language, *langs] if langs else None, cached=True)
    results = syncing.sync_book(book, langs or None, prune, _baseline(baseline))
    for result in results:
        if result.refused:
            click.echo(f"{result.display}: refused: fix these parse errors first:", err=True)
            for d in result.refused:
                click.echo(f"  {d.format()}", err=True)
            continue
        if result.changed and not write:
            click.echo(result.diff(), nl=False)
        for why in result.repaired:
            click.echo(f"{result.display}: {'repaired' if write else 'would repair'} {why}", err=True)
        for why in result.kept:
            click.echo(f"{result.display}: {why}", err=True)
        if result.left:
            left = f"{len(result.left)} finding(s) left for a human (lines as after this sync)"
            click.echo(f"{result.display}: {left}:", err=True)
            for finding in result.left:
                source = f" (source: {finding.source})" if finding.source else ""
                click.echo(f"  {finding.format()}{source}", err=True)
    if write:
        syncing.write(book, results)
    changed = sum(r.changed for r in results)
    refused = sum(bool(r.refused) for r in results)
    verb = "changed" if write else "would change"
    click.echo(f"sync: {verb} {changed} of {len(results)} chapter(s); {refused} refused", err=True)
    if refused:
        ctx.exit(1)


@main.command()
@click.argument("lang")
@click.option("--write", is_flag=True, help="Apply the port (default: print the summary and the diff).")
@click.option(
    "--chapter",
    "chapters",
    multiple=True,
    metavar="NAME",
    help="Port only this chapter folder or document (repeatable); the others keep their base.",
)
@click.option("--stat", is_flag=True, help="List the changed files with their lines added and removed, no diff.")
@click.option(
    "--rewrites", is_flag=True, help="Also show the files rewritten from the source (X_origin.md, library, conf.py)."
)
@click.option("--force", is_flag=True, help="Port despite parse errors or uncommitted changes to the language's files.")
@click.pass_context
def port(
    ctx: click.Context, lang: str, write: bool, chapters: tuple[str, ...], stat: bool, rewrites: bool, force: bool
) -> None:
    """Move translation LANG to the source as it is now.

    Renamed documents move to their new names, documents new in the source come in as its text
    marked untranslated, documents it dropped move to editions/LANG-<base>/; inside a document a
    paragraph whose source is unchanged keeps its translation, a changed one keeps it marked
    stale with the source's new text beside it, and code, math and labels come from the source.
    Prints a summary per chapter, then the diff of the translation's documents (the files the
    port rewrites from the source with --rewrites; a list of files instead with --stat); --write
    applies it and records each ported document's new base.
    """
    from polybook.book import load_book
    from polybook.sync.port import PortRefused, chapter_selection, port_language, refusals
    from polybook.sync.port_report import report_lines

    config = book_config(ctx)
    known((lang,), config.translations, "translation")
    book = load_book(config, [config.source_language, lang], cached=True)
    try:
        problems = refusals(book, lang, chapter_selection(book, lang, chapters))
        if problems and not force:
            shown = "\n".join(f"  {p}" for p in problems[:20]) + ("\n  ..." if len(problems) > 20 else "")
            raise UsageProblem(f"port of {lang} refused (--force to port anyway):\n{shown}")
        ported = port_language(book, lang, chapters)
    except PortRefused as exc:
        raise UsageProblem(f"port of {lang} refused: {exc}") from None
    if write:
        ported.write(config)
    for line in report_lines(ported, config.root, written=write, stat=stat, rewrites=rewrites):
        click.echo(line, nl=False)


def _mount() -> None:
    """The pipeline's stages bring their own commands, imported when one is run (or listed):
    ``polybook build html`` does not import the PDF, notebook, import or publish machinery."""
    build.lazy.update(
        eval="polybook.execute.commands:eval_command",
        pdf="polybook.pdf.commands:pdf",
        html="polybook.site.html:html",
        lib="polybook.library.commands:lib",
        notebooks="polybook.notebooks.commands:notebooks",
        env="polybook.execute.commands:env_command",
    )
    main.lazy.update(
        cache="polybook.execute.commands:cache",
        init="polybook.importer.commands:init_command",
        publish="polybook.site.commands:publish",
        serve="polybook.site.commands:serve",
        translate="polybook.translate.commands:translate",
        **{"import": "polybook.importer.commands:import_group"},
    )


_mount()


#: Whether the process ends with the command (:func:`run`), rather than running commands in turn
#: (tests): a command may then leave what it made to the process's end.
_process_ends_with_command = False


def run() -> None:
    """The ``polybook`` console script: :func:`main`, then out of the process once its exit
    handlers ran and its output is flushed, without tearing the interpreter down object by
    object (a build holds the whole parsed book: a tenth of a second of a one-page edit)."""
    global _process_ends_with_command
    _process_ends_with_command = True
    try:
        main()
        code: int | str | None = 0
    except SystemExit as done:
        code = done.code
    # What the interpreter's exit would do before tearing down, in its order: wait for the other
    # threads (thread pools are told to finish first), then the exit handlers (process pools,
    # temporary folders). Private names, but the interpreter's own steps since Python 3.9.
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    if isinstance(code, str):  # ``sys.exit("message")`` prints it and exits 1
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(code or 0)
