"""Do `polybook check` and `polybook sync` agree on a real book's drifts, and does sync repair them?

Copies BOOK_DIR (an imported book) twice: one copy is synced as it is (``polybook sync --write``)
to know what sync makes of each document without a drift, the other gets, per seed, one drift of
each code and math kind of ``check_recall.py`` in each translation (each in a document of its
own, at a place the check found nothing at; a drift in a cell of a framework the source does
not offer, zh's paddle, is coverage: listed, not counted). Then ``polybook check`` and
``polybook sync LANGS --write`` run on the drifted copy, and per drift:

- *told*: a new ``code.*``/``math.*`` finding within 5 lines of the drift;
- *synced there*: sync (a dry run) would repair the document within 5 lines of the drift;
- *repaired exactly*: the synced document equals the synced clean one; *differently*: sync
  changed it (anywhere) in a way it does not change the clean one, but to something else;
  *not repaired*: sync made no change of its own for the drift;
- *left*: after sync, a ``code.*``/``math.*`` finding within 5 lines that the synced clean
  document does not have.

Check and sync agree on a drift when *told* ⇔ *synced there*. The documents (and the sync
records) are restored before the next seed.

    PYTHONPATH=src .venv/bin/python bench/sync_agree.py BOOK_DIR [--seeds 2] [--rows FILE]
"""

from __future__ import annotations

import argparse
import difflib
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import check_recall as recall

from polybook import sync
from polybook.book import load_book
from polybook.check.staleness import LOCK_NAME
from polybook.config import load_config
from polybook.dialect import parse_text

KINDS = [
    "code literal",
    "code line deleted",
    "keyword value",
    "formula symbol",
    "formula swap",
    "cell removed",
    "#@tab changed",
]
CODE_MATH = ("polybook.code.", "polybook.math.")


def run_sync(book: Path, langs: list[str]) -> None:
    cmd = [sys.executable, "-c", "from polybook.cli import run; run()", "sync", *langs, "--write"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p
    )
    subprocess.run(cmd, cwd=book, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def _code_math(found: list[dict]) -> list[dict]:
    return [f for f in found if f["code"].startswith(CODE_MATH)]


def _new_near(line: int, before: list[dict], after: list[dict]) -> list[dict]:
    """The findings of ``after`` that ``before`` lacks (by fingerprint), within 5 lines of ``line``."""
    old = Counter(f["fingerprint"] for f in before)
    out = []
    for f in after:
        if old[f["fingerprint"]] > 0:
            old[f["fingerprint"]] -= 1
        elif abs(f["location"]["line"] - line) <= recall.WITHIN:
            out.append(f)
    return out


def _synced_near(root: Path, drift: recall.Drift) -> bool:
    """Whether ``polybook sync`` (a dry run) would repair the drifted document within 5 lines of the
    drift: where its repairs start (``ChapterSync.places``), not a diff's guess of it."""
    config = load_config(root / "conf.py")
    name = next(
        n for n in config.document_names(drift.lang) if config.document_path(drift.lang, n).resolve() == drift.path
    )
    book = load_book(config, [config.source_language, drift.lang], {name})
    places = sync.sync_chapter(book, drift.lang, name).places
    return any(abs(place - drift.line) <= recall.WITHIN for place in places)


def _hunks(old: str, new: str) -> set[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The changes that turn ``old`` into ``new``, as (lines out, lines in), wherever they are."""
    a, b = old.split("\n"), new.split("\n")
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return {(tuple(a[i1:i2]), tuple(b[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"}


def _compared(config, lang: str, text: str, path: Path, line: int) -> bool:
    """Whether the drifted line of the document (as it was) lies in a cell of a framework the source
    offers, or outside cells (a drift in zh's paddle cells is coverage: neither checks nor syncs it)."""
    offered = set(config.languages[config.source_language].frameworks)
    doc = parse_text(text, str(path), config.languages[lang].settings)
    cells = [c for c in doc.cells() if c.line <= line <= c.end_line]
    return not cells or any(offered.intersection(c.frameworks) for c in cells)


def _texts(config, langs: list[str]) -> dict[Path, str]:
    """Every translated document's text, and the sync records (absent: '')."""
    out = {}
    for lang in langs:
        for name in config.document_names(lang):
            path = config.document_path(lang, name).resolve()
            out[path] = path.read_text(encoding="utf-8")
        lock = (config.chapters_dir / lang / LOCK_NAME).resolve()
        out[lock] = lock.read_text(encoding="utf-8") if lock.exists() else ""
    return out


def _restore(saved: dict[Path, str]) -> None:
    for path, text in saved.items():
        if path.name == LOCK_NAME and not text:
            path.unlink(missing_ok=True)
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--langs", nargs="*", default=None)
    parser.add_argument("--work", type=Path, default=None, help="copy the book here (default: a temporary folder)")
    parser.add_argument("--rows", type=Path, default=None, help="write one row per drift here")
    parser.add_argument("--diffs", type=Path, default=None, help="write how drifts repaired differently differ")
    args = parser.parse_args()
    with recall.work_folder(args.work, "sync-agree-") as work:
        _measure(args, work)


def _measure(args: argparse.Namespace, work: Path) -> None:
    root, clean = work / args.book.name, work / f"{args.book.name}-synced"
    for copy in (root, clean):
        if not copy.exists():
            shutil.copytree(args.book, copy, symlinks=True)
    config = load_config(root / "conf.py")
    langs = args.langs or [lang for lang in config.languages if lang != config.source_language]
    run_sync(clean, langs)
    clean_synced = recall._placed(recall.run_check(clean, work / "clean-synced.json"), clean)
    before = recall._placed(recall.run_check(root, work / "before.json"), root)
    recall.KINDS = {kind: recall.KINDS[kind] for kind in KINDS}
    rows, tally, diffs = [], Counter(), []
    for seed in range(args.seeds):
        saved = _texts(config, langs)
        drifts = recall.inject(root, config, random.Random(seed), before, langs)
        after = recall._placed(recall.run_check(root, work / f"seed{seed}.json"), root)
        drifted = {d.path: d.path.read_text(encoding="utf-8") for d in drifts}
        near = {id(d): _synced_near(root, d) for d in drifts}
        run_sync(root, langs)
        synced = recall._placed(recall.run_check(root, work / f"seed{seed}-synced.json"), root)
        for d in drifts:
            rel = d.path.relative_to(root.resolve())
            if not _compared(config, d.lang, saved[d.path], d.path, d.line):
                rows.append(f"seed {seed}\t{d.kind}\t{rel}:{d.line}\t{d.what}\tcoverage: not compared")
                continue
            told = bool(_code_math(_new_near(d.line, before[d.path], after[d.path])))
            now = d.path.read_text(encoding="utf-8")
            there = near[id(d)]
            reference = (clean / rel).read_text(encoding="utf-8")
            repaired = bool(_hunks(drifted[d.path], now) - _hunks(saved[d.path], reference))  # what the drift made
            outcome = "exactly" if now == reference else "differently" if repaired else "not repaired"
            if outcome == "differently" and args.diffs:
                diffs.append(f"## seed {seed} {d.kind} {rel}:{d.line} {d.what}\n")
                diffs += difflib.unified_diff(reference.splitlines(True), now.splitlines(True), "reference", "synced")
            left = _code_math(_new_near(d.line, clean_synced[(clean / rel).resolve()], synced[d.path]))
            tally[d.kind, outcome] += 1
            tally[d.kind, "agree"] += told == there
            tally[d.kind, "left"] += bool(left)
            tally[d.kind, "n"] += 1
            rows.append(
                f"seed {seed}\t{d.kind}\t{rel}:{d.line}\t{d.what}\ttold={told}\tsynced={there}\t{outcome}"
                f"\tleft={','.join(f['code'] + ':' + str(f['location']['line']) for f in left)}"
            )
        _restore(saved)
    head = f"{'kind':20} {'n':>3} {'exactly':>8} {'differ.':>8} {'not rep.':>8} {'agree':>6} {'left':>5}"
    print(head)
    for kind in [*KINDS, "all"]:
        keys = KINDS if kind == "all" else [kind]
        n = sum(tally[k, "n"] for k in keys)
        if n:
            cols = [sum(tally[k, c] for k in keys) for c in ("exactly", "differently", "not repaired", "agree", "left")]
            print(f"{kind:20} {n:3d} " + " ".join(f"{c:>8d}" if i < 3 else f"{c:>6d}" for i, c in enumerate(cols)))
    if args.diffs:
        args.diffs.write_text("".join(diffs), encoding="utf-8")
    if args.rows:
        args.rows.write_text("\n".join(rows) + "\n", encoding="utf-8")
    else:
        print("\n".join(rows))


if __name__ == "__main__":
    main()
