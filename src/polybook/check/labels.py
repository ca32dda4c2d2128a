"""Labels and the references to them, of a chapter against its source.

A label or reference the translation writes differently is one finding, not a "missing" and an
"extra" one: a label renamed (``eq_nadaraya-watson`` for the source's ``eq_nadaraya-waston``),
a reference whose target a translator damaged (``:numref:` chap_x``). One the translation has
as text that the parser cannot read as such says why: a ``:eqlabel:`` after an equation whose
``$$`` were damaged, a figure's ``:label:`` on the figure's own line, a role without its first
backtick.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from cydifflib import SequenceMatcher  # difflib's, compiled: the same results (see pyproject.toml)

from polybook.check.findings import Finding, Location
from polybook.check.segments import walked, written_text
from polybook.diagnostics import Code, Level
from polybook.dialect.nodes import Document, Label

_RENAMED = 0.6  # a label this similar to a missing one of the source is that one, renamed
_DAMAGED = 0.75  # a reference target this similar to a missing one is that one, damaged
_ATTACH = {
    "equation": "put it on the line right after the equation's closing `$$` (the equation before it is damaged)",
    "figure": "put the figure `![…](…)` on a line of its own and the label on the line after it",
    "heading": "put it on the line right after the heading",
    "table": "put it on the line right after the table",
}


#: How a label written where it labels nothing is said (the references to it are not said again).
LABELS_NOTHING = "labels nothing"


#: A reference of the source the translation lacks (not damaged, not written as text): the
#: book-wide check says more when the translation's book has no such label yet.
MISSING = "of the source is missing here: add it"


def _role(label: Label) -> str:
    """How the dialect writes a label of this kind: ``:eqlabel:`` after an equation."""
    return "eqlabel" if label.kind == "equation" else "label"


def _similar(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _written(doc: Document, pattern: str, holding: str) -> Location | None:
    """Where ``doc``'s prose (paragraphs, blocks) has text matching ``pattern``, which holds
    ``holding`` as it is (looked for first: most often it is not there at all)."""
    if holding not in written_text(doc):
        return None
    found_in = re.compile(pattern)
    for node in walked(doc):
        text = getattr(node, "source", None)
        if isinstance(text, str) and (found := found_in.search(text)):
            return Location(doc.path, node.line + text[: found.start()].count("\n"))
    return None


def check_labels(
    lang: str, name: str, source: Document, translation: Document, here: Callable[[int], Location]
) -> list[Finding]:
    """Labels of the source missing here, renamed here, or here but attached to nothing; labels
    here the source lacks."""
    missing = sorted(source.labels.keys() - translation.labels.keys(), key=lambda n: source.labels[n].line)
    extra = sorted(translation.labels.keys() - source.labels.keys(), key=lambda n: translation.labels[n].line)
    out = []
    for key in missing:
        label = source.labels[key]
        renamed = max(extra, key=lambda other: _similar(key, other), default=None)
        if renamed is not None and _similar(key, renamed) >= _RENAMED:
            extra.remove(renamed)
            out.append(Finding.make(
                Code.REF_LABEL, f"label {renamed!r} here is {key!r} in the source: write the source's (the book's "
                "references use it)", lang, name, Location(translation.path, translation.labels[renamed].line),
                source=Location(source.path, label.line),
                diff=((f":{_role(label)}:`{renamed}`", f":{_role(label)}:`{key}`"),),
                subject=(renamed, key),
            ))  # fmt: skip
            continue
        written = _written(translation, rf":(?:eq)?label:\s*`\s*{re.escape(key)}\s*`", key)
        if written is not None:
            todo = _ATTACH.get(label.kind, "put it on the line right after what it labels")
            message = f"label {key!r} ({label.kind}) of the source is written here but {LABELS_NOTHING}: {todo}"
        else:
            message = f"label {key!r} ({label.kind}) of the source is missing here: add it (the book's references "
            message += "use it)"
        out.append(Finding.make(
            Code.REF_LABEL, message, lang, name, written or here(label.line),
            source=Location(source.path, label.line), diff=(("", f":{_role(label)}:`{key}`"),), subject=("", key),
        ))  # fmt: skip
    for key in extra:
        out.append(Finding.make(
            Code.REF_LABEL, f"label {key!r} is not in the source chapter: remove it, unless this translation "
            "refers to it", lang, name, Location(translation.path, translation.labels[key].line),
            diff=((f":label:`{key}`", ""),), subject=(key, ""),
        ))  # fmt: skip
    return out


def check_roles(
    lang: str,
    name: str,
    s_roles: list[tuple[str, str, int]],
    t_roles: list[tuple[str, str, int]],
    source: Document,
    translation: Document,
    here: Callable[[int], Location],
    at: Callable[[int], float] | None = None,
) -> list[Finding]:
    """References of the source missing here: damaged here (one finding at the damaged one,
    which the book-wide "points at no label" then leaves out), written as text, or missing;
    ``at``: roughly where a source line falls in the translation, to the line (``here`` says
    the paragraph)."""
    s_targets = {(n, v) for n, v, _ in s_roles}
    t_targets = {(n, v) for n, v, _ in t_roles}
    unmatched = [(n, v, line) for n, v, line in t_roles if (n, v) not in s_targets]
    missing = {(n, v) for n, v in s_targets if (n, v) not in t_targets}
    extra = _more_often(s_roles, t_roles)
    fewer = _less_often(s_roles, t_roles)
    told: set[tuple[str, str]] = set()  # the source's targets this translation lacks, told once each
    out = []
    for role, value, line in s_roles:
        if (role, value) in told:
            continue
        if (role, value) in t_targets:
            moved = (
                _moved_here(role, value, line, s_roles, t_roles, extra, here, at) if (role, value) in fewer else None
            )
            if moved is not None:
                out.append(_moved_finding(lang, name, moved, f":{role}:`{value}`", role, value, translation,
                                          Location(source.path, line)))  # fmt: skip
            continue
        told.add((role, value))
        shown = f":{role}:`{value}`"
        damaged = _damaged_one(role, value, unmatched, missing)
        if damaged is not None:
            unmatched[:] = [r for r in unmatched if r[:2] != damaged[:2]]  # one target stands for one target
            extra[:] = [r for r in extra if r[:2] != damaged[:2]]
            if role in ("cite", "citet", "citep") and any(" " in key.strip() for key in damaged[1].split(",")):
                continue  # not a citation key: cite.key says so, with the key it should be
            mine = f":{role}:`{damaged[1]}`"
            out.append(Finding.make(
                Code.REF_TARGET, f"{mine} here is {shown} in the source: write the source's", lang, name,
                Location(translation.path, damaged[2]), source=Location(source.path, line), diff=((mine, shown),),
                subject=(mine, f"{role}:{value}"),
            ))  # fmt: skip
            continue
        moved = _written_instead(extra, role, here(line).line)
        if moved is not None:
            out.append(_moved_finding(lang, name, moved, shown, role, value, translation, Location(source.path, line)))
            continue
        written = _written(translation, rf"{role}\W{{0,4}}{re.escape(value)}(?!\w)", value)
        message = (
            f"{shown} of the source is written here but is not a reference: write `{shown}`, with its backticks"
            if written is not None
            else f"{shown} {MISSING}"
        )
        out.append(Finding.make(
            Code.REF_TARGET, message, lang, name, written or here(line), source=Location(source.path, line),
            diff=(("", shown),), subject=("", f"{role}:{value}"),
        ))  # fmt: skip
    return out


_REFERENCES = ("numref", "ref", "eqref")  # (citations name works, not places)
_NEAR = 10  # lines around where a source's reference belongs that hold the one written in its place


def _damaged_one(
    role: str, value: str, unmatched: list[tuple[str, str, int]], missing: set[tuple[str, str]]
) -> tuple[str, str, int] | None:
    """The translation's reference, to a target the source never names, that is the source's
    ``:role:`value``` damaged: the most similar to it, and no other target the translation lacks
    more similar to that one (``eq_x-gaussian`` stands for ``eq_y-gaussian``, not for ``eq_y``)."""
    damaged = max((r for r in unmatched if r[0] == role), key=lambda r: _similar(r[1].strip(), value), default=None)
    if damaged is None or _similar(damaged[1].strip(), value) < _DAMAGED:
        return None
    mine = damaged[1].strip()
    best = max((v for n, v in missing if n == role), key=lambda v: _similar(mine, v), default=value)
    return damaged if _similar(mine, best) <= _similar(mine, value) else None


def _less_often(s_roles: list[tuple[str, str, int]], t_roles: list[tuple[str, str, int]]) -> set[tuple[str, str]]:
    """The references the translation names less often than the source (one may stand elsewhere
    than the source's, written in place of another; the same number of them only moved)."""
    s_count = Counter((n, v) for n, v, _ in s_roles)
    t_count = Counter((n, v) for n, v, _ in t_roles)
    return {key for key, count in s_count.items() if key[0] in _REFERENCES and t_count[key] < count}


def _more_often(s_roles: list[tuple[str, str, int]], t_roles: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The translation's references to a target it names more often than the source does (all
    of their instances: which one is the extra is told by where the source's go missing)."""
    s_count = Counter((n, v) for n, v, _ in s_roles)
    t_count = Counter((n, v) for n, v, _ in t_roles)
    return [(n, v, line) for n, v, line in t_roles if n in _REFERENCES and t_count[(n, v)] > s_count[(n, v)]]


def _written_instead(extra: list[tuple[str, str, int]], role: str, at: int) -> tuple[str, str, int] | None:
    """The translation's extra reference of ``role`` nearest to line ``at``, taken from
    ``extra``: the one written in place of the source's that is missing there."""
    near = [r for r in extra if r[0] == role and abs(r[2] - at) <= _NEAR]
    found = min(near, key=lambda r: abs(r[2] - at), default=None)
    if found is not None:
        extra[:] = [r for r in extra if r[:2] != found[:2]]  # one target stands in once
    return found


def _moved_here(
    role: str,
    value: str,
    line: int,
    s_roles: list[tuple[str, str, int]],
    t_roles: list[tuple[str, str, int]],
    extra: list[tuple[str, str, int]],
    here: Callable[[int], Location],
    near: Callable[[int], float] | None = None,
) -> tuple[str, str, int] | None:
    """The reference written where the source's ``:role:`value``` (at ``line``) belongs, when the
    translation names that target elsewhere but fewer times there than the source does around
    it, and another target more often than the source does right there (a reference moved to
    another label). Where it belongs is ``near``'s line when given: in a paragraph of twenty lines
    the source's last reference belongs at its end, not at the paragraph's first line."""
    if not extra:
        return None
    at = round(near(line)) if near is not None else here(line).line
    theirs = sum(n == role and v == value and abs(s_line - line) <= _NEAR for n, v, s_line in s_roles)
    if sum(n == role and v == value and abs(t_line - at) <= _NEAR for n, v, t_line in t_roles) >= theirs:
        return None
    return _written_instead(extra, role, at)


def _moved_finding(
    lang: str,
    name: str,
    moved: tuple[str, str, int],
    shown: str,
    role: str,
    value: str,
    translation: Document,
    source: Location,
) -> Finding:
    """A reference that points at another label than the source's there: an error (it sends the
    reader elsewhere)."""
    mine = f":{moved[0]}:`{moved[1]}`"
    return Finding.make(
        Code.REF_TARGET, f"{mine} here is {shown} in the source: write the source's", lang, name,
        Location(translation.path, moved[2]), source=source, diff=((mine, shown),),
        subject=(mine, f"{role}:{value}"), level=Level.ERROR,
    )  # fmt: skip
