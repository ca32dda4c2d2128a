"""What a change of how ``terms.*`` reads a book does, every use listed: each source use of a
glossary term (in every language with a glossary) as this tree finds it and as another tree does
(``--against SRC``), and whether the translation renders it; then one line per use that one tree
finds and the other not, or that one finds rendered and the other not, with the source's words
around it; then the ``terms.*`` findings that differ. What shows a rule changes only what it
should: every line read, not a sample.

    .venv/bin/python bench/terms_changes.py BOOK [BOOK...] --against OTHER/src

Each tree checks a copy of its own of each book (cold, nothing kept: its files linked, its build/
folder left out), in a process of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from terms_precision import watched_check  # the check, its term check watched

ROOT = Path(__file__).resolve().parent.parent


def capture(book: Path) -> dict[str, list]:
    """The book's term uses and ``terms.*`` findings (:func:`watched_check`)."""
    from polybook.check import terms
    from polybook.files import display_path

    uses: dict[tuple[str, str, int, str], tuple[bool, str]] = {}

    def watch(lang: str, where: str, alignment, glossary) -> None:
        for use in terms.term_uses(alignment, glossary, lang):
            uses.setdefault(
                (lang, where, use.line, use.term.source), (use.rendered, _around(use.source, use.term.source))
            )

    result = watched_check(book, watch)
    found = [
        [f.lang, str(f.code), display_path(Path(f.location.path)), f.location.line, f.message]
        for f in result.active
        if str(f.code).startswith("terms.") and f.location is not None
    ]
    return {"uses": [[*key, *value] for key, value in sorted(uses.items())], "findings": sorted(found)}


def _around(text: str, term: str) -> str:
    """The words around a term's first use in a source block: this script's own, not the check's
    (``terms.source_words``), for it also runs the polybook of a tree that has none."""
    found = re.search(r"(?i)(?<!\w)" + re.escape(term), text)
    start = found.start() if found else 0
    return "..." + " ".join(text[max(0, start - 80) : start + 80].split()) + "..."


def captured(src: Path, book: Path, scratch: Path) -> dict[str, list]:
    """:func:`capture` of a fresh copy of ``book`` by the polybook of ``src``."""
    copy = scratch / f"{book.name}-{abs(hash(str(src)))}"
    shutil.rmtree(copy, ignore_errors=True)
    # linked, not copied: the check writes only to build/, which is left out (a d2l book's figures
    # are some 300 MB a copy, four copies a run)
    shutil.copytree(book, copy, ignore=shutil.ignore_patterns("build"), copy_function=_linked)
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, __file__, "--capture", str(copy)], env=env, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def _linked(source: str, target: str) -> None:
    """A hard link of ``source`` at ``target`` (a copy on another file system)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def compare(mine: dict[str, list], theirs: dict[str, list]) -> list[str]:
    """One line per use or finding that differs (``+`` this tree's, ``-`` the other's)."""
    a = {tuple(u[:4]): u[4:] for u in theirs["uses"]}
    b = {tuple(u[:4]): u[4:] for u in mine["uses"]}
    lines = []
    for key in sorted(a.keys() | b.keys()):
        was, now = a.get(key), b.get(key)
        where = f"{key[0]} {key[1]}:{key[2]} {key[3]!r}"
        if was is None or now is None:
            said = "found" if was is None else "no longer found"
            lines.append(f"use {said}: {where} (rendered: {(now or was)[0]}) {(now or was)[1]}")
        elif was[0] != now[0]:
            lines.append(f"use {'rendered' if now[0] else 'not rendered'} now: {where} {now[1]}")
    old, new = {tuple(f) for f in theirs["findings"]}, {tuple(f) for f in mine["findings"]}
    lines += [f"- {f[0]} {f[1]} {f[2]}:{f[3]} {f[4]}" for f in sorted(old - new)]
    lines += [f"+ {f[0]} {f[1]} {f[2]}:{f[3]} {f[4]}" for f in sorted(new - old)]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("books", type=Path, nargs="+")
    parser.add_argument("--against", type=Path, help="The other polybook tree's src folder.")
    parser.add_argument("--capture", action="store_true", help=argparse.SUPPRESS)  # (one tree's run)
    args = parser.parse_args()
    if args.capture:
        print(json.dumps(capture(args.books[0].resolve())))
        return
    if args.against is None or not (args.against / "polybook").is_dir():
        parser.error("--against SRC is needed: a polybook tree's src folder")  # (else this tree runs twice)
    with tempfile.TemporaryDirectory() as tmp:
        for book in args.books:
            mine = captured(ROOT / "src", book.resolve(), Path(tmp))
            theirs = captured(args.against.resolve(), book.resolve(), Path(tmp))
            lines = compare(mine, theirs)
            print(f"{book}: {len(mine['uses']):,} uses, {len(mine['findings']):,} findings; {len(lines)} differ")
            print("\n".join(f"  {line}" for line in lines))


if __name__ == "__main__":
    main()
