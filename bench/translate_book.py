"""What ``polybook translate`` does to a ported book, per language, cold, with ``bench/mt_echo.py``
as the engine: blocks and words drafted, the share the book's own translations give, the check
before and after (findings at the drafts' lines by family: the goal is no code, math, number or
reference finding in any draft), a second run (the goal: nothing sent), the refusals by reason
with an engine that loses a token (``mt_echo.py --drop``), and the time of the whole language with
the engine's own answering time taken out.

    bench/translate_book.py BOOK [--langs ja zh]

BOOK is a git repository of a ported book (``polybook port LANG --write`` committed): each
language starts from its committed chapters with no ``build/`` folder, and is left drafted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
POLYBOOK = [str(Path(sys.executable).parent / "polybook")]  # the venv's, beside its python
ECHO = f"{sys.executable} {HERE / 'mt_echo.py'}"
SUMMARY = re.compile(
    r"translate \w+: ([\d,]+) blocks drafted \(([\d,]+) words\) in (\d+) documents; ([\d,]+) from the book's own "
    r"translations, ([\d,]+) from kept answers, ([\d,]+) sent(?: \(the engine answered in ([\d.]+) s\))?; "
    r"([\d,]+) refused"
)
REFUSED = re.compile(r"^(\S+):(\d+): refused: (.*)$", re.M)
GUARDED = ("code", "math", "numbers", "ref")


def run(book: Path, *args: str) -> tuple[str, float, float]:
    """polybook's output (both streams), its wall seconds and the CPU seconds of it and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([*POLYBOOK, *args], cwd=book, capture_output=True, text=True, encoding="utf-8", check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"polybook {' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout + done.stderr, wall, cpu


def reset(book: Path, lang: str, cold: bool) -> None:
    subprocess.run(["git", "checkout", "-q", "--", f"chapters/{lang}"], cwd=book, check=True)
    subprocess.run(["git", "clean", "-fdq", f"chapters/{lang}"], cwd=book, check=True)
    if cold:
        shutil.rmtree(book / "build", ignore_errors=True)


def summary(output: str) -> dict[str, float]:
    found = SUMMARY.search(output)
    if found is None:
        raise SystemExit(f"no summary in:\n{output[-2000:]}")
    names = ("drafted", "words", "documents", "memory", "cached", "sent", "engine", "refused")
    return {n: float((v or "0").replace(",", "")) for n, v in zip(names, found.groups(), strict=True)}


def findings(book: Path, lang: str) -> list[dict]:
    out = book / "build" / f"bench-check-{lang}.json"
    out.parent.mkdir(exist_ok=True)
    run(book, "check", "--lang", lang, "--format", "json", "-o", str(out), "--fail-on", "warning")
    return [f for f in json.loads(out.read_text(encoding="utf-8"))["findings"] if f["lang"] == lang]


def draft_lines(book: Path, lang: str) -> dict[str, set[int]]:
    """Per file of ``lang``, the lines of the blocks behind a draft mark (the mark's line too)."""
    out: dict[str, set[int]] = {}
    for path in sorted((book / "chapters" / lang).rglob("*.md")):
        lines = path.read_text(encoding="utf-8").split("\n")
        spans: set[int] = set()
        for number, line in enumerate(lines, 1):
            if line.startswith("<!-- polybook:draft"):
                end = number
                while end < len(lines) and lines[end].strip():  # the block: up to its blank line
                    end += 1
                spans.update(range(number, end + 1))
        if spans:
            out[path.relative_to(book).as_posix()] = spans
    return out


def family(finding: dict) -> str:
    return finding["code"].removeprefix("polybook.").split(".")[0]


def at_drafts(found: list[dict], drafts: dict[str, set[int]]) -> Counter[str]:
    return Counter(
        finding["code"].removeprefix("polybook.")
        for finding in found
        if finding.get("location") and finding["location"]["line"] in drafts.get(finding["location"]["path"], ())
    )


def said(finding: dict) -> tuple[str, str]:
    """A finding as what it says, its line numbers aside (a draft may move the lines after it)."""
    return finding["code"].removeprefix("polybook."), re.sub(r"\bline \d+|:\d+", "", finding["message"])


def reason(text: str) -> str:
    if text.startswith("the check finds"):
        return "the check finds: " + text.split(": ", 2)[1][:40]
    return " ".join(text.split()[:3])


def language(book: Path, lang: str) -> None:
    print(f"== {lang}")
    reset(book, lang, cold=True)
    before = findings(book, lang)
    output, wall, _ = run(book, "translate", lang, "--dry-run", "--engine", "command", "--command", ECHO)
    print(f"dry run {wall:.1f} s: {output.strip().splitlines()[-1]}")
    reset(book, lang, cold=True)
    output, wall, cpu = run(book, "translate", lang, "--engine", "command", "--command", ECHO)
    first = summary(output)
    share = first["memory"] / first["drafted"] if first["drafted"] else 0.0
    print(
        f"drafted {first['drafted']:,.0f} blocks ({first['words']:,.0f} words) in {first['documents']:.0f} documents; "
        f"{first['memory']:,.0f} from the book ({share:.1%}), {first['sent']:,.0f} sent; {first['refused']:.0f} refused"
    )
    print(
        f"time: {wall:.1f} s wall, the engine {first['engine']:.1f} s, polybook {wall - first['engine']:.1f} s; "
        f"CPU {cpu:.1f} s (engine program included); load {os.getloadavg()[0]:.1f}"
    )
    refusals = Counter(reason(m.group(3)) for m in REFUSED.finditer(output))
    if refusals:
        print(f"refused: {dict(refusals)}")
    after = findings(book, lang)
    drafts = draft_lines(book, lang)
    fam_before, fam_after = Counter(map(family, before)), Counter(map(family, after))
    print(f"check before: {dict(sorted(fam_before.items()))}")
    print(f"check after:  {dict(sorted(fam_after.items()))}")
    at = at_drafts(after, drafts)
    new = Counter(map(said, after)) - Counter(map(said, before))  # what the drafts brought
    new_codes = Counter(code for code, _ in new.elements())
    guarded = sum(n for code, n in new_codes.items() if code.split(".")[0] in GUARDED)
    print(f"findings at the drafts' lines: {dict(at)} (there before the drafts too: see 'new')")
    print(f"new after the drafts: {dict(new_codes)}; code/math/numbers/ref among them: {guarded}")
    drafted_state = {p: (book / p).read_text(encoding="utf-8") for p in drafts}
    reset(book, lang, cold=False)
    output, wall, _ = run(book, "translate", lang, "--engine", "command", "--command", ECHO)
    second = summary(output)
    print(
        f"second run (answers kept): {second['sent']:,.0f} sent, "
        f"{second['cached']:,.0f} from kept answers, {wall:.1f} s"
    )
    reset(book, lang, cold=True)
    output, wall, _ = run(book, "translate", lang, "--engine", "command", "--command", ECHO + " --drop")
    dropped = summary(output)
    refusals = Counter(reason(m.group(3)) for m in REFUSED.finditer(output))
    print(
        f"--drop: {dropped['drafted']:,.0f} drafted, {dropped['refused']:,.0f} refused: {dict(refusals)} ({wall:.1f} s)"
    )
    reset(book, lang, cold=False)
    for path, text in drafted_state.items():  # left drafted, as the first run wrote it
        (book / path).write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book", type=Path)
    parser.add_argument("--langs", nargs="+", default=["ja", "zh"])
    args = parser.parse_args()
    for lang in args.langs:
        language(args.book.resolve(), lang)


if __name__ == "__main__":
    main()
