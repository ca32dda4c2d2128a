"""What ``polybook check`` reports: findings that point at both the translation and the source."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from polybook.check.plan import DocumentPlan, LanguagePlan, language_plans
from polybook.diagnostics import DEFAULT_LEVEL, Code, Diagnostic, Level


@dataclass(frozen=True, slots=True)
class Location:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One inconsistency between a translation and the source.

    ``location`` is where to fix it (the translation, or the source file for problems of
    the source itself); ``source`` is the matching place in the source. ``diff`` holds
    short ``(translation, source)`` token pairs such as ``("range(1000)", "range(10000)")``.
    ``subject`` is the content the finding is about on each side; the fingerprint hashes
    it so a baseline entry stops matching once either side changes.
    """

    code: Code
    message: str
    lang: str
    name: str
    location: Location | None
    source: Location | None = None
    framework: str | None = None
    cell: int | None = None
    diff: tuple[tuple[str, str], ...] = ()
    subject: tuple[str, str] = ("", "")
    level: Level = field(default=Level.ERROR)
    suppressed: str | None = None  # the reason, when a suppression covers it
    plan: DocumentPlan | None = None  # a ``stale.plan`` note's row of the migration plan

    @classmethod
    def make(cls, code: Code, message: str, lang: str, name: str, location: Location | None, **kw: Any) -> Finding:
        return cls(code, message, lang, name, location, level=kw.pop("level", DEFAULT_LEVEL[code]), **kw)

    @property
    def primary(self) -> Location:
        """Where the finding is shown: the translation, else the source."""
        return self.location or self.source or Location(self.name, 1)

    @property
    def order(self) -> tuple[str, int, str]:
        """How findings are listed: by where they are, then by code."""
        where = self.primary
        return (where.path, where.line, str(self.code))

    @property
    def sides(self) -> tuple[str, str]:
        """What the two texts of each ``diff`` pair are: the translation and the source, or --
        for what changed in the source since the translation followed it -- then and now."""
        return ("source then", "source now") if self.code is Code.STALE_SOURCE else ("translation", "source")

    @property
    def fingerprint(self) -> str:
        text = "\0".join([self.code, self.lang, self.name, self.framework or "", *self.subject])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def suppress(self, reason: str) -> Finding:
        return replace(self, suppressed=reason)

    def as_diagnostic(self) -> Diagnostic:
        where = self.primary
        return Diagnostic(where.path, where.line, self.code, self.message, self.level)

    def format(self) -> str:
        return self.as_diagnostic().format()

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": f"polybook.{self.code}",
            "level": str(self.level),
            "message": self.message,
            "lang": self.lang,
            "chapter": self.name,
            "location": {"path": self.location.path, "line": self.location.line} if self.location else None,
            "source": {"path": self.source.path, "line": self.source.line} if self.source else None,
            "framework": self.framework,
            "cell": self.cell,
            "diff": [{"translation": t, "source": s} for t, s in self.diff],
            "fingerprint": self.fingerprint,
            "suppressed": self.suppressed,
            **({"plan": self.plan.to_json()} if self.plan is not None else {}),
        }


@dataclass(slots=True)
class CheckResult:
    """All findings of one run, suppressed ones included (reporters decide what to show)."""

    source_language: str
    languages: list[str]
    chapters: int
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    follows: dict[str, str] = field(default_factory=dict)  # lang -> what it is checked against
    # False: the ``stale.source`` notes of the documents the source changed were not worked out
    # (their plans' rows sum them up: the text report without --notes)
    notes: bool = True

    def plans(self) -> dict[str, LanguagePlan]:
        """Each language's migration plan, from its ``stale.plan`` notes."""
        rows = [(f.lang, f.plan) for f in self.active if f.plan is not None]
        return language_plans(self.languages, self.follows, rows)

    @property
    def active(self) -> list[Finding]:
        return [f for f in self.findings if f.suppressed is None]

    def count(self, level: Level) -> int:
        return sum(1 for f in self.findings if f.level is level and f.suppressed is None)
