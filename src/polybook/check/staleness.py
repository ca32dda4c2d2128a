"""Which source commit each translation was last synced with, and what changed since.

``polybook sync --write`` records, per translation chapter, the source commit (git
``HEAD``) and the SHA-256 of the source file it synced against, in
``chapters/<lang>/polybook-sync.json`` (:func:`read_lock`, :func:`write_lock`); git shows the
source as it was (:func:`source_at`). :func:`source_changes` compares a translation's base (the
source as it was, its ``X_origin.md``, or an edition: :mod:`.bases`) with the source as it is,
cell by cell and paragraph by paragraph.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from cydifflib import SequenceMatcher  # difflib's, compiled: the same opcodes (see pyproject.toml)

from polybook.check.align import Pair, align, token_ratio
from polybook.check.code_diff import token_diff
from polybook.check.code_keys import cell_key
from polybook.check.code_match import align_code
from polybook.check.documents import cells_of
from polybook.check.findings import Finding, Location
from polybook.check.regroup import CellMatch
from polybook.check.segments import by_identity, walked
from polybook.check.word_diff import same_words
from polybook.diagnostics import Code
from polybook.dialect.nodes import Block, CodeCell, DisplayMath, Document, Heading, Paragraph
from polybook.files import atomic_write

LOCK_NAME = "polybook-sync.json"
#: ``X_origin.md``: the source text a d2lbook translation ``X.md`` was made from.
ORIGIN_SUFFIX = "_origin"
_MAX_DIFF = 5  # changed runs shown per finding
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


@dataclass(frozen=True, slots=True)
class SyncRecord:
    """One chapter's entry of the lock file. ``commit`` is a hex commit hash or None: the
    lock comes with the pull request, so anything else is kept out of git's arguments and
    described in ``problem`` (with the entry's ``line`` in the lock file)."""

    commit: str | None
    sha256: str
    problem: str | None = None
    line: int = 1
    # what the record says follows the source at ``commit``: None, all of it (``polybook port``
    # carries the prose too); :data:`SYNCED` for ``polybook sync``, which makes code, math and
    # labels equal and leaves the prose as it was, so its staleness still counts from the older base
    covers: tuple[str, ...] | None = None

    @property
    def prose(self) -> bool:
        """Whether the record covers the prose (else the older base stays the prose's)."""
        return self.covers is None or "prose" in self.covers


SYNCED = ("code", "math", "labels")  # what `polybook sync` makes equal to the source


def read_lock(folder: Path) -> dict[str, SyncRecord]:
    try:
        text = (folder / LOCK_NAME).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    chapters = data.get("chapters", {}) if isinstance(data, dict) else {}
    if not isinstance(chapters, dict):
        return {}
    return {name: _record(text, name, rec) for name, rec in chapters.items() if isinstance(rec, dict)}


def _record(text: str, name: str, rec: dict) -> SyncRecord:
    """One entry of the lock file whose ``text`` holds it (for the line of a bad entry)."""
    commit, sha256 = rec.get("commit"), rec.get("sha256", "")
    sha256 = sha256 if isinstance(sha256, str) else ""
    covers = rec.get("covers")
    covers = tuple(str(c) for c in covers) if isinstance(covers, list) else None
    if commit is None or (isinstance(commit, str) and _COMMIT.fullmatch(commit)):
        return SyncRecord(commit, sha256, covers=covers)
    at = text.find(json.dumps(name) + ":")
    line = text.count("\n", 0, at) + 1 if at >= 0 else 1
    problem = f"entry {name!r} has commit {commit!r}, not a commit hash (7 to 40 lowercase hex digits); it is ignored"
    return SyncRecord(None, sha256, problem, line)


def write_lock(folder: Path, source_language: str, records: dict[str, SyncRecord]) -> None:
    data = {
        "source_language": source_language,
        "chapters": {
            k: {"commit": r.commit, "sha256": r.sha256, **({"covers": list(r.covers)} if r.covers is not None else {})}
            for k, r in sorted(records.items())
        },
    }
    atomic_write(folder / LOCK_NAME, json.dumps(data, indent=2) + "\n")


def run_git(root: Path, *args: str) -> str | None:
    """``git ARGS`` in ``root``: its stdout, or None when git fails or is not installed."""
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", errors="replace") if done.returncode == 0 else None


def head_commit(root: Path) -> str | None:
    out = run_git(root, "rev-parse", "HEAD")
    return out.strip() if out else None


def source_at(root: Path, commit: str, path: Path) -> str | None:
    top = run_git(root, "rev-parse", "--show-toplevel")
    if not top:
        return None
    rel = path.resolve().relative_to(Path(top.strip()).resolve()).as_posix()
    return run_git(root, "show", "--end-of-options", f"{commit}:{rel}")


@by_identity
def prose_blocks(doc: Document) -> list[Paragraph | Block | Heading]:
    """The document's prose blocks, in order: paragraphs, headings, lists, tables... (memoised:
    shared, never mutate it)."""
    return [n for n in walked(doc) if isinstance(n, Paragraph | Heading) or (isinstance(n, Block) and n.kind != "html")]


@by_identity
def display_formulas(doc: Document) -> list[str]:
    """The document's display formulas, white space folded: what the migration plan counts and
    aligns, and what tells a translation's base (:mod:`.bases`). Memoised (shared, never mutate
    it), on the walk the checks share: three walks of every base and source were 0.05 CPU-s of
    the 1.0 book's check."""
    return [" ".join(n.tex.split()) for n in walked(doc) if isinstance(n, DisplayMath)]


def prose_text(node: Paragraph | Block | Heading) -> str:
    return node.text if isinstance(node, Heading) else node.source


@by_identity
def prose_texts(doc: Document) -> list[str]:
    """:func:`prose_text` of each of the document's :func:`prose_blocks`, in order (memoised:
    shared, never mutate it): every comparison of a base with the source reads them."""
    return [prose_text(n) for n in prose_blocks(doc)]


T = TypeVar("T")


def by_documents(func: Callable[..., T]) -> Callable[..., T]:
    """Memoise a function of two documents on both their identities, for the last few pairs:
    inside a chunk (:func:`polybook.models.shared_documents`) the languages whose base is one
    document (an edition's, or an ``X_origin.md`` that is its file byte for byte) ask for the same
    comparison with the source. An entry keeps both documents alive, so an id is never reused
    while it is cached, and a hit is checked to be the very same objects. By hand: ``lru_cache``
    keys on equality, and documents compare by value (every node), not by identity."""
    cache: OrderedDict[tuple[int, int], tuple[object, object, T]] = OrderedDict()

    @functools.wraps(func)
    def wrapper(old: Document, new: Document) -> T:
        key = (id(old), id(new))
        hit = cache.get(key)
        if hit is not None and hit[0] is old and hit[1] is new:
            cache.move_to_end(key)
            return hit[2]
        value = func(old, new)
        cache[key] = (old, new, value)
        if len(cache) > _MEMO_SIZE:
            cache.popitem(last=False)
        return value

    return wrapper


_MEMO_SIZE = 32  # pairs kept: a chunk compares one document in every language before the next


@by_documents
def prose_pairs(old: Document, new: Document) -> list[Pair]:
    """:func:`prose_blocks` of a base and of the source today, aligned by words (only the diff
    shown depends on the pairing, and characters cost a hundred times more). Memoised (shared,
    never mutate it): the stale findings and the migration plan ask for the same."""
    return align(prose_texts(old), prose_texts(new), token_ratio, 0.6)


def lock_problem(lang: str, name: str, translation: Document, record: SyncRecord | None) -> list[Finding]:
    """A lock entry whose commit is not a commit hash, at its line of the lock file."""
    if record is None or not record.problem:
        return []
    lock = Location((Path(translation.path).parent / LOCK_NAME).as_posix(), record.line)
    return [Finding.make(
        Code.STALE_LOCK, f"{LOCK_NAME}: {record.problem}", lang, name, lock, subject=(record.problem, ""),
    )]  # fmt: skip


def origin_file(translation: Path) -> Path:
    """``X_origin.md`` beside a translation ``X.md``: the source text it was translated from
    (d2lbook translations keep one; ``polybook import`` keeps it outside the build)."""
    return translation.with_name(f"{translation.stem}{ORIGIN_SUFFIX}{translation.suffix}")


@dataclass(frozen=True, slots=True)
class CellStep:
    """A cell the source changed, added or removed since a base, in a framework's stream:
    ``anchor``, the last of the base's cells up to it (None: none yet), places it in a
    translation; ``cell``, the source's (None: removed); ``diff`` and ``key``, what a finding shows."""

    framework: str
    anchor: CodeCell | None
    cell: CodeCell | None
    what: str  # "changed", "was removed", "was added"
    index: int
    diff: tuple[tuple[str, str], ...]
    key: str


@dataclass(frozen=True, slots=True)
class ProseStep:
    """A prose block the source changed or added since a base: ``anchor_line``, the line of the
    last of the base's blocks up to it (None: none yet), places it in a translation."""

    anchor_line: int | None
    node: Paragraph | Block | Heading
    diff: tuple[tuple[str, str], ...]


_WHAT = {"similar": "changed", "missing": "was removed", "extra": "was added"}


@by_documents
def source_steps(old: Document, source: Document) -> tuple[list[CellStep], list[ProseStep]]:
    """What :func:`source_changes` finds between a base and the source today, before it is
    placed in a translation: the same for every language made from that base, so worked out
    once (memoised on both documents: shared, never mutate it)."""
    cells: list[CellStep] = []
    for framework in source.frameworks:
        now, then = cells_of(source, framework), cells_of(old, framework)
        anchor = None
        for pair in align_code([c.code_for(framework) for c in then], [c.code_for(framework) for c in now]):
            before = then[pair.source] if pair.source is not None else None
            anchor = before if before is not None else anchor
            if pair.kind == "equal":
                continue
            cell = now[pair.target] if pair.target is not None else None
            index = (pair.target if pair.target is not None else pair.source or 0) + 1
            diff = cell_diff(before.code_for(framework), cell.code_for(framework)) if before and cell else ()
            key = cell_key(cell.code_for(framework)) if cell else ""
            cells.append(CellStep(framework, anchor, cell, _WHAT[pair.kind], index, diff[:_MAX_DIFF], key))
    then_prose, now_prose = prose_blocks(old), prose_blocks(source)
    then_texts, now_texts = prose_texts(old), prose_texts(source)
    prose: list[ProseStep] = []
    anchor_line = None
    for pair in prose_pairs(old, source):
        if pair.source is not None:
            anchor_line = then_prose[pair.source].line
        if pair.kind == "equal" or pair.target is None:
            continue
        before_text = then_texts[pair.source] if pair.source is not None else ""
        if pair.source is not None and same_words(before_text, now_texts[pair.target]):
            continue  # white space, typography or markup alone: the translation still holds
        prose.append(ProseStep(anchor_line, now_prose[pair.target], word_diff(before_text, now_texts[pair.target])))
    return cells, prose


def source_changes(
    lang: str,
    name: str,
    old: Document,
    source: Document,
    translation: Document,
    since: str,
    base: str,
    match: CellMatch,
    place: Callable[[int], int],
) -> list[Finding]:
    """The source's cells and paragraphs that changed between ``old`` (the base) and today's
    ``source`` (:func:`source_steps`), each at the translation's place -- found through the base,
    which ``match`` and ``place`` pair with the translation -- with the change as a diff (then -> now)."""
    out: list[Finding] = []
    cells, prose = source_steps(old, source)
    for step in cells:
        line = 1  # the translation's line of the base cell before the change
        if step.anchor is not None:
            counterpart = match.source_to_target.get(id(step.anchor))
            line = counterpart.line if counterpart else place(step.anchor.line)
        cell = step.cell
        out.append(Finding.make(
            Code.STALE_SOURCE, f"source {step.framework} cell {step.index} {step.what} {since}", lang, name,
            Location(translation.path, line),
            source=Location(source.path, cell.line if cell else 1), framework=step.framework, cell=step.index,
            subject=(base, step.key), diff=step.diff,
        ))  # fmt: skip
    for change in prose:
        node = change.node
        out.append(Finding.make(
            Code.STALE_SOURCE, f"source text at line {node.line} changed {since}", lang, name,
            Location(translation.path, place(change.anchor_line) if change.anchor_line is not None else 1),
            source=Location(source.path, node.line), subject=(base, prose_text(node)), diff=change.diff,
        ))  # fmt: skip
    return out


@lru_cache(maxsize=16384)
def cell_diff(then: str, now: str) -> tuple[tuple[str, str], ...]:
    """:func:`token_diff` of two versions of a cell, ``(then, now)`` pairs. Memoised: the same
    change of the source is shown to every language whose base has the cell."""
    return tuple((h.translation, h.source) for h in token_diff(then, now))


@lru_cache(maxsize=16384)
def word_diff(then: str, now: str, limit: int = _MAX_DIFF) -> tuple[tuple[str, str], ...]:
    """The changed runs of words between two versions of a paragraph, ``(then, now)`` pairs
    (memoised: the same change is shown to every language)."""
    old, new = then.split(), now.split()
    pairs = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            pairs.append((" ".join(old[i1:i2]), " ".join(new[j1:j2])))
    return tuple(pairs[:limit])
