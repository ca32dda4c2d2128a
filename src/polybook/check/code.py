"""Code checks: one stream of cells per framework, aligned between source and translation."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from polybook.check.code_changed import changed_findings
from polybook.check.code_keys import cell_key
from polybook.check.code_match import named_frameworks
from polybook.check.documents import cells_of
from polybook.check.findings import Finding, Location
from polybook.check.regroup import CellMatch, holders, streams_of
from polybook.check.retab import retabbed_finding
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, Document
from polybook.dialect.normalize import normalize_code
from polybook.library.collect import save_lines


def _offered_cells(doc: Document, framework: str, every: bool = True) -> list[CodeCell]:
    """The cells that make ``framework``'s version of a chapter: those naming it, or, when no
    cell names a framework and ``every`` (a source of ``all`` cells), every cell running for it."""
    named = [c for c in cells_of(doc, framework) if c.tab is None or c.tab.strip() != "all"]
    return named if named or named_frameworks(doc) or not every else cells_of(doc, framework)


def _first_line_of_document(cell: CodeCell) -> int:
    return 1


def _sides(
    source: Document, translation: Document, framework: str, retabbed: list[tuple[CodeCell, CodeCell]]
) -> tuple[list[CodeCell], list[CodeCell]]:
    """The cells of ``framework``'s version of each chapter (:func:`_offered_cells`), the source's
    without those ``retabbed`` (told as a cell under another tab)."""
    mine = _offered_cells(source, framework) if framework in source.frameworks else []
    theirs = (
        _offered_cells(translation, framework, not named_frameworks(source))
        if framework in translation.frameworks
        else []
    )
    return [cell for cell in mine if all(cell is not s for s, _ in retabbed)], theirs


def _lost_alone(mine: list[CodeCell], framework: str, translation: Document, offered: tuple[str, ...]) -> bool:
    """Whether the source's cells of a framework the translation has none of are one cell, of a
    framework its language offers: a cell lost, not a framework left untranslated."""
    return len(mine) == 1 and framework in offered and bool(cells_of(translation))


def lost_alone(
    source: Document, translation: Document, common: frozenset[str], offered: tuple[str, ...]
) -> list[CodeCell]:
    """The source's cells that :func:`check_coverage` tells missing (``code.missing``) though their
    framework is not one both chapters offer (``common``): the one cell of a framework the
    language ``offered``, which the translation lost (sync inserts them back)."""
    out = []
    for framework in [f for f in source.frameworks if f not in common]:
        mine, theirs = _sides(source, translation, framework, [])
        if mine and not theirs and _lost_alone(mine, framework, translation, offered):
            out.append(mine[0])
    return out


def check_coverage(
    lang: str,
    name: str,
    source: Document,
    translation: Document,
    common: frozenset[str],
    place: Callable[[CodeCell], int] | None = None,
    offered: tuple[str, ...] = (),
    retabbed: list[tuple[CodeCell, CodeCell]] = (),  # type: ignore[assignment]
) -> list[Finding]:
    """Frameworks one chapter offers and the other does not: once per chapter and framework,
    as info (a translation of fewer frameworks, or of more, is not drift), told where the
    source's first cell of it belongs (``place``) -- but the only cell of a framework the
    language ``offered`` is a cell missing, told there as such (its one cell lost, not a
    framework left untranslated)."""
    out = []
    for framework in [f for f in dict.fromkeys((*source.frameworks, *translation.frameworks)) if f not in common]:
        mine, theirs = _sides(source, translation, framework, retabbed)
        if mine and not theirs:
            at = place or _first_line_of_document
            if _lost_alone(mine, framework, translation, offered):
                out += _unpaired(lang, name, framework, 1, mine[0], None, translation, at,
                                 {"framework": framework, "cell": 1})  # fmt: skip
                continue
            where = Location(translation.path, at(mine[0]))
            out.append(Finding.make(
                Code.CODE_COVERAGE, f"no {framework} cells: {len(mine)} in the source; translate them to offer "
                f"{framework}", lang, name,
                where, source=Location(source.path, mine[0].line), framework=framework,
                subject=("", framework),
            ))  # fmt: skip
        elif theirs and framework not in source.frameworks:  # said once per language (check's merge)
            out.append(Finding.make(
                Code.CODE_COVERAGE, f"{len(theirs)} {framework} cells; {framework} is not a framework of the source",
                lang, name, Location(translation.path, theirs[0].line), framework=framework,
                subject=(framework, str(len(theirs))),
            ))  # fmt: skip
        elif theirs and not mine:
            out.append(Finding.make(
                Code.CODE_COVERAGE, f"{len(theirs)} {framework} cells, none in the source: nothing to fix", lang,
                name,
                Location(translation.path, theirs[0].line), framework=framework, subject=(framework, ""),
            ))  # fmt: skip
    return out


def check_code(
    lang: str, name: str, source: Document, translation: Document, match: CellMatch, place: Callable[[CodeCell], int]
) -> list[Finding]:
    """Code findings of the cell streams in ``match``; ``place`` says where a source cell the
    translation lacks belongs in it (:func:`polybook.check.segments.cell_place`)."""
    findings: list[Finding] = [retabbed_finding(lang, name, source, s, t) for s, t in match.retabbed]
    seen: set[tuple[Code, int, int]] = set()
    streams = streams_of(match)
    for framework, src, tgt, pairs in match.streams:
        joins = holders(pairs, src, tgt, framework, match.source_to_target, joined=True)
        splits = holders(pairs, tgt, src, framework, match.target_to_source, joined=False)
        held_s = {i for cells in joins.values() for i in cells}
        held_t = {j for cells in splits.values() for j in cells}
        for pair in pairs:
            s = src[pair.source] if pair.source is not None else None
            t = tgt[pair.target] if pair.target is not None else None
            # A cell paired in another framework's stream differs in its tab set, not in presence.
            if (t is None and id(s) in match.source_to_target) or (s is None and id(t) in match.target_to_source):
                continue
            if (t is None and pair.source in held_s) or (s is None and pair.target in held_t):
                continue  # its code is in another cell, whose finding says so
            s_cells = sorted([pair.source, *joins[pair.target]]) if pair.target in joins else []
            t_cells = sorted([pair.target, *splits[pair.source]]) if pair.source in splits else []
            found = _compare(
                lang, name, framework, pair.kind, s, t, pair, translation, place, match.common,
                [(i + 1, src[i]) for i in s_cells], [(j + 1, tgt[j]) for j in t_cells], streams,
            )  # fmt: skip
            for f in found:
                # a cell's tab set and markers are one finding however many streams pair it
                once = f.code in (Code.CODE_TABS, Code.CODE_MARKERS)
                key = (f.code, f.location.line if f.location else 0, 0 if once or not f.source else f.source.line)
                if f.code is Code.CODE_TABS and f.source is not None and _SPLIT_TABS in f.message:
                    key = (f.code, 0, f.source.line)  # the source's cell split here: said at the first of its cells
                if key not in seen:
                    seen.add(key)
                    findings.append(f)
    return findings


def _compare(
    lang: str,
    name: str,
    framework: str,
    kind: str,
    s: CodeCell | None,
    t: CodeCell | None,
    pair: object,
    translation: Document,
    place: Callable[[CodeCell], int],
    shared: frozenset[str],
    joined: list[tuple[int, CodeCell]] = (),  # type: ignore[assignment]
    split: list[tuple[int, CodeCell]] = (),  # type: ignore[assignment]
    streams: dict[int, set[str]] | None = None,
) -> list[Finding]:
    """The findings of one pair of the stream; ``joined``: the source cells (numbered) the
    translation cell holds when a translator joined several into it; ``split``: the translation
    cells the source cell is split into."""
    index = (pair.source if s is not None else pair.target) + 1  # type: ignore[attr-defined]
    common = {"framework": framework, "cell": index}
    if s is None or t is None:
        return _unpaired(lang, name, framework, index, s, t, translation, place, common)
    assert s is not None and t is not None
    cells = [cell for _, cell in joined] or [s]
    t_cells = [cell for _, cell in split] or [t]
    s_code = "\n".join(cell.code_for(framework) for cell in cells)
    t_code = "\n".join(cell.code_for(framework) for cell in t_cells)
    if joined or split:
        kind = "equal" if cell_key(s_code) == cell_key(t_code) else "similar"
    s_marks = sorted(m.name for cell in cells for m in cell.markers)
    t_marks = sorted(m.name for cell in t_cells for m in cell.markers)
    same_tabs = _same_tabs(s, t, shared, streams)
    if kind == "equal" and same_tabs and s_marks == t_marks and not joined and not split:
        return []  # the usual case: no finding, so no subject to normalise
    out = []
    where, src = Location(t.path, t.line), Location(s.path, s.line)
    subject = (cell_key(t_code), cell_key(s_code))
    if joined or (split and not _saves_alike(s, t_cells, framework)):
        out.append(_regrouped(lang, name, framework, joined, split, s, t, subject, common))
    if kind == "similar":
        out.extend(changed_findings(lang, name, framework, index, cells, t_cells, subject, common))
    if not same_tabs:
        out.append(
            Finding.make(
                Code.CODE_TABS, _tabs_message(framework, index, s, t, shared, streams),
                lang, name, where, source=src, subject=subject,
                diff=((", ".join(t.frameworks), ", ".join(s.frameworks)),), **common,
            )
        )  # fmt: skip
    if s_marks != t_marks and not joined and not split and _saves(t, framework) != _saves(s, framework):
        out.append(
            Finding.make(
                Code.CODE_MARKERS,
                f"{framework} cell {index} has markers [{_marks(t_marks)}] here but [{_marks(s_marks)}] in the "
                f"source: {_mark_advice(t_marks, s_marks)}",
                lang, name, where, source=src, subject=subject,
                diff=((_marks(t_marks), _marks(s_marks)),), **common,
            )
        )  # fmt: skip
    return out


def _unpaired(
    lang: str,
    name: str,
    framework: str,
    index: int,
    s: CodeCell | None,
    t: CodeCell | None,
    translation: Document,
    place: Callable[[CodeCell], int],
    common: dict[str, Any],
) -> list[Finding]:
    """A source cell the translation lacks (said where it belongs: ``place``), or a translation
    cell the source lacks."""
    if s is not None:
        where = Location(translation.path, place(s))
        return [
            Finding.make(
                Code.CODE_MISSING, f"{framework} cell {index} of the source is missing here: add it "
                "(polybook sync --write inserts it)", lang, name, where, source=Location(s.path, s.line),
                subject=("", cell_key(s.code_for(framework))), diff=(("", _first_line(s.code_for(framework))),),
                **common,
            )
        ]  # fmt: skip
    if t is not None:
        return [
            Finding.make(
                Code.CODE_EXTRA, f"{framework} cell {index} has no counterpart in the source: remove it, unless the "
                "translation adds it on purpose (polybook sync --write --prune removes it)", lang, name,
                Location(t.path, t.line), subject=(cell_key(t.code_for(framework)), ""),
                diff=((_first_line(t.code_for(framework)), ""),), **common,
            )
        ]  # fmt: skip
    return []


_SPLIT_TABS = ": the source's cell runs for"  # (a cell split by framework here: one finding for the source's)


def _tabs_message(
    framework: str, index: int, s: CodeCell, t: CodeCell, shared: frozenset[str], streams: dict[int, set[str]] | None
) -> str:
    """What a cell's tab set lacks: the frameworks no cell here runs the source's cell for, when
    the translation split it into cells for some of them (zh: ``#@tab mxnet, pytorch`` and a
    ``#@tab paddle`` copy for the source's ``#@tab all``, tensorflow left out)."""
    wanted = [f for f in s.frameworks if f in shared] if shared else list(s.frameworks)
    covered = streams.get(id(s), set()) if streams else set()
    lacking = [f for f in wanted if f not in covered]
    if covered - {framework} and lacking and shared.intersection(t.frameworks) <= set(wanted):
        return (
            f"{framework} cell {index}{_SPLIT_TABS} [{', '.join(wanted)}], and the cells here that hold it for "
            f"[{', '.join(f for f in wanted if f in covered)}]; none for [{', '.join(lacking)}]: add "
            f"{', '.join(lacking)} to the `#@tab` of one of them"
        )
    return (
        f"{framework} cell {index} runs for [{', '.join(t.frameworks)}] here but for [{', '.join(s.frameworks)}] in "
        "the source: write the source's `#@tab` (polybook sync --write)"
    )


def _same_tabs(s: CodeCell, t: CodeCell, shared: frozenset[str], streams: dict[int, set[str]] | None) -> bool:
    """Whether the two cells run for the same frameworks (of those both chapters offer)."""
    same = shared.intersection(s.frameworks) == shared.intersection(t.frameworks)
    if not same and streams is not None:  # one cell for all in one side, one per framework in the other
        paired_s, paired_t = streams.get(id(s), set()), streams.get(id(t), set())
        same = shared.intersection(s.frameworks) == paired_s and shared.intersection(t.frameworks) == paired_t
    return same


def _regrouped(
    lang: str,
    name: str,
    framework: str,
    joined: list[tuple[int, CodeCell]],
    split: list[tuple[int, CodeCell]],
    s: CodeCell,
    t: CodeCell,
    subject: tuple[str, str],
    common: dict,
) -> Finding:
    """One finding for cells a translator joined or split: put them as the source does, each
    part with the source's markers (dropping a ``#@save`` would drop library code)."""
    cells = [cell for _, cell in joined] or [s]
    t_cells = [cell for _, cell in split] or [t]
    marks = [sorted(m.name for m in cell.markers) for cell in (*cells, *t_cells)]
    marked = any(marks)
    if joined:
        numbers = " and ".join(str(n) for n, _ in joined)
        lines = ", ".join(str(cell.line) for cell in cells)
        message = f"{framework} cell {common['cell']} joins the source's cells {numbers} (lines {lines}) into one: "
        message += "split it where the source does"
        if marked:
            parts = "; ".join(f"cell {n} {_marked_as(cell)}" for n, cell in joined)
            message += f", each part with the source's markers ({parts})"
    else:
        numbers = " and ".join(str(n) for n, _ in split)
        message = f"{framework} cells {numbers} here are the source's cell {common['cell']} split in two or more: "
        message += "join them as the source does" + (f", the cell {_marked_as(s)}" if marked else "")
    return Finding.make(
        Code.CODE_MARKERS if marked else Code.CODE_CHANGED,
        message,
        lang,
        name,
        Location(t.path, t.line),
        source=Location(cells[0].path, cells[0].line),
        subject=subject,
        **common,
    )


_DEFINITION = re.compile(r"^(?:(?:def|class)\s+(\w+)|(\w+)\s*=[^=])", re.M)  # a top-level definition's name


def _saves_alike(s: CodeCell, parts: list[CodeCell], framework: str) -> bool:
    """Whether the cells a translator split the source's cell into give the library what it
    gives, each part with its ``#@save`` (zh splits ``train_2d`` and ``show_trace_2d`` to give
    pytorch its own ``show_trace_2d``): a split readers and the library do not tell apart."""
    mine = _saved_names(set().union(*(_saves(cell, framework) for cell in parts)))
    if not mine:
        return False
    if mine == _saved_names(_saves(s, framework)):
        return True
    # saved code that defines no name (``d2l.DATA_HUB[...] = (...)``), wrapped otherwise
    return _saved_tokens(parts, framework) == _saved_tokens([s], framework)


def _saved_tokens(cells: list[CodeCell], framework: str) -> list[str]:
    """The code the cells' ``#@save`` marks give the library, in order, as tokens (its line
    breaks and indents aside)."""
    return [
        word
        for cell in cells
        for text, _ in save_lines(cell.lines_for(framework))
        for word in normalize_code(text).split()
    ]


def _saved_names(saved: set[str]) -> set[str]:
    """The definitions saved lines make (``def show_trace_2d``): a part changed besides (pytorch's
    own ``indexing='ij'``) is code.changed's business, not the split's."""
    return {a or b for text in saved for a, b in _DEFINITION.findall(text)} or saved


def _saves(cell: CodeCell, framework: str) -> set[str]:
    """The lines a cell's ``#@save`` marks give the library, normalised: marks written another
    way (``#@save`` above two lines, or after each) that save the same code are no difference."""
    return {normalize_code(text) for text, _ in save_lines(cell.lines_for(framework))} - {""}


def _mark_advice(here: list[str], there: list[str]) -> str:
    """What to do about markers that differ: a ``#@save`` the translation lacks keeps its code out
    of the library; one it adds puts code in that the source's library does not have."""
    if here.count("save") < there.count("save"):
        return "add the source's #@save, or readers of this language get a library without this code"
    if here.count("save") > there.count("save"):
        return "remove the #@save the source does not have, or this language's library gets code the book's lacks"
    return "write the source's markers (polybook sync --write)"


def _marked_as(cell: CodeCell) -> str:
    """How a message says a cell's markers: ``with #@save``, ``without a marker``."""
    names = sorted(m.name for m in cell.markers)
    return f"with {_marks(names)}" if names else "without a marker"


def _marks(names: list[str]) -> str:
    return ", ".join(f"#@{n}" for n in names)


def _first_line(code: str) -> str:
    lines = [ln for ln in code.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    return lines[0].strip() if lines else ""
