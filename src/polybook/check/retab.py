"""A cell whose ``#@tab`` a translation changed to frameworks the source's cell does not run
for: the source's code, under another tab here. Aligned per framework, it reads as the source's
cell missing from its framework's stream and an extra (or "split") cell in the other's; paired
here first, it is one ``code.tabs`` finding that names both lists.
"""

from __future__ import annotations

from polybook.check.code_keys import cell_key, without_strings
from polybook.check.documents import cells_of
from polybook.check.findings import Finding, Location
from polybook.diagnostics import Code
from polybook.dialect.nodes import CodeCell, Document


def retabbed(source: Document, translation: Document, common: frozenset[str]) -> list[tuple[CodeCell, CodeCell]]:
    """(source cell, translation cell) with the same code whose ``#@tab`` lists share no
    framework: the translation's cell has the source's code but runs for other frameworks
    (``#@tab mxnet`` over the source's pytorch cell). Only where that code is the cell's alone:
    no cell here runs it for the source's frameworks, no cell of the source for the
    translation's -- else it is a cell missing and one extra, told as such."""
    if not common:
        return []
    mine = _keys_by_cell(source, frozenset(source.frameworks))  # (a framework the translation then lacks too)
    theirs = _keys_by_cell(translation, common)
    by_key: dict[str, list[CodeCell]] = {}
    for cell, key in theirs:
        by_key.setdefault(key, []).append(cell)
    source_keys: dict[str, list[CodeCell]] = {}
    for cell, key in mine:
        source_keys.setdefault(key, []).append(cell)
    out = []
    for s, key in mine:
        found = by_key.get(key, [])
        if len(found) != 1 or len(source_keys[key]) != 1 or not key:
            continue
        t = found[0]
        if set(t.frameworks) & set(s.frameworks) or not set(t.frameworks) & common or _own_there(t, source, common):
            continue
        out.append((s, t))
    return out


def _own_there(t: CodeCell, source: Document, common: frozenset[str]) -> bool:
    """Whether a source cell of the translation cell's own frameworks has its code but for
    strings (pt's older ``'Key posistions'``: its mxnet cell, equal to the source's tensorflow one)."""
    framework = next(f for f in t.frameworks if f in common)
    mine = without_strings(t.code_for(framework))
    return any(without_strings(c.code_for(framework)) == mine for c in cells_of(source, framework))


def _keys_by_cell(doc: Document, common: frozenset[str]) -> list[tuple[CodeCell, str]]:
    """Each cell running for a framework of ``common`` with the key of its code (for the first)."""
    out = []
    for cell in cells_of(doc):
        running = [f for f in cell.frameworks if f in common]
        if running:
            out.append((cell, cell_key(cell.code_for(running[0]))))
    return out


def retabbed_finding(lang: str, name: str, source: Document, s: CodeCell, t: CodeCell) -> Finding:
    """The source's cell under another ``#@tab`` here: one finding that names both lists."""
    framework = s.frameworks[0]
    index = next((k for k, c in enumerate(cells_of(source, framework), 1) if c is s), 1)
    return Finding.make(
        Code.CODE_TABS, f"{framework} cell {index} runs for [{', '.join(t.frameworks)}] here but for "
        f"[{', '.join(s.frameworks)}] in the source: write the source's `#@tab {', '.join(s.frameworks)}`", lang, name,
        Location(t.path, t.line), source=Location(s.path, s.line), subject=("", cell_key(s.code_for(framework))),
        diff=((", ".join(t.frameworks), ", ".join(s.frameworks)),), framework=framework, cell=index,
    )  # fmt: skip
