"""Stop ``polybook build html``, ``build eval`` and ``build pdf`` at seeded points, build again,
and compare with a cold build: how many of the builds after a stopped one equal the cold one.

A scenario per command, on a copy of the book:

* html -- the site built, then a title, a section and a new word in the source and a title in every
  translation (what every page's sidebar and the search index show); ``build html --no-eval``
  stopped, run again, and the site compared with the edited book's built from nothing: every file
  of ``build/html`` byte for byte (pages with their navigation, ``searchindex.js``), the stamps
  aside;
* eval -- nothing evaluated yet; ``build eval`` stopped, run again, and ``build/eval`` compared
  with a cold evaluation's (numbers masked: the programs time themselves);
* pdf -- the PDFs built, then the same edit; ``build pdf`` stopped, run again, and each PDF's text
  (``pdftotext``), page count and stamp compared with a cold build's.

Each point stops the build either after a seeded random delay (within the time the run takes) --
SIGKILL or SIGINT to its process group (a CI cancel, Ctrl-C), or SIGKILL to its first process
alone (an out-of-memory kill), the next build started at once -- or, html, at the k-th page Sphinx
writes (:mod:`polybook.faults`, a seeded k and signal).

    .venv/bin/python bench/fault_kill.py BOOK_FOLDER [-n 50] [--seed 1] [--commands html:60,eval:10,pdf]

Exits 1 when a build after a stopped one differs from the cold one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

COMMANDS = ("html", "eval", "pdf")
#: To the build's process group (Ctrl-C, a CI cancel); ``-alone``: to its first process only (an
#: out-of-memory kill), the next build started at once.
SIGNALS = ("SIGKILL", "SIGINT", "SIGKILL-alone")
#: Seconds a stopped build's processes get to end before they are killed.
GRACE = 30.0


@dataclass(slots=True)
class Point:
    """One stop: after ``delay`` seconds, or at the ``page``-th page Sphinx writes."""

    command: str
    signal: str
    delay: float | None = None
    page: int | None = None

    def __str__(self) -> str:
        where = f"after {self.delay:.2f}s" if self.delay is not None else f"at page {self.page}"
        return f"{self.command} {self.signal} {where}"


@dataclass(slots=True)
class Outcome:
    point: Point
    stopped: bool  # the build was still running when it was stopped
    differences: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.differences


def polybook(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-c", "from polybook.cli import main; main()", "--conf", str(root / "conf.py"), *args]


def environment(**more: str) -> dict[str, str]:
    """This process's environment, with the polybook it imports first on the path (the builds run
    in the book's copy, where a relative ``PYTHONPATH`` names nothing)."""
    import polybook as package

    env = dict(os.environ, **more)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(package.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    return env


ARGS = {"html": ("build", "html", "--no-eval"), "eval": ("build", "eval"), "pdf": ("build", "pdf")}


def run(root: Path, command: str, extra: tuple[str, ...] = ()) -> float:
    """``command`` to its end; its seconds."""
    started = time.monotonic()
    subprocess.run(
        polybook(root, *ARGS[command], *extra), cwd=root, env=environment(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, timeout=1800, start_new_session=True,
    )  # fmt: skip
    return time.monotonic() - started


def stopped_run(root: Path, command: str, point: Point, extra: tuple[str, ...] = ()) -> tuple[bool, int]:
    """``command`` stopped at ``point``, its process group gone when it returns (but after a kill of
    its first process alone); whether it was still running when stopped, and the group."""
    env = environment(POLYBOOK_FAULT=f"page:{point.page}:{point.signal}") if point.page is not None else environment()
    process = subprocess.Popen(
        polybook(root, *ARGS[command], *extra), cwd=root, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    group = process.pid
    running = True
    if point.delay is not None:
        try:
            process.wait(timeout=point.delay)
            running = False
        except subprocess.TimeoutExpired:
            name, _, alone = point.signal.partition("-")
            with contextlib.suppress(ProcessLookupError):
                (os.kill if alone else os.killpg)(group, getattr(signal, name))
    try:
        process.wait(timeout=GRACE if point.delay is not None else 1800)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        process.wait()
    if point.page is not None:
        running = process.returncode != 0  # the hook stopped it (a build with fewer pages ends well)
    if not point.signal.endswith("-alone"):
        _end_group(group, root)
    return running, group


def _end_group(group: int, root: Path) -> None:
    """Wait for what is left of the stopped build's process group (the Sphinx workers, the fork
    server), then kill it; and the kernels it started, which run in sessions of their own: the
    processes whose command line names this copy of the book."""
    deadline = time.monotonic() + GRACE
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
    for pid in _processes_naming(root):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _processes_naming(root: Path) -> list[int]:
    mine, found = str(root), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if mine in cmdline or cwd == mine or cwd.startswith(mine + os.sep):
            found.append(int(entry.name))
    return found


# -- the book -------------------------------------------------------------------------------------


def copy_book(book: Path, dest: Path) -> Path:
    """conf.py, the chapters, the bibliography and the frozen results of ``book`` into ``dest``,
    and stored results (``build/eval``, or the ``eval/`` folder of a test fixture) when it has them."""
    from polybook.config import load_config

    config = load_config(book / "conf.py")
    dest.mkdir(parents=True)
    shutil.copy2(config.path, dest / "conf.py")
    wanted = [config.chapters_dir, *(book / p for p in config.sphinx.get("bibtex_bibfiles") or [])]
    wanted.append(config.execution.frozen_dir)
    for source in wanted:
        if source.exists():
            target = dest / source.relative_to(book)
            target.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    return dest


def store_results(book: Path, dest: Path) -> None:
    """The stored results of ``book`` (``build/eval``; a fixture's ``eval/``) into ``dest``'s build."""
    for source in (book / "build" / "eval", book / "eval"):
        if source.is_dir():
            shutil.copytree(source, dest / "build" / "eval", dirs_exist_ok=True)
            return


def edit(root: Path) -> None:
    """What every page shows changed: the first chapter's title in every language; in the source,
    a section with a new word in its last chapter."""
    from polybook.config import load_config

    config = load_config(root / "conf.py")
    for lang in config.languages:
        chapters = sorted(p for p in (config.chapters_dir / lang).glob("*.md") if p.stem != "index")
        if not chapters:
            continue
        first = chapters[0]
        text = first.read_text(encoding="utf-8")
        first.write_text(re.sub(r"^(# .+)$", r"\1 Retitled", text, count=1, flags=re.M), encoding="utf-8")
        if lang == config.source_language:
            last = chapters[-1]
            added = "\n## A Section Added\n\nQuixotically zebrawords arrive.\n"
            last.write_text(last.read_text(encoding="utf-8") + added, encoding="utf-8")


# -- comparing ------------------------------------------------------------------------------------


def compare_html(built: Path, cold: Path) -> list[str]:
    """The files of ``build/html`` that differ (stamps aside)."""
    return _compare_files(built / "build" / "html", cold / "build" / "html", lambda path, data: data)


_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e-?\d+)?")
#: What differs from run to run in a stored result: when and how long it ran, and whether this
#: evaluation ran a program or found it in the cache (one a stopped evaluation ran and stored).
_RUN_FIELDS = {"date", "duration", "seconds", "source"}


def compare_eval(built: Path, cold: Path) -> list[str]:
    """The stored results that differ, their numbers masked (the programs time themselves)."""
    return _compare_files(built / "build" / "eval", cold / "build" / "eval", lambda path, data: _result(data))


def _result(data: bytes) -> bytes:
    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in _RUN_FIELDS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    try:
        text = json.dumps(strip(json.loads(data)), sort_keys=True)
    except ValueError:
        text = data.decode("utf-8", "replace")
    return _NUMBER.sub("N", text).encode()


def compare_pdf(built: Path, cold: Path) -> list[str]:
    """The PDFs whose text or page count differ, or that have a stamp in only one of the builds
    (its digest names the copy's files: not compared)."""
    out: list[str] = []
    mine, theirs = built / "build" / "pdf", cold / "build" / "pdf"
    names = sorted({p.relative_to(top) for top in (mine, theirs) for p in top.rglob("*.pdf")})
    for name in names:
        a, b = mine / name, theirs / name
        if not a.is_file() or not b.is_file():
            out.append(f"{name}: only in {'the cold build' if b.is_file() else 'the rebuilt one'}")
            continue
        if _pdf_text(a) != _pdf_text(b):
            out.append(f"{name}: its text")
        stamps = [_stamp(p) for p in (a, b)]
        if stamps[0] != stamps[1]:
            out.append(f"{name}: its stamp ({stamps[0]} vs {stamps[1]})")
    return out


def _stamp(pdf: Path) -> tuple[bool, object]:
    try:
        data = json.loads(pdf.with_name(f".{pdf.name}.digest").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return (False, None)
    return (True, data.get("pages"))


def _pdf_text(pdf: Path) -> str:
    done = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=False)
    return done.stdout


def _compare_files(mine: Path, theirs: Path, normal: Callable[[Path, bytes], bytes]) -> list[str]:
    def files(top: Path) -> set[Path]:
        if not top.is_dir():
            return set()
        return {p.relative_to(top) for p in top.rglob("*") if p.is_file() and not p.name.startswith(".")}

    out = []
    for name in sorted(files(mine) | files(theirs)):
        a, b = mine / name, theirs / name
        if not a.is_file() or not b.is_file():
            out.append(f"{name}: only in {'the cold build' if b.is_file() else 'the rebuilt one'}")
        elif normal(name, a.read_bytes()) != normal(name, b.read_bytes()):
            out.append(f"{name}: differs")
    return out


COMPARE = {"html": compare_html, "eval": compare_eval, "pdf": compare_pdf}


# -- the scenarios ------------------------------------------------------------------------------------


class Scenario:
    """One command's starting point (``base``), its cold result (``cold``), and how long an
    uninterrupted run from the starting point takes (the range of the random delays)."""

    def __init__(self, book: Path, work: Path, command: str, extra: tuple[str, ...] = ()) -> None:
        self.command, self.extra, self.work = command, extra, work
        self.base = copy_book(book, work / f"{command}-base")
        self.cold = copy_book(book, work / f"{command}-cold")
        if command == "eval":  # nothing evaluated yet; the environments the book has made, shared
            for root in (self.base, self.cold):
                _share_environments(book, root)
            self.seconds = run(self.cold, "eval", extra)
            return
        for root in (self.base, self.cold):
            store_results(book, root)
        run(self.base, command, extra)  # the book built before the edit
        edit(self.cold)
        self.seconds = run(self.cold, command, extra)
        # an uninterrupted incremental run, for the range of the delays
        probe = self.copy_base(work / f"{command}-probe")
        self.seconds = run(probe, command, extra)
        shutil.rmtree(probe)

    def copy_base(self, dest: Path) -> Path:
        shutil.copytree(self.base, dest, symlinks=True)
        if self.command != "eval":
            edit(dest)
        return dest

    def point(self, rng: random.Random, index: int, pages: int) -> Point:
        """The ``index``-th point: html's odd ones at a page; the others after a delay in one fifth
        of the run's time, the fifths in turn from the middle one (a few points spread over it)."""
        sig = rng.choice(SIGNALS)
        if self.command == "html" and index % 2 == 1:  # the hook stops the group
            return Point("html", rng.choice(SIGNALS[:2]), page=rng.randint(1, pages))
        fifth = ((index // 2 if self.command == "html" else index) * 3 + 2) % 5
        return Point(self.command, sig, delay=rng.uniform(fifth, fifth + 1) / 5 * self.seconds)

    def attempt(self, point: Point, index: int) -> Outcome:
        root = self.copy_base(self.work / f"{self.command}-{index}")
        try:
            stopped, group = stopped_run(root, self.command, point, self.extra)
            run(root, self.command, self.extra)
            _end_group(group, root)  # what a kill of the first process alone left
            return Outcome(point, stopped, COMPARE[self.command](root, self.cold))
        finally:
            shutil.rmtree(root, ignore_errors=True)


def _share_environments(book: Path, root: Path) -> None:
    """The frameworks' environments ``book`` has made (``build/envs``), linked into ``root``'s
    build: made once (minutes, gigabytes), and no part of what is compared."""
    envs = book / "build" / "envs"
    if envs.is_dir():
        (root / "build").mkdir(exist_ok=True)
        (root / "build" / "envs").symlink_to(envs.resolve())


def pages_of(root: Path) -> int:
    """Pages a language's Sphinx writes (the most of any language; its 404 page is polybook's): the
    range of ``page`` points."""
    html = root / "build" / "html"
    return max((len(list(folder.glob("*.html"))) - 1 for folder in html.iterdir() if folder.is_dir()), default=1)


def kill_points(
    book: Path, counts: dict[str, int], seed: int, say: Callable[[str], None] = print
) -> dict[str, list[Outcome]]:
    """``counts[command]`` seeded points per command on copies of ``book``; the outcomes per command."""
    rng = random.Random(seed)
    out: dict[str, list[Outcome]] = {}
    with tempfile.TemporaryDirectory(prefix="polybook-fault-") as tmp:
        work = Path(tmp)
        for command, count in counts.items():
            extra = _extra(book, command)
            scenario = Scenario(book, work, command, extra)
            pages = pages_of(scenario.cold) if command == "html" else 0
            say(f"{command}: an uninterrupted run takes {scenario.seconds:.1f}s")
            out[command] = []
            for index in range(count):
                outcome = scenario.attempt(scenario.point(rng, index, pages), index)
                out[command].append(outcome)
                verdict = "equal" if outcome.equal else "DIFFERS: " + "; ".join(outcome.differences[:5])
                say(f"  {outcome.point} ({'stopped' if outcome.stopped else 'had ended'}): {verdict}")
    return out


def _extra(book: Path, command: str) -> tuple[str, ...]:
    """``build pdf``: the source language's first framework only (LaTeX is slow)."""
    if command != "pdf":
        return ()
    from polybook.config import load_config

    config = load_config(book / "conf.py")
    lang = config.source_language
    return ("--lang", lang, "--framework", config.languages[lang].frameworks[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", type=Path, help="the book's folder (its conf.py)")
    parser.add_argument("-n", "--points", type=int, default=50, help="kill points per command")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commands", default="html,eval,pdf", help="which, each with its own count: html:60,eval:10")
    args = parser.parse_args()
    counts = {}
    for item in filter(None, args.commands.split(",")):
        command, _, count = item.partition(":")
        counts[command] = int(count or args.points)
    outcomes = kill_points(args.book.resolve(), counts, args.seed)
    print("command  points  stopped  equal to cold")
    for command, done in outcomes.items():
        print(f"{command:<8} {len(done):>6}  {sum(o.stopped for o in done):>7}  {sum(o.equal for o in done):>13}")
    return 0 if all(o.equal for done in outcomes.values() for o in done) else 1


if __name__ == "__main__":
    sys.exit(main())
