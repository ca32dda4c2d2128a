"""A book's raw HTML through polybook's finder and allow-list: how much there is, what cleaning
changes of it as a reader would see it, and how long it takes.

    .venv/bin/python bench/raw_html.py FOLDER_OR_GIT_DIR... [--rev master] [--file static/frontpage/frontpage.html]

Each argument is a folder of Markdown chapters, or a git directory read at ``--rev`` (the d2l
repositories, for instance). Per book: the pieces :func:`polybook.dialect.raw_html.raw_html`
finds (READMEs apart), how many have active parts, how many cleaning changes -- compared as a
browser reads them: the same tags, attributes and text, comments and whitespace aside -- and the
time to clean each document's pieces together. ``--file`` also cleans one HTML file of the book
(d2l's front page) and lists what it loses. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import html.parser
import subprocess
import time
from collections import Counter
from pathlib import Path

from polybook.dialect import parse_text
from polybook.dialect.raw_html import active_parts, clean, clean_pieces, raw_html


class _Events(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[object, ...]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.events.append(("<", tag, tuple(sorted((k, (v or "").strip()) for k, v in attrs))))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag: str) -> None:
        self.events.append((">", tag))

    def handle_data(self, data: str) -> None:
        if text := " ".join(data.split()):
            self.events.append(("t", text))


def events(fragment: str) -> list[tuple[object, ...]]:
    reader = _Events()
    reader.feed(fragment)
    reader.close()
    return reader.events


def _files(book: str, rev: str) -> dict[str, str]:
    path = Path(book)
    if (path / "HEAD").is_file() and (path / "objects").is_dir():  # a git directory
        names = subprocess.run(["git", "-C", book, "ls-tree", "-r", "--name-only", rev], capture_output=True, text=True)
        wanted = [name for name in names.stdout.split("\n") if name.endswith(".md")]
        show = lambda name: subprocess.run(["git", "-C", book, "show", f"{rev}:{name}"], capture_output=True, text=True)  # noqa: E731
        return {name: show(name).stdout for name in wanted}
    return {p.relative_to(path).as_posix(): p.read_text(encoding="utf-8") for p in sorted(path.rglob("*.md"))}


def _read(book: str, rev: str, name: str) -> str:
    path = Path(book)
    if (path / "HEAD").is_file():
        return subprocess.run(["git", "-C", book, "show", f"{rev}:{name}"], capture_output=True, text=True).stdout
    return (path / name).read_text(encoding="utf-8") if (path / name).is_file() else ""


def measure(book: str, rev: str, extra: str | None) -> None:
    pieces: Counter[str] = Counter()
    changed: list[str] = []
    active = 0
    seconds = 0.0
    files = _files(book, rev)
    for name, text in files.items():
        found = raw_html(parse_text(text, name))
        where = "readme" if name.endswith("README.md") else "chapter"
        pieces.update(f"{where} {piece.kind}" for piece in found)
        started = time.perf_counter()
        cleaned = clean_pieces([piece.html for piece in found])
        seconds += time.perf_counter() - started
        for piece, after in zip(found, cleaned, strict=True):
            active += bool(active_parts(piece.html))
            if events(piece.html) != events(after):
                changed.append(f"{name}:{piece.line}: {piece.html[:50]!r} -> {after[:50]!r}")
    print(f"{book}: {len(files)} Markdown files, pieces {dict(pieces)}, {active} with active parts")
    print(f"  changed as a browser reads them: {len(changed)}; cleaning {seconds * 1000:.1f} ms in all")
    for line in changed[:10]:
        print(f"    {line}")
    if extra and (page := _read(book, rev, extra)):
        started = time.perf_counter()
        after = clean(page)
        took = time.perf_counter() - started
        lost = Counter(e[1] for e in events(page) if e[0] == "<") - Counter(e[1] for e in events(after) if e[0] == "<")
        names = Counter(k for e in events(page) if e[0] == "<" for k, _ in e[2])  # type: ignore[misc]
        names.subtract(k for e in events(after) if e[0] == "<" for k, _ in e[2])  # type: ignore[misc]
        parts = len(active_parts(page))
        print(f"  {extra}: {len(page)} characters, {parts} active parts, cleaned in {took * 1000:.1f} ms")
        print(f"    tags lost {dict(lost)}; attributes lost {dict(+names)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("books", nargs="+")
    parser.add_argument("--rev", default="master")
    parser.add_argument("--file", default=None)
    args = parser.parse_args()
    for book in args.books:
        measure(book, args.rev, args.file)


if __name__ == "__main__":
    main()
