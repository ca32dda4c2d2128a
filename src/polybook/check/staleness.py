"""Which source commit each translation was last synced with, and what changed since.

``polybook sync --write`` records, per translation chapter, the source commit (git
``HEAD``) and the SHA-256 of the source file it synced against, in
``chapters/<lang>/polybook-sync.json``. The check compares that hash with the source
file today; when they differ and git history is at hand, the source as it was is parsed
again and compared with the source as it is, cell by cell and paragraph by paragraph.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from polybook.check.align import align, char_ratio
from polybook.check.code import CellMatch, cell_key
from polybook.check.findings import Finding, Location
from polybook.diagnostics import Code
from polybook.dialect import parse_text
from polybook.dialect.builder import DialectSettings
from polybook.dialect.nodes import Block, Document, Heading, Paragraph
from polybook.files import atomic_write, file_sha256

LOCK_NAME = "polybook-sync.json"
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


def read_lock(folder: Path) -> dict[str, SyncRecord]:
    try:
        text = (folder / LOCK_NAME).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    chapters = data.get("chapters", {}) if isinstance(data, dict) else {}
    if not isinstance(chapters, dict):
        return {}
    return {stem: _record(text, stem, rec) for stem, rec in chapters.items() if isinstance(rec, dict)}


def _record(text: str, stem: str, rec: dict) -> SyncRecord:
    """One entry of the lock file whose ``text`` holds it (for the line of a bad entry)."""
    commit, sha256 = rec.get("commit"), rec.get("sha256", "")
    sha256 = sha256 if isinstance(sha256, str) else ""
    if commit is None or (isinstance(commit, str) and _COMMIT.fullmatch(commit)):
        return SyncRecord(commit, sha256)
    at = text.find(json.dumps(stem) + ":")
    line = text.count("\n", 0, at) + 1 if at >= 0 else 1
    problem = f"entry {stem!r} has commit {commit!r}, not a commit hash (7 to 40 lowercase hex digits); it is ignored"
    return SyncRecord(None, sha256, problem, line)


def write_lock(folder: Path, source_language: str, records: dict[str, SyncRecord]) -> None:
    data = {
        "source_language": source_language,
        "chapters": {k: {"commit": r.commit, "sha256": r.sha256} for k, r in sorted(records.items())},
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


def _prose(doc: Document) -> list[Paragraph | Block | Heading]:
    return [n for n in doc.walk() if isinstance(n, Paragraph | Heading) or (isinstance(n, Block) and n.kind != "html")]


def _text(node: Paragraph | Block | Heading) -> str:
    return node.text if isinstance(node, Heading) else node.source


def lock_problem(lang: str, chapter: str, target: Document, record: SyncRecord | None) -> list[Finding]:
    """A lock entry whose commit is not a commit hash, at its line of the lock file."""
    if record is None or not record.problem:
        return []
    lock = Location((Path(target.path).parent / LOCK_NAME).as_posix(), record.line)
    return [Finding.make(
        Code.STALE_LOCK, f"{LOCK_NAME}: {record.problem}", lang, chapter, lock, subject=(record.problem, ""),
    )]  # fmt: skip


def check_staleness(
    lang: str,
    chapter: str,
    source: Document,
    target: Document,
    record: SyncRecord | None,
    source_file: Path,
    settings: DialectSettings,
    match: CellMatch,
    place: Callable[[int], int],
) -> list[Finding]:
    top = Location(target.path, 1)
    if record is None:
        return [
            Finding.make(
                Code.STALE_UNKNOWN,
                "no record of the source commit this translation was synced with; `polybook sync --write` records it",
                lang, chapter, top, source=Location(source.path, 1),
            )
        ]  # fmt: skip
    if record.sha256 == file_sha256(source_file):
        return []
    old_text = source_at(source_file.parent, record.commit, source_file) if record.commit else None
    since = f"since the sync at {record.commit[:10]}" if record.commit else "since the last sync"
    if old_text is None:
        return [
            Finding.make(
                Code.STALE_SOURCE, f"the source changed {since}; no git history at hand to say where",
                lang, chapter, top, source=Location(source.path, 1), subject=(record.sha256, ""),
            )
        ]  # fmt: skip
    old = parse_text(old_text, source.path, settings)
    out: list[Finding] = []
    for framework in source.frameworks:
        now, then = source.cells(framework), old.cells(framework)
        for pair in align([cell_key(c.code) for c in then], [cell_key(c.code) for c in now]):
            if pair.kind == "equal":
                continue
            cell = now[pair.target] if pair.target is not None else None
            counterpart = match.source_to_target.get(id(cell)) if cell else None
            what = {"similar": "changed", "missing": "was removed", "extra": "was added"}[pair.kind]
            index = (pair.target if pair.target is not None else pair.source or 0) + 1
            out.append(Finding.make(
                Code.STALE_SOURCE, f"source {framework} cell {index} {what} {since}", lang, chapter,
                Location(target.path, counterpart.line if counterpart else place(cell.line if cell else 1)),
                source=Location(source.path, cell.line if cell else 1), framework=framework, cell=index,
                subject=(record.sha256, cell_key(cell.code) if cell else ""),
            ))  # fmt: skip
    then_prose, now_prose = _prose(old), _prose(source)
    for pair in align([_text(n) for n in then_prose], [_text(n) for n in now_prose], char_ratio, 0.6):
        if pair.kind == "equal" or pair.target is None:
            continue
        node = now_prose[pair.target]
        out.append(Finding.make(
            Code.STALE_SOURCE, f"source text at line {node.line} changed {since}", lang, chapter,
            Location(target.path, place(node.line)),
            source=Location(source.path, node.line), subject=(record.sha256, _text(node)),
        ))  # fmt: skip
    return out
