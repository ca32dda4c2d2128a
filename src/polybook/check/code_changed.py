"""A pair of cells whose code differs: ``code.changed`` (or ``code.strings``) at each changed
place, or one finding for a cell changed in more places than :data:`_MAX_HUNKS`; what is only
spelt otherwise, or only a translated label, is none."""

from __future__ import annotations

from collections.abc import Callable

from polybook.check.code_diff import Hunk, line_diff, parses_alike, token_diff
from polybook.check.code_keys import without_strings
from polybook.check.findings import Finding, Location
from polybook.check.strings import differing_strings, expressions_only
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell

_MAX_DIFF = 8
_MAX_HUNKS = 3  # more changed places than this in one cell: one finding for the whole cell

#: What to do about code that differs from the source's (a translator may have fixed the
#: source's bug, ``encoding='utf-8'`` where it relied on the machine's locale).
TAKE_SOURCE = "take the source's (polybook sync --write), unless the translation changes it on purpose"


def changed_findings(
    lang: str,
    name: str,
    framework: str,
    index: int,
    cells: list[CodeCell],
    t_cells: list[CodeCell],
    subject: tuple[str, str],
    common: dict,
) -> list[Finding]:
    """code.changed (or code.strings when only string literals differ), at the changed lines;
    ``cells``, ``t_cells``: the source's and the translation's cell, or the cells a translator
    joined or split (compared as one)."""
    t_code = "\n".join(cell.code_for(framework) for cell in t_cells)
    s_code = "\n".join(cell.code_for(framework) for cell in cells)
    hunks = token_diff(t_code, s_code)
    if len(hunks) > _MAX_HUNKS and (lines := line_diff(t_code, s_code)) is not None and len(lines) <= _MAX_HUNKS:
        hunks = lines or hunks  # a statement broken (a line of it deleted): told at its lines, not as the rest changed
    only_strings = without_strings(t_code) == without_strings(s_code)
    if only_strings:  # translated labels and strings written another way are no difference
        strings = differing_strings(t_code, s_code)
        if not strings:
            return []
        hunks = [h for h in hunks if any(a in h.translation and b in h.source for a, b in strings)] or hunks
        only_strings = not all(expressions_only(a, b) for a, b in strings)  # else the code in them changed
    else:  # a translated label beside a real change is no change of its own
        hunks = [h for h in hunks if without_strings(h.translation) != without_strings(h.source)
                 or differing_strings(h.translation, h.source)]  # fmt: skip
        if hunks and all(parses_alike(h.translation, h.source) for h in hunks):
            return []  # spelt otherwise only (``return (a, b)`` for ``return a, b``): the same program
    code = Code.CODE_STRINGS if only_strings else Code.CODE_CHANGED
    what = ": a string the code uses differs from the source's" if only_strings else " differs from the source"
    todo = "write the source's" if only_strings else TAKE_SOURCE
    s_at, t_at = _line_in(cells, framework), _line_in(t_cells, framework)
    if len(hunks) > _MAX_HUNKS or not hunks:
        first = hunks[0] if hunks else Hunk("", "", 0, 0)
        diff = tuple((h.translation, h.source) for h in hunks[:_MAX_DIFF])
        return [
            Finding.make(
                code, f"{framework} cell {index}{what} in {len(hunks)} places: {todo}", lang, name,
                t_at(first.t_line), source=s_at(first.s_line),
                diff=diff, subject=subject, **common,
            )
        ]  # fmt: skip
    places = len(hunks)
    return [
        Finding.make(
            code, f"{framework} cell {index}{what}{f' (place {k + 1} of {places})' if places > 1 else ''}: "
            f"`{h.translation}` → `{h.source}`; {todo}", lang, name,
            t_at(h.t_line), source=s_at(h.s_line),
            diff=((h.translation, h.source),), subject=(subject[0] + f"\n{k}", subject[1]), **common,
        )
        for k, h in enumerate(hunks)  # the hunk's number, not its line: comments may be re-wrapped
    ]  # fmt: skip


def _line_in(cells: list[CodeCell], framework: str) -> Callable[[int], Location]:
    """The file place of a 0-based line of the cells' code joined by newlines."""

    def at(index: int) -> Location:
        for cell in cells:
            size = cell.code_for(framework).count("\n") + 1
            if index < size or cell is cells[-1]:
                return Location(cell.path, _file_line(cell, framework, index))
            index -= size
        raise AssertionError("unreachable")

    return at


def _file_line(cell: CodeCell, framework: str, index: int) -> int:
    """The file line of line ``index`` of the code ``framework`` sees in ``cell``."""
    if not cell.varies:
        return cell.code_line + index
    lines = cell.lines_for(framework)
    return lines[min(index, len(lines) - 1)][1] if lines else cell.line
