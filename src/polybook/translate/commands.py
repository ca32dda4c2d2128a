"""``polybook translate``: mounted by :mod:`polybook.cli`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from polybook.usage import UsageProblem, book_config, known

if TYPE_CHECKING:
    from rich.console import Console

    from polybook.book import Book
    from polybook.config import BookConfig
    from polybook.config.glossary import Glossary
    from polybook.translate.engines import Engine
    from polybook.translate.memory import AnswerCache
    from polybook.translate.run import DocumentPlan, DocumentResult, Options


@click.command(name="translate")
@click.argument("lang", required=False)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--engine", default=None, help="command, openai, deepl or aws (default: polybook.translate.engine).")
@click.option("--command", "program", default=None, help="The command engine's program and arguments.")
@click.option("--stale", is_flag=True, help="Draft the stale blocks too, the old translation given as context.")
@click.option("--dry-run", is_flag=True, help="Print what would be sent, per document; send nothing.")
@click.option("--accept", "accepted", multiple=True, metavar="PATH[:LINE]", help="Accept drafts: remove their marks.")
@click.pass_context
def translate(
    ctx: click.Context,
    lang: str | None,
    paths: tuple[Path, ...],
    engine: str | None,
    program: str | None,
    stale: bool,
    dry_run: bool,
    accepted: tuple[str, ...],
) -> None:
    """Draft the blocks of translation LANG that `polybook port` left untranslated (PATHS: only
    these documents or folders).

    Each draft is written behind a `<!-- polybook:draft ... -->` mark (the page says it is
    machine translation, not yet reviewed); remove the mark, or --accept PATH[:LINE], to accept
    it. Code, math, references, links and markup are protected: a draft that loses one, or that
    `polybook check` finds at odds with its source, is refused and the block left as it was.
    Blocks the book translates already are reused, and every answer is kept in build/: a second
    run sends nothing it sent before. See docs/translate.md.
    """
    config = book_config(ctx)
    if accepted:
        _accept(config, accepted)
        return
    if lang is None:
        raise UsageProblem("name the translation: polybook translate LANG [PATHS...]")
    known((lang,), config.translations, "translation")
    from polybook.book import load_book
    from polybook.config.glossary import GlossaryError, read_glossary
    from polybook.translate.engines import EngineError, EngineSettings, make_engine
    from polybook.translate.memory import AnswerCache
    from polybook.translate.run import Options, plan_language

    try:
        settings = EngineSettings.of(config.translate, _shown(config.path), engine, program)
        glossary = read_glossary(config.chapters_dir, lang, _shown(config.chapters_dir / lang / "glossary"))
    except (EngineError, GlossaryError) as exc:
        raise UsageProblem(str(exc)) from None
    book = load_book(config, [config.source_language, lang], cached=True)
    options = Options(stale=stale, names=_names(config, lang, paths), batch=config.translate.batch)
    cache = AnswerCache(config.build_dir)
    plans = plan_language(book, lang, glossary, cache, settings.engine, settings.identity, options)
    if dry_run:
        _print_plan(plans)
        return
    made = functools.cache(lambda: make_engine(settings))
    if any(plan.to_send() for plan in plans):
        try:  # its key and client before anything is written
            made()
        except EngineError as exc:
            raise UsageProblem(str(exc)) from None
    _run(ctx, book, lang, plans, made, (settings.engine, settings.model), glossary, cache, options)


def _shown(path: Path) -> str:
    from polybook.files import display_path

    return display_path(path)


def _names(config: BookConfig, lang: str, paths: tuple[Path, ...]) -> set[str] | None:
    """The documents ``paths`` name (files, or folders of them); None: every document."""
    if not paths:
        return None
    folder = (config.chapters_dir / lang).resolve()
    names = set()
    for path in paths:
        full = path.resolve()
        if not full.exists():
            raise UsageProblem(f"{path}: no such file or folder")
        files = [full] if full.is_file() else sorted(full.rglob("*.md"))
        for file in files:
            try:
                names.add(file.relative_to(folder).with_suffix("").as_posix())
            except ValueError:
                raise UsageProblem(f"{path} is not in {lang}'s folder {_shown(folder)}") from None
    return names


def _print_plan(plans: list[DocumentPlan]) -> None:
    """Per document, what would be sent (blocks, words, characters) and what the book's own
    translations and the kept answers give already; then the totals."""
    head = ("blocks", "words", "characters", "from the book", "kept answers")
    rows = []
    for plan in plans:
        send = plan.to_send()
        rows.append(
            (
                plan.name,
                len(send),
                sum(b.words for b in send),
                sum(len(b.masked.prose.strip()) for b in send),
                sum(b.origin == "memory" for b in plan.blocks),
                sum(b.origin == "cache" for b in plan.blocks),
            )
        )
    totals = ("total", *(sum(row[i] for row in rows) for i in range(1, 6)))
    widths = [max(len(name), len(f"{n:,}")) for name, n in zip(head, totals[1:], strict=True)]
    click.echo("  ".join(name.rjust(w) for name, w in zip(head, widths, strict=True)) + "  document")
    for row in [*rows, totals]:
        click.echo("  ".join(f"{n:,}".rjust(w) for n, w in zip(row[1:], widths, strict=True)) + f"  {row[0]}")


def _run(
    ctx: click.Context,
    book: Book,
    lang: str,
    plans: list[DocumentPlan],
    made: Callable[[], Engine],
    who: tuple[str, str],
    glossary: Glossary,
    cache: AnswerCache,
    options: Options,
) -> None:
    """Each document drafted in turn, with progress; the refusals said as they come, a summary last."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from polybook.translate.engines import EngineError
    from polybook.translate.run import draft_document

    # said as written: a path's `:100:` is no emoji code, a lost `a[b]` no markup
    console = Console(stderr=True, soft_wrap=True, markup=False, emoji=False, highlight=False)
    results: list[DocumentResult] = []
    total = sum(len(plan.to_send()) for plan in plans)
    interrupted = False
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task(f"translate {lang}", total=total)
        try:
            for plan in plans:
                progress.update(task, description=f"{lang}: {plan.name}")
                result = draft_document(
                    book, lang, plan, made, who, glossary, cache, options,
                    sent=lambda n: progress.advance(task, n),
                    said=lambda message: progress.console.print(f"  {message}"),
                )  # fmt: skip
                results.append(result)
                for refusal in result.refused:
                    progress.console.print(refusal.format(), highlight=False)
        except KeyboardInterrupt:
            interrupted = True
        except EngineError as exc:
            _summary(console, lang, results)
            raise UsageProblem(str(exc)) from None
    _summary(console, lang, results)
    if interrupted:
        console.print("interrupted: the documents above are written; run again to continue")
        ctx.exit(130)


def _summary(console: Console, lang: str, results: list[DocumentResult]) -> None:
    drafted = sum(r.drafted for r in results)
    words = sum(r.words for r in results)
    memory = sum(r.from_memory for r in results)
    cached = sum(r.from_cache for r in results)
    sent = sum(r.sent for r in results)
    refused = sum(len(r.refused) for r in results)
    documents = sum(1 for r in results if r.drafted)
    waited = f" (the engine answered in {sum(r.waited for r in results):.1f} s)" if sent else ""
    console.print(
        f"translate {lang}: {drafted:,} blocks drafted ({words:,} words) in {documents} documents; "
        f"{memory:,} from the book's own translations, {cached:,} from kept answers, {sent:,} sent{waited}; "
        f"{refused:,} refused",
        highlight=False,
    )


def _accept(config: BookConfig, accepted: tuple[str, ...]) -> None:
    from polybook.translate.accept import NoDraft, accept

    for item in accepted:
        path_text, _, line_text = item.rpartition(":") if item.rpartition(":")[2].isdigit() else (item, "", "")
        path = Path(path_text)
        if not path.is_file():
            raise UsageProblem(f"{path}: no such file")
        lang = _lang_of(config, path)
        try:
            count = accept(path, int(line_text) if line_text else None, config.languages[lang].settings)
        except NoDraft as exc:
            raise UsageProblem(str(exc)) from None
        click.echo(f"{item}: {count} draft(s) accepted", err=True)


def _lang_of(config: BookConfig, path: Path) -> str:
    try:
        lang = path.resolve().relative_to(config.chapters_dir.resolve()).parts[0]
    except ValueError:
        raise UsageProblem(f"{path} is not in the book's chapters folder") from None
    if lang not in config.languages:
        raise UsageProblem(f"{path} is not in a language's folder")
    return lang
