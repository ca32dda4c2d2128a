"""sphinx-autobuild beside ``polybook serve``: the same saved prose edit, timed until the open page shows it.

The side-by-side the author's loop is measured against (issue 22): sphinx-autobuild serving one
language's Sphinx project as polybook stages it -- the same MyST pages, the same Sphinx settings --
with a prose edit saved into the staged page it rebuilds. What sphinx-autobuild gives is Sphinx's
own incremental build of the whole project plus its reload; polybook's figure comes from
``bench/serve_reload.py`` with the same arguments.

Steps: copy BOOK to a temporary folder; ``polybook build html --no-eval --lang LANG`` there,
keeping the staged source and the settings polybook hands Sphinx (captured from the build's
Sphinx job); write a conf.py that is the book's plus those settings; start sphinx-autobuild on the
staged source (``--port 0``: a free one); open the document's page in Debian's Chromium
(Playwright; never a downloaded browser); then RUNS times: append a marker to the document's first
paragraph in the staged page, save, and wait until the page shows it. Prints each figure and the
median; nothing is asserted.

    .venv/bin/python bench/autobuild_reload.py BOOK LANG DOCUMENT [--runs 5]

Needs sphinx-autobuild, which polybook does not depend on: ``make bench-setup``.
"""

from __future__ import annotations

import argparse
import pickle
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from serve_reload import GOAL, copy_book, edit, shown

CONF = """\
# The book's conf.py, then the settings polybook gives Sphinx for one language (bench only).
import pickle

exec(compile(open({book_conf!r}, encoding="utf-8").read(), {book_conf!r}, "exec"))
globals().update(pickle.load(open({overrides!r}, "rb")))
"""


def staged_job(book: Path, lang: str) -> Any:
    """Build ``lang`` of ``book`` and return the Sphinx job polybook ran (its source folder and
    settings), captured in this process as the build hands it to its workers."""
    from polybook.config import load_config
    from polybook.site.build import HtmlOptions, build_html
    from polybook.stage import workers

    jobs = []
    submit = workers.SphinxWorkers.submit

    def capture(self: Any, function: Any, job: Any) -> Any:
        jobs.append(job)
        return submit(self, function, job)

    workers.SphinxWorkers.submit = capture  # type: ignore[method-assign]
    try:
        config = load_config(book / "conf.py")
        build_html(config, HtmlOptions(languages=[lang], evaluate=False))
    finally:
        workers.SphinxWorkers.submit = submit  # type: ignore[method-assign]
    if not jobs:
        sys.exit(f"polybook ran no Sphinx for {lang}: is it a language of the book?")
    return jobs[-1]


def autobuild_conf(job: Any, book: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    overrides = into / "overrides.pickle"
    overrides.write_bytes(pickle.dumps(dict(job.overrides)))
    (into / "conf.py").write_text(CONF.format(book_conf=str(book / "conf.py"), overrides=str(overrides)), "utf-8")
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("lang")
    parser.add_argument("document")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    autobuild = shutil.which("sphinx-autobuild", path=str(Path(sys.executable).parent))
    if chromium is None or autobuild is None:
        sys.exit("needs Debian's chromium (scripts/setup-html.sh) and sphinx-autobuild (make bench-setup)")
    with tempfile.TemporaryDirectory() as tmp:
        book = copy_book(args.book.resolve(), Path(tmp) / "book")
        started = time.monotonic()
        job = staged_job(book, args.lang)
        print(f"staged {args.lang} with polybook in {time.monotonic() - started:.1f} s: {job.srcdir}")
        confdir = autobuild_conf(job, book, Path(tmp) / "autobuild-conf")
        out = Path(tmp) / "autobuild-html"
        command = [autobuild, job.srcdir, str(out), "-c", str(confdir), "--port", "0", "-q"]
        command += ["-d", str(Path(tmp) / "autobuild-doctrees")]
        print("$", " ".join(command), flush=True)
        started = time.monotonic()
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            url = served_url(server)
            print(f"serving {url} after {time.monotonic() - started:.1f} s (its first build)")
            figures = measure(url, Path(job.srcdir), args, chromium)
        finally:
            server.terminate()
            server.wait(timeout=30)
    median = statistics.median(figures)
    print(f"sphinx-autobuild, save -> page reloaded: {', '.join(f'{f:.2f}' for f in figures)} s; median {median:.2f} s")
    print(f"goal {GOAL:.1f} s: ratio {median / GOAL:.2f}")


def served_url(server: subprocess.Popen[str], timeout: float = 900.0) -> str:
    """The address sphinx-autobuild says it serves on (after its first build)."""
    assert server.stdout is not None
    deadline = time.monotonic() + timeout
    for line in server.stdout:
        found = re.search(r"Serving on (http://[\w.:]+)", re.sub(r"\x1b\[[0-9;]*m", "", line))
        if found:
            return found.group(1).rstrip("/") + "/"
        if time.monotonic() > deadline:
            break
    sys.exit("sphinx-autobuild did not say where it serves")


def measure(url: str, srcdir: Path, args: argparse.Namespace, chromium: str) -> list[float]:
    from playwright.sync_api import sync_playwright

    source = srcdir / f"{args.document}.md"
    figures = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--no-first-run"])
        page = browser.new_page()
        page.goto(f"{url}{args.document}.html")
        time.sleep(2)  # the page's websocket to sphinx-autobuild opens
        for run in range(args.runs):
            marker = f"autobuildmarker{run}x{int(time.time())}"
            saved = time.monotonic()
            edit(source, marker)
            figures.append(shown(page, marker, saved, timeout=600.0))
            print(f"  edit {run + 1}: {figures[-1]:.2f} s", flush=True)
            time.sleep(1)
        browser.close()
    return figures


if __name__ == "__main__":
    main()
