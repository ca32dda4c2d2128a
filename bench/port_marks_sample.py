"""A random sample of the source's paragraph changes a port now takes for form alone (white space,
typography, case, contractions, hyphens, emphasis, slide marks: the translation kept, unmarked),
stratified by what made them alike and weighted by count, to be read by hand (issue 38, item 3).

    PYTHONPATH=src .venv/bin/python bench/port_marks_sample.py BOOK EDITION [--n 30] [--seed 38]

BOOK: a book holding EDITION (``0.17.6``), as imported; reads the source's documents against that
edition's. Prints each sampled change as its document, the words that differ and the rule.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from pathlib import Path


def rule(old: str, new: str) -> str:
    """What alone tells the two texts apart (the first that does)."""
    from polybook.check.word_diff import _TYPOGRAPHY

    if old.split() == new.split():
        return "white space"
    if old.translate(_TYPOGRAPHY).split() == new.translate(_TYPOGRAPHY).split():
        return "typography"
    if old.casefold().split() == new.casefold().split():
        return "case"
    if re.search(r"\blet us\b", old, re.I) and re.search(r"\blet's\b", new, re.I):
        return "contraction"
    return "markup, hyphens or several"


def _raw_diff(old: str, new: str) -> str:
    """The words as written that differ, ``-[then] +[now]``."""
    from difflib import SequenceMatcher

    a, b = old.split(), new.split()
    out = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append(f"-[{' '.join(a[i1:i2])}] +[{' '.join(b[j1:j2])}]")
    return " ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book", type=Path)
    parser.add_argument("edition")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    from polybook.book import load_book
    from polybook.check.staleness import prose_blocks, prose_pairs, prose_text
    from polybook.check.word_diff import same_words
    from polybook.config import load_config
    from polybook.dialect import parse_text

    config = load_config(args.book / "conf.py")
    book = load_book(config)
    found: list[tuple[str, str, str, str]] = []
    for name, source in sorted(book.chapters[config.source_language].items()):
        path = config.edition_path(args.edition, name)
        if not path.is_file():
            continue
        base = parse_text(path.read_text(encoding="utf-8"), str(path), None)
        then, now = prose_blocks(base), prose_blocks(source)
        for pair in prose_pairs(base, source):
            if pair.kind != "similar" or pair.source is None or pair.target is None:
                continue
            old, new = prose_text(then[pair.source]), prose_text(now[pair.target])
            if same_words(old, new):
                found.append((f"{source.path}:{now[pair.target].line}", old, new, rule(old, new)))
    kinds = Counter(item[3] for item in found)
    print(f"{len(found)} paragraph changes of form alone: {dict(kinds)}")
    rng = random.Random(args.seed)
    quota = {kind: max(1, round(args.n * n / len(found))) for kind, n in kinds.items()}
    for kind, n in sorted(quota.items()):
        for where, old, new, _ in rng.sample([item for item in found if item[3] == kind], min(n, kinds[kind])):
            print(f"{kind} | {where} | {_raw_diff(old, new)[:300] or '(white space only)'}")


if __name__ == "__main__":
    main()
