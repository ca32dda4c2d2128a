"""What a ported book leaves to its translators and readers (issue 38, items 3, 5, 6).

For each language given: the stale blocks by the size of their change (the words of the word
diff between the source's text then and now that the mark holds: 0 -- white space, typography or
markup only --, 1-2, 3-10, more; "no text then" for a mark of an older port); with ``--site``
(a built ``build/html``), the reader's notices per page (median, max, the introduction) and the
small block marks; and the status page's counts against ``polybook check``'s (the same marks
counted from the files).

    PYTHONPATH=src .venv/bin/python bench/port_marks.py BOOK --lang ja --lang zh [--site]

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections import Counter
from pathlib import Path

BUCKETS = ("0 (form only)", "1-2", "3-10", ">10", "no text then")


def bucket(words: int | None) -> str:
    if words is None:
        return BUCKETS[4]
    if words == 0:
        return BUCKETS[0]
    return BUCKETS[1] if words <= 2 else BUCKETS[2] if words <= 10 else BUCKETS[3]


def stale_sizes(book: object, lang: str) -> Counter[str]:
    """The language's stale blocks by the words their change has."""
    from polybook.check.word_diff import changed_words
    from polybook.dialect.marks import MarkKind, marked

    out: Counter[str] = Counter()
    for doc in book.chapters.get(lang, {}).values():  # type: ignore[attr-defined]
        for mark in marked(doc).values():
            if mark.kind is MarkKind.STALE:
                out[bucket(None if mark.was is None else changed_words(mark.was, mark.text))] += 1
    return out


#: A full-width note of polybook's about the page or a block (before: one a block; now: one a page).
_NOTICE = re.compile(r'class="(?=[^"]*\badmonition\b)[^"]*\bpolybook-(?:page-notice|untranslated|stale|review|draft)\b')
_BLOCK_MARK = re.compile(r'class="polybook-mark ')


def notices(site: Path, lang: str) -> tuple[list[int], list[int], int, int]:
    """Per page of the language with any: full-width notices, small block marks; and the
    introduction's notices and marks."""
    pages, marks, intro_notices, intro_marks = [], [], 0, 0
    for page in sorted((site / lang).rglob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        n, m = len(_NOTICE.findall(text)), len(_BLOCK_MARK.findall(text))
        if n or m:
            pages.append(n)
            marks.append(m)
        if page.relative_to(site / lang).as_posix() == "chapter_introduction/index.html":
            intro_notices, intro_marks = n, m
    return pages, marks, intro_notices, intro_marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book", type=Path)
    parser.add_argument("--lang", action="append", required=True)
    parser.add_argument("--site", action="store_true", help="also the built site's notices")
    args = parser.parse_args()
    from polybook.book import load_book
    from polybook.config import load_config

    book = load_book(load_config(args.book / "conf.py"))
    for lang in args.lang:
        sizes = stale_sizes(book, lang)
        total = sum(sizes.values())
        shown = ", ".join(f"{name}: {sizes[name]:,} ({sizes[name] / max(1, total):.0%})" for name in BUCKETS)
        print(f"{lang}: {total:,} stale blocks by words changed -- {shown}")
        if args.site:
            pages, marks, intro_n, intro_m = notices(args.book / "build" / "html", lang)
            if pages:
                print(
                    f"{lang}: {len(pages)} pages with marked blocks; full-width notices a page: median "
                    f"{statistics.median(pages):g}, max {max(pages)}, total {sum(pages):,}; small block marks: "
                    f"total {sum(marks):,}, max {max(marks)} a page; introduction: {intro_n} notices, {intro_m} marks"
                )
        status_counts(book, args.book, lang)


def status_counts(book: object, root: Path, lang: str) -> None:
    """The status page's progress row as built, beside what ``polybook check`` says: its
    ``stale.marked`` notes (blocks by mark, documents wholly the source's text) and its plan's
    rows (documents new in the source)."""
    from polybook.check import check_book

    result = check_book(book, cached=True)  # type: ignore[arg-type]
    marks: Counter[str] = Counter()
    whole = 0
    for finding in result.active:
        if finding.lang == lang and str(finding.code) == "stale.marked":
            whole += "the whole document" in finding.message
            marks.update({kind: int(n) for n, kind in _MARKED.findall(finding.message)})
    plan = result.plans().get(lang)
    behind = Counter(str(row.state) for row in plan.rows) if plan is not None else Counter()
    print(
        f"{lang}: check: marked blocks {dict(marks)}; {whole} documents wholly untranslated; plan rows {dict(behind)}"
    )
    page = root / "build" / "html" / lang / "polybook-status.html"
    if page.is_file():
        row = re.search(f'<tr data-progress-lang="{lang}"[^>]*>(.*?)</tr>', page.read_text(encoding="utf-8"))
        found = dict(re.findall(r'data-progress="([\w-]+)">([\d,]+)<', row.group(1))) if row else {}
        print(f"{lang}: status page: {found}")


_MARKED = re.compile(r"(\d+) (untranslated|stale|review|draft)\b")


if __name__ == "__main__":
    main()
