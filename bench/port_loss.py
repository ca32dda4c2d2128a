"""``polybook port`` loses nothing: every translated line and every cell of a language's own
frameworks is in a file of the book after the port.

For each language, on a copy of the book (its build/ left out; the book must be committed, as
a port asks): the translated lines of its files before the port -- :mod:`polybook.sync.translated`
says what is translation (a line holding a letter outside ASCII, or a word no known line holds;
in code, in its comment or strings); the known lines here are the whole source book, the held
edition and the language's ``X_origin.md`` -- and its cells and text tabs of frameworks the
source does not have (zh's paddle); then ``polybook port LANG --write`` as a user runs it
(timed); then where each is: a translated line is found when its words (whitespace, ``#`` and
list marks, the names in references, links' targets and the ``-- >`` a mark writes for ``-->``
aside) are in a file of the language or its archive (``editions/LANG-*``); an own cell when its
code is in a document of the language outside asides (the site), in an aside, or in the
archive. Printed: lines before, lost (goal 0, the first few shown), own cells and the tab lists
naming their frameworks before and after, where they are, only in git history (goal 0); the
port's seconds; how many files a second port would change (committed first; goal 0).
Nothing is asserted; the book is never changed.

    .venv/bin/python bench/port_loss.py BOOK_DIR LANG... [--keep DIR] [--show N] [--force]
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from polybook.config import load_config
from polybook.sync.translated import known, translated_lines

POLYBOOK = [str(Path(sys.executable).parent / "polybook")]
_ROLE = re.compile(r":(numref|ref|eqref|cite|citet|label):`[^`]*`")
_LINK = re.compile(r"\]\([^)]*")
_CELL = re.compile(r"^```\{\.python \.input[^}]*\}\n(.*?)^```", re.M | re.S)
_TAB = re.compile(r"^\s*(?:#@tab|%%tab)\s+(.*)$")
_BEGIN = re.compile(r"^:begin_tab:`([^`]*)`", re.M)
_ASIDE = re.compile(r"^<!-- polybook:aside\n.*?^-->", re.M | re.S)


def norm(text: str) -> str:
    """A line as looked for: references' names, links' and images' targets (the source's now),
    marks' escapes, markup and all whitespace aside."""
    text = re.sub(r"\s+", "", text.replace("-- >", "-->"))
    text = _LINK.sub("](", _ROLE.sub(r":\1:", text))
    return re.sub(r"[#*>`-]+", "", text)


def _found(line: str, lines: set[str], whole: str) -> bool:
    """Whether a line is in the text after the port: whole, or in two parts split at one of its
    spaces (a heading that swallowed its paragraph, split, may have a mark between them)."""
    if norm(line) in lines or norm(line) in whole:
        return True
    cuts = [k for k, c in enumerate(line) if c.isspace()]
    return any(norm(line[:k]) in whole and norm(line[k:]) in whole for k in cuts if norm(line[:k]) and norm(line[k:]))


def texts(folder: Path, suffixes: tuple[str, ...] = (".md", ".py", ".bib")) -> dict[Path, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in suffixes and not path.name.endswith("_origin.md"):
            out[path] = path.read_text(encoding="utf-8", errors="replace")
    return out


def own_cells(text: str, own: set[str]) -> list[str]:
    """The code of each cell whose tab names only ``own`` frameworks, and of each text tab so."""
    out = []
    for found in _CELL.finditer(text):
        first, _, rest = found[1].partition("\n")
        tab = _TAB.match(first)
        names = {n.strip() for n in tab[1].split(",")} if tab else set()
        if names and names <= own:
            out.append(rest.strip())
    for found in _BEGIN.finditer(text):
        names = {n.strip() for n in found[1].split(",")}
        if names <= own:
            end = text.find(":end_tab:", found.end())
            out.append(text[found.end() : end if end >= 0 else None].strip())
    return out


def own_names(text: str, own: set[str]) -> int:
    """How many tab lists (cells' and text tabs') name an own framework."""
    lists = [m[1] for line in text.split("\n") if (m := _TAB.match(line))] + _BEGIN.findall(text)
    return sum(1 for spec in lists if own & {n.strip() for n in spec.split(",")})


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(book: Path, lang: str, show: int, keep: Path | None, forced: bool) -> None:
    config = load_config(book / "conf.py")
    source_lang = config.source_language
    own = set(config.languages[lang].frameworks) - set(config.languages[source_lang].frameworks)
    base = config.languages[lang].base
    folders = [config.chapters_dir / source_lang]
    folders += [config.root / "editions" / f"{source_lang}-{base}"] if base else []
    origins = (config.chapters_dir / lang).rglob("*_origin.md")  # the bases d2lbook kept beside a translation
    found = known([
        *(text for folder in folders for text in texts(folder, (".md", ".py")).values()),
        *(path.read_text(encoding="utf-8") for path in origins),
    ])  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        copy = (keep or Path(tmp)) / f"{lang}-book"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(book, copy, ignore=shutil.ignore_patterns("build"))
        mine = copy / config.chapters_dir.relative_to(config.root) / lang
        before = texts(mine)
        lines = [(path, line) for path, text in before.items() for line in translated_lines(text, found)]
        cells = [(path, cell) for path, text in before.items() if path.suffix == ".md" for cell in own_cells(text, own)]
        names_before = sum(own_names(text, own) for text in before.values())
        force = ["--force"] if forced else []
        started, cpu = time.perf_counter(), _children_cpu()
        done = subprocess.run([*POLYBOOK, "port", lang, "--write", *force], cwd=copy, capture_output=True, text=True)
        seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
        print(f"{lang}: port {seconds:.1f} s ({cpu:.1f} CPU-s: the machine's load aside), exit {done.returncode}")
        print(f"  {done.stderr.strip().splitlines()[-1:]}")
        if done.returncode:
            print(done.stderr[-2000:])
            return
        site = texts(mine)
        archive = {p: t for folder in (copy / "editions").glob(f"{lang}-*") for p, t in texts(folder).items()}
        after = {norm(line) for text in [*site.values(), *archive.values()] for line in text.split("\n")}
        whole = norm("\n".join([*site.values(), *archive.values()]))
        lost = [(p, line) for p, line in lines if not _found(line, after, whole)]
        print(f"  translated lines before: {len(lines):,}; lost: {len(lost):,}")
        for path, line in lost[:show]:
            print(f"    {path.relative_to(copy)}: {line.strip()[:110]}")
        pages = "\n".join(t for p, t in site.items() if p.suffix == ".md")
        on_site = _ASIDE.sub("", pages)
        in_archive = "\n".join(archive.values())
        where = {"site": 0, "aside": 0, "archive": 0, "history only": 0}
        for path, cell in cells:
            places = (("site", on_site), ("aside", pages), ("archive", in_archive))
            key = next((name for name, text in places if cell in text), "history only")
            where[key] += 1
            if key == "history only" and where[key] <= show:
                print(f"    own cell only in history: {path.relative_to(copy)}: {cell[:80]!r}")
        names_after = sum(own_names(_ASIDE.sub("", t), own) for t in site.values())
        print(f"  own frameworks {sorted(own)}: {len(cells):,} cells and tabs before; {where}; "
              f"tab lists naming them {names_before:,} before, {names_after:,} after")  # fmt: skip
        git = ["git", "-c", "user.email=port@bench", "-c", "user.name=bench"]
        subprocess.run(["git", "add", "-A"], cwd=copy, check=True, capture_output=True)
        subprocess.run([*git, "commit", "-qm", "ported"], cwd=copy, check=True, capture_output=True)
        again = subprocess.run([*POLYBOOK, "port", lang, *force], cwd=copy, capture_output=True, text=True)
        print(f"  a second port would change {again.stdout.count('diff --polybook ')} files (goal 0)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("langs", nargs="+")
    parser.add_argument("--show", type=int, default=10, help="how many lost lines to show")
    parser.add_argument("--keep", type=Path, help="port in this folder and keep the copies")
    parser.add_argument("--force", action="store_true", help="port despite parse errors (pt has some)")
    args = parser.parse_args()
    for lang in args.langs:
        measure(args.book.resolve(), lang, args.show, args.keep, args.force)


if __name__ == "__main__":
    main()
