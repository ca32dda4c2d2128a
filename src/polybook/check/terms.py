"""``terms.missing``: a translated block whose source uses a term of the language's glossary
(``chapters/<lang>/glossary``) and which uses neither the glossary's rendering nor a variant.

Blocks are paired as the checker pairs them (:func:`pair_segments`): between two shared anchors,
block by block when both sides have as many prose blocks, else the stretch as a whole. A block
that still says the term as the source does (untranslated, or the term kept) is left alone. How a
term is found: :mod:`.term_source`; its rendering: :mod:`.term_forms`.

``terms.unfollowed``: a term a language departs from in more than one of ten of the blocks that
use it (of 5 blocks or more, 3 or more departing: one or two departures are no rule) is said once,
at its glossary line, with the counts -- the book has its own word for it, which the glossary
should declare or the translators change -- and its blocks are listed in it (each translated
block's place and the source's words around the term), not as a note each: a block note is for
the block that departs from what the translation otherwise does. A source sentence that two
languages or more checked with it, each following the term as a rule, leave unrendered uses the
word in another sense: no note. Each chapter counts its blocks (a ``terms.unfollowed`` tally per
term, :func:`check_terms`); the merge adds them up per language (:func:`terms_once`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from polybook.check.findings import Finding, Location
from polybook.check.segments import Alignment, Item, prose_text, sentences
from polybook.check.term_forms import rendered, written
from polybook.check.term_source import cased_prose, finder, first_use, named, source_prose
from polybook.config.glossary import Glossary, Term
from polybook.diagnostics import Code
from polybook.dialect.nodes import Block, Figure, Heading, Paragraph
from polybook.files import display_path

#: A term followed in fewer of its blocks than this share, of at least ``_ENOUGH`` blocks, is
#: rendered otherwise by the language as a rule: said once, not block by block.
_FOLLOWED = 0.9
_ENOUGH = 5
#: ... and of at least this many blocks that render it otherwise: one or two departures are no rule
#: (4 of 5 blocks following the glossary): each is told at its block.
_DEPARTURES = 3


def check_terms(
    lang: str, name: str, alignment: Alignment, path: str, glossary: Glossary, source_path: str = ""
) -> list[Finding]:
    """A ``terms.missing`` note per block that does not render a term its source uses, and a
    ``terms.unfollowed`` tally per term the document uses (the merge's to add up)."""
    out: list[Finding] = []
    uses: Counter[Term] = Counter()
    followed: Counter[Term] = Counter()
    for use in term_uses(alignment, glossary, lang):
        uses[use.term] += 1
        followed[use.term] += use.rendered
        if not use.rendered:
            where = Location(source_path, use.source_line)
            out.append(_finding(lang, name, Location(path, use.line), where, use))
    shown = display_path(Path(glossary.path)) if glossary.path else "glossary"
    for term, n in uses.items():
        message = f"the glossary renders {term.source!r} {_ways(term)}"
        tally = Finding.make(
            Code.TERMS_UNFOLLOWED, message, lang, name, Location(shown, term.line), subject=(term.source, "")
        )
        out.append(replace(tally, diff=((str(n), str(followed[term])),)))
    return out


def terms_once(findings: list[Finding]) -> list[Finding]:
    """The chapters' ``terms.unfollowed`` tallies added up per language and term: a term the
    language follows in fewer than 9 of 10 of its blocks (5 or more, 3 or more departing) is said
    once, its ``terms.missing`` notes left out and listed in it instead (:func:`_departures`); the
    other tallies are dropped."""
    tallies: dict[tuple[str, str], list[Finding]] = {}
    missing: dict[tuple[str, str], list[Finding]] = {}
    for finding in findings:
        if finding.code is Code.TERMS_UNFOLLOWED:
            tallies.setdefault((finding.lang, finding.subject[0]), []).append(finding)
        elif finding.code is Code.TERMS_MISSING:
            missing.setdefault((finding.lang, finding.subject[0]), []).append(finding)
    said: dict[tuple[str, str], Finding] = {}
    for key, found in tallies.items():
        uses = sum(int(f.diff[0][0]) for f in found)
        followed = sum(int(f.diff[0][1]) for f in found)
        if uses >= _ENOUGH and followed < _FOLLOWED * uses and uses - followed >= _DEPARTURES:
            first = min(found, key=lambda f: f.name)
            message = (
                f"{first.message}, which {followed} of the {uses} translated blocks that use the term follow "
                f"({len(found)} documents); the {uses - followed} others are listed here, not as a note each: "
                "declare their rendering a variant in the glossary, or follow it"
            )
            said[key] = replace(first, message=message, diff=_departures(missing.get(key, [])))
    other_sense = _missed_by_all([f for f in findings if (f.lang, f.subject[0]) not in said])
    out = [
        f
        for f in findings
        if f.code is not Code.TERMS_UNFOLLOWED
        and not (f.code is Code.TERMS_MISSING and ((f.lang, f.subject[0]) in said or _place(f) in other_sense))
    ]
    return out + list(said.values())


def _departures(notes: list[Finding]) -> tuple[tuple[str, str], ...]:
    """A ``terms.unfollowed`` note's blocks, from the ``terms.missing`` notes it stands for: each
    translated block's place and the source's words around the term (:func:`_excerpt`), in the
    order of the book's files."""
    ordered = sorted(notes, key=lambda note: note.order)
    return tuple((str(note.primary), note.diff[0][1] if note.diff else str(note.source)) for note in ordered)


def _place(finding: Finding) -> tuple[str, str, str]:
    """A note's document, term and source sentence (:func:`_sentence`: a language's base may be
    its own copy of the source, d2l-zh's ``_origin.md``, and one language's block a stretch of
    another's)."""
    return finding.name, finding.subject[0], finding.subject[1]


def _missed_by_all(findings: list[Finding]) -> set[tuple[str, str, str]]:
    """The source sentences and terms that two languages or more checked together both leave
    unrendered: two translators departing from their glossaries at one word of one sentence say
    the source uses the word in another sense there (a library's ``features``, a body's
    ``weight``), not the glossary's term. ``findings``: the notes of the languages that follow
    the term as a rule (a language that renders it otherwise everywhere says nothing of one
    sentence)."""
    langs: dict[tuple[str, str, str], set[str]] = {}
    for finding in findings:
        if finding.code is Code.TERMS_MISSING:
            langs.setdefault(_place(finding), set()).add(finding.lang)
    return {place for place, found in langs.items() if len(found) > 1}


@dataclass(frozen=True, slots=True)
class Use:
    """A glossary term a source block uses, and whether its translation renders it: the two
    texts as compared (the blocks' prose), and the first line of each."""

    term: Term
    line: int
    source_line: int
    source: str
    translation: str
    rendered: bool
    sentence: str = ""  # of a use not rendered: the source's sentence that uses the term (:func:`_sentence`)


def term_uses(alignment: Alignment, glossary: Glossary, lang: str) -> Iterator[Use]:
    """Every :class:`Use` of a document pair, blocks paired as the checker pairs them. A block's
    rendering is looked for in its translated block and the ones on either side of it (across a
    stretch's end too): a translation that splits or joins paragraphs, or says a sentence after
    the formula rather than before it, moves it by a block."""
    if not glossary.terms:
        return
    find = finder(glossary)
    pairs: list[tuple[Item | list[Item], Item | list[Item]]] = []
    for src_seg, tgt_seg in alignment.pairs:
        theirs = [item for item in src_seg.items if _prose(item)]
        mine = [item for item in tgt_seg.items if _prose(item)]
        if not theirs or not mine:
            continue
        blockwise = list(zip(theirs, mine, strict=True)) if len(theirs) == len(mine) else []
        pairs += blockwise if len(blockwise) == 1 or (blockwise and _in_step(blockwise)) else [(theirs, mine)]
    texts = [_text(translation) for _, translation in pairs]
    for index, (source, translation) in enumerate(pairs):
        src_text = _text(source)
        terms = find(source_prose(src_text))
        if any(" " not in term.source for term in terms):
            names = cased_prose(_titles_left_out(source))
            terms = [term for term in terms if " " in term.source or not named(names, term.source)]
        if not terms:
            continue
        near = written(texts[max(0, index - 1) : index + 2], lang)  # read once for all its terms
        line, source_line = _listed(translation)[0].node.line, _listed(source)[0].node.line
        for term in terms:
            ok = rendered(term, near, lang)
            said = "" if ok else _sentence(source, term.source)
            yield Use(term, line, source_line, src_text, texts[index], ok, said)


#: A translated block this many times shorter or longer than the stretch's translation runs
#: against its source is not that source block's translation.
_OUT_OF_STEP = 4.0


def _in_step(pairs: list[tuple[Item, Item]]) -> bool:
    """Whether each block of a stretch paired block by block is about as long, against its
    source block, as the stretch is against its source: a translation that moved a paragraph
    (a summary's list where the source still has it, an exercise that is a link) pairs blocks
    that say different things, and the stretch is then read as a whole."""
    lengths = [(len(_text(source)) or 1, len(_text(translation)) or 1) for source, translation in pairs]
    overall = sum(mine for _, mine in lengths) / sum(theirs for theirs, _ in lengths)
    return all(1 / _OUT_OF_STEP <= (mine / theirs) / overall <= _OUT_OF_STEP for theirs, mine in lengths)


def term_misses(alignment: Alignment, glossary: Glossary, lang: str) -> Iterator[Use]:
    """The uses whose translation does not render the term."""
    return (use for use in term_uses(alignment, glossary, lang) if not use.rendered)


def _prose(item: Item) -> bool:
    node = item.node
    return isinstance(node, Paragraph | Heading | Figure) or (
        isinstance(node, Block) and node.kind not in ("html", "hr")
    )


def _listed(items: Item | list[Item]) -> list[Item]:
    """A block as the one item of a stretch."""
    return items if isinstance(items, list) else [items]


def _text(items: Item | list[Item]) -> str:
    return "\n".join(_one(item) for item in _listed(items))


def _one(item: Item) -> str:
    return item.node.caption if isinstance(item.node, Figure) else prose_text(item)


def _titles_left_out(items: Item | list[Item]) -> str:
    """:func:`_text` without the headings, capitalised as titles (for :func:`named`)."""
    return _text([item for item in _listed(items) if not isinstance(item.node, Heading)])


def _ways(term: Term) -> str:
    return " or ".join(repr(way) for way in (term.rendering, *term.variants))


def _finding(lang: str, name: str, location: Location, source: Location, use: Use) -> Finding:
    term = use.term
    message = f"the source says {term.source!r} here; the glossary renders it {_ways(term)}, which this does not use"
    said = hashlib.sha256(use.sentence.encode()).hexdigest()[:12]
    return Finding.make(
        Code.TERMS_MISSING,
        message,
        lang,
        name,
        location,
        source=source,
        subject=(term.source, said),
        diff=(("", _as_written(_excerpt(use.sentence, term.source), use.source)),),
    )


#: How many characters of the source's sentence a note shows on either side of the term.
_AROUND = 60


def _excerpt(sentence: str, term: str) -> str:
    """The words of ``sentence`` (as :func:`_sentence` gives it) around its first use of ``term``:
    what a note shows of the source, whole words, ``…`` where it is cut."""
    found = first_use(sentence, term)
    first, last = (found.start(), found.end()) if found else (0, 0)
    start, end = max(0, first - _AROUND), min(len(sentence), last + _AROUND)
    if start > 0 and sentence[start - 1] != " ":  # from a word's first letter
        cut = sentence.find(" ", start, first)
        start = cut + 1 if cut >= 0 else start
    if end < len(sentence) and sentence[end] != " ":  # to a word's last
        cut = sentence.rfind(" ", last, end)
        end = cut if cut >= 0 else end
    return ("…" if start else "") + sentence[start:end] + ("…" if end < len(sentence) else "")


def source_words(text: str, term: str) -> str:
    """The words of a source block's ``text`` around its first use of ``term``, as a note shows
    them (:func:`_excerpt`, :func:`_as_written`)."""
    return _as_written(_excerpt(" ".join(source_prose(text).split()), term), text)


def _as_written(excerpt: str, source: str) -> str:
    """``excerpt`` (lowercased, as the check reads the source) as the source block's prose writes
    it, its capitals kept (``MXNet``), when the prose holds it (not across an idiom the check left
    out)."""
    words = excerpt.removeprefix("…").removesuffix("…")
    prose = " ".join(cased_prose(source).split())
    lowered = prose.lower()
    at = lowered.find(words) if len(lowered) == len(prose) else -1
    return excerpt if at < 0 else excerpt.replace(words, prose[at : at + len(words)], 1)


def _sentence(items: Item | list[Item], term: str) -> str:
    """The first sentence of a source block (of a stretch's blocks) that uses ``term``, its list
    marker left out (the whole prose when none is told apart): what a note is about in the
    source, the same however the languages' blocks were paired with it (block by block, or a
    stretch read whole) and whichever copy of the source their base is."""
    return _sentence_in(tuple(_one(item) for item in _listed(items)), term)


@lru_cache(maxsize=4096)
def _sentence_in(texts: tuple[str, ...], term: str) -> str:
    """:func:`_sentence` of the blocks' texts (memoised: the languages that leave one term of one
    block unrendered ask alike)."""
    for text in texts:
        prose = " ".join(source_prose(text).split())
        if not first_use(prose, term):
            continue  # (nor does a sentence of it: a stretch's other blocks are not cut up)
        for one in sentences(prose):
            if first_use(one, term):
                return one.lstrip("*+-0123456789. ")
    return " ".join(source_prose("\n".join(texts)).split())
