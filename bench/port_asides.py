"""What ``polybook port`` keeps aside, and whether a block it marks untranslated had a translation.

In-process, nothing written: ``port_language`` of each language on the book as it is. Printed
per language: the asides of the ported documents and how many hold translation
(:mod:`polybook.sync.translated`, the known lines being the source book and the held edition);
and the untranslated blocks whose base block -- a block of the base at least 90 % alike (by
words) -- has its translation sitting in an aside of the same document: translation the port
did not follow where the source moved it (each listed).

    .venv/bin/python bench/port_asides.py BOOK_DIR LANG... [--show N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import polybook.sync.port as port_module
from polybook.book import load_book
from polybook.check.align import token_ratio
from polybook.config import load_config
from polybook.dialect import parse_text
from polybook.dialect.marks import MarkKind, marked, read_mark
from polybook.sync.port_pairs import base_to_translation, is_prose, prose_key
from polybook.sync.translated import known, translated_lines

ALIKE = 0.9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("langs", nargs="+")
    parser.add_argument("--show", type=int, default=10)
    args = parser.parse_args()
    config = load_config(args.book.resolve() / "conf.py")
    folders = [config.chapters_dir / config.source_language, *(config.root / "editions").glob("en-*")]
    found = known(p.read_text(encoding="utf-8") for f in folders for p in f.rglob("*.md"))
    calls: list[tuple] = []
    original = port_module.port_document

    def recording(base, source, source_text, target, target_text, *rest, **named):  # type: ignore[no-untyped-def]
        out = original(base, source, source_text, target, target_text, *rest, **named)
        calls.append((base, target, out.text, target.path))
        return out

    port_module.port_document = recording  # type: ignore[assignment]
    for lang in args.langs:
        calls.clear()
        book = load_book(config)
        started = time.perf_counter()
        port_module.port_language(book, lang)
        seconds = time.perf_counter() - started
        last = {path: (base, target, text) for base, target, text, path in calls}  # the last round of each
        asides = holding = 0
        missed: list[str] = []
        docs = set()
        for path, (base, target, text) in sorted(last.items()):
            doc = parse_text(text, path, None)
            kept = [m for n in doc.nodes if (m := read_mark(n)) is not None and m.kind is MarkKind.ASIDE]
            asides += len(kept)
            holding += sum(1 for m in kept if translated_lines(m.text, found))
            aside_text = "\n".join(m.text for m in kept)
            marks = marked(doc)
            untranslated = [n for n in doc.nodes if (m := marks.get(id(n))) and m.kind is MarkKind.UNTRANSLATED]
            translated = base_to_translation(base, target)
            lines = target_text_lines(target)
            for node in untranslated:
                if not is_prose(node):
                    continue
                for old in base.nodes:
                    if type(old) is not type(node) or not is_prose(old):
                        continue
                    if token_ratio(prose_key(node), prose_key(old)) < ALIKE:
                        continue
                    mine = translated.get(id(old))
                    if mine is not None and lines(mine).strip() and lines(mine).strip() in aside_text:
                        missed.append(f"{path}:{node.line}: {prose_key(node)[:70]!r}")
                        docs.add(path)
                        break
        print(
            f"{lang}: port_language {seconds:.1f} s; asides {asides:,}, holding translation {holding:,}; untranslated "
            f"blocks with a >= {ALIKE:.0%} alike translation aside: {len(missed)} in {len(docs)} documents"
        )
        for line in missed[: args.show]:
            print("   ", line)


def target_text_lines(target):  # type: ignore[no-untyped-def]
    text = Path(target.path).read_text(encoding="utf-8") if Path(target.path).is_file() else ""
    lines = text.split("\n")
    return lambda node: "\n".join(lines[node.line - 1 : node.end_line])


if __name__ == "__main__":
    main()
