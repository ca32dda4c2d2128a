"""Execution of the bundled book: kernel runs, cold and warm wall time, overhead over bare scripts.

Prints
* kernel runs vs (language, framework) programs: what sharing across languages saves;
* cold eval wall time (empty cache, no frozen results) with -j 1 and with -j N (default: cores);
* warm wall time (everything cached);
* bare run time: the same programs as plain ``python`` scripts, one after the other, in the
  same folders (a cell that raises stops the script, as it stops the kernel), and the
  ratio cold eval (-j 1) / bare (goal <= 1.3).

    .venv/bin/python bench/eval_book.py [--runs N]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from polybook.book import load_book
from polybook.config import load_config
from polybook.execute.environment import kernel_python
from polybook.execute.envs import env_spec
from polybook.execute.evaluate import EvalOptions, evaluate, plan
from polybook.execute.report import build_report

ROOT = Path(__file__).resolve().parent.parent


def bare_script(sources: list[str]) -> str:
    """The cells as one script: IPython magics and shell escapes dropped."""
    lines = [ln for src in sources for ln in src.split("\n") if not ln.lstrip().startswith(("%", "!"))]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="cold/bare repetitions (median reported)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    base = load_config(ROOT / "conf.py")
    programs = plan(load_book(base))

    def run(cache: Path, jobs: int) -> tuple[float, dict]:
        execution = dataclasses.replace(base.execution, cache_dir=cache, frozen_dir=cache / "no-frozen")
        config = dataclasses.replace(base, build_dir=cache.parent, execution=execution)
        t0 = time.perf_counter()
        evaluation = evaluate(load_book(config), EvalOptions(jobs=jobs))
        return time.perf_counter() - t0, build_report(evaluation)

    cold1, coldn, warm, bare = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="polybook-bench-") as tmp:
        for i in range(args.runs):
            seconds, report = run(Path(tmp) / f"c1-{i}" / "cache", 1)
            cold1.append(seconds)
            coldn.append(run(Path(tmp) / f"cn-{i}" / "cache", args.jobs)[0])
            warm.append(run(Path(tmp) / f"c1-{i}" / "cache", 1)[0])
            t0 = time.perf_counter()
            for program in programs:
                script = Path(tmp) / f"{program.key}.py"
                script.write_text(bare_script(program.sources), encoding="utf-8")
                env = {**os.environ, "MPLBACKEND": "Agg"}
                # an environment's Python (its kernel spec is in the build folder), else the kernel's
                own = program.environment
                exe = str(env_spec(base.execution, *own).executable) if own else kernel_python(program.kernel)
                subprocess.run([exe, str(script)], cwd=program.cwd, env=env, capture_output=True, check=False)
            bare.append(time.perf_counter() - t0)
    summary = report["summary"]
    med = statistics.median
    print(
        f"programs: {summary['language_programs']} (language, chapter, framework) over {summary['languages']} "
        f"languages x {summary['frameworks']} frameworks -> {summary['kernel_runs']} kernel runs "
        f"({', '.join(f'{n} {s}' for s, n in sorted(summary['statuses'].items()))})"
    )
    print(f"cold eval -j 1:  median {med(cold1):.2f} s  (runs: {', '.join(f'{s:.2f}' for s in cold1)})")
    print(f"cold eval -j {args.jobs}:  median {med(coldn):.2f} s")
    print(f"warm (all cached): median {med(warm) * 1e3:.0f} ms")
    print(f"bare scripts, sequential: median {med(bare):.2f} s")
    print(f"cold eval (-j 1) / bare = {med(cold1) / med(bare):.2f}  (goal <= 1.3)")
    print(f"cold eval (-j {args.jobs}) / bare = {med(coldn) / med(bare):.2f}")


if __name__ == "__main__":
    main()
