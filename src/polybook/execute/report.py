"""What an evaluation produced: ``build/eval-report.json``, the summary table, diagnostics.

The report is the one set of facts tests and benchmarks read: per program its key, the
languages and chapters it served, status, cells, durations, and whether it ran or came
from the cache or the frozen results.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from polybook.diagnostics import Code, Diagnostic, Level
from polybook.execute.evaluate import CACHE, FROZEN, RUN, SKIPPED, Evaluation, Outcome
from polybook.execute.failures import DOWNLOAD_FAILED, FAILED, MISSING_FRAMEWORK, NO_ENVIRONMENT
from polybook.execute.runner import ERROR, KERNEL_DIED, NEEDS_GPU, NOT_RUN, TIMEOUT, strip_ansi
from polybook.files import atomic_write, read_json

REPORT_NAME = "eval-report.json"
_CODES = {
    ERROR: Code.EXEC_ERROR,
    NEEDS_GPU: Code.EXEC_NEEDS_GPU,
    TIMEOUT: Code.EXEC_TIMEOUT,
    KERNEL_DIED: Code.EXEC_KERNEL_DIED,
    DOWNLOAD_FAILED: Code.EXEC_DOWNLOAD,
    MISSING_FRAMEWORK: Code.EXEC_NO_FRAMEWORK,
}
_STATUS_TEXT = {
    NEEDS_GPU: "needs a GPU",
    KERNEL_DIED: "kernel died",
    TIMEOUT: "timeout",
    DOWNLOAD_FAILED: "download failed",
    MISSING_FRAMEWORK: "framework not installed",
}


def program_entry(outcome: Outcome) -> dict[str, Any]:
    program, result = outcome.program, outcome.result
    cells = result["cells"]
    entry: dict[str, Any] = {
        "key": program.key,
        "framework": program.framework,
        "chapter": program.name,
        "kernel": program.kernel,
        "languages": program.languages,
        "served": [{"language": u.language, "chapter": u.name, "path": u.path} for u in program.uses],
        "status": result["status"],
        "source": outcome.source,
        "note": outcome.note,
        "cells": len(cells),
        "cells_run": sum(1 for c in cells if c["status"] != NOT_RUN),
        "allowed_errors": result.get("allowed_errors", 0),
        "duration": result.get("duration"),
        "cell_durations": [c["duration"] for c in cells],
        "wall": round(outcome.wall, 4),
        "wants_gpu": program.wants_gpu,
        "provenance": result.get("provenance", {}),
        "failure": None,
        "fatal": outcome.fatal,
    }
    failure = result.get("failure")
    if failure:
        index = failure["cell"]
        entry["failure"] = {
            "cell": index,
            "kind": failure["kind"],
            "ename": failure.get("ename", ""),
            "evalue": failure.get("evalue", ""),
            "locations": program.locations(index),
            "traceback": [strip_ansi(line) for line in failure.get("traceback", [])],
            **{k: failure[k] for k in ("url", "module") if k in failure},
        }
    return entry


def build_report(evaluation: Evaluation) -> dict[str, Any]:
    config = evaluation.book.config
    outcomes = evaluation.outcomes
    pairs = {(use.language, fw) for o in outcomes for use in o.program.uses for fw in [o.program.framework]}
    count = {s: sum(1 for o in outcomes if o.source == s) for s in (RUN, CACHE, FROZEN, SKIPPED)}
    statuses: dict[str, int] = {}
    for o in outcomes:
        statuses[o.status] = statuses.get(o.status, 0) + 1
    return {
        "format": 1,
        "started": dt.datetime.fromtimestamp(evaluation.started, dt.UTC).isoformat(timespec="seconds"),
        "wall_time": round(evaluation.wall_time, 3),
        "executor": evaluation.executor,
        "jobs": evaluation.slots,
        "summary": {
            "programs": len(outcomes),
            "kernel_runs": count[RUN],
            "cache_hits": count[CACHE],
            "frozen_hits": count[FROZEN],
            "not_run": count[SKIPPED],  # refused by the executor (no GPU worker), or no environment to run in
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
    incremental site build), so the last report's programs of the other languages stay."""
    path = path or evaluation.book.config.build_dir / REPORT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    report = build_report(evaluation)
    if merge:
        config = evaluation.book.config
        evaluated = set(evaluation.book.chapters)
        report = merge_report(read_json(path), report, evaluated, lambda p: config.language_of(Path(p)) in evaluated)
    atomic_write(path, json.dumps(report, ensure_ascii=False, indent=1))  # a temp file of its own
    return path


def merge_report(
    previous: dict[str, Any], current: dict[str, Any], evaluated: set[str], evaluated_path: Callable[[str], bool]
) -> dict[str, Any]:
    """``current`` (of the ``evaluated`` languages) with the programs of ``previous`` that served
    other languages, for those languages only, and its diagnostics about other languages' files
    (``evaluated_path`` tells them apart); the summary counts the programs listed."""
    kept = []
    for program in previous.get("programs", []):
        served = [use for use in program.get("served", []) if use.get("language") not in evaluated]
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
    previous_diagnostics = [d for d in previous.get("diagnostics", []) if not evaluated_path(d.get("path", ""))]
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
        failure = outcome.result.get("failure")
        program = outcome.program
        if outcome.status == MISSING_FRAMEWORK and failure:
            if failure.get("ename") != NO_ENVIRONMENT:
                missing.setdefault(program.framework, []).append(outcome)
        elif outcome.status in FAILED and failure:
            code = _CODES[outcome.status]
            what = f"{failure.get('ename')}: " if failure.get("ename") else ""
            evalue = strip_ansi(str(failure.get("evalue", ""))).strip().split("\n")[0][:300]
            if outcome.status == DOWNLOAD_FAILED and failure.get("url"):
                what, evalue = "", f"could not download {failure['url']} ({what}{evalue[:120]})"
            shared = f" (program shared by {', '.join(program.languages)})" if len(program.languages) > 1 else ""
            level = Level.ERROR if outcome.fatal else None  # what the machine lacks: a warning
            for use in program.uses:
                cell = use.cells[failure["cell"]]
                message = f"{program.framework} cell {_STATUS_TEXT.get(outcome.status, 'raised')}: {what}{evalue}"
                out.append(Diagnostic.make(use.path, cell.line, code, message + shared, level))
        if outcome.result.get("allowed_errors"):
            stopped = failure["cell"] if outcome.status in FAILED and failure else None
            for use in program.uses:
                for index, cell_result in enumerate(outcome.result["cells"]):
                    if cell_result["status"] not in (ERROR, NEEDS_GPU) or index == stopped:
                        continue
                    errors = [o for o in cell_result["outputs"] if o["output_type"] == "error"]
                    what = f"{errors[0]['ename']}: {strip_ansi(errors[0]['evalue'])[:200]}" if errors else "error"
                    gpu = cell_result["status"] == NEEDS_GPU
                    code = Code.EXEC_NEEDS_GPU if gpu else Code.EXEC_ALLOWED_ERROR
                    message = f"{program.framework} cell {'needs a GPU' if gpu else 'raised'} (allowed): {what}"
                    out.append(Diagnostic.make(use.path, use.cells[index].line, code, message))
    for framework, outcomes in missing.items():
        first = outcomes[0]
        failure = first.result["failure"]
        use = first.program.uses[0]
        uses = sum(len(o.program.uses) for o in outcomes)
        message = (
            f"{framework} is not installed in kernel {first.program.kernel!r} (No module named "
            f"{failure.get('module', framework)!r}): its {len(outcomes)} program(s) ({uses} language uses) did not run"
        )
        out.append(Diagnostic.make(use.path, use.cells[failure["cell"]].line, Code.EXEC_NO_FRAMEWORK, message))
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
        ran = sum(1 for c in result["cells"] if c["status"] != NOT_RUN)
        status = _STATUS_TEXT.get(outcome.status, outcome.status)
        if outcome.status in FAILED:
            status = f"[red]{status}[/red]" if outcome.fatal else f"[yellow]{status}[/yellow]"
        elif result.get("allowed_errors"):
            status += f" ({result['allowed_errors']} allowed error(s))"
        table.add_row(
            f"{program.name}/{program.framework}",
            program.key[:8],
            ",".join(program.languages),
            f"{ran}/{len(result['cells'])}",
            f"{result.get('duration') or 0:.1f}s",
            outcome.source + (f" ({outcome.note})" if outcome.note else ""),
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
