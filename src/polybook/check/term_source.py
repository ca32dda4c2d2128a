"""How a glossary's term is found in the source's prose (English); how its rendering is found in a
translation: :mod:`.term_forms`.

The term as a word or its plural (``example``, ``examples``; ``vocabulary``, ``vocabularies``),
outside what is not prose (inline code, math, roles, links' targets, labels:
:func:`polybook.dialect.protect.masked_prose`), not in an idiom that uses the word otherwise (``for
example``, ``for instance``, ``prior to``), not a one-word term used as a verb (``we sample``, ``to
transform``, ``does not mean``, ``we often sample``, ``bias the model``, ``filter out``) or as an
adjective said of the subject (``it becomes imperative to``): the glossary's terms are the book's
nouns and their modifiers; and not a word of a name (``an Amazon Machine Image``: :func:`named`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache

from polybook.config.glossary import Glossary, Term
from polybook.dialect.protect import masked_prose

#: Idioms whose word is no term of the glossary.
_IDIOMS = re.compile(
    r"(?<!\w)(?:for example|for instance|by means of|by the same token|in sequence|trial and error|prior to"
    r"|in (?:this|that|these|those|some|many|such|most|certain) instances?)(?!\w)"
)
#: A word of each idiom: a text with none has none (and is not scanned for them, character by
#: character: a third of reading the source's prose).
_IDIOM_WORDS = ("example", "instance", "means of", "same token", "sequence", "and error", "prior to")
#: Words after which a one-word term is a verb: ``we sample``, ``to transform``, ``be offset``.
_VERB_BEFORE = frozenset(
    {"to", "can", "cannot", "could", "will", "would", "may", "might", "must", "should", "shall"}
    | {"we", "you", "they", "i", "it", "us", "be", "been", "being"}
    | {"do", "does", "did", "don't", "doesn't", "didn't"}  # (``does not mean``: :func:`_not_noun` skips a ``not``)
)
#: Words between such a word and the verb, read past (:func:`_adverb`).
_ADVERBS = frozenset(
    {"not", "often", "also", "then", "just", "only", "always", "never", "usually", "typically", "first", "now"}
    | {"simply", "still", "even", "again", "further", "thus", "therefore", "instead", "actually", "generally"}
)
#: Words before which it is one: its object (``bias the model``, ``label those``, ``transforms
#: it``) or, after a plural subject, what follows the verb (``these inputs mean we``).
_VERB_AFTER = frozenset(
    {"the", "a", "an", "those", "these", "them", "its", "their", "our", "your", "his", "her"}
    | {"it", "we", "you", "us"}
)
#: Verbs that say what the subject is, after which a word followed by "to" or "that" is an adjective.
_LINKING = frozenset({"is", "are", "was", "were", "becomes", "become", "became", "seems", "seem", "remains", "remain"})
#: Plurals that are other words.
_NOT_PLURAL = frozenset({"means"})


@lru_cache(maxsize=4096)
def source_prose(text: str) -> str:
    """A source block's prose, lowercased: what is not prose and the idioms left out (memoised:
    every translation's block pairs with the same source block)."""
    prose = cased_prose(text).lower()
    return _IDIOMS.sub(" ", prose) if any(word in prose for word in _IDIOM_WORDS) else prose


@lru_cache(maxsize=4096)
def cased_prose(text: str) -> str:
    """A source block's prose as written: what is not prose left out, its letters composed
    (:func:`composed`; memoised: :func:`named` reads it after :func:`source_prose`)."""
    return composed(masked_prose(text))


def composed(text: str) -> str:
    """``text`` with its letters composed (NFC), as the glossary's terms and renderings are read:
    an ``ü`` written as ``u`` and a combining diaeresis is the ``ü`` of a text that writes it whole."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def _plurals(term: str) -> list[str]:
    if term.endswith(("s", "x", "ch", "sh")):
        forms = [term + "es"]
    elif term.endswith("y") and not term.endswith(("ay", "ey", "oy", "uy")):
        forms = [term[:-1] + "ies"]
    else:
        forms = [term + "s"]
    return [form for form in forms if form not in _NOT_PLURAL]


@lru_cache(maxsize=8)
def finder(glossary: Glossary) -> Callable[[str], list[Term]]:
    """The terms a source block's prose (:func:`source_prose`) uses: one pattern of every term
    and its plural, longest first."""
    by_form: dict[str, Term] = {}
    for term in glossary.terms:
        source = composed(term.source.lower())
        for form in [source, *_plurals(source)]:
            by_form.setdefault(form, term)
    pattern = re.compile(rf"(?<!\w)({_trie(by_form)})(?!\w)")

    @lru_cache(maxsize=4096)  # every translation asks of the same source blocks
    def find(prose: str) -> list[Term]:
        found: dict[str, Term] = {}
        for match in pattern.finditer(prose):
            term = by_form[match.group(1)]
            if term.source in found or (" " not in term.source and _not_noun(prose, match.start(), match.end())):
                continue  # (found already: its other uses need not be read)
            found[term.source] = term
        return list(found.values())

    return find


def _not_noun(prose: str, start: int, end: int) -> bool:
    """Whether the word at ``prose[start:end]`` is used as a verb, or as an adjective said of the
    subject (by the words around it)."""
    before = _WORD.findall(prose, max(0, start - 40), start)
    read_past = []
    while before and _adverb(before[-1]):
        read_past.append(before.pop())  # ``will not sample``, ``we often sample``, ``will uniformly sample``
    # (after ``to`` a word in -ly may be an adjective of a noun: ``apply dropout to early layers``)
    to_adjective = before[-1:] == ["to"] and any(word not in _ADVERBS for word in read_past)
    if before and before[-1] in _VERB_BEFORE and not to_adjective:
        return True
    # its object, or its particle (``filter out``; ``ten samples out of`` is a noun's)
    after = _WORD.findall(prose, end, end + 40)
    if after and (after[0] in _VERB_AFTER or (after[0] == "out" and after[1:2] != ["of"])):
        return True
    # between a linking verb and what it is said of: ``it becomes imperative to understand``,
    # ``it is crucial that`` (a noun there takes an article: ``it is a sample that``)
    return bool(before and after) and before[-1] in _LINKING and after[0] in ("to", "that")


def _adverb(word: str) -> bool:
    """Whether ``word`` is ``not`` or an adverb (of :data:`_ADVERBS`, or in ``-ly``, not a verb in
    ``-ply`` as ``apply``)."""
    return word in _ADVERBS or (len(word) > 4 and word.endswith("ly") and not word.endswith("ply"))


#: A word, as :func:`_not_noun` reads the 40 characters either side of a term (the first of a window
#: may be a word's end).
_WORD = re.compile(r"[\w']+")


def named(prose: str, term: str) -> bool:
    """Whether every use of a one-word ``term`` (or its plural) in a source block's ``prose``, as
    written (case kept), is part of a name: capitalised in the middle of a sentence, next to
    another capitalised word (``an Amazon Machine Image``, ``Tim Gates``): a product's, a paper's
    or a person's name, which a translation writes as its owner does. Not for a heading's text,
    capitalised as a title. ``prose``: as :func:`cased_prose` gives it, its letters composed."""
    term = composed(term)
    if term[:1].upper() + term[1:] not in prose:
        return False  # (most blocks: no use capitalised; a plural in -ies is then taken as no name)
    uses = list(_any_case(term).finditer(prose))
    return bool(uses) and all(_in_name(prose, use.start(), use.end()) for use in uses)


def first_use(prose: str, term: str) -> re.Match[str] | None:
    """Where ``prose`` first writes ``term`` or its plural as a word, whatever the case, a word of
    a compound written with a hyphen too (``low-precision``), as the glossary's pattern finds it
    (:func:`finder`)."""
    return _any_case(term, joined=True).search(prose)


@lru_cache(maxsize=1024)
def _any_case(term: str, joined: bool = False) -> re.Pattern[str]:
    """``term`` or its plural as a word, whatever the case; ``joined``: a word a hyphen joins to
    another too (:func:`first_use`), not for :func:`named`."""
    term = composed(term)
    forms = "|".join(re.escape(form) for form in [term, *_plurals(term)])
    apart = r"\w" if joined else r"[\w-]"
    return re.compile(rf"(?<!{apart})(?:{forms})(?!{apart})", re.IGNORECASE)


def _in_name(prose: str, start: int, end: int) -> bool:
    """Whether the word at ``prose[start:end]`` is a capitalised one of a name (:func:`named`)."""
    word = prose[start:end]
    if not word[0].isupper() or word.removesuffix("s").isupper():
        return False  # (an acronym is written so everywhere: ``GPUs``)
    lead = prose[:start].rstrip()
    if not lead or lead[-1] in '.!?:;*("\u201c':
        return False  # a sentence's (a list item's) first word is capitalised anyway
    # the words next to it, with nothing but a space between
    before = re.search(r"([\w']+)\s+$", prose[max(0, start - 40) : start])
    after = re.match(r"\s+([\w']+)", prose[end : end + 40])
    return any(found is not None and found[1][0].isupper() for found in (before, after))


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
