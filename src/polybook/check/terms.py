"""``terms.missing``: a translated block whose source uses a term of the language's glossary
(``chapters/<lang>/glossary``) and which uses neither the glossary's rendering nor a variant.

Blocks are paired as the checker pairs them (:func:`pair_segments`): between two shared anchors,
block by block when both sides have as many prose blocks, else the stretch as a whole. A block
that still says the term as the source does (untranslated, or the term kept) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from polybook.check.findings import Finding, Location
from polybook.check.segments import Alignment, Item, prose_text
from polybook.config.glossary import Glossary, Term
from polybook.diagnostics import Code
from polybook.dialect.nodes import Block, Figure, Heading, Paragraph


def check_terms(lang: str, name: str, alignment: Alignment, path: str, glossary: Glossary) -> list[Finding]:
    if not glossary.terms:
        return []
    find = _finder(glossary)
    out: list[Finding] = []
    for src_seg, tgt_seg in alignment.pairs:
        theirs = [item for item in src_seg.items if _prose(item)]
        mine = [item for item in tgt_seg.items if _prose(item)]
        if not theirs or not mine:
            continue
        pairs = list(zip(theirs, mine, strict=True)) if len(theirs) == len(mine) else [(theirs, mine)]
        for source, translation in pairs:
            src_text = _text(source)
            tgt_text = _text(translation)
            line = (translation[0] if isinstance(translation, list) else translation).node.line
            for term in find(src_text.lower()):
                if not _rendered(term, tgt_text):
                    out.append(_finding(lang, name, path, line, term))
    return out


def _prose(item: Item) -> bool:
    node = item.node
    return isinstance(node, Paragraph | Heading | Figure) or (
        isinstance(node, Block) and node.kind not in ("html", "hr")
    )


def _text(items: Item | list[Item]) -> str:
    return "\n".join(_one(item) for item in (items if isinstance(items, list) else [items]))


def _one(item: Item) -> str:
    return item.node.caption if isinstance(item.node, Figure) else prose_text(item)


def _rendered(term: Term, text: str) -> bool:
    lowered = text.lower()
    return any(way.lower() in lowered for way in (term.rendering, *term.variants, term.source))


@lru_cache(maxsize=8)
def _finder(glossary: Glossary) -> Callable[[str], tuple[Term, ...]]:
    """The terms a lowercased text uses: one pattern of every term, the longest that ends a word
    first (:func:`_trie`)."""
    by_text = {term.source.lower(): term for term in glossary.terms}
    pattern = re.compile(r"(?<!\w)(" + _trie(by_text) + r")(?!\w)")

    @lru_cache(maxsize=4096)
    def find(text: str) -> tuple[Term, ...]:
        # kept for the last few thousand texts: every language with a glossary asks of the same
        # source paragraphs, chapter by chapter
        return tuple(by_text[found] for found in dict.fromkeys(pattern.findall(text)))

    return find


def _trie(words: Iterable[str]) -> str:
    """One pattern of ``words`` written as a tree of their letters (``label(?:s)?``): at every
    place it matches what the alternation of all of them, longest first, matches -- a longer word
    is tried before the one it extends, and no two branches start alike -- without trying each word
    in turn (Python's ``re`` does not merge an alternation's prefixes: zh's 138 terms, 3x faster)."""
    tree: dict[str, dict] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def written(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + written(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return written(tree)


def _finding(lang: str, name: str, path: str, line: int, term: Term) -> Finding:
    ways = " or ".join(repr(way) for way in (term.rendering, *term.variants))
    message = f"the source says {term.source!r} here; the glossary renders it {ways}, which this does not use"
    return Finding.make(Code.TERMS_MISSING, message, lang, name, Location(path, line), subject=(term.source, ""))
