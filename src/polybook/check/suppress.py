"""Suppressions: an inline comment before a cell or paragraph, or a baseline file.

Inline, in the translation (or, for every translation at once, in the source)::

    <!-- polybook: ignore code.changed reason="pt keeps the smaller loop for slow machines" -->

The comment covers the node right after it. A baseline entry carries the finding's
fingerprint, a hash of the content on both sides, so it stops matching as soon as either
side changes. Every suppression needs a reason; one without is itself a finding, and so is
one that no longer matches any finding (``suppression.unused``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from polybook.check.findings import Finding, Location
from polybook.check.segments import walked
from polybook.diagnostics import Code
from polybook.dialect.nodes import Block, Document

_IGNORE = re.compile(
    r"<!--\s*polybook:\s*ignore\s+(?P<codes>[\w.*,\s-]+?)\s*(?:reason\s*=\s*(?P<q>[\"'])(?P<reason>.*?)(?P=q))?\s*-->",
    re.S,
)


@dataclass(frozen=True, slots=True)
class Suppression:
    path: str
    start: int  # the lines of the node it covers (start > end: it covers nothing)
    end: int
    codes: tuple[str, ...]
    reason: str
    line: int = 0  # of the comment itself
    lang: str = ""
    name: str = ""

    @property
    def covers_notes(self) -> bool:
        """Whether it suppresses ``stale.source`` notes (by that code, its family or every code)."""
        return _covers(self.codes, str(Code.STALE_SOURCE))


def _covers(codes: tuple[str, ...], code: str) -> bool:
    return any(code == c or code.startswith(c.rstrip(".*") + ".") or c in ("*", "all") for c in codes)


def inline_suppressions(doc: Document, lang: str, name: str) -> tuple[list[Suppression], list[Finding]]:
    nodes = walked(doc)
    found: list[Suppression] = []
    problems: list[Finding] = []
    for k, node in enumerate(nodes):
        if not (isinstance(node, Block) and node.kind == "html"):
            continue
        for m in _IGNORE.finditer(node.source):
            line = node.line + node.source[: m.start()].count("\n")
            reason = (m["reason"] or "").strip()
            codes = tuple(c.removeprefix("polybook.") for c in re.split(r"[\s,]+", m["codes"].strip()) if c)
            if not reason:
                problems.append(Finding.make(
                    Code.SUPPRESSION, f"suppression of {', '.join(codes)} has no reason=\"...\"; it is ignored",
                    lang, name, Location(doc.path, line),
                ))  # fmt: skip
                continue
            target = nodes[k + 1] if k + 1 < len(nodes) else None
            start, end = (target.line, target.end_line) if target is not None else (0, -1)
            found.append(Suppression(doc.path, start, end, codes, reason, line, lang, name))
    return found, problems


def load_baseline(path: Path) -> dict[tuple[str, str, str, str], str]:
    """``(code, lang, chapter, fingerprint) -> reason``; raises ValueError on a bad file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for k, entry in enumerate(data.get("entries", [])):
        reason = str(entry.get("reason", "")).strip()
        if not reason:
            raise ValueError(f"{path}: entry {k + 1} ({entry.get('code')}) has no reason")
        code = str(entry["code"]).removeprefix("polybook.")
        out[(code, entry["lang"], entry["chapter"], entry["fingerprint"])] = reason
    return out


def baseline_json(findings: list[Finding], reason: str) -> str:
    entries = [
        {
            "code": f"polybook.{f.code}",
            "lang": f.lang,
            "chapter": f.name,
            "fingerprint": f.fingerprint,
            "where": str(f.primary),
            "message": f.message,
            "reason": reason,
        }
        for f in findings
    ]
    return json.dumps({"version": 1, "entries": entries}, ensure_ascii=False, indent=2) + "\n"


def _matches(s: Suppression, f: Finding) -> bool:
    where = [loc for loc in (f.location, f.source) if loc is not None and loc.path == s.path]
    return _covers(s.codes, str(f.code)) and any(s.start <= loc.line <= s.end for loc in where)


def apply(
    findings: list[Finding], inline: list[Suppression], baseline: dict[tuple[str, str, str, str], str]
) -> list[Finding]:
    if not inline and not baseline:
        return list(findings)  # (most books: nothing to look up, no fingerprint to work out)
    out = []
    for f in findings:
        reason = baseline.get((str(f.code), f.lang, f.name, f.fingerprint)) if baseline else None
        if reason is None:
            reason = next((s.reason for s in inline if _matches(s, f)), None)
        out.append(f.suppress(reason) if reason else f)
    return out


def unused(findings: list[Finding], inline: list[Suppression]) -> list[Finding]:
    """A finding for every inline suppression that matches none of ``findings``."""
    return [
        Finding.make(
            Code.SUPPRESSION_UNUSED,
            f"suppression of {', '.join(s.codes)} (reason: {s.reason}) matches no finding; remove it",
            s.lang, s.name, Location(s.path, s.line), subject=(" ".join(s.codes), s.reason),
        )
        for s in inline
        if not any(_matches(s, f) for f in findings)
    ]  # fmt: skip
