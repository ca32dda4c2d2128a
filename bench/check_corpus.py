"""`polybook check` of a whole imported book as CI meets it: cold (a fresh clone has nothing in
build/) and with kept findings, through the command itself (Python's start included).

    .venv/bin/python bench/check_corpus.py BOOK [--runs 3]

BOOK is a book folder (its conf.py), for example the five d2l projects imported with
`polybook import d2lbook`. The book's build/.polybook/findings, models and bases (every
folder the check keeps) are removed before each cold run (nothing else of build/ is touched).
Prints the median of each, wall and CPU seconds (user + system of the command and the workers it
waited for: on a machine shared with other work, the wall seconds say little), and the findings.
Run it with ``PYTHONDONTWRITEBYTECODE`` unset, as an installed package runs: else every run
compiles polybook again.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

POLYBOOK = Path(sys.executable).with_name("polybook")


def _run(book: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one ``polybook check``, and its summary line."""
    before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run([str(POLYBOOK), "check"], cwd=book, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"polybook check failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds, _children_cpu() - before, done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def _children_cpu() -> float:
    """User and system seconds of every process this one waited for, theirs included."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _said(name: str, runs: list[tuple[float, float]]) -> str:
    walls, cpus = [wall for wall, _ in runs], [cpu for _, cpu in runs]
    return (
        f"  {name}: median {statistics.median(walls):.2f} s wall, {statistics.median(cpus):.2f} s CPU  "
        f"({', '.join(f'{wall:.2f}/{cpu:.2f}' for wall, cpu in runs)})"
    )


def _forget(book: Path) -> None:
    for kept in ("findings", "models", "bases"):
        shutil.rmtree(book / "build" / ".polybook" / kept, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cold: list[tuple[float, float]] = []
    kept: list[tuple[float, float]] = []
    summary = ""
    for _ in range(args.runs):
        _forget(args.book)
        wall, cpu, summary = _run(args.book)
        cold.append((wall, cpu))
        wall, cpu, _ = _run(args.book)
        kept.append((wall, cpu))
    print(f"book: {args.book}")
    print(f"  {summary}")
    print(_said("cold", cold))
    print(_said("kept", kept))
    print(f"  cold / kept: {statistics.median(w for w, _ in cold) / statistics.median(w for w, _ in kept):.1f}x")


if __name__ == "__main__":
    main()
