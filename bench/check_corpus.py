"""`polybook check` of a whole imported book as CI meets it: cold (a fresh clone has nothing in
build/) and with kept findings, through the command itself (Python's start included).

    .venv/bin/python bench/check_corpus.py BOOK [--runs 3]

BOOK is a book folder (its conf.py), for example the five d2l projects imported with
`polybook import d2lbook`. The book's build/.polybook/findings, models and bases (every
folder the check keeps) are removed before each cold run (nothing else of build/ is touched).
Prints the median of each, and the findings.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

POLYBOOK = Path(sys.executable).with_name("polybook")


def _run(book: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([str(POLYBOOK), "check"], cwd=book, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"polybook check failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds, done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def _forget(book: Path) -> None:
    for kept in ("findings", "models", "bases"):
        shutil.rmtree(book / "build" / ".polybook" / kept, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cold, kept = [], []
    summary = ""
    for _ in range(args.runs):
        _forget(args.book)
        seconds, summary = _run(args.book)
        cold.append(seconds)
        kept.append(_run(args.book)[0])
    print(f"book: {args.book}")
    print(f"  {summary}")
    print(f"  cold: median {statistics.median(cold):.2f} s  ({', '.join(f'{s:.2f}' for s in cold)})")
    print(f"  kept: median {statistics.median(kept):.2f} s  ({', '.join(f'{s:.2f}' for s in kept)})")
    print(f"  cold / kept: {statistics.median(cold) / statistics.median(kept):.1f}x")


if __name__ == "__main__":
    main()
