"""Code checks: one stream of cells per framework, aligned between source and translation."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

from polybook.check.align import Pair, align
from polybook.check.findings import Finding, Location
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, Document
from polybook.dialect.normalize import CodeToken, logical_lines, normalize_code

_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_OPEN, _CLOSE = ("(", "[", "{"), (")", "]", "}")
_MAX_DIFF = 8
_MAX_HUNKS = 3  # more changed places than this in one cell: one finding for the whole cell


@dataclass(frozen=True, slots=True)
class Hunk:
    """One changed place: the texts and their 0-based lines within each cell's code."""

    translation: str
    source: str
    t_line: int
    s_line: int


_CODE_THEN_COMMENT = re.compile(r"""^([^'"#]*?)\s*#.*$""")  # a comment after code without quotes


@lru_cache(maxsize=65536)
def without_comments(code: str) -> str:
    """The code with its comments and blank lines cut where that is safe (no quote before the
    ``#``): equal results mean equal :func:`cell_key`, without the tokenizer's slow work."""
    lines = [m[1] if (m := _CODE_THEN_COMMENT.match(line)) else line.rstrip() for line in code.split("\n")]
    return "\n".join(line for line in lines if line.strip())


@lru_cache(maxsize=65536)
def cell_key(code: str) -> str:
    """The code as compared: comments and docstrings dropped, whitespace folded."""
    return normalize_code(without_comments(code))


def align_code(source: list[str], target: list[str]) -> list[Pair]:
    """:func:`align` on :func:`cell_key`, which is computed only where it can matter: cells whose
    code is equal but for comments pair first, and only the runs between them are normalised
    (most translated cells are the source's code with translated comments)."""
    quick = align([without_comments(c) for c in source], [without_comments(c) for c in target], _never, 2.0)
    out: list[Pair] = []
    s_run: list[int] = []
    t_run: list[int] = []
    for pair in [*quick, None]:
        if pair is None or pair.kind == "equal":
            if s_run and t_run:
                found = align([cell_key(source[i]) for i in s_run], [cell_key(target[j]) for j in t_run])
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
    return out


def _never(a: str, b: str) -> float:
    return 0.0


def _renumber(pair: Pair, s_run: list[int], t_run: list[int]) -> Pair:
    s = s_run[pair.source] if pair.source is not None else None
    t = t_run[pair.target] if pair.target is not None else None
    return Pair(s, t, pair.kind, pair.ratio)


@dataclass(slots=True)
class CellMatch:
    """Which translation cell stands for which source cell (over the frameworks both offer)."""

    target_to_source: dict[int, CodeCell] = field(default_factory=dict)  # id(target cell) -> source cell
    source_to_target: dict[int, CodeCell] = field(default_factory=dict)  # id(source cell) -> target cell
    # per framework: (framework, source cells, translation cells, their alignment)
    streams: list[tuple[str, list[CodeCell], list[CodeCell], list[Pair]]] = field(default_factory=list)
    common: frozenset[str] = frozenset()  # the frameworks both chapters offer


def _named(doc: Document) -> set[str]:
    """The frameworks cells name: ``#@tab`` lists (not ``all``), and the default tab for untagged cells;
    those a d2lbook 1.0 document declares (``tab.interact_select``), when it does."""
    setup = doc.setup
    if setup is not None and setup.frameworks is not None:
        return set(setup.frameworks)
    return {f for c in doc.cells() if c.tab is None or c.tab.strip() != "all" for f in c.frameworks}


def _runs(doc: Document) -> set[str]:
    return {f for c in doc.cells() for f in c.frameworks}


def shared_frameworks(source: Document, target: Document) -> frozenset[str]:
    """The frameworks both chapters offer, whose cells and text tabs are compared.

    A chapter offers the frameworks its cells name; ``#@tab all`` names none, so a chapter of
    mxnet and pytorch cells and ``all`` cells does not offer tensorflow even though its ``all``
    cells run for it. A source whose cells are all ``all`` offers every framework, and the
    translation then the ones its cells run for; a translation whose cells are all ``all`` offers
    none that the source names (no fallback: sync would change what is compared, and a second
    sync would undo the first). The rest is coverage (:func:`check_coverage`).
    """
    both = frozenset(source.frameworks) & frozenset(target.frameworks)
    if not target.cells():
        return both
    if not _named(source):
        return both & _runs(target)
    return both & _named(source) & _named(target)


def match_cells(source: Document, target: Document) -> CellMatch:
    """Align each framework's stream of cells, for the frameworks both chapters offer (the others
    are coverage); a cell paired in any stream stands for its counterpart."""
    match = CellMatch(common=shared_frameworks(source, target))
    for framework in [f for f in source.frameworks if f in match.common]:
        src, tgt = source.cells(framework), target.cells(framework)
        pairs = align_code([c.code_for(framework) for c in src], [c.code_for(framework) for c in tgt])
        match.streams.append((framework, src, tgt, pairs))
        for pair in pairs:
            if pair.source is not None and pair.target is not None:
                match.target_to_source.setdefault(id(tgt[pair.target]), src[pair.source])
                match.source_to_target.setdefault(id(src[pair.source]), tgt[pair.target])
    return match


def _offered_cells(doc: Document, framework: str, every: bool = True) -> list[CodeCell]:
    """The cells that make ``framework``'s version of a chapter: those naming it, or, when no
    cell names a framework and ``every`` (a source of ``all`` cells), every cell running for it."""
    named = [c for c in doc.cells(framework) if c.tab is None or c.tab.strip() != "all"]
    return named if named or _named(doc) or not every else doc.cells(framework)


def check_coverage(
    lang: str, chapter: str, source: Document, target: Document, common: frozenset[str]
) -> list[Finding]:
    """Frameworks one chapter offers and the other does not: once per chapter and framework,
    as info (a translation of fewer frameworks, or of more, is not drift)."""
    out = []
    for framework in [f for f in dict.fromkeys((*source.frameworks, *target.frameworks)) if f not in common]:
        mine = _offered_cells(source, framework) if framework in source.frameworks else []
        theirs = _offered_cells(target, framework, not _named(source)) if framework in target.frameworks else []
        if mine and not theirs:
            out.append(Finding.make(
                Code.CODE_COVERAGE, f"no {framework} cells: {len(mine)} in the source", lang, chapter,
                Location(target.path, 1), source=Location(source.path, mine[0].line), framework=framework,
                subject=("", framework),
            ))  # fmt: skip
        elif theirs and framework not in source.frameworks:  # said once per language (check's merge)
            out.append(Finding.make(
                Code.CODE_COVERAGE, f"{len(theirs)} {framework} cells; {framework} is not a framework of the source",
                lang, chapter, Location(target.path, theirs[0].line), framework=framework,
                subject=(framework, str(len(theirs))),
            ))  # fmt: skip
        elif theirs and not mine:
            out.append(Finding.make(
                Code.CODE_COVERAGE, f"{len(theirs)} {framework} cells, none in the source", lang, chapter,
                Location(target.path, theirs[0].line), framework=framework, subject=(framework, ""),
            ))  # fmt: skip
    return out


#: A top-level ``def`` or ``class`` in normalised code, by name.
_DEFINES_RE = re.compile(r"^(?:def|class) (\w+)", re.M)


def check_code(
    lang: str, chapter: str, source: Document, target: Document, match: CellMatch, place: Callable[[int], int]
) -> list[Finding]:
    """Code findings of the cell streams in ``match``; ``place`` maps a source line to where it
    belongs in the translation (for a missing cell with no paired cell before it)."""
    findings: list[Finding] = []
    seen: set[tuple[Code, int, int]] = set()
    for framework, src, tgt, pairs in match.streams:
        previous: CodeCell | None = None  # the last translation cell paired so far
        for pair in pairs:
            s = src[pair.source] if pair.source is not None else None
            t = tgt[pair.target] if pair.target is not None else None
            # A cell paired in another framework's stream differs in its tab set, not in presence.
            if (t is None and id(s) in match.source_to_target) or (s is None and id(t) in match.target_to_source):
                continue
            if t is None and s is not None and _merged(s, pairs, tgt, framework):
                continue  # its code is in another translation cell, which is code.changed
            for f in _compare(lang, chapter, framework, pair.kind, s, t, pair, previous, target, place, match.common):
                # a cell's tab set and markers are one finding however many streams pair it
                once = f.code in (Code.CODE_TABS, Code.CODE_MARKERS)
                key = (f.code, f.location.line if f.location else 0, 0 if once or not f.source else f.source.line)
                if key not in seen:
                    seen.add(key)
                    findings.append(f)
            if s is not None and t is not None:
                previous = t
    return findings


def _merged(s: CodeCell, pairs: list[Pair], tgt: list[CodeCell], framework: str) -> bool:
    """Whether a source cell the stream lacks is part of a translation cell paired with another
    source cell (a translator joined cells into one: that one is code.changed) -- its code
    as it is, or the functions and classes it defines (joined, and changed there)."""
    key = cell_key(s.code_for(framework))
    if not key:
        return False
    joined = [
        cell_key(tgt[p.target].code_for(framework)) for p in pairs if p.source is not None and p.target is not None
    ]
    if any(key in other for other in joined):
        return True
    defined = set(_DEFINES_RE.findall(key))
    return bool(defined) and any(defined <= set(_DEFINES_RE.findall(other)) for other in joined)


def _compare(
    lang: str,
    chapter: str,
    framework: str,
    kind: str,
    s: CodeCell | None,
    t: CodeCell | None,
    pair: object,
    previous: CodeCell | None,
    target: Document,
    place: Callable[[int], int],
    shared: frozenset[str],
) -> list[Finding]:
    index = (pair.source if s is not None else pair.target) + 1  # type: ignore[attr-defined]
    common = {"framework": framework, "cell": index}
    if t is None and s is not None:
        where = Location(target.path, previous.end_line if previous else place(s.line))
        return [
            Finding.make(
                Code.CODE_MISSING,
                f"{framework} cell {index} of the source is missing here",
                lang,
                chapter,
                where,
                source=Location(s.path, s.line),
                subject=("", cell_key(s.code_for(framework))),
                diff=(("", _first_line(s.code_for(framework))),),
                **common,
            )
        ]
    if s is None and t is not None:
        return [
            Finding.make(
                Code.CODE_EXTRA,
                f"{framework} cell {index} has no counterpart in the source",
                lang,
                chapter,
                Location(t.path, t.line),
                subject=(cell_key(t.code_for(framework)), ""),
                diff=((_first_line(t.code_for(framework)), ""),),
                **common,
            )
        ]
    assert s is not None and t is not None
    s_marks, t_marks = sorted(m.name for m in s.markers), sorted(m.name for m in t.markers)
    same_tabs = shared.intersection(s.frameworks) == shared.intersection(t.frameworks)
    if kind == "equal" and same_tabs and s_marks == t_marks:
        return []  # the usual case: no finding, so no subject to normalise
    out = []
    where, src = Location(t.path, t.line), Location(s.path, s.line)
    subject = (cell_key(t.code_for(framework)), cell_key(s.code_for(framework)))
    if kind == "similar":
        out.extend(_changed(lang, chapter, framework, index, s, t, subject, common))
    if not same_tabs:
        out.append(
            Finding.make(
                Code.CODE_TABS,
                f"{framework} cell {index} runs for [{', '.join(t.frameworks)}] here "
                f"but for [{', '.join(s.frameworks)}] in the source",
                lang, chapter, where, source=src, subject=subject,
                diff=((", ".join(t.frameworks), ", ".join(s.frameworks)),), **common,
            )
        )  # fmt: skip
    if s_marks != t_marks:
        out.append(
            Finding.make(
                Code.CODE_MARKERS,
                f"{framework} cell {index} has markers [{_marks(t_marks)}] here but [{_marks(s_marks)}] in the source",
                lang, chapter, where, source=src, subject=subject,
                diff=((_marks(t_marks), _marks(s_marks)),), **common,
            )
        )  # fmt: skip
    return out


def _changed(
    lang: str,
    chapter: str,
    framework: str,
    index: int,
    s: CodeCell,
    t: CodeCell,
    subject: tuple[str, str],
    common: dict,
) -> list[Finding]:
    """code.changed (or code.strings when only string literals differ), at the changed lines."""
    t_code, s_code = t.code_for(framework), s.code_for(framework)
    hunks = token_diff(t_code, s_code)
    only_strings = without_strings(t_code) == without_strings(s_code)
    code = Code.CODE_STRINGS if only_strings else Code.CODE_CHANGED
    what = "string literals differ from" if only_strings else "differs from"
    if len(hunks) > _MAX_HUNKS or not hunks:
        first = hunks[0] if hunks else Hunk("", "", 0, 0)
        diff = tuple((h.translation, h.source) for h in hunks[:_MAX_DIFF])
        return [
            Finding.make(
                code, f"{framework} cell {index} {what} the source in {len(hunks)} places", lang, chapter,
                Location(t.path, _file_line(t, framework, first.t_line)),
                source=Location(s.path, _file_line(s, framework, first.s_line)),
                diff=diff, subject=subject, **common,
            )
        ]  # fmt: skip
    return [
        Finding.make(
            code, f"{framework} cell {index} {what} the source: `{h.translation}` → `{h.source}`", lang, chapter,
            Location(t.path, _file_line(t, framework, h.t_line)),
            source=Location(s.path, _file_line(s, framework, h.s_line)),
            diff=((h.translation, h.source),), subject=(subject[0] + f"\n{k}", subject[1]), **common,
        )
        for k, h in enumerate(hunks)  # the hunk's number, not its line: comments may be re-wrapped
    ]  # fmt: skip


def _file_line(cell: CodeCell, framework: str, index: int) -> int:
    """The file line of line ``index`` of the code ``framework`` sees in ``cell``."""
    if not cell.varies:
        return cell.code_line + index
    lines = cell.lines_for(framework)
    return lines[min(index, len(lines) - 1)][1] if lines else cell.line


def _marks(names: list[str]) -> str:
    return ", ".join(f"#@{n}" for n in names)


def _first_line(code: str) -> str:
    lines = [ln for ln in code.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    return lines[0].strip() if lines else ""


def without_strings(code: str) -> list[str]:
    """Tokens with every string literal blanked: equal lists mean only strings differ."""
    return ["''" if t.is_string else t.text for _, toks in logical_lines(code) for t in toks]


def token_diff(translation: str, source: str) -> list[Hunk]:
    """Changed places, e.g. ``Hunk("range(1000)", "range(10000)", 1, 1)``.

    Logical lines are aligned first (so a moved or added line shows as that line); inside
    a pair of similar lines only the changed tokens are shown, widened to the call or
    subscript around them.
    """
    t_lines, s_lines = [toks for _, toks in logical_lines(translation)], [toks for _, toks in logical_lines(source)]
    t_src, s_src = translation.split("\n"), source.split("\n")
    t_keys = [" ".join(x.text for x in toks) for toks in t_lines]
    s_keys = [" ".join(x.text for x in toks) for toks in s_lines]
    out: list[Hunk] = []
    t_at = s_at = 0  # line of the last aligned line on each side, for insertions
    for pair in align(s_keys, t_keys):
        t_toks = t_lines[pair.target] if pair.target is not None else []
        s_toks = s_lines[pair.source] if pair.source is not None else []
        t_at = t_toks[0].line if t_toks else t_at
        s_at = s_toks[0].line if s_toks else s_at
        if pair.kind == "equal":
            continue
        if pair.kind == "similar":
            out.extend(Hunk(a, b, t_at, s_at) for a, b in _token_pairs(t_toks, s_toks, t_src, s_src))
        else:
            out.append(Hunk(_render(t_toks, t_src), _render(s_toks, s_src), t_at, s_at))
    return [h for h in out if h.translation or h.source]


def _token_pairs(
    t_toks: list[CodeToken], s_toks: list[CodeToken], t_src: list[str], s_src: list[str]
) -> list[tuple[str, str]]:
    t_text, s_text = [x.text for x in t_toks], [x.text for x in s_toks]
    regions: list[list[int]] = []
    for op, t0, t1, s0, s1 in SequenceMatcher(None, t_text, s_text, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        last = regions[-1] if regions else None
        if last and t0 - last[1] <= 2 and s0 - last[3] <= 2:
            last[1], last[3] = t1, s1
        else:
            regions.append([t0, t1, s0, s1])
    out = []
    for t0, t1, s0, s1 in regions:
        t0, t1, s0, s1 = _widen(t_toks, s_toks, t0, t1, s0, s1)
        pair = (_render(t_toks[t0:t1], t_src), _render(s_toks[s0:s1], s_src))
        if any(side and not (side[0].isalnum() or side[0] in "_([{'\"") for side in pair):
            return [(_render(t_toks, t_src), _render(s_toks, s_src))]  # a fragment: show the lines
        out.append(pair)
    return out


def _widen(t: list[CodeToken], s: list[CodeToken], t0: int, t1: int, s0: int, s1: int) -> tuple[int, int, int, int]:
    """Grow a changed region to a readable unit: the call or subscript around it."""

    def text(toks: list[CodeToken], i: int) -> str:
        return toks[i].text if 0 <= i < len(toks) else ""

    # left: an opening bracket, then the dotted name before it
    if text(t, t0 - 1) in _OPEN and text(t, t0 - 1) == text(s, s0 - 1):
        t0, s0 = t0 - 1, s0 - 1
    while _IDENT.match(text(t, t0 - 1)) and text(t, t0 - 1) == text(s, s0 - 1) and text(t, t0 - 2) in (".", ""):
        t0, s0 = t0 - 1, s0 - 1
        if text(t, t0 - 1) == "." and text(s, s0 - 1) == ".":
            t0, s0 = t0 - 1, s0 - 1
        else:
            break
    if _IDENT.match(text(t, t0 - 1)) and text(t, t0) in _OPEN and text(t, t0 - 1) == text(s, s0 - 1):
        t0, s0 = t0 - 1, s0 - 1
    # right: close what the region opened, and a call's parentheses right after a name
    for _ in range(12):
        t_open = sum(text(t, i) in _OPEN for i in range(t0, t1)) - sum(text(t, i) in _CLOSE for i in range(t0, t1))
        s_open = sum(text(s, i) in _OPEN for i in range(s0, s1)) - sum(text(s, i) in _CLOSE for i in range(s0, s1))
        ends_with_name = _IDENT.match(text(t, t1 - 1)) and text(t, t1) == "(" == text(s, s1)
        if (t_open > 0 or s_open > 0 or ends_with_name) and text(t, t1) == text(s, s1) and text(t, t1):
            t1, s1 = t1 + 1, s1 + 1
        else:
            break
    return t0, t1, s0, s1


def _render(tokens: list[CodeToken], lines: list[str]) -> str:
    """The original text of a run of tokens (one logical line; continuation lines joined)."""
    if not tokens:
        return ""
    first, last = tokens[0], tokens[-1]
    if first.line == last.line:
        return lines[first.line][first.start : last.end]
    middle = [lines[i].strip() for i in range(first.line + 1, last.line)]
    return " ".join([lines[first.line][first.start :].rstrip(), *middle, lines[last.line][: last.end].strip()])
