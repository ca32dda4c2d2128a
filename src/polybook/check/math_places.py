"""What is left of the formula pairing, read where it stands: one formula changed, or the
``$`` of a paragraph damaged.

:func:`~polybook.check.formulas.pair_formulas` pairs changed formulas between the formulas
both sides keep in order; a formula the translation writes in another order, or next to one it
dropped, is left as one missing and one extra. Here a missing formula and an extra one in the
same place (the paragraph where the source's belongs, or a few lines from it) that look alike
once fonts and braces are set aside (``$c$`` and ``$c_i$``, ``$Y=f(X)$`` and
``$\\mathsf{Y}=f(\\mathsf{X})$``) are one formula changed.

A paragraph whose ``$`` do not pair -- one missing (``q(\\mathbf{x})$``) or stray -- turns its
text into "math" and its formulas into text: every formula after the break is missing and
every stretch of words extra. That is one finding, at the formula that lost its ``$`` when it
can be found, and the missing and extra math the break explains are left out.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection

from cydifflib import SequenceMatcher  # difflib's, compiled: the same results (see pyproject.toml)

from polybook.check.findings import Finding, Location
from polybook.check.formulas import SYMBOL, Formula, Places
from polybook.check.segments import walked
from polybook.check.tex import TEXT_CMD, looks_like_prose
from polybook.diagnostics import Code, Level
from polybook.dialect.nodes import Document

Pairs = list[tuple[Formula | None, Formula | None]]
_NEAR = 3  # lines between where a missing formula belongs and an extra one, to be one changed
_ALIKE = 0.5  # skeletons at least this similar are one formula changed
_REPEAT = 12  # lines: a symbol the source says again this close may be said once in a translation
_FONT = re.compile(r"\\(?:mathbf|mathsf|mathrm|mathit|boldsymbol|bm|mathcal|operatorname)\b|[{}\s]")
_VALUE = re.compile(r"(?:\\[A-Za-z]+ ?)?[A-Za-z](?:_[A-Za-z0-9])?=-?\d[\d.,]*")  # ``K=5``
_DOLLAR = re.compile(r"(?<![\\$])\$(?!\$)")
_LETTERS = re.compile(r"[^\W\d_\x00-\x7f]")  # a letter of a script TeX does not write outside \text
_EDGES = re.compile(r"^\s|^[,.;:!?、。，]|\s$")
_PROSE_AFTER = re.compile(r"\s*(?:[,.;:!?)）、。，]|\*?[^\W\d_])")  # words or punctuation follow
_PROSE_BEFORE = re.compile(r"(?:[,.;:(（、。，]|[^\W\d_]\*?)\s*$")


def _skeleton(tex: str) -> str:
    """A formula without fonts, braces, spaces and case (``$\\ell_1$`` of an older source for
    ``$L_1$``): what two ways of writing one formula share."""
    return _FONT.sub("", tex).replace("\\ell", "l").lower()


def pair_nearby(pairs: Pairs, places: Places) -> Pairs:
    """``pairs`` with each missing formula and an extra one where it belongs that look alike
    paired (changed), the most alike first; an extra symbol given a number that stands for none
    is the source's value said as math (``$K = 5$`` for "`K` (5 in the experiment)")."""
    missing = [(k, s) for k, (s, t) in enumerate(pairs) if s is not None and t is None]
    extra = [(k, t) for k, (s, t) in enumerate(pairs) if t is not None and s is None]
    options = []
    for i, s in missing:
        at = places(s.node, s.line)
        for j, t in extra:
            if t.node == at or abs(t.line - at) <= _NEAR:
                ratio = SequenceMatcher(None, _skeleton(s.tex), _skeleton(t.tex), autojunk=False).ratio()
                if ratio >= _ALIKE:
                    options.append((-ratio, abs(t.line - at), i, j))
    taken: set[int] = set()
    joined: dict[int, tuple[Formula | None, Formula | None]] = {}
    for _, _, i, j in sorted(options):
        if i not in taken and j not in taken:
            taken |= {i, j}
            joined[i] = (pairs[i][0], pairs[j][1])
    kept = [joined.get(k, pair) for k, pair in enumerate(pairs) if k not in taken or k in joined]
    return [(s, t) for s, t in kept if s is not None or t is None or not _VALUE.fullmatch(t.key)]


def changed_in_place(pairs: Pairs, places: Places, lost: Collection[int]) -> Pairs:
    """``pairs`` with the missing and the extra formulas left in one paragraph, as many of each
    (up to :data:`_IN_PLACE`), paired the most alike: formulas changed where they stand (pt's ``\\mathbf{w}``
    of an older source for today's ``\\mathbf{x}``), not one to remove and one to add. A source
    paragraph none of whose formulas is here (``lost``) is told whole instead."""
    missing: dict[int, list[int]] = {}
    extra: dict[int, list[int]] = {}
    for k, (s, t) in enumerate(pairs):
        if s is not None and t is None and s.node not in lost:
            missing.setdefault(places(s.node, s.line), []).append(k)
        elif t is not None and s is None:
            extra.setdefault(t.node, []).append(k)
    joined: dict[int, tuple[Formula | None, Formula | None]] = {}
    taken: set[int] = set()
    for node, found in missing.items():
        mine = extra.get(node, [])
        if len(found) == len(mine) <= _IN_PLACE:
            # the most alike one for one (a language may say the formulas in another order)
            order = max(itertools.permutations(mine), key=lambda order: _likeness(pairs, found, order))
            for i, j in zip(found, order, strict=True):
                joined[i] = (pairs[i][0], pairs[j][1])
                taken |= {i, j}
    _moved_and_changed(pairs, lost, taken, joined)
    if not joined:
        return pairs
    return [joined.get(k, pair) for k, pair in enumerate(pairs) if k not in taken or k in joined]


def _moved_and_changed(
    pairs: Pairs, lost: Collection[int], taken: set[int], joined: dict[int, tuple[Formula | None, Formula | None]]
) -> None:
    """Into ``joined``: a missing formula and an extra one anywhere in the chapter that are
    nearly the same (a translation of an older text that says ``\\log(x_{ij})`` for ``\\log\\, x_{ij}``
    in another paragraph): one changed formula, not one to remove and one to add."""
    missing = [k for k, (s, t) in enumerate(pairs) if t is None and k not in taken and s and s.node not in lost]
    extra = [k for k, (s, t) in enumerate(pairs) if s is None and k not in taken]
    options = []
    for i in missing:
        a = _skeleton(pairs[i][0].tex)  # type: ignore[union-attr]
        if len(a) < _LONG:
            continue
        for j in extra:
            b = _skeleton(pairs[j][1].tex)  # type: ignore[union-attr]
            matcher = SequenceMatcher(None, a, b, autojunk=False)
            if len(b) >= _LONG and matcher.quick_ratio() >= _NEARLY and (ratio := matcher.ratio()) >= _NEARLY:
                options.append((-ratio, i, j))
    for _, i, j in sorted(options):
        if i not in taken and j not in taken:
            joined[i] = (pairs[i][0], pairs[j][1])
            taken |= {i, j}


_LONG = 8  # characters of a formula's skeleton: shorter ones (symbols) are not paired across paragraphs
_NEARLY = 0.85  # skeletons at least this similar, anywhere in the chapter, are one formula changed


_SHOWN = 60  # characters of damaged math a message quotes
_IN_PLACE = 3  # formulas of a paragraph paired when as many are missing as extra


def _likeness(pairs: Pairs, missing: list[int], extra: tuple[int, ...]) -> float:
    """How alike the missing formulas are to the extra ones taken in this order, in all."""
    total = 0.0
    for i, j in zip(missing, extra, strict=True):
        s, t = pairs[i][0], pairs[j][1]
        assert s is not None and t is not None
        total += SequenceMatcher(None, _skeleton(s.tex), _skeleton(t.tex), autojunk=False).ratio()
    return total


def _paragraphs(doc: Document) -> dict[int, tuple[int, str]]:
    """First line -> (last line, raw text) of the nodes that hold prose (a heading's too: a
    translation may have run a list of exercises into it)."""
    return {
        node.line: (node.end_line, text)
        for node in walked(doc)
        if isinstance(text := getattr(node, "source", None) or getattr(node, "text", None), str)
    }


def _unpaired_dollars(text: str) -> bool:
    """Whether ``text`` has an odd number of lone ``$`` (an even number of ``$``, none escaped or
    doubled, are all lone: no need to look for them one by one)."""
    if not text.count("$") % 2 and "\\$" not in text and "$$" not in text:
        return False
    return bool(len(_DOLLAR.findall(text)) % 2)


def broken_dollars(
    lang: str, name: str, source: Document, translation: Document, pairs: Pairs, places: Places
) -> tuple[Pairs, list[Finding]]:
    """``pairs`` without the missing and extra math that a paragraph's unpaired ``$`` explains,
    and one finding per such paragraph (see the module's text)."""
    # a paragraph holding "math" of words (``$の成功が…{k!(n-k)!}$``, ``$validação cruzada K$``): its
    # `$` pair wrongly even when their count is even
    prose_math = {t.node for _, t in pairs if t and (looks_like_prose(t.tex) or _in_words(t.tex))}
    broken = {
        line: text
        for line, (_, text) in _paragraphs(translation).items()
        if line in prose_math or ("$" in text and _unpaired_dollars(text))
    }
    if not broken:
        return pairs, []
    kept: Pairs = []
    culprits: dict[int, tuple[int, str, str]] = {}  # paragraph -> (line, formula, what is wrong)
    explained: set[int] = set()
    worded: dict[int, str] = {}  # paragraph -> its first "math" holding words
    for s, t in pairs:
        if t is not None and t.node in broken and _text_as_math(t.tex) and (s is None or _in_words(t.tex)):
            explained.add(t.node)  # (and a "changed" formula holding the paragraph's words: ja's ``があります。``)
            if _in_words(t.tex):
                worded.setdefault(t.node, t.tex)
            continue
        if s is not None and t is None:
            node = places(s.node, s.line)
            found = _in_text(s.tex, node, broken)
            if found is not None:
                explained.add(found[0])
                if found[2] and found[0] not in culprits:
                    culprits[found[0]] = (found[1], s.tex, found[2])
                continue
        kept.append((s, t))
    findings = []
    for node in sorted(explained):
        if node in culprits:
            line, tex, wrong = culprits[node]
            message = f"math ${tex}$ of the source is here {wrong}: write `${tex}$`; until then the `$` of this "
            message += "paragraph pair wrongly, and its formulas read as text"
        elif node in worded and not _unpaired_dollars(broken[node]):
            line, tex = node, " ".join(worded[node].split())
            shown = tex if len(tex) <= _SHOWN else tex[: _SHOWN - 1] + "…"
            message = f"math ${shown}$ holds words of the text: a formula here is damaged (words, or a `$` "
            message += "moved, inside it); write the source's formulas, each between its own `$`"
        else:
            line = node
            message = "the `$` of this paragraph do not pair (one is missing or stray): its text reads as math "
            message += "and its formulas as text; find the formula that lost its `$`"
        findings.append(Finding.make(
            Code.MATH_MISSING, message, lang, name, Location(translation.path, line), subject=("$", f"{node}"),
            level=Level.ERROR,  # the page shows text as math: not only left untranslated
        ))  # fmt: skip
    return kept, findings


def _in_words(tex: str) -> bool:
    """Whether "math" holds letters of a script TeX does not write outside ``\\text``: a
    paragraph's words between two ``$`` that do not pair."""
    return bool(_LETTERS.search(TEXT_CMD.sub(" ", tex)))


def _text_as_math(tex: str) -> bool:
    """Whether "math" is the text between two formulas, read as math when a ``$`` is lost: words,
    a line break, spaces and punctuation at its ends (``$, então $``), a letter of another script
    (``$は$``)."""
    words = TEXT_CMD.sub(" ", tex)
    return looks_like_prose(tex) or "\n" in tex or bool(_EDGES.search(tex)) or bool(_LETTERS.search(words))


def _in_text(tex: str, node: int, broken: dict[int, str]) -> tuple[int, int, str] | None:
    """Whether a missing formula is in the text of a broken paragraph at or near ``node``:
    ``(paragraph, line, what is wrong)`` -- "" when its ``$`` are there (the break is elsewhere),
    else which ``$`` it lacks."""
    for line in sorted(broken, key=lambda n: abs(n - node)):
        if abs(line - node) > 2 * _NEAR:
            break
        text = broken[line]
        for found in re.finditer(re.escape(tex), text):
            before, after = text[: found.start()].rstrip(" "), text[found.end() :].lstrip(" ")
            opened, closed = before.endswith("$"), after.startswith("$")
            if not opened and not closed:
                continue  # the same characters in words or in another formula
            if (opened and not closed and not _PROSE_AFTER.match(after)) or (
                closed and not opened and not _PROSE_BEFORE.search(before)
            ):
                continue  # the start or end of a longer formula
            wrong = "" if opened == closed else "without its closing `$`" if opened else "without its opening `$`"
            return line, line + text[: found.start()].count("\n"), wrong
    return None


def said_once(pairs: Pairs, source: list[Formula], places: Places) -> Pairs:
    """``pairs`` without a missing symbol (``$\\mathbf{A}$``) the source says again within
    :data:`_REPEAT` lines of where it said it before or after, when the translation has that
    other one: "the row of the matrix $\\mathbf{A}$", right after the translation introduced
    $\\mathbf{A}$, is "the row of the matrix" (a number said twice is said once, the same way)."""
    said: dict[str, list[int]] = {}
    for k in places.equal:
        if SYMBOL.fullmatch(source[k].key):
            said.setdefault(source[k].key, []).append(source[k].line)
    if not said:
        return pairs
    return [
        (s, t)
        for s, t in pairs
        if not (s is not None and t is None and any(0 < abs(line - s.line) <= _REPEAT for line in said.get(s.key, ())))
    ]


def anchored(pairs: Pairs, source: list[Formula], places: Places) -> Callable[[Formula], int]:
    """Where a missing formula of the source belongs in the translation, to the line: the
    line of the translation's counterpart of a formula before it in its paragraph (a list is one
    paragraph: the ``$\\sigma^2_X$`` of the source's Var item belongs with the translation's
    ``$\\mathrm{Var}(X)$``, not at the list's first line), a formula more than a symbol first
    (symbols repeat, and pair in order with another occurrence); for the paragraph's first
    formula, the line of the next one's counterpart; else the paragraph's line."""
    index = {id(f): k for k, f in enumerate(source)}
    counterpart = dict(places.equal)
    for s, t in pairs:
        if s is not None and t is not None:
            counterpart[index[id(s)]] = t

    def line_of(s: Formula) -> int:
        at = places(s.node, s.line)
        symbol = None
        k = index[id(s)] - 1
        while k >= 0 and source[k].node == s.node:
            t = counterpart.get(k)
            if t is not None and t.node == at:
                if not SYMBOL.fullmatch(source[k].key):
                    return t.line
                symbol = symbol or t.line
            k -= 1
        if symbol is None:  # the first formula of its paragraph: it belongs before the next one
            k = index[id(s)] + 1
            while k < len(source) and source[k].node == s.node and symbol is None:
                t = counterpart.get(k)
                symbol = t.line if t is not None and t.node == at else None
                k += 1
        return symbol or at

    return line_of


_ARGUMENTS = re.compile(r"(?<=[A-Za-z'}])\([^()]*\)")  # ``(x)`` of ``f''(x)``, of ``\nabla f(\mathbf{x})``


def arguments_left_out(pairs: Pairs) -> Pairs:
    """``pairs`` without a changed formula that only writes or leaves out a function's
    arguments (``$f''(x) \\geq 0$`` for ``$f'' \\geq 0$``): the same statement. A function
    given other arguments (``\\exp(y)`` for ``\\exp(x)``) stays changed."""

    def same(a: str, b: str) -> bool:
        args_a, args_b = _ARGUMENTS.findall(a), _ARGUMENTS.findall(b)
        if len(args_a) == len(args_b) or _ARGUMENTS.sub("", a) != _ARGUMENTS.sub("", b):
            return False
        fewer, more = sorted((args_a, args_b), key=len)
        return all(fewer.count(x) <= more.count(x) for x in fewer)

    return [(s, t) for s, t in pairs if s is None or t is None or not same(s.key, t.key)]
