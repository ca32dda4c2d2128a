"""``polybook port`` on a real book: each translation carried to the source as it is now.

For a book whose translations follow an older edition (for example d2l-en v1.0.3 with the 0.17
translations and ``polybook import d2lbook ~/d2l-en-0.17.6 --lang en --as-base``), a copy of the
book is made for each language (its build/ left out: cold, as a fresh clone), then ``polybook port
LANG --write`` and ``polybook check --lang LANG`` run as subprocesses, the way a user runs them.
Printed per language: the port's seconds, wall and CPU (user + system: on a machine other work
shares, the wall time is not the port's alone), and the ratio to the 10 s goal; the lines a dry
run (``polybook port LANG``, on a second cold copy) and ``--stat`` print; what it kept, marked
stale or untranslated and kept aside; the references to labels the source dropped it lists; the
ported translation's findings by level and the codes of its errors and warnings, and how many
files a second port would change. Nothing is asserted; the book is never changed.

    .venv/bin/python bench/port_corpus.py BOOK_DIR [--lang ja ...] [--force]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

GOAL = 10.0
POLYBOOK = [str(Path(sys.executable).parent / "polybook")]  # the venv's command, as a user runs it


def run(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run([*POLYBOOK, *args], cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def printed(book: Path, lang: str, force: bool) -> None:
    """The lines a dry run prints, on a cold copy, and with ``--stat``."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "book"
        shutil.copytree(book, copy, ignore=shutil.ignore_patterns("build"))
        extra = ["--force"] if force else []
        cpu = cpu_of_children()
        seconds, dry = run(["port", lang, *extra], copy)
        cpu = cpu_of_children() - cpu
        _, stat = run(["port", lang, "--stat", *extra], copy)
        dropped = next((line for line in dry.stdout.splitlines() if line.startswith("references to labels")), "")
        print(f"  dry run (cold): {seconds:.1f} s wall, {cpu:.1f} s CPU; prints {dry.stdout.count(chr(10)):,} lines")
        print(f"  with --stat: {stat.stdout.count(chr(10)):,} lines; {dropped or 'no reference to a dropped label'}")


def languages(book: Path) -> list[str]:
    done = subprocess.run(
        [*POLYBOOK, "check", "--format", "json", "--chapter", "index"], cwd=book, capture_output=True, text=True
    )
    try:
        return list(json.loads(done.stdout)["languages"])
    except (ValueError, KeyError):
        sys.exit(f"cannot read the book's languages: {done.stderr.strip()[-500:]}")


def port_one(book: Path, lang: str, force: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "book"
        shutil.copytree(book, copy, ignore=shutil.ignore_patterns("build"))
        load = os.getloadavg()[0]
        cpu = cpu_of_children()
        seconds, done = run(["port", lang, "--write", *(["--force"] if force else [])], copy)
        cpu = cpu_of_children() - cpu
        summary = done.stdout.splitlines()[0] if done.stdout.strip() else done.stderr.strip()[-500:]
        print(
            f"{lang}: port --write {seconds:.1f} s wall ({seconds / GOAL:.2f} of the {GOAL:.0f} s goal), {cpu:.1f} s "
            f"CPU ({cpu / GOAL:.2f}), load average {load:.1f} on {os.cpu_count()} cores, exit {done.returncode}"
        )
        print(f"  {summary}")
        if done.returncode != 0:
            return
        printed(book, lang, force)
        check_seconds, checked = run(["check", "--lang", lang, "--format", "json"], copy)
        found = json.loads(checked.stdout)["findings"]
        mine = [f for f in found if f["lang"] == lang and not f["suppressed"]]
        levels = Counter(f["level"] for f in mine)
        loud = Counter(f["code"] for f in mine if f["level"] in ("error", "warning"))
        print(f"  check after the port: {check_seconds:.1f} s; {dict(levels)}")
        print(f"  its errors and warnings by code: {dict(loud.most_common(12))}")
        _, again = run(["port", lang, *(["--force"] if force else [])], copy)  # a dry run: what it would change
        print(f"  a second port would change {again.stdout.count('diff --polybook ')} files (0: it is done)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--lang", action="append", help="only these translations (default: all)")
    parser.add_argument("--force", action="store_true", help="port despite parse errors (pt has some)")
    args = parser.parse_args()
    for lang in args.lang or languages(args.book):
        port_one(args.book.resolve(), lang, args.force)


if __name__ == "__main__":
    main()
