"""`polybook check` on a real book, cold and kept, as a user meets it.

Cold: the build folder removed before each run, as a fresh clone has it; kept: the same command
again, nothing changed. Each run is a new process (Python's start and imports included); the
CPU seconds are the process's and its workers' (user + system), the wall seconds the command's.
Python's bytecode is written and read as an installed package's is (a folder of its own per
polybook tree, ``PYTHONDONTWRITEBYTECODE`` unset, written by a first run that is not counted).
With ``--against SRC`` a second polybook tree (say a worktree of the base commit) runs the same
commands in turn (which goes first alternating), on a copy of its own, and each figure is also
given as a ratio of the pairs (this tree / SRC): what a shared machine's changing speed does not blur.

    .venv/bin/python bench/check_speed.py BOOK [--runs 5] [--format text --format json]
        [--against OTHER/src] [-- EXTRA CHECK ARGS]
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


def _run(src: Path, book: Path, pycache: Path, args: list[str]) -> tuple[float, float]:
    """One ``polybook check`` in ``book`` with the polybook of ``src``: (CPU s, wall s)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(src), PYTHONPYCACHEPREFIX=str(pycache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = "from polybook.cli import run; run()"
    done = subprocess.run(
        [sys.executable, "-c", code, "check", *args], cwd=book, env=env, stdout=subprocess.DEVNULL, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"polybook check failed in {book} ({done.returncode})")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book", type=Path, help="a book's folder (its conf.py); copied, never written")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--format", dest="formats", action="append", choices=["text", "json", "sarif"])
    parser.add_argument("--against", type=Path, help="another polybook tree's src folder, run in turn")
    parser.add_argument("extra", nargs="*", help="more arguments for polybook check (after --)")
    args = parser.parse_args()
    trees = {"this": ROOT / "src", **({"against": args.against.resolve()} if args.against else {})}
    formats = args.formats or ["text"]
    figures: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="check-speed-") as tmp:
        books, caches = {}, {}
        for name in trees:
            books[name] = Path(tmp) / name / "book"
            shutil.copytree(args.book, books[name], ignore=shutil.ignore_patterns("build", ".git"))
            caches[name] = Path(tmp) / name / "pycache"
            _run(trees[name], books[name], caches[name], ["--format", formats[0], *args.extra])  # the bytecode written
        for run in range(args.runs):
            for fmt in formats:
                # in turn, which tree goes first alternating (the first of a pair ran a few % slower here)
                for name, src in list(trees.items())[:: -1 if run % 2 else 1]:
                    command = ["--format", fmt, *args.extra]
                    shutil.rmtree(books[name] / "build", ignore_errors=True)
                    figures.setdefault((name, fmt, "cold"), []).append(_run(src, books[name], caches[name], command))
                    figures.setdefault((name, fmt, "kept"), []).append(_run(src, books[name], caches[name], command))
    print(f"polybook check on {args.book} ({args.runs} runs each, {os.cpu_count()} cores)")
    print("tree     format  run   CPU s median (min-max)   wall s median (min-max)   vs against: CPU  wall")
    for (name, fmt, state), runs in figures.items():
        cpu, wall = [c for c, _ in runs], [w for _, w in runs]
        line = (
            f"{name:<8} {fmt:<7} {state:<5} {statistics.median(cpu):6.2f} ({min(cpu):.2f}-{max(cpu):.2f})"
            f"       {statistics.median(wall):6.2f} ({min(wall):.2f}-{max(wall):.2f})"
        )
        other = figures.get(("against", fmt, state))
        if name == "this" and other:
            ratios = [(c / oc, w / ow) for (c, w), (oc, ow) in zip(runs, other, strict=True)]
            cpu_ratio, wall_ratio = (statistics.median(r[i] for r in ratios) for i in (0, 1))
            line += f"        {cpu_ratio:.3f} {wall_ratio:.3f}"
        print(line)


if __name__ == "__main__":
    main()
