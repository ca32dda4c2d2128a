"""`polybook check` on a synthetic book: the bundled chapter replicated to N chapters x 5 languages.

Drift is injected into a seeded random sample of translation chapters (one kind per
chapter: a changed loop bound, a deleted cell, an extra cell, changed math, prose left
out of its text tab, a missing label). The benchmark prints wall time, findings per
second, and precision/recall against the injected drift: every injected drift must be
found, and nothing else flagged.

    .venv/bin/python bench/check_book.py [--chapters 1000] [--drift 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from polybook.check import check_config
from polybook.check.staleness import SyncRecord, write_lock
from polybook.config import load_config
from polybook.files import file_sha256

ROOT = Path(__file__).resolve().parent.parent
LANGS = ["en", "ja", "pt", "zh", "tr"]
NAME = "async-computation"
CELL = "```{.python .input}\nextra_cell = 'injected'\n```\n\n"
LOOP = "range(10000):\n        y = x + 1\n        y.wait"


def _waitall_cell(text: str) -> int:
    """Where the fence of the 'waitall' benchmark cell starts."""
    return text.rindex("```{.python", 0, text.index("with d2l.Benchmark('waitall')"))


def _drop_cell(text: str) -> str:
    start = _waitall_cell(text)
    return text[:start] + text[text.index("```\n", start + 10) + 4 :]


def _untab(text: str) -> str:
    start = text.index(":begin_tab:`mxnet`\n", _waitall_cell(text))
    end = text.index(":end_tab:\n", start)
    return text[:start] + text[start + len(":begin_tab:`mxnet`\n") : end] + text[end + len(":end_tab:\n") :]


# kind -> (finding code, edit)
DRIFTS = {
    "loop": ("code.changed", lambda t: t.replace(LOOP, LOOP.replace("10000", "999"), 1)),
    "drop": ("code.missing", _drop_cell),
    "extra": ("code.extra", lambda t: t.replace("\n## ", "\n" + CELL + "## ", 1)),
    "math": ("math.changed", lambda t: t.replace("$10000 (t_1+ t_2 + t_3)$", "$1000 (t_1+ t_2 + t_3)$", 1)),
    "untab": ("structure.texttab", _untab),
    "label": ("ref.label", lambda t: t.replace(":label:`fig_threading`\n", "", 1)),
}


def make_book(root: Path, chapters: int, drift: int, seed: int) -> Counter[tuple[str, str, str]]:
    shutil.copy(ROOT / "conf.py", root / "conf.py")
    originals = {lang: (ROOT / "chapters" / lang / f"{NAME}.md").read_text(encoding="utf-8") for lang in LANGS}
    names = [f"ch{i:04d}" for i in range(chapters)]
    rng = random.Random(seed)
    targets = rng.sample([(lang, name) for lang in LANGS[1:] for name in names], drift)
    kinds = list(DRIFTS)
    injected: dict[tuple[str, str], str] = {t: kinds[k % len(kinds)] for k, t in enumerate(targets)}
    expected: Counter[tuple[str, str, str]] = Counter()
    for lang in LANGS:
        folder = root / "chapters" / lang
        folder.mkdir(parents=True)
        for name in names:
            text = originals[lang]
            kind = injected.get((lang, name))
            if kind:
                code, edit = DRIFTS[kind]
                changed = edit(text)
                assert changed != text, (lang, kind)
                text = changed
                expected[(lang, name, code)] += 1
            (folder / f"{name}.md").write_text(text, encoding="utf-8")
    for lang in LANGS[1:]:
        records = {n: SyncRecord(None, file_sha256(root / "chapters" / "en" / f"{n}.md")) for n in names}
        write_lock(root / "chapters" / lang, "en", records)
    return expected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chapters", type=int, default=1000)
    parser.add_argument("--drift", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        expected = make_book(root, args.chapters, args.drift, args.seed)
        config = load_config(root / "conf.py")
        started = time.perf_counter()
        result, _ = check_config(config, jobs=args.jobs)  # what `polybook check` runs: parse + check
        done = time.perf_counter()
    found = Counter((f.lang, f.name, str(f.code)) for f in result.active)
    hits = sum((found & expected).values())
    unexpected = found - expected
    missed = expected - found
    files = args.chapters * len(LANGS)
    total = done - started
    print(f"book: {args.chapters} chapters x {len(LANGS)} languages = {files} files, {args.drift} injected drifts")
    print(f"wall time (parse + check, {args.jobs or 'all'} cores): {total:.2f} s = {total / files * 1e3:.2f} ms/file")
    print(f"findings: {len(result.active)}, {len(result.active) / total:,.0f} findings/s, {files / total:,.0f} files/s")
    print(f"recall: {hits}/{sum(expected.values())} injected drifts found; missed: {dict(missed) or 'none'}")
    extra = sum(unexpected.values())
    print(f"precision: {extra} finding(s) not caused by an injected drift" + (f": {dict(unexpected)}" if extra else ""))


if __name__ == "__main__":
    main()
