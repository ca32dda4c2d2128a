"""The precision of ``terms.*`` findings, read by hand: a sample drawn at random (fixed seed) from
the findings of ``polybook check`` on one or more books, written as a Markdown file with the
source block and the translated block of each, and a verdict line for the reader to fill in.

    bench/terms_precision.py BOOK [BOOK...] --lang zh --sample 50 --seed 39 --out bench/samples/terms_zh.md \
        --texts /tmp/terms_zh.md     # the same with the blocks compared, to read (not in the repository)

Each finding is ``yes`` (the source block uses the glossary's term as a term, and the translation
renders it neither as the glossary says nor by a legitimate variant) or ``no: why``. Verdicts
already in ``--out`` are kept for the findings drawn again (keyed by file, line and term), so the
sample can be drawn again after a change of the check and only the new findings read; the
script prints the precision over the judged findings of the sample.
"""

from __future__ import annotations

import argparse
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from polybook.check.findings import Location

HEAD = re.compile(r"^## \d+\. `(?P<key>[^`]+)`", re.M)
VERDICT = re.compile(r"^verdict: (?P<verdict>.*)$", re.M)


@dataclass(frozen=True, slots=True)
class Drawn:
    book: Path
    path: str
    line: int
    term: str
    message: str
    source_path: str
    source_line: int
    source: str  # the texts the check compared
    translation: str

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line} {self.term}"


def watched_check(book: Path, watch: Callable, lang: str | None = None):
    """``polybook check`` of ``book`` in this process over every language with a glossary (and
    ``lang``), all at once as the command reads them, paths shown from the book's folder; and
    ``watch(lang, path, alignment, glossary)`` told of each document's term check (the path as
    shown) before it runs."""
    from polybook.book import load_book
    from polybook.check import chapter, check_book
    from polybook.config import load_config
    from polybook.files import display_path

    plain = chapter.check_terms

    def watched(lang_: str, name: str, alignment, path: str, glossary, source_path: str = ""):
        watch(lang_, display_path(Path(path)), alignment, glossary)
        return plain(lang_, name, alignment, path, glossary, source_path)

    chapter.check_terms = watched
    here = Path.cwd()
    os.chdir(book)
    try:
        config = load_config(book / "conf.py")
        glossaries = [other for other in config.translations if (config.chapters_dir / other / "glossary").is_file()]
        together = sorted({*glossaries, *([lang] if lang else [])})
        return check_book(load_book(config, [config.source_language, *together]), together)
    finally:
        chapter.check_terms = plain
        os.chdir(here)


def findings(book: Path, lang: str) -> list[Drawn]:
    """The book's ``terms.*`` findings of ``lang``, with the texts the check compared
    (:func:`watched_check`)."""
    from polybook.check import terms
    from polybook.files import display_path

    texts: dict[tuple[str, int, str], tuple[str, str]] = {}
    by_term: dict[tuple[str, str], list[str]] = {}  # a term's misses, for a terms.unfollowed finding

    def watch(lang_: str, where: str, alignment, glossary) -> None:
        for miss in terms.term_misses(alignment, glossary, lang_):
            texts[(where, miss.line, miss.term.source)] = (miss.source, miss.translation)
            said = " ".join(miss.translation.split())[:500]
            by_term.setdefault((lang_, miss.term.source), []).append(
                f"`{where}:{miss.line}`: {terms.source_words(miss.source, miss.term.source)} -> {said}"
            )

    result = watched_check(book, watch, lang)
    drawn = []
    for finding in result.active:
        if finding.lang != lang or not str(finding.code).startswith("terms.") or finding.location is None:
            continue
        where, source = finding.location, finding.source or Location("", 0)
        term = finding.subject[0]
        src_text, tgt_text = texts.get((display_path(Path(where.path)), where.line, term), ("", ""))
        if str(finding.code) == "terms.unfollowed":  # three of its blocks, drawn at random
            misses = sorted(by_term.get((lang, term), []))
            src_text = "\n".join(random.Random(term).sample(misses, min(3, len(misses))))
        drawn.append(
            Drawn(
                book, display_path(Path(where.path)), where.line, term, finding.message,
                display_path(Path(source.path)) if source.path else "", source.line, src_text, tgt_text,
            )
        )  # fmt: skip
    return drawn


def quoted(text: str) -> str:
    return "\n".join("> " + line for line in text.split("\n"))


def verdicts(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    out = {}
    heads = list(HEAD.finditer(text))
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        found = VERDICT.search(text, head.end(), end)
        if found and found.group("verdict").strip() not in ("", "?"):
            out[head.group("key")] = found.group("verdict").strip()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("books", type=Path, nargs="+")
    parser.add_argument("--lang", required=True)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--out", type=Path, required=True, help="The sample and its verdicts (kept in bench/).")
    parser.add_argument(
        "--texts", type=Path, help="The sample with the blocks compared, to read it (outside the repository)."
    )
    args = parser.parse_args()
    pool: dict[str, Drawn] = {}
    for book in args.books:
        for drawn in findings(book.resolve(), args.lang):
            pool.setdefault(drawn.key, drawn)  # the books share translations: one finding once
    keys = sorted(pool)
    sample = sorted(random.Random(args.seed).sample(keys, min(args.sample, len(keys))))
    known = verdicts(args.out)
    parts = [
        f"# `terms.*` findings read at random: {args.lang}\n",
        f"Drawn by `bench/terms_precision.py {' '.join(b.name for b in args.books)} --lang {args.lang} "
        f"--sample {args.sample} --seed {args.seed}` from {len(keys):,} distinct findings, {date.today()}. "
        "A verdict is `yes` (the source block uses the glossary's term in the glossary's sense, and the "
        "translation renders it neither as the glossary says, nor in a form of that rendering (an "
        "inflection, a suffix, a segmentation, an alternative the glossary gives), nor as a variant the "
        "glossary declares: it leaves the term out or says it with another word) or `no: why` (an idiom, "
        "another sense of the word, the rendering there in a form the check missed, blocks paired wrong). "
        "A `terms.unfollowed` finding is `yes` when the blocks shown are uses of the term that do not "
        "follow the glossary.\n",
    ]
    judged = yes = 0
    texts = list(parts)
    for number, key in enumerate(sample, 1):
        drawn = pool[key]
        verdict = known.get(key, "?")
        judged += verdict != "?"
        yes += verdict.startswith("yes")
        parts.append(f"## {number}. `{key}`\n\n{drawn.message}\n\nverdict: {verdict}\n")
        texts.append(
            f"## {number}. `{key}`\n\n{drawn.message}\n\n"
            f"source, `{drawn.source_path}:{drawn.source_line}`:\n\n{quoted(drawn.source)}\n\n"
            f"translation:\n\n{quoted(drawn.translation)}\n\nverdict: {verdict}\n"
        )
    precision = f"{yes / judged:.1%}" if judged else "-"
    parts.insert(2, f"**Precision: {yes} / {judged} judged = {precision}** ({len(sample)} drawn).\n")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(parts), encoding="utf-8")  # the books' text stays out of the repository
    if args.texts:
        args.texts.write_text("\n".join(texts), encoding="utf-8")
    print(f"{args.lang}: {len(keys):,} findings; sample {len(sample)}, judged {judged}, yes {yes}: {precision}")


if __name__ == "__main__":
    main()
