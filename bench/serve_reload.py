"""`polybook serve` as an author meets it: save a prose edit, and time until the open page shows it.

Copies BOOK (its chapters, conf.py and build/, so the served site starts from the last build)
to a temporary folder, starts ``polybook serve --no-eval`` there for one language, opens the
edited document's page in Debian's Chromium (Playwright; never a downloaded browser), then
RUNS times: append a marker sentence to the document's first paragraph, save, and wait until
the page in the browser has reloaded with the marker. Prints each figure, the median and its
ratio to the goal (1 s); nothing is asserted. The book itself is never edited.

    .venv/bin/python bench/serve_reload.py BOOK LANG DOCUMENT [--runs 5]

DOCUMENT is a document name (``chapter_preliminaries/ndarray``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL = 1.0
POLYBOOK = str(Path(sys.executable).with_name("polybook"))


def copy_book(book: Path, into: Path) -> Path:
    shutil.copytree(book / "chapters", into / "chapters")
    shutil.copy2(book / "conf.py", into / "conf.py")
    if (book / "build").is_dir():
        shutil.copytree(book / "build", into / "build", ignore=shutil.ignore_patterns("pdf"))
    subprocess.run(["git", "init", "-q"], cwd=into, check=True)
    return into


def edit(path: Path, marker: str) -> None:
    """The marker at the end of the document's first paragraph after its title."""
    text = path.read_text(encoding="utf-8")
    title = text.index("\n", text.index("# "))
    start = text.index("\n\n", title) + 2
    end = text.index("\n\n", start)
    path.write_text(text[:end] + f" {marker}" + text[end:], encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("lang")
    parser.add_argument("document")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--every-language", action="store_true", help="serve every language, not LANG alone")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("Debian's chromium is not installed (scripts/setup-html.sh)")
    with tempfile.TemporaryDirectory() as tmp:
        book = copy_book(args.book.resolve(), Path(tmp) / "book")
        command = [POLYBOOK, "--conf", str(book / "conf.py"), "serve", "--no-eval", "--port", "0"]
        command += [] if args.every_language else ["--lang", args.lang]
        print("$", " ".join(command), flush=True)
        started = time.monotonic()
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            print(f"serving {url} after {time.monotonic() - started:.1f} s (its first build)")
            figures = measure(url, book, args, chromium)
        finally:
            server.terminate()
            server.wait(timeout=30)
    median = statistics.median(figures)
    print(f"save -> page reloaded: {', '.join(f'{f:.2f}' for f in figures)} s; median {median:.2f} s")
    print(f"goal {GOAL:.1f} s: ratio {median / GOAL:.2f}")


def measure(url: str, book: Path, args: argparse.Namespace, chromium: str) -> list[float]:
    from playwright.sync_api import sync_playwright

    source = book / "chapters" / args.lang / f"{args.document}.md"
    figures = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--no-first-run"])
        page = browser.new_page()
        page.goto(f"{url}{args.lang}/{args.document}.html")
        time.sleep(2)  # the page's first question to the version endpoint
        for run in range(args.runs):
            marker = f"polybookmarker{run}x{int(time.time())}"
            saved = time.monotonic()
            edit(source, marker)
            figures.append(shown(page, marker, saved))
            print(f"  edit {run + 1}: {figures[-1]:.2f} s", flush=True)
            time.sleep(1)
        browser.close()
    return figures


def shown(page: object, marker: str, saved: float, timeout: float = 120.0) -> float:
    """Seconds from ``saved`` until the page holds ``marker`` (checked every 20 ms; a check
    that meets the page while it reloads is tried again)."""
    while time.monotonic() - saved < timeout:
        try:
            if marker in page.content():  # type: ignore[attr-defined]
                return time.monotonic() - saved
        except Exception:  # the page was navigating
            pass
        time.sleep(0.02)
    raise TimeoutError(f"the page did not show the edit within {timeout:.0f} s")


if __name__ == "__main__":
    main()
