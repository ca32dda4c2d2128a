"""Publishing the bundled book, and `polybook serve`'s edit-to-reload latency.

Works on a clone of this repository (git history: the status page counts source commits)
with a copy of ``build/`` -- run `make site` first -- so the book itself is never edited:

1. `polybook build html --no-eval` once (the status page is built) and again (nothing to do);
2. `polybook publish --to` (and again, replacing the first site) and `--branch` to a bare repository;
3. `polybook serve`: a prose edit to the English chapter, time until the version endpoint
   moves (the page is rebuilt and open pages reload), and the same for a Japanese edit.

    .venv/bin/python bench/publish_serve.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from polybook.site.serve import wait_for_version

ROOT = Path(__file__).resolve().parent.parent
POLYBOOK = str(Path(sys.executable).with_name("polybook"))


def run(book: Path, *args: str) -> float:
    started = time.monotonic()
    subprocess.run([POLYBOOK, "--conf", str(book / "conf.py"), *args], check=True, capture_output=True)
    return time.monotonic() - started


def size(folder: Path) -> tuple[int, float]:
    found = [p for p in folder.rglob("*") if p.is_file()]
    return len(found), sum(p.stat().st_size for p in found) / 1e6


def serve_latency(book: Path, chapter: Path, old: str, new: str) -> float:
    log = (book / "serve.log").open("w")
    command = [POLYBOOK, "--conf", str(book / "conf.py"), "serve", "--port", "0", "--no-eval"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        url = server.stdout.readline().strip()
        text = chapter.read_text(encoding="utf-8")
        started = time.monotonic()
        chapter.write_text(text.replace(old, new, 1), encoding="utf-8")
        wait_for_version(url, 0, timeout=300)
        return time.monotonic() - started
    finally:
        server.terminate()
        server.wait()
        log.close()


def main() -> None:
    if not (ROOT / "build" / "html" / "index.html").is_file():
        sys.exit("no build/html: run `make site` first")
    with tempfile.TemporaryDirectory(prefix="polybook-bench-") as tmp:
        book = Path(tmp) / "book"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(book)], check=True)
        shutil.copytree(ROOT / "build", book / "build", ignore=shutil.ignore_patterns(".sphinx", ".pdf"))
        print(f"build html (status page added): {run(book, 'build', 'html', '--no-eval'):.1f}s")
        print(f"build html (nothing changed):   {run(book, 'build', 'html', '--no-eval'):.1f}s")
        site = Path(tmp) / "site"
        print(f"publish --to (new folder):      {run(book, 'publish', '--to', str(site)):.2f}s")
        replaced = run(book, "publish", "--to", str(site))
        files, mb = size(site)
        print(f"publish --to (replace):         {replaced:.2f}s ({files} files, {mb:.1f} MB)")
        bare = Path(tmp) / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
        branch = ("publish", "--branch", "gh-pages", "--remote", str(bare))
        print(f"publish --branch (first):       {run(book, *branch):.2f}s")
        print(f"publish --branch (unchanged):   {run(book, *branch):.2f}s")
        chapters = book / "chapters"
        en = serve_latency(book, chapters / "en" / "async-computation.md", "Asynchronous", "Asynchronous (edited)")
        print(f"serve: en prose edit -> page reloadable: {en:.1f}s")
        ja = serve_latency(book, chapters / "ja" / "async-computation.md", "\n\n", "\n\n編集。\n\n")
        print(f"serve: ja prose edit -> page reloadable: {ja:.1f}s")


if __name__ == "__main__":
    main()
