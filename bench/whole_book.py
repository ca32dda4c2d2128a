"""A whole book through polybook: check, eval, cold/no-op/edited HTML, memory, one PDF.

Runs on any book folder whose conf.py is in BOOK_DIR (a book from bench/generate_book.py,
or an imported d2l book). Every step is a ``polybook`` subprocess, printed with its command:

a. ``polybook check`` of the whole book: seconds, findings by code;
b. ``build eval`` to fill the execution cache (its own time and kernel runs), then a cold
   ``build html`` of every language (build/html, build/.sphinx and build/.polybook deleted;
   build/cache and build/eval kept): seconds, pages, where the time went (html-report.json's timings);
c. ``build html`` with nothing changed;
d. one section's prose edited in one translation, ``build html``: seconds and the languages
   rebuilt (only that one should be); then the edit is undone and the site rebuilt;
e. peak memory of each command: the largest process's max RSS (``os.wait4``, or the process
   tree sampled every 0.1 s: the Sphinx workers come from a fork server nobody waits for) and
   the peak of the RSS summed over the process tree;
f. with ``--pdf ja/mxnet``: that PDF cold (its work folder and the figure cache deleted)
   and unchanged: seconds, pages;
g. with ``--serve DOCUMENT``: ``polybook serve`` as an author meets it -- a prose edit of DOCUMENT
   in the edited translation saved, timed until the page open in Chromium shows it
   (``bench/serve_reload.py``) -- and beside it sphinx-autobuild on the same staged language
   (``bench/autobuild_reload.py``, when ``make bench-setup`` installed it).

Ratios are printed against the goals; nothing is asserted. The book's files are left as
they were (build/ is rebuilt). --runs R repeats the timed steps and prints medians. CPU seconds
and the load average are printed beside wall time: on a shared machine they tell how much of
the wall time was waiting for other work.

    .venv/bin/python bench/whole_book.py BOOK_DIR [--runs R] [--pdf LANG/FRAMEWORK] [--edit-lang ja]

An edit of polybook's renderer rebuilds every language (it is part of the build's digest): to
measure while src/ is being edited, run a snapshot, which the subprocesses inherit::

    git archive HEAD src | tar -x -C /tmp/snap && PYTHONPATH=/tmp/snap/src .venv/bin/python bench/whole_book.py ...
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

import polybook
from polybook.book import load_book
from polybook.config import BookConfig, load_config
from polybook.dialect.nodes import Paragraph

POLYBOOK = str(Path(sys.executable).with_name("polybook"))
BENCH = Path(__file__).resolve().parent
GIB = 1024**3
#: step -> its goal in seconds (wall clock).
GOALS = {
    "check": 3.0,
    "html cold": 60.0,
    "html no-op": 2.0,
    "html prose edit": 2.0,
    "serve reload": 1.0,
    "pdf cold": 240.0,
}
MEMORY_GOAL = 4 * GIB
EDIT_MARKER = " polybook-bench-edit"


@dataclass(slots=True)
class Run:
    """One polybook command: wall time, memory, exit status, where its output went."""

    command: list[str]
    seconds: float
    max_rss: int  # bytes: the largest single process of the tree (wait4's ru_maxrss, or sampled)
    tree_rss: int  # bytes: peak of the RSS summed over the process tree (sampled)
    returncode: int
    log: Path
    cpu: float = 0.0  # user + system seconds of the command's process tree (TreeSamples, or wait4's)
    load: float = 0.0  # the machine's 1-minute load average when it ended (other work slows it)


@dataclass(slots=True)
class Step:
    """A named step and its runs (several with --runs)."""

    name: str
    runs: list[Run] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return statistics.median(r.seconds for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs)

    @property
    def max_rss(self) -> int:
        return max(r.max_rss for r in self.runs)

    @property
    def tree_rss(self) -> int:
        return max(r.tree_rss for r in self.runs)


def tree_processes(pid: int) -> list[psutil.Process]:
    """``pid`` and its descendants (none when it is gone)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


@dataclass(slots=True)
class TreeSamples:
    """What sampling a command's process tree saw: the peak of the RSS summed over the tree,
    and each process's largest RSS and latest CPU time (the Sphinx workers are forked by
    multiprocessing's fork server, which the command does not wait for: wait4 misses them)."""

    peak: int = 0
    rss: dict[int, int] = field(default_factory=dict)  # pid -> largest RSS seen
    cpu: dict[int, float] = field(default_factory=dict)  # pid -> user + system at its last sample

    def sample(self, pid: int) -> None:
        total = 0
        for process in tree_processes(pid):
            try:
                with process.oneshot():
                    rss = process.memory_info().rss
                    times = process.cpu_times()
            except psutil.Error:
                continue
            total += rss
            self.rss[process.pid] = max(self.rss.get(process.pid, 0), rss)
            self.cpu[process.pid] = times.user + times.system
        self.peak = max(self.peak, total)


def run(book: Path, args: list[str], logs: Path) -> Run:
    """``polybook --conf BOOK/conf.py ARGS`` in BOOK; output to a log file, not the terminal."""
    command = [POLYBOOK, "--conf", str(book / "conf.py"), *args]
    log = logs / f"{len(list(logs.iterdir())):02d}-{'-'.join(a.strip('-') for a in args[:3])}.log"
    samples = TreeSamples()
    done = threading.Event()
    with log.open("wb") as out:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=book, stdin=subprocess.DEVNULL, stdout=out, stderr=out)

        def sample() -> None:
            while not done.wait(0.1):
                samples.sample(process.pid)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        # wait4, not Popen.wait: it also returns the rusage of the command and what it reaped.
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
    cpu = max(usage.ru_utime + usage.ru_stime, sum(samples.cpu.values()))
    max_rss = max(usage.ru_maxrss * 1024, *samples.rss.values(), 0)
    load = os.getloadavg()[0]
    return Run(command, seconds, max_rss, samples.peak, process.returncode, log, cpu, load)


def shown(command: list[str]) -> str:
    if command[0] == sys.executable:  # a benchmark of bench/ run as its own process
        return "python " + shlex.join([Path(command[1]).relative_to(BENCH.parent).as_posix(), *command[2:]])
    return "polybook " + shlex.join(command[1:])


def read_json(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return {}


def html_summary(config: BookConfig) -> dict[str, Any]:
    """What build/html-report.json says about the last build."""
    report = read_json(config.build_dir / "html-report.json")
    languages = report.get("languages", [])
    levels: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    for entry in languages:
        for diagnostic in entry.get("diagnostics", []):
            levels[diagnostic["level"]] += 1
            codes[str(diagnostic["code"])] += 1
    for diagnostic in report.get("diagnostics", []):
        levels[diagnostic["level"]] += 1
        codes[str(diagnostic["code"])] += 1
    return {
        "pages": sum(entry.get("pages", 0) for entry in languages),
        "built": [entry["language"] for entry in languages if entry.get("sphinx") == "built"],
        "failed": [entry["language"] for entry in languages if entry.get("sphinx") == "failed"],
        "sphinx": {entry["language"]: entry.get("seconds", 0.0) for entry in languages},
        "kernel_runs": report.get("kernel_runs"),
        "timings": report.get("timings", {}),
        "levels": dict(levels),
        "codes": codes,
    }


def html_files(config: BookConfig) -> dict[str, int]:
    """HTML files per language folder of the site (the chooser and 404 pages aside)."""
    outdir = config.build_dir / "html"
    return {code: sum(1 for _ in (outdir / code).rglob("*.html")) for code in config.languages}


def edit_target(config: BookConfig, language: str) -> tuple[Path, int]:
    """A section in the middle of ``language``'s reading order and the last line of its
    first paragraph: where the prose edit goes."""
    book = load_book(config, [language])
    order = [name for name in book.tocs[language].order if name in book.chapters[language]] or list(
        book.chapters[language]
    )
    sections = [name for name in order if not name.endswith("index")] or order
    for name in sections[len(sections) // 2 :] + sections[: len(sections) // 2]:
        doc = book.chapters[language][name]
        paragraph = next((node for node in doc.nodes if isinstance(node, Paragraph)), None)
        if paragraph is not None:
            return config.document_path(language, name), paragraph.end_line
    raise SystemExit(f"no document of {language} has a paragraph to edit")


def edited(text: str, line: int, run: int) -> str:
    """``text`` with a word appended to ``line`` (another word on every run)."""
    lines = text.split("\n")
    lines[line - 1] = lines[line - 1].rstrip() + EDIT_MARKER + (f"-{run}" if run else "")
    return "\n".join(lines)


def cold_html(config: BookConfig) -> None:
    """Forget the site, Sphinx's state and the parsed documents kept in build/.polybook, as a fresh
    clone has none of them; keep the execution cache and results (the issue's "outputs from the cache")."""
    for folder in ("html", ".sphinx", ".polybook"):
        shutil.rmtree(config.build_dir / folder, ignore_errors=True)


def gib(size: int) -> str:
    return f"{size / GIB:.2f}"


def print_table(steps: list[Step]) -> None:
    print()
    header = (
        f"{'step':18} {'seconds':>8} {'CPU s':>7} {'load':>5} {'goal':>5} {'ratio':>6} "
        f"{'max RSS GiB':>11} {'tree GiB':>8} {'mem ratio':>9}"
    )
    print(header)
    print("-" * len(header))
    for step in steps:
        goal = GOALS.get(step.name)
        ratio = f"{step.seconds / goal:6.2f}" if goal else f"{'':6}"
        goal_text = f"{goal:5.0f}" if goal else f"{'':5}"
        memory = max(step.max_rss, step.tree_rss) / MEMORY_GOAL
        load = max(r.load for r in step.runs)
        print(
            f"{step.name:18} {step.seconds:8.2f} {step.cpu:7.1f} {load:5.1f} {goal_text} {ratio} "
            f"{gib(step.max_rss):>11} {gib(step.tree_rss):>8} {memory:9.2f}"
        )
    print(
        f"(ratio = wall seconds / goal, <= 1 meets it. CPU s: user + system over the command's process "
        f"tree. load: 1-minute load average at the end, {os.cpu_count()} cores -- above that, "
        "other work shared the machine. Memory goal 4 GiB; mem ratio on the larger of the max RSS "
        "of one process and the summed RSS of the process tree)"
    )


def report_run(step: Step, extra: str = "") -> None:
    last = step.runs[-1]
    times = ", ".join(f"{r.seconds:.2f}" for r in step.runs)
    status = "" if last.returncode == 0 else f"  exit {last.returncode}"
    print(f"\n[{step.name}] $ {shown(last.command)}")
    memory = f"max RSS {gib(step.max_rss)} GiB, tree {gib(step.tree_rss)} GiB"
    loads = ", ".join(f"{r.load:.1f}" for r in step.runs)
    print(f"  {step.seconds:.2f} s (runs: {times}); CPU {step.cpu:.1f} s; {memory}; load average {loads}{status}")
    for note in step.notes:
        print(f"  {note}")
    if extra:
        print(f"  {extra}")
    if last.returncode:
        tail = last.log.read_text(encoding="utf-8", errors="replace").splitlines()[-12:]
        print("  last lines of its output:\n    " + "\n    ".join(tail))


def check_step(book: Path, config: BookConfig, runs: int, logs: Path) -> Step:
    step = Step("check")
    output = logs / "check.json"
    for _ in range(runs):
        step.runs.append(run(book, ["check", "--format", "json", "--output", str(output)], logs))
    data = read_json(output)
    codes = Counter(str(f.get("code")) for f in data.get("findings", []))
    levels = data.get("summary", {})
    step.notes.append(
        f"{data.get('chapters', '?')} documents x {len(data.get('languages', []))} translations; findings "
        f"{levels.get('error', 0)} errors, {levels.get('warning', 0)} warnings, {levels.get('info', 0)} info"
        + (f"; by code: {dict(codes.most_common())}" if codes else "")
    )
    return step


def eval_step(book: Path, config: BookConfig, logs: Path) -> Step:
    step = Step("eval (cache fill)")
    step.runs.append(run(book, ["build", "eval"], logs))
    summary = read_json(config.build_dir / "eval-report.json").get("summary", {})
    step.notes.append(
        f"{summary.get('programs', '?')} programs for {summary.get('language_programs', '?')} (language, document, "
        f"framework): {summary.get('kernel_runs', '?')} kernel runs, {summary.get('cache_hits', '?')} cached; "
        f"statuses {summary.get('statuses', {})}"
    )
    return step


def html_notes(step: Step, config: BookConfig) -> None:
    summary = html_summary(config)
    files = html_files(config)
    step.notes.append(
        f"pages staged {summary['pages']} ({sum(files.values())} HTML files: "
        f"{', '.join(f'{c} {n}' for c, n in files.items())}); rebuilt: {', '.join(summary['built']) or 'none'}"
        + (f"; failed: {', '.join(summary['failed'])}" if summary["failed"] else "")
        + f"; kernel runs {summary['kernel_runs']}"
    )
    timings = summary["timings"]
    step.notes.append("timings: " + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()))
    sphinx = {code: seconds for code, seconds in summary["sphinx"].items() if seconds}
    if sphinx:
        step.notes.append("Sphinx per language: " + ", ".join(f"{c} {s:.1f} s" for c, s in sphinx.items()))
    codes = summary["codes"]
    step.notes.append(
        f"diagnostics: {summary['levels'] or 'none'}" + (f"; by code: {dict(codes.most_common(8))}" if codes else "")
    )


def html_step(name: str, book: Path, config: BookConfig, runs: int, logs: Path, html_args: list[str]) -> Step:
    step = Step(name)
    for _ in range(runs):
        if name == "html cold":
            cold_html(config)
        step.runs.append(run(book, ["build", "html", *html_args], logs))
    html_notes(step, config)
    return step


def edit_step(book: Path, config: BookConfig, language: str, runs: int, logs: Path, html_args: list[str]) -> Step:
    """Edit one section's prose in ``language``, rebuild, undo the edit (before returning)."""
    step = Step("html prose edit")
    path, line = edit_target(config, language)
    original = path.read_bytes()
    stat = path.stat()
    rebuilt: list[str] = []
    try:
        for index in range(runs):
            text = original.decode("utf-8")
            path.write_text(edited(text, line, index), encoding="utf-8")
            step.runs.append(run(book, ["build", "html", *html_args], logs))
            rebuilt = html_summary(config)["built"]
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    step.notes.append(f"edited {path.relative_to(book)}:{line} (appended{EDIT_MARKER!r} to a paragraph)")
    html_notes(step, config)
    verdict = "only it, as it must be" if rebuilt == [language] else f"expected only {language}"
    step.notes.append(f"rebuilt languages: {', '.join(rebuilt) or 'none'} ({verdict})")
    return step


def pdf_steps(book: Path, config: BookConfig, spec: str, runs: int, logs: Path) -> list[Step]:
    from polybook.pdf.build import pdf_targets

    language, _, framework = spec.partition("/")
    targets = pdf_targets(config, [language], [framework])
    if len(targets) != 1:
        raise SystemExit(f"--pdf {spec}: no such language/framework PDF in {config.path}")
    target = targets[0]
    args = ["build", "pdf", "--lang", language, "--framework", framework]
    cold, unchanged = Step("pdf cold"), Step("pdf unchanged")
    for _ in range(runs):
        shutil.rmtree(target.workdir, ignore_errors=True)
        shutil.rmtree(config.build_dir / ".pdf" / "figures", ignore_errors=True)
        target.pdf.unlink(missing_ok=True)
        target.stamp.unlink(missing_ok=True)
        cold.runs.append(run(book, args, logs))
    for _ in range(runs):
        unchanged.runs.append(run(book, args, logs))
    stamp = read_json(target.stamp)
    size = target.pdf.stat().st_size / 1e6 if target.pdf.is_file() else 0.0
    cold.notes.append(f"{target.pdf.relative_to(book)}: {stamp.get('pages', '?')} pages, {size:.1f} MB")
    return [cold, unchanged]


def reload_step(name: str, script: str, book: Path, language: str, document: str, runs: int, logs: Path) -> Step:
    """A save -> page reloaded benchmark of bench/ run as its own process: one Run per figure it prints."""
    step = Step(name)
    log = logs / f"{script}.log"
    command = [sys.executable, str(BENCH / f"{script}.py"), str(book), language, document, "--runs", str(max(runs, 3))]
    if script == "serve_reload":
        command.append("--every-language")  # the whole book served, as an author serves it
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=BENCH, check=False)
    text = log.read_text(encoding="utf-8", errors="replace")
    figures = [float(f) for f in re.findall(r"^  edit \d+: ([\d.]+) s$", text, re.M)]
    load = os.getloadavg()[0]
    for seconds in figures or [float("nan")]:
        step.runs.append(Run(command, seconds, 0, 0, done.returncode, log, load=load))
    step.notes += [line for line in text.splitlines() if line.startswith(("serving", "staged"))]
    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book", type=Path, help="folder holding the book's conf.py")
    parser.add_argument("--runs", type=int, default=1, help="repetitions of each timed step (median printed)")
    parser.add_argument("--pdf", metavar="LANG/FRAMEWORK", help="also build this PDF cold and unchanged")
    parser.add_argument("--edit-lang", help="translation whose prose is edited (default: the first translation)")
    parser.add_argument("--no-eval", action="store_true", help="run no code: build html --no-eval on build/eval")
    parser.add_argument("--serve", metavar="DOCUMENT", help="also time polybook serve (and sphinx-autobuild) on it")
    args = parser.parse_args()
    book = args.book.resolve()
    config = load_config(book / "conf.py")
    language = args.edit_lang or (config.translations or [config.source_language])[0]
    html_args = ["--no-eval"] if args.no_eval else []
    documents = {code: len(config.document_names(code)) for code in config.languages}
    print(f"book {book}: {', '.join(f'{c} {n}' for c, n in documents.items())} documents; {os.cpu_count()} cores")
    print(f"polybook {Path(polybook.__file__).parent}")
    with tempfile.TemporaryDirectory(prefix="polybook-whole-book-") as tmp:
        logs = Path(tmp)
        steps = [check_step(book, config, args.runs, logs)]
        report_run(steps[-1])
        if not args.no_eval:
            steps.append(eval_step(book, config, logs))
            report_run(steps[-1])
        for name in ("html cold", "html no-op"):
            steps.append(html_step(name, book, config, args.runs, logs, html_args))
            report_run(steps[-1])
        steps.append(edit_step(book, config, language, args.runs, logs, html_args))
        report_run(steps[-1])
        steps.append(html_step("html edit undone", book, config, 1, logs, html_args))
        report_run(steps[-1])
        if args.pdf:
            for step in pdf_steps(book, config, args.pdf, args.runs, logs):
                steps.append(step)
                report_run(step)
        if args.serve:
            steps.append(reload_step("serve reload", "serve_reload", book, language, args.serve, args.runs, logs))
            report_run(steps[-1])
            if shutil.which("sphinx-autobuild", path=str(Path(sys.executable).parent)):
                step = reload_step("autobuild reload", "autobuild_reload", book, language, args.serve, args.runs, logs)
                steps.append(step)
                report_run(step)
        print_table(steps)
        failed = [s.name for s in steps if any(r.returncode for r in s.runs)]
        if failed:
            print(f"non-zero exit: {', '.join(failed)} (the end of each output is printed above)")


if __name__ == "__main__":
    main()
