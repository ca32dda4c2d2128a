"""A random sample of ported blocks, each with the four texts to judge it against.

In-process, nothing written: ``port_language`` of the language on the book as it is, every
ported block listed by kind -- a prose translation kept, stale (behind the source's new text),
to review, untranslated (the source's text), a code cell (translated text carried or not), a
shown fence or formula, a cell of the language's own frameworks, an aside -- and N drawn at
random (fixed seed) over the whole output, stratified by kind and weighted by count (each kind
present gets one at least, the rest in proportion). Written for each: where it is, its kind,
the old translation, the base (the edition it was translated from), the source now and the
ported text, with a ``verdict:`` line for the reader to fill in (right / wrong, and why).

    .venv/bin/python bench/port_sample.py BOOK_DIR LANG [--n 30] [--seed 38] [--out FILE]
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from pathlib import Path

import polybook.sync.port as port_module
from polybook.book import load_book
from polybook.config import load_config
from polybook.dialect.nodes import CodeCell, DisplayMath, Fence
from polybook.sync.own_frameworks import own_frameworks
from polybook.sync.port_pairs import base_to_source, base_to_translation, content_of, is_prose

_ASIDE = re.compile(r"^<!-- polybook:aside\n.*?^-->", re.M | re.S)
_OWN = re.compile(r"^```\{\.python \.input[^}]*\}\n#@tab paddle\n.*?^```", re.M | re.S)
LIMIT = 600


def _text(path: str, node: object | None) -> str:
    if node is None:
        return "(none)"
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    text = "\n".join(lines[node.line - 1 : node.end_line])  # type: ignore[attr-defined]
    return text if len(text) <= LIMIT else text[:LIMIT] + " [...]"


def _cut(text: str) -> str:
    return text if len(text) <= LIMIT else text[:LIMIT] + " [...]"


def _kind(block: str, node: object, mine: object | None) -> str:
    for mark in ("stale", "review", "untranslated"):
        if block.startswith(f"<!-- polybook:{mark}"):
            return mark
    if isinstance(node, CodeCell):
        return "cell, translation carried" if mine is not None and block != "" and _has_foreign(block) else "cell"
    if isinstance(node, (Fence, DisplayMath)):
        return "fence or formula"
    return "kept" if is_prose(node) and mine is not None else "source's own block"


def _has_foreign(text: str) -> bool:
    return any(not c.isascii() and c.isalpha() for c in text)


def items(book_dir: Path, lang: str) -> list[dict[str, str]]:
    config = load_config(book_dir / "conf.py")
    calls: dict[str, tuple] = {}
    original = port_module.port_document

    def recording(base, source, source_text, target, target_text, *rest, **named):  # type: ignore[no-untyped-def]
        out = original(base, source, source_text, target, target_text, *rest, **named)
        calls[target.path] = (base, source, target, out)
        return out

    port_module.port_document = recording  # type: ignore[assignment]
    port_module.port_language(load_book(config), lang)
    port_module.port_document = original  # type: ignore[assignment]
    out: list[dict[str, str]] = []
    for path, (base, source, target, ported) in sorted(calls.items()):
        bases = base_to_source(base, source)
        translated = base_to_translation(base, target, own_frameworks(target, source))
        for node, block in zip(content_of(source), ported.blocks, strict=True):
            old, _ = bases.get(id(node), (None, False))
            mine = translated.get(id(old)) if old is not None else None
            out.append({
                "where": f"{path}:{node.line} (source {source.path}:{node.line})",
                "kind": _kind(block, node, mine),
                "old translation": _text(path, mine),
                "base": _text(base.path, old),
                "source": _text(source.path, node),
                "ported": _cut(block),
            })  # fmt: skip
        for kind, pattern in (("aside", _ASIDE), ("own cell", _OWN)):
            for found in pattern.finditer(ported.text):
                line = ported.text[: found.start()].count("\n") + 1
                text = found.group(0)
                before = ported.text[max(0, found.start() - 400) : found.start()]  # what it stands after
                out.append({"where": f"{path} (ported line {line})", "kind": kind, "old translation": "(in it)",
                            "base": "-", "source": f"(the ported text before it) ...{before}",
                            "ported": _cut(text)})  # fmt: skip
    return out


def drawn(found: list[dict[str, str]], n: int, seed: int) -> list[dict[str, str]]:
    """``n`` items at random, by kind: one of each kind at least, the rest in proportion."""
    rng = random.Random(seed)
    kinds = Counter(item["kind"] for item in found)
    share = {kind: max(1, round(n * count / len(found))) for kind, count in kinds.items()}
    while sum(share.values()) > n:
        share[max(share, key=share.__getitem__)] -= 1
    while sum(share.values()) < n:
        share[max(kinds, key=lambda k: kinds[k] / share[k])] += 1
    out = []
    for kind in sorted(kinds):
        out += rng.sample([item for item in found if item["kind"] == kind], min(share[kind], kinds[kind]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("lang")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    found = items(args.book.resolve(), args.lang)
    kinds = Counter(item["kind"] for item in found)
    lines = [f"# {args.n} ported blocks of {args.lang}, seed {args.seed}, of {len(found):,}: {dict(kinds)}\n"]
    for k, item in enumerate(drawn(found, args.n, args.seed), 1):
        lines.append(f"## {k}. {item['kind']} -- {item['where']}\n")
        for name in ("old translation", "base", "source", "ported"):
            lines.append(f"**{name}**\n\n~~~~\n{item[name]}\n~~~~\n")
        lines.append("verdict: ?\n")
    text = "\n".join(lines)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        print(text)


if __name__ == "__main__":
    main()
