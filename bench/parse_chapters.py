"""Parse time of a book: every chapter of every language (the bundled book by default).

Prints per-language and total wall time (best and median of N runs, a fresh parse each
time: the markdown-it parser is built once per process, as in a real build), the CPU time
of the same runs (what a shared machine does not blur) and the throughput in lines per second.

    .venv/bin/python bench/parse_chapters.py [--runs N] [--book FOLDER]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from polybook.config import load_config
from polybook.dialect import parse_file

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--book", type=Path, default=ROOT, help="a book's folder (its conf.py)")
    args = parser.parse_args()
    config = load_config(args.book / "conf.py")
    files = [(code, path) for code in config.languages for path in config.chapter_files(code)]
    lines = sum(path.read_text(encoding="utf-8").count("\n") for _, path in files)
    parse_file(files[0][1], config.languages[files[0][0]].settings)  # build the parser once

    per_lang: dict[str, list[float]] = {code: [] for code in config.languages}
    totals, cpu = [], []
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        for code, path in files:
            t0 = time.perf_counter()
            parse_file(path, config.languages[code].settings)
            per_lang[code].append(time.perf_counter() - t0)
        totals.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)

    print(f"files: {len(files)} ({len(config.languages)} languages), lines: {lines}, runs: {args.runs}")
    for code, samples in per_lang.items():
        n = len(samples) // args.runs
        print(f"  {code}: {n} file(s), median {statistics.median(samples) * n * 1e3:.2f} ms")
    best, median = min(totals), statistics.median(totals)
    print(f"all chapters: best {best * 1e3:.2f} ms, median {median * 1e3:.2f} ms, {lines / median:,.0f} lines/s")
    print(f"all chapters, CPU: best {min(cpu) * 1e3:.2f} ms, median {statistics.median(cpu) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
