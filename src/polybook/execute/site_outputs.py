"""The outputs a site build shows, per language: evaluated again only when the language's code or
the environments changed since they were stored, else as ``build/eval`` holds them.

``build/eval/.<lang>.inputs.json`` records what a language's stored outputs were evaluated from
(:func:`polybook.execute.evaluate.evaluation_inputs`) and what the evaluation said, so a prose
edit runs no kernel and reports the same execution problems as the run that made the outputs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from polybook.book import Book
from polybook.config import BookConfig
from polybook.diagnostics import Diagnostic, Level
from polybook.files import atomic_write, read_json

#: A chapter's outputs as ``build/eval`` stores them, by (language, chapter).
Results = dict[tuple[str, str], dict[str, Any]]


@dataclass(slots=True)
class SiteOutputs:
    """What the languages' pages show of their programs, and what their evaluation said."""

    results: Results = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    kernel_runs: int = 0
    cache_hits: int = 0


def environment(config: BookConfig) -> Any:
    """The fingerprints of the book's environments (their packages and interpreters; for one made
    by polybook, what it is made from: computed without it, the same before and after it is made)."""
    from polybook.execute.environment import fingerprints

    return fingerprints(config.execution, config.frameworks)


def site_outputs(
    config: BookConfig,
    book: Book,
    languages: list[str],
    evaluate: bool,
    jobs: int | None = None,
    say: Callable[[str], None] = lambda message: None,
) -> SiteOutputs:
    """The outputs of ``languages``: as stored when ``evaluate`` is off or nothing they depend on
    changed, else evaluated (cached, :mod:`polybook.execute.evaluate`) and stored again."""
    if not evaluate:
        damaged: list[Diagnostic] = []
        return SiteOutputs(stored_results(config, languages, damaged), damaged)
    from polybook.execute.evaluate import evaluation_inputs

    now = environment(config)
    inputs = {lang: evaluation_inputs(book, lang, now) for lang in languages}
    stamps = {lang: read_json(_stamp(config, lang)) for lang in languages}
    unchanged = [lang for lang in languages if stamps[lang].get("inputs") == inputs[lang]]
    out = SiteOutputs()
    discarded: list[Diagnostic] = []
    for lang in list(unchanged):
        damaged: list[Diagnostic] = []
        out.results.update(stored_results(config, [lang], damaged))
        if damaged:  # as a corrupt entry of the execution cache: discarded, a miss, evaluated again
            unchanged.remove(lang)
            discarded += [_discarded(d) for d in damaged]
    out.diagnostics = [Diagnostic.from_dict(d) for lang in unchanged for d in stamps[lang].get("diagnostics", [])]
    out.diagnostics += discarded
    again = [lang for lang in languages if lang not in unchanged]
    if again:
        say("evaluating (cached)")
        _evaluate(config, book, again, jobs, out, now)
    return out


def _evaluate(
    config: BookConfig, book: Book, languages: list[str], jobs: int | None, out: SiteOutputs, now: Any
) -> None:
    from polybook.execute.evaluate import EvalOptions, evaluate, evaluation_inputs
    from polybook.execute.outputs import chapter_outputs, write_outputs
    from polybook.execute.report import diagnostics, write_report
    from polybook.execute.results import Source

    evaluation = evaluate(Book(config, {lang: book.chapters[lang] for lang in languages}), EvalOptions(jobs=jobs))
    write_report(evaluation, merge=True)  # the other languages' programs stay in the report
    write_outputs(evaluation)
    out.results.update(chapter_outputs(evaluation))
    fresh = diagnostics(evaluation)
    out.diagnostics += fresh
    for lang in languages:
        said = [d.to_dict() for d in fresh if config.language_of(Path(d.path)) == lang]
        _write(_stamp(config, lang), {"inputs": evaluation_inputs(book, lang, now), "diagnostics": said})
    out.kernel_runs = sum(o.source is Source.RUN for o in evaluation.outcomes)
    out.cache_hits = sum(o.source is Source.CACHE for o in evaluation.outcomes)


def stored_results(config: BookConfig, languages: list[str], damaged: list[Diagnostic] | None = None) -> Results:
    """The outputs a previous ``polybook build eval`` wrote to ``build/eval`` (``--no-eval``);
    the files that do not read are left out, and said in ``damaged``."""
    from polybook.execute.outputs import read_outputs

    return {
        (lang, name): doc for lang in languages for name, doc in read_outputs(config.build_dir, lang, damaged).items()
    }


def _discarded(damaged: Diagnostic) -> Diagnostic:
    """A damaged results file, removed (the evaluation writes it again), said as such."""
    from polybook.execute.outputs import READ_AS_NONE

    Path(damaged.path).unlink(missing_ok=True)  # shown from the working folder: a path from it
    message = damaged.message.replace(READ_AS_NONE, "discarded and evaluated again (from the execution cache)")
    return replace(damaged, message=message, level=Level.INFO)


def _stamp(config: BookConfig, lang: str) -> Path:
    return config.build_dir / "eval" / f".{lang}.inputs.json"


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=1))
