"""`polybook check` of a whole imported book as CI meets it: cold (a fresh clone has nothing in
build/) and with kept findings, through the command itself (Python's start included).

    .venv/bin/python bench/check_corpus.py BOOK [--runs 3] [--format text --format json]
        [--against OTHER/src]

BOOK is a book folder (its conf.py), for example the five d2l projects imported with
`polybook import d2lbook`; it is copied, never written. Cold: the copy's build folder removed
before the run; kept: the same command again, nothing changed. Prints, per format, the median
(min-max) of the wall and CPU seconds (user + system of the command and the workers it waited
for: on a machine shared with other work, the wall seconds say little) and the summary line.
Python's bytecode is written and read as an installed package's is (a folder of its own per
polybook tree, ``PYTHONDONTWRITEBYTECODE`` unset, written by a first run that is not counted).
With ``--against SRC`` a second polybook tree (say a worktree of the base commit) runs the same
commands in turn (which goes first alternating: the first of a pair ran a few % slower here), on
a copy of its own, and each figure is also given as the median ratio of the pairs (this tree /
SRC): what a shared machine's changing speed does not blur.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

Run = tuple[float, float]  # wall and CPU seconds


def _run(src: Path, book: Path, pycache: Path, args: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one ``polybook check`` in ``book`` with the polybook of ``src``,
    and its summary line (of the text report)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(src), PYTHONPYCACHEPREFIX=str(pycache))
    before = _children_cpu()
    started = time.perf_counter()
    command = [sys.executable, "-c", "from polybook.cli import run; run()", "check", *args]
    done = subprocess.run(command, cwd=book, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"polybook check failed ({done.returncode}):\n{done.stderr[-2000:]}")
    lines = done.stdout.strip().splitlines()
    return seconds, _children_cpu() - before, lines[-1] if lines and not lines[-1].startswith("}") else ""


def _children_cpu() -> float:
    """User and system seconds of every process this one waited for, theirs included."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _said(runs: list[Run], against: list[Run] | None) -> str:
    walls, cpus = [wall for wall, _ in runs], [cpu for _, cpu in runs]
    out = (
        f"median {statistics.median(walls):.2f} s wall ({min(walls):.2f}-{max(walls):.2f}), "
        f"{statistics.median(cpus):.2f} s CPU ({min(cpus):.2f}-{max(cpus):.2f})"
    )
    if against:
        wall = statistics.median(w / ow for (w, _), (ow, _) in zip(runs, against, strict=True))
        cpu = statistics.median(c / oc for (_, c), (_, oc) in zip(runs, against, strict=True))
        out += f"; against: x{wall:.3f} wall, x{cpu:.3f} CPU"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--format", dest="formats", action="append", choices=["text", "json", "sarif", "github"])
    parser.add_argument("--against", type=Path, help="another polybook tree's src folder, run in turn")
    args = parser.parse_args()
    trees = {"this": ROOT / "src", **({"against": args.against.resolve()} if args.against else {})}
    formats = args.formats or ["text"]
    runs: dict[tuple[str, str, str], list[Run]] = {}
    summary = ""
    with tempfile.TemporaryDirectory(prefix="check-corpus-") as tmp:
        books = {name: Path(tmp) / name / "book" for name in trees}
        caches = {name: Path(tmp) / name / "pycache" for name in trees}
        for name, src in trees.items():
            shutil.copytree(args.book, books[name], ignore=shutil.ignore_patterns("build", ".git"))
            _run(src, books[name], caches[name], [])  # the bytecode written
        for run in range(args.runs):
            for fmt in formats:
                for name, src in list(trees.items())[:: -1 if run % 2 else 1]:
                    command = ["--format", fmt]
                    shutil.rmtree(books[name] / "build", ignore_errors=True)
                    wall, cpu, said = _run(src, books[name], caches[name], command)
                    runs.setdefault((name, fmt, "cold"), []).append((wall, cpu))
                    summary = said if name == "this" and said else summary
                    wall, cpu, _ = _run(src, books[name], caches[name], command)
                    runs.setdefault((name, fmt, "kept"), []).append((wall, cpu))
    print(f"book: {args.book} ({args.runs} runs, {os.cpu_count()} cores)")
    print(f"  {summary}")
    for (name, fmt, state), found in runs.items():
        against = runs.get(("against", fmt, state)) if name == "this" else None
        print(f"  {name} {fmt} {state}: {_said(found, against)}")
    for name in trees:
        for fmt in formats:
            cold, kept = runs[name, fmt, "cold"], runs[name, fmt, "kept"]
            ratio = statistics.median(w for w, _ in cold) / statistics.median(w for w, _ in kept)
            print(f"  {name} {fmt} cold / kept: {ratio:.1f}x")


if __name__ == "__main__":
    main()
