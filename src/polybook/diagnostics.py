"""One vocabulary of problems for the whole pipeline.

Every problem polybook reports -- a parse error, a config mistake, later a checker
finding or a build warning -- is a :class:`Diagnostic` with a code from :class:`Code`,
so users can grep, suppress and count them, and every one prints the same way:
``path:line: level: message [polybook.code]``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Code(StrEnum):
    """Diagnostic codes; the value is what users see after ``polybook.``."""

    CONFIG = "config"
    READ = "read"
    ENCODING = "encoding"
    FENCE_UNCLOSED = "fence.unclosed"
    FENCE_ATTRS = "fence.attrs"
    TAB_UNCLOSED = "tab.unclosed"
    TAB_NESTED = "tab.nested"
    TAB_UNMATCHED = "tab.unmatched"
    TAB_UNKNOWN = "tab.unknown"
    TAB_MISPLACED = "tab.misplaced"
    DIRECTIVE_DAMAGED = "directive.damaged"
    ROLE_DAMAGED = "role.damaged"
    LABEL_DUPLICATE = "label.duplicate"
    LABEL_ORPHAN = "label.orphan"
    HEADING_DAMAGED = "heading.damaged"


#: The level a code is reported at unless the reporter says otherwise.
DEFAULT_LEVEL: dict[Code, Level] = {
    Code.CONFIG: Level.ERROR,
    Code.READ: Level.ERROR,
    Code.ENCODING: Level.ERROR,
    Code.FENCE_UNCLOSED: Level.ERROR,
    Code.FENCE_ATTRS: Level.WARNING,
    Code.TAB_UNCLOSED: Level.ERROR,
    Code.TAB_NESTED: Level.ERROR,
    Code.TAB_UNMATCHED: Level.ERROR,
    Code.TAB_UNKNOWN: Level.ERROR,
    Code.TAB_MISPLACED: Level.ERROR,
    Code.DIRECTIVE_DAMAGED: Level.ERROR,
    Code.ROLE_DAMAGED: Level.WARNING,
    Code.LABEL_DUPLICATE: Level.ERROR,
    Code.LABEL_ORPHAN: Level.WARNING,
    Code.HEADING_DAMAGED: Level.WARNING,
}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem at a 1-based line of a file."""

    path: str
    line: int
    code: Code
    message: str
    level: Level

    @classmethod
    def make(cls, path: str, line: int, code: Code, message: str, level: Level | None = None) -> Diagnostic:
        return cls(path, line, code, message, level or DEFAULT_LEVEL[code])

    def format(self) -> str:
        return f"{self.path}:{self.line}: {self.level}: {self.message} [polybook.{self.code}]"

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "level": str(self.level),
            "code": f"polybook.{self.code}",
            "message": self.message,
        }


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.level is Level.ERROR for d in diagnostics)


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, str]:
    return (diagnostic.path, diagnostic.line, diagnostic.code)
