"""What an evaluation produced: ``build/eval-report.json``, the summary table, diagnostics.

The report is the one set of facts tests and benchmarks read: per program its key, the
languages and chapters it served, status, cells, durations, and whether it ran or came
from the cache or the frozen results.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook.diagnostics import Code, Diagnostic, Level
from polybook.execute.evaluate import Evaluation, Outcome
from polybook.execute.failures import NO_ENVIRONMENT
from polybook.execute.results import RunStatus, Source
from polybook.execute.runner import strip_ansi
from polybook.files import atomic_write, read_json

REPORT_NAME = "eval-report.json"
_CODES = {
    RunStatus.ERROR: Code.EXEC_ERROR,
    RunStatus.NEEDS_GPU: Code.EXEC_NEEDS_GPU,
    RunStatus.TIMEOUT: Code.EXEC_TIMEOUT,
    RunStatus.KERNEL_DIED: Code.EXEC_KERNEL_DIED,
    RunStatus.DOWNLOAD_FAILED: Code.EXEC_DOWNLOAD,
    RunStatus.MISSING_FRAMEWORK: Code.EXEC_NO_FRAMEWORK,
}
_STATUS_TEXT = {
    RunStatus.NEEDS_GPU: "needs a GPU",
    RunStatus.KERNEL_DIED: "kernel died",
    RunStatus.TIMEOUT: "timeout",
    RunStatus.DOWNLOAD_FAILED: "download failed",
    RunStatus.MISSING_FRAMEWORK: "framework not installed",
}


def program_entry(outcome: Outcome) -> dict[str, Any]:
    program, result = outcome.program, outcome.result
    cells = result.cells
    entry: dict[str, Any] = {
        "key": program.key,
        "framework": program.framework,
        "chapter": program.name,
        "kernel": program.kernel,
        "languages": program.languages,
        "served": [{"language": u.language, "chapter": u.name, "path": u.path} for u in program.uses],
        "status": str(result.status),
        "source": str(outcome.source),
        "note": outcome.note,
        "cells": len(cells),
        "cells_run": result.cells_run(),
        "allowed_errors": result.allowed_errors,
        "duration": result.duration,
        "cell_durations": [c.duration for c in cells],
        "wall": round(outcome.wall, 4),
        "wants_gpu": program.wants_gpu,
        "provenance": result.provenance,
        "failure": None,
        "fatal": outcome.fatal,
    }
    failure = result.failure
    if failure is not None:
        entry["failure"] = {
            "cell": failure.cell,
            "kind": str(failure.kind),
            "ename": failure.ename,
            "evalue": failure.evalue,
            "locations": program.locations(failure.cell),
            "traceback": [strip_ansi(line) for line in failure.traceback],
            **{k: v for k, v in (("url", failure.url), ("module", failure.module)) if v is not None},
        }
    return entry


def build_report(evaluation: Evaluation) -> dict[str, Any]:
    config = evaluation.book.config
    outcomes = evaluation.outcomes
    pairs = {(use.language, fw) for o in outcomes for use in o.program.uses for fw in [o.program.framework]}
    count = {s: sum(1 for o in outcomes if o.source is s) for s in Source}
    statuses: dict[str, int] = {}
    for o in outcomes:
        statuses[str(o.status)] = statuses.get(str(o.status), 0) + 1
    return {
        "format": 1,
        "started": dt.datetime.fromtimestamp(evaluation.started, dt.UTC).isoformat(timespec="seconds"),
        "wall_time": round(evaluation.wall_time, 3),
        "executor": evaluation.executor,
        "jobs": evaluation.slots,
        "summary": {
            "programs": len(outcomes),
            "kernel_runs": count[Source.RUN],
            "cache_hits": count[Source.CACHE],
            "frozen_hits": count[Source.FROZEN],
            "not_run": count[Source.SKIPPED],  # refused by the executor (no GPU worker), or no environment to run in
            "language_programs": sum(len(o.program.uses) for o in outcomes),
            "languages": len(evaluation.book.chapters),
            "frameworks": len(config.frameworks),
            "language_framework_pairs": len(pairs),
            "statuses": statuses,
            "fatal": len(evaluation.fatal()),
            "frozen_written": len(evaluation.frozen),
        },
        "programs": [program_entry(o) for o in outcomes],
        "diagnostics": [d.to_dict() for d in diagnostics(evaluation)],
    }


def write_report(evaluation: Evaluation, path: Path | None = None, merge: bool = False) -> Path:
    """``build/eval-report.json``; ``merge``: the evaluation covered some languages only (an
    incremental site build), so the last report's programs of the other languages stay -- and of
    the other documents, when it covered some documents only (``polybook build eval PATHS``)."""
    path = path or evaluation.book.config.build_dir / REPORT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    report = build_report(evaluation)
    if merge or evaluation.documents is not None:
        report = merge_report(read_json(path), report, *_covered(evaluation))
    atomic_write(path, json.dumps(report, ensure_ascii=False, indent=1))  # a temp file of its own
    return path


def _covered(evaluation: Evaluation) -> tuple[Callable[[str, str], bool], Callable[[str], bool]]:
    """What an evaluation covered: its documents (by language and name), and their files."""
    book, documents = evaluation.book, evaluation.documents
    if documents is not None:
        paths = {book.chapters[lang][name].path for lang, name in documents}
        return (lambda lang, name: (lang, name) in documents), paths.__contains__
    languages = set(book.chapters)
    return (lambda lang, _: lang in languages), (lambda path: book.config.language_of(Path(path)) in languages)


@dataclass(frozen=True, slots=True)
class FatalProgram:
    """A program the last evaluation failed the build on (:meth:`Evaluation.fatal`), as its
    report says: where it stopped, in which framework, how."""

    where: str  # the failing cell's path:line (in the first language using it)
    framework: str
    cell: int  # 0-based
    status: RunStatus
    ename: str

    def __str__(self) -> str:
        return (
            f"{self.where}: {self.framework} cell {self.cell + 1} failed ({self.status}: {self.ename}) and is not "
            "allowed to: fix it, or mark it allowed to raise"
        )


def fatal_programs(build_dir: Path) -> list[FatalProgram]:
    """The fatal programs of ``build_dir``'s last evaluation report (none without a report)."""
    report = read_json(build_dir / REPORT_NAME)
    if not report.get("summary", {}).get("fatal"):
        return []
    out = []
    for program in report.get("programs", []):
        failure = program.get("failure")
        if failure and program.get("fatal"):
            where = (failure.get("locations") or [program["chapter"]])[0]
            status = RunStatus(program["status"])
            out.append(FatalProgram(where, program["framework"], failure["cell"], status, failure.get("ename", "")))
    return out


def merge_report(
    previous: dict[str, Any],
    current: dict[str, Any],
    evaluated: Callable[[str, str], bool],
    evaluated_path: Callable[[str], bool],
) -> dict[str, Any]:
    """``current`` (of the documents ``evaluated`` says, by language and name) with the programs of
    ``previous`` that served other documents, for those only, and its diagnostics about other
    files (``evaluated_path`` tells them apart); the summary counts the programs listed."""
    kept = []
    for program in previous.get("programs", []):
        served = [use for use in program.get("served", []) if not evaluated(use.get("language"), use.get("chapter"))]
        if served:
            languages = list(dict.fromkeys(use["language"] for use in served))
            kept.append({**program, "served": served, "languages": languages, "source": "earlier build"})
    programs = [*current["programs"], *kept]
    summary = dict(current["summary"])
    statuses: dict[str, int] = {}
    for program in programs:
        statuses[program["status"]] = statuses.get(program["status"], 0) + 1
    summary.update(
        programs=len(programs),
        language_programs=sum(len(p.get("served", [])) for p in programs),
        statuses=statuses,
        fatal=sum(bool(p.get("fatal")) for p in programs),
    )
    previous_diagnostics = [
        d
        for d in previous.get("diagnostics", [])
        if not evaluated_path(d.get("path", "")) and d not in current["diagnostics"]
    ]
    return {
        **current,
        "summary": summary,
        "programs": programs,
        "diagnostics": [*current["diagnostics"], *previous_diagnostics],
    }


def diagnostics(evaluation: Evaluation) -> list[Diagnostic]:
    """One diagnostic per failed program per language using it, at the failing cell's line;
    a framework that is not installed once, at its first program's cell (one whose environment
    could not be made is already said once, at its conf.py line: among the evaluation's problems)."""
    out = list(evaluation.problems)
    missing: dict[str, list[Outcome]] = {}
    for outcome in evaluation.outcomes:
        failure, status = outcome.result.failure, outcome.status
        if status is RunStatus.MISSING_FRAMEWORK and failure is not None:
            if failure.ename != NO_ENVIRONMENT:
                missing.setdefault(outcome.program.framework, []).append(outcome)
        elif status.failed and failure is not None:
            out += _failure_diagnostics(outcome)
        if outcome.result.allowed_errors:
            out += _allowed_error_diagnostics(outcome)
    for framework, outcomes in missing.items():
        first = outcomes[0]
        failure = first.result.failure
        assert failure is not None
        use = first.program.uses[0]
        uses = sum(len(o.program.uses) for o in outcomes)
        message = (
            f"{framework} is not installed in kernel {first.program.kernel!r} (No module named "
            f"{failure.module or framework!r}): its {len(outcomes)} program(s) ({uses} language uses) did not run"
        )
        out.append(Diagnostic.make(use.path, use.cells[failure.cell].line, Code.EXEC_NO_FRAMEWORK, message))
    return out


def _failure_diagnostics(outcome: Outcome) -> list[Diagnostic]:
    """The program's failure, once per language using it, at the failing cell's line."""
    program, failure, status = outcome.program, outcome.result.failure, outcome.status
    assert failure is not None
    what = f"{failure.ename}: " if failure.ename else ""
    evalue = strip_ansi(failure.evalue).strip().split("\n")[0][:300]
    if status is RunStatus.DOWNLOAD_FAILED and failure.url:
        what, evalue = "", f"could not download {failure.url} ({what}{evalue[:120]})"
    shared = f" (program shared by {', '.join(program.languages)})" if len(program.languages) > 1 else ""
    level = Level.ERROR if outcome.fatal else None  # what the machine lacks: a warning
    message = f"{program.framework} cell {_STATUS_TEXT.get(status, 'raised')}: {what}{evalue}{shared}"
    return [
        Diagnostic.make(use.path, use.cells[failure.cell].line, _CODES[status], message, level) for use in program.uses
    ]


def _allowed_error_diagnostics(outcome: Outcome) -> list[Diagnostic]:
    """Cells that raised where errors are allowed (not the one the program stopped at)."""
    program, result = outcome.program, outcome.result
    stopped = result.stopped_at()
    out = []
    for use in program.uses:
        for index, cell_result in enumerate(result.cells):
            if not cell_result.status.raised or index == stopped:
                continue
            errors = cell_result.errors()
            what = f"{errors[0]['ename']}: {strip_ansi(errors[0]['evalue'])[:200]}" if errors else "error"
            gpu = cell_result.status is RunStatus.NEEDS_GPU
            code = Code.EXEC_NEEDS_GPU if gpu else Code.EXEC_ALLOWED_ERROR
            message = f"{program.framework} cell {'needs a GPU' if gpu else 'raised'} (allowed): {what}"
            out.append(Diagnostic.make(use.path, use.cells[index].line, code, message))
    return out


def summary_table(evaluation: Evaluation) -> Any:
    from rich.table import Table

    report = build_report(evaluation)["summary"]
    title = (
        f"evaluation: {report['programs']} programs for {report['language_programs']} (language, chapter, framework)"
        f" -- {report['kernel_runs']} kernel runs, {report['cache_hits']} cached, {report['frozen_hits']} frozen"
    )
    table = Table(title=title)
    for column, justify in (
        ("program", "left"),
        ("key", "left"),
        ("languages", "left"),
        ("cells", "right"),
        ("time", "right"),
        ("source", "left"),
        ("status", "left"),
    ):
        table.add_column(column, justify=justify, no_wrap=column in ("program", "key"))  # type: ignore[arg-type]
    for outcome in evaluation.outcomes:
        program, result = outcome.program, outcome.result
        status = _STATUS_TEXT.get(outcome.status, str(outcome.status))
        if outcome.status.failed:
            status = f"[red]{status}[/red]" if outcome.fatal else f"[yellow]{status}[/yellow]"
        elif result.allowed_errors:
            status += f" ({result.allowed_errors} allowed error(s))"
        table.add_row(
            f"{program.name}/{program.framework}",
            program.key[:8],
            ",".join(program.languages),
            f"{result.cells_run()}/{len(result.cells)}",
            f"{result.duration or 0:.1f}s",
            str(outcome.source) + (f" ({outcome.note})" if outcome.note else ""),
            status,
        )
    return table


def print_table(console: Any, table: Any) -> None:
    """Print ``table`` whole: off a terminal (a CI log) rich would squeeze it into 80
    columns and cut keys and statuses (``en,j…``), so it gets the width it needs."""
    from rich.measure import Measurement

    if not console.is_terminal:
        title = len(str(table.title or ""))  # rich wraps a title to the table's width
        table.min_width = max(table.min_width or 0, title)
        natural = Measurement.get(console, console.options.update(max_width=1000), table).maximum
        console.width = max(console.width, natural, title)
    console.print(table)
