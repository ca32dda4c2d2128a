"""Which cells of a chapter and its translation are counterparts: one stream of cells per
framework both offer, aligned on their code (comments and strings aside); a lone missing and a
lone extra cell side by side that share half their lines are one cell changed."""

from __future__ import annotations

from functools import lru_cache

from polybook.check.align import Pair, align, never
from polybook.check.code_keys import cell_key, uncommented_key, without_comments
from polybook.check.documents import cells_of
from polybook.check.regroup import CellMatch
from polybook.check.retab import retabbed
from polybook.dialect.nodes import Document


def align_code(source: list[str], target: list[str]) -> list[Pair]:
    """:func:`align` on :func:`cell_key`, which is computed only where it can matter: cells whose
    code is equal but for comments pair first, and only the runs between them are normalised
    (most translated cells are the source's code with translated comments). Memoised on the
    code without comments (all the result depends on): every language whose cells are its base's
    but for their comments, and the stale findings of every language made from one base, share it."""
    return list(_align_uncommented(tuple(map(without_comments, source)), tuple(map(without_comments, target))))


@lru_cache(maxsize=4096)
def _align_uncommented(source: tuple[str, ...], target: tuple[str, ...]) -> tuple[Pair, ...]:
    """:func:`align_code` of code :func:`without_comments` (:func:`cell_key` is a function of it)."""
    quick = align(list(source), list(target), never, 2.0)
    out: list[Pair] = []
    s_run: list[int] = []
    t_run: list[int] = []
    for pair in [*quick, None]:
        if pair is None or pair.kind == "equal":
            if s_run and t_run:
                found = align([uncommented_key(source[i]) for i in s_run], [uncommented_key(target[j]) for j in t_run])
                out += [_renumber(p, s_run, t_run) for p in found]
            else:
                out += [Pair(i, None, "missing", 0.0) for i in s_run] + [Pair(None, j, "extra", 0.0) for j in t_run]
            s_run, t_run = [], []
            if pair is not None:
                out.append(pair)
        elif pair.source is not None:
            s_run.append(pair.source)
        elif pair.target is not None:
            t_run.append(pair.target)
    return tuple(out)


def _renumber(pair: Pair, s_run: list[int], t_run: list[int]) -> Pair:
    s = s_run[pair.source] if pair.source is not None else None
    t = t_run[pair.target] if pair.target is not None else None
    return Pair(s, t, pair.kind, pair.ratio)


def named_frameworks(doc: Document) -> set[str]:
    """The frameworks cells name: ``#@tab`` lists (not ``all``), and the default tab for untagged cells;
    those a d2lbook 1.0 document declares (``tab.interact_select``), when it does."""
    setup = doc.setup
    if setup is not None and setup.frameworks is not None:
        return set(setup.frameworks)
    return {f for c in cells_of(doc) if c.tab is None or c.tab.strip() != "all" for f in c.frameworks}


def _runs(doc: Document) -> set[str]:
    return {f for c in cells_of(doc) for f in c.frameworks}


def shared_frameworks(source: Document, translation: Document) -> frozenset[str]:
    """The frameworks both chapters offer, whose cells and text tabs are compared.

    A chapter offers the frameworks its cells name; ``#@tab all`` names none, so a chapter of
    mxnet and pytorch cells and ``all`` cells does not offer tensorflow even though its ``all``
    cells run for it. A source whose cells are all ``all`` offers every framework, and the
    translation then the ones its cells run for; a translation whose cells are all ``all`` offers
    none that the source names (no fallback: sync would change what is compared, and a second
    sync would undo the first). The rest is coverage (:func:`check_coverage`).
    """
    both = frozenset(source.frameworks) & frozenset(translation.frameworks)
    if not cells_of(translation):
        return both
    if not named_frameworks(source):
        return both & _runs(translation)
    return both & named_frameworks(source) & named_frameworks(translation)


def match_cells(source: Document, translation: Document) -> CellMatch:
    """Align each framework's stream of cells, for the frameworks both chapters offer (the others
    are coverage); a cell paired in any stream stands for its counterpart."""
    match = CellMatch(common=shared_frameworks(source, translation))
    moved = match.retabbed = retabbed(source, translation, match.common)
    for s, t in moved:
        match.source_to_target[id(s)], match.target_to_source[id(t)] = t, s
    out_s, out_t = {id(s) for s, _ in moved}, {id(t) for _, t in moved}
    for framework in [f for f in source.frameworks if f in match.common]:
        src = [c for c in cells_of(source, framework) if id(c) not in out_s]
        tgt = [c for c in cells_of(translation, framework) if id(c) not in out_t]
        s_code, t_code = [c.code_for(framework) for c in src], [c.code_for(framework) for c in tgt]
        pairs = _contained(align_code(s_code, t_code), s_code, t_code)
        match.streams.append((framework, src, tgt, pairs))
        for pair in pairs:
            if pair.source is not None and pair.target is not None:
                match.target_to_source.setdefault(id(tgt[pair.target]), src[pair.source])
                match.source_to_target.setdefault(id(src[pair.source]), tgt[pair.target])
    return match


def _contained(pairs: list[Pair], source: list[str], target: list[str]) -> list[Pair]:
    """``pairs`` with a lone missing cell and a lone extra one side by side paired (similar) when
    half the shorter's lines are in the other: one cell with lines added or dropped (pt's
    ``load_data()`` without the source's preprocessing below it), not a missing and an extra."""
    out = list(pairs)
    for k in range(len(out) - 1):
        a, b = out[k], out[k + 1]
        kinds = {a.kind, b.kind}
        if (
            kinds != {"missing", "extra"}
            or (k and out[k - 1].kind in kinds)
            or (k + 2 < len(out) and out[k + 2].kind in kinds)
        ):
            continue
        s, t = (a.source, b.target) if a.kind == "missing" else (b.source, a.target)
        mine, theirs = cell_key(source[s]).split("\n"), cell_key(target[t]).split("\n")  # type: ignore[index]
        short, other = (mine, set(theirs)) if len(mine) <= len(theirs) else (theirs, set(mine))
        shared = sum(line in other for line in short)
        if short != [""] and shared >= max(1, len(short) / 2):
            out[k : k + 2] = [Pair(s, t, "similar", shared / max(len(mine), len(theirs))), Pair(None, None, "gone")]
    return [p for p in out if p.kind != "gone"]
