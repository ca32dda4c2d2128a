"""Translated text inside code carried into the source's new cell, line by line.

A translator translates a cell's comments and strings (``print(f'w的估计误差: ...')``), not its
code. When the source changed a cell, its lines it did not change still say what they said:
each such line takes its translation -- the translated line whose code (:func:`skeleton`, the
line without its comment and its strings' words) is the base line's. A run of comment lines
the translator rewrapped (two lines for one) is carried whole where the source kept the base's
run. What cannot be carried this way is reported, so the old cell is kept aside.
"""

from __future__ import annotations

from dataclasses import dataclass

from cydifflib import SequenceMatcher

from polybook.sync.translated import Known, fold, is_translated


@dataclass(frozen=True, slots=True)
class CarriedCode:
    code: str
    complete: bool  # every translated line of the old cell is in ``code``


def skeleton(line: str) -> str:
    """The line's code: its comment dropped (not a ``#@`` marker), its strings' words dropped
    (what is between their quotes but a ``{...}`` an f-string computes), whitespace folded but
    the indentation; ``#`` for a comment line."""
    folded = fold(line)
    if folded.startswith("#") and not folded.startswith("#@"):
        return "#"
    indent = line[: len(line) - len(line.lstrip())]  # the code's own: Python reads it
    out: list[str] = []
    quote = ""
    depth = 0
    for k, c in enumerate(folded):
        if quote:
            if c == quote and folded[k - 1] != "\\":
                quote = ""
                out.append(c)
            elif c == "{":
                depth += 1
            elif c == "}":
                depth = max(0, depth - 1)
            elif depth:
                out.append(c)
            continue
        if c in "\"'":
            quote = c
            out.append(c)
        elif c == "#":
            if folded.startswith("#@", k):  # a marker (``#@save``) is code: it says what the library takes
                out.append(folded[k:])
            break
        else:
            out.append(c)
    return indent + "".join(out).strip()


def carried_code(base: str, source: str, mine: str, found: Known) -> CarriedCode:
    """The ``source`` cell's code with the translation (``mine``, of ``base``) of each line the
    source kept from ``base``; ``found``: the known lines (:mod:`.translated`), to tell which of
    ``mine``'s lines are translation."""
    b, s, t = base.split("\n"), source.split("\n"), mine.split("\n")
    into = _translations(b, t)  # base line -> the translated lines standing for it
    kept = _kept(s, b)  # source line -> the base line it is, unchanged
    kept_base = set(kept.values())
    out: list[str] = []
    carried: set[int] = set()
    for k, line in enumerate(s):
        i = kept.get(k)
        block = into.get(i) if i is not None else None
        if block is None or not all(j in kept_base for j in block[0]) or not _translates(block, t, found):
            out.append(line)  # the source's line, where the translation's holds no translation
            continue
        if block[0][0] == i:  # the first base line of the run brings the run's translation
            out += [t[j] for j in block[1]]
            carried.update(block[1])
    missing = [j for j, line in enumerate(t) if j not in carried and is_translated(line, found, True)]
    return CarriedCode("\n".join(out), not missing)


def _translates(block: tuple[list[int], list[int]], t: list[str], found: Known) -> bool:
    """Whether a run of the translation's lines holds translation (not only white space or an
    older wording of the source's comment)."""
    return any(is_translated(t[j], found, True) for j in block[1])


def _kept(s: list[str], b: list[str]) -> dict[int, int]:
    """Source line -> base line, for the lines the source kept as they were."""
    out: dict[int, int] = {}
    matcher = SequenceMatcher(None, [x.rstrip() for x in b], [x.rstrip() for x in s], autojunk=False)
    for i, k, size in matcher.get_matching_blocks():
        out.update({k + n: i + n for n in range(size)})
    return out


def _translations(b: list[str], t: list[str]) -> dict[int, tuple[list[int], list[int]]]:
    """Base line -> (the base lines of its run, the translated lines of that run): lines whose
    code is the same pair one to one; a run of comment lines against a run of comment lines
    pairs whole."""
    mb, mt = [skeleton(x) for x in b], [skeleton(x) for x in t]
    out: dict[int, tuple[list[int], list[int]]] = {}
    matcher = SequenceMatcher(None, mb, mt, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for n in range(i2 - i1):
                out[i1 + n] = ([i1 + n], [j1 + n])
        elif tag == "replace" and all(x in ("#", "") for x in mb[i1:i2] + mt[j1:j2]):
            run = (list(range(i1, i2)), list(range(j1, j2)))
            for i in range(i1, i2):
                out[i] = run
    return out
