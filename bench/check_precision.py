"""Precision of `polybook check` as a user meets it: a random sample of its findings, to be read.

Draws findings (errors and warnings: what CI and translators act on) from the JSON report of
`polybook check --format json` on a book, stratified by code (each code at least one, the rest in
proportion to its count), with a fixed seed, and writes them with the lines they point at -- the
translation's and the source's -- for a person to judge (`show`; the kept ``.md`` names the places
only, so that the books' text stays out of this repository):

    polybook check --format json > report.json          # in a copy of the book, cold
    .venv/bin/python bench/check_precision.py draw BOOK report.json bench/samples/check_precision_b10
    .venv/bin/python bench/check_precision.py show bench/samples/check_precision_b10.json BOOK | less
    # write each verdict into the .json ("right", "wrong" or "misleading", and a note)
    .venv/bin/python bench/check_precision.py score bench/samples/check_precision_b10.json

`score` prints the share right per code and overall, plain and weighted by each code's count
(a code's share stands for all its findings). Verdicts already given in an earlier sample file
are kept when the same finding (fingerprint, place and message) is drawn again.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter, defaultdict
from pathlib import Path

LEVELS = ("error", "warning")
CONTEXT = 3  # lines shown either side of a place


def stratified(findings: list[dict], size: int, seed: int) -> list[dict]:
    """``size`` findings: every code at least once, the rest in proportion to each code's count."""
    by_code: dict[str, list[dict]] = defaultdict(list)
    for finding in findings:
        by_code[finding["code"]].append(finding)
    total = len(findings)
    quota = {code: 1 for code in by_code}
    left = size - len(quota)
    largest = sorted(by_code, key=lambda code: (-len(by_code[code]), code))
    for code in largest:
        quota[code] += min(len(by_code[code]) - 1, max(0, int(left * len(by_code[code]) / total)))
    while sum(quota.values()) < min(size, total):  # what rounding down left, to the largest codes with room
        code = next(
            c
            for c in largest
            if quota[c] < len(by_code[c])
            and quota[c] / len(by_code[c])
            <= min(quota[x] / len(by_code[x]) for x in largest if quota[x] < len(by_code[x]))
        )
        quota[code] += 1
    rng = random.Random(seed)
    drawn = []
    for code in sorted(by_code):
        group = sorted(by_code[code], key=lambda f: (_place(f), f["fingerprint"]))
        drawn += rng.sample(group, min(quota[code], len(group)))
    return drawn


def _place(finding: dict) -> str:
    where = finding.get("location") or finding.get("source") or {}
    return f"{where.get('path', '')}:{where.get('line', 0)}"


def _lines(root: Path, where: dict | None) -> str:
    if not where:
        return "(no place)"
    path = root / where["path"]
    try:
        text = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return f"({where['path']} cannot be read)"
    line = int(where["line"])
    first, last = max(1, line - CONTEXT), min(len(text), line + CONTEXT)
    return "\n".join(f"{k:>5}{'>' if k == line else ' '} {text[k - 1][:300]}" for k in range(first, last + 1))


def draw(book: Path, report: Path, out: Path, size: int, seed: int) -> None:
    data = json.loads(report.read_text(encoding="utf-8"))
    findings = [f for f in data["findings"] if f["level"] in LEVELS and not f.get("suppressed")]
    counts = Counter(f["code"] for f in findings)
    old = {}
    if out.with_suffix(".json").is_file():
        for entry in json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["sample"]:
            old[(entry["fingerprint"], entry["place"], entry["message"])] = entry
    sample = []
    for finding in stratified(findings, size, seed):
        key = (finding["fingerprint"], _place(finding), finding["message"])
        kept = old.get(key, {})
        sample.append({
            "code": finding["code"], "level": finding["level"], "place": _place(finding),
            "fingerprint": finding["fingerprint"], "message": finding["message"],
            "source": _place({"location": finding.get("source")}) if finding.get("source") else "",
            "verdict": kept.get("verdict", ""), "note": kept.get("note", ""),
        })  # fmt: skip
    summary = {"book": str(book), "report": str(report), "seed": seed, "size": len(sample), "counts": dict(counts)}
    out.with_suffix(".json").write_text(
        json.dumps({**summary, "sample": sample}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    out.with_suffix(".md").write_text(_listing(sample, book, findings, None), encoding="utf-8")
    print(f"{len(sample)} findings drawn from {len(findings)} ({len(counts)} codes) -> {out}.json, {out}.md")


def _listing(sample: list[dict], book: Path, findings: list[dict], root: Path | None) -> str:
    """The sample as Markdown: each finding, its places and verdict; with ``root`` (the book),
    the lines it points at too, for reading (the kept file names the places only: the books'
    text stays out of this repository)."""
    parts = [f"# check precision sample: {book.name}\n", f"{len(sample)} of {len(findings)} findings.\n"]
    for k, entry in enumerate(sample, 1):
        parts.append(f"## {k}. {entry['code']} ({entry['level']}) {entry['place']}\n")
        parts.append(f"{entry['message']}\n")
        if entry["source"]:
            parts.append(f"source: {entry['source']}\n")
        if root is not None:
            parts.append("translation:\n```\n" + _lines(root, _where(entry["place"])) + "\n```\n")
            if entry["source"]:
                parts.append("source:\n```\n" + _lines(root, _where(entry["source"])) + "\n```\n")
        parts.append(f"verdict: {entry['verdict'] or '?'} {entry['note']}\n")
    return "\n".join(parts)


def _where(place: str) -> dict | None:
    path, _, line = place.rpartition(":")
    return {"path": path, "line": int(line)} if path and line.isdigit() else None


def show(sample_file: Path, book: Path) -> None:
    """The sample with the lines each finding points at, read from ``book``, for judging."""
    data = json.loads(sample_file.read_text(encoding="utf-8"))
    print(_listing(data["sample"], book, [None] * sum(data["counts"].values()), book))


def score(sample_file: Path) -> None:
    data = json.loads(sample_file.read_text(encoding="utf-8"))
    counts: dict[str, int] = data["counts"]
    judged: dict[str, list[str]] = defaultdict(list)
    for entry in data["sample"]:
        if entry["verdict"]:
            judged[entry["code"]].append(entry["verdict"])
    total = sum(counts.values())
    weighted = plain_right = plain_all = 0.0
    print(f"{'code':<32} {'count':>6} {'judged':>6} {'right':>6}")
    for code in sorted(counts, key=lambda c: -counts[c]):
        verdicts = judged.get(code, [])
        right = sum(v == "right" for v in verdicts)
        share = right / len(verdicts) if verdicts else float("nan")
        print(f"{code:<32} {counts[code]:>6} {len(verdicts):>6} {share:>6.0%}")
        if verdicts:
            weighted += counts[code] * share
        plain_right += right
        plain_all += len(verdicts)
    covered = sum(counts[c] for c in judged)
    print(f"precision: {plain_right / plain_all:.1%} of {int(plain_all)} judged; "
          f"weighted by count: {weighted / covered:.1%} (codes judged cover {covered} of {total})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    drawing = commands.add_parser("draw")
    drawing.add_argument("book", type=Path)
    drawing.add_argument("report", type=Path)
    drawing.add_argument("out", type=Path, help="the sample's path without suffix (.json and .md are written)")
    drawing.add_argument("--size", type=int, default=80)
    drawing.add_argument("--seed", type=int, default=41)
    scoring = commands.add_parser("score")
    scoring.add_argument("sample", type=Path)
    showing = commands.add_parser("show", help="the sample with the lines its findings point at")
    showing.add_argument("sample", type=Path)
    showing.add_argument("book", type=Path)
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.book, args.report, args.out, args.size, args.seed)
    elif args.command == "show":
        show(args.sample, args.book)
    else:
        score(args.sample)


if __name__ == "__main__":
    main()
