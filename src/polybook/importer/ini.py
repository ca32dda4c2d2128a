"""A d2lbook ``config.ini``, read as d2lbook reads it but with the line of every value.

d2lbook reads its config with :mod:`configparser`, which forgets where a value was written.
This reader follows configparser's rules (``=`` or ``:`` between key and value, keys
lower-cased, ``#``/``;`` full-line comments, values continued on lines indented deeper than
their key, each line stripped, empty lines kept inside a value and dropped at its end) and
keeps the file line of every value line, so every problem is a diagnostic at its
``config.ini:LINE`` (:meth:`IniFile.diagnostic`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from polybook.diagnostics import Code, Diagnostic, DiagnosticError

_SECTION_RE = re.compile(r"\[(?P<header>.+)\]")
_OPTION_RE = re.compile(r"(?P<key>.*?)\s*(?P<sep>=|:)\s*(?P<value>.*)$")
_COMMENT_PREFIXES = ("#", ";")


class IniError(DiagnosticError):
    """config.ini is unreadable or malformed; ``diagnostics`` says where (``polybook.import.ini``)."""


@dataclass(frozen=True, slots=True)
class IniValue:
    """One ``key = value`` of a section: its value lines (stripped, as configparser keeps
    them) and the 1-based file line of each."""

    section: str
    key: str
    lines: tuple[str, ...]
    numbers: tuple[int, ...]

    @property
    def line(self) -> int:
        """The line of the key."""
        return self.numbers[0]

    @property
    def raw(self) -> str:
        """The value as configparser returns it before interpolation: lines joined by newlines."""
        return "\n".join(self.lines).strip()

    @property
    def text(self) -> str:
        """The value as d2lbook sees it: configparser's interpolation turns ``%%`` into ``%``."""
        return self.raw.replace("%%", "%")

    def words(self) -> list[str]:
        """Whitespace-separated items (``notebooks``, ``resources``, ``exclusions``)."""
        return self.raw.split()

    def items(self) -> list[str]:
        """Comma-separated items, over all lines (``tabs``)."""
        return [item.strip() for item in self.raw.replace("\n", ",").split(",") if item.strip()]

    def line_of(self, index: int) -> int:
        """The file line of value line ``index`` (0-based), for a message inside a long value."""
        return self.numbers[min(max(index, 0), len(self.numbers) - 1)]


@dataclass(slots=True)
class IniFile:
    path: Path
    sections: dict[str, dict[str, IniValue]] = field(default_factory=dict)
    section_lines: dict[str, int] = field(default_factory=dict)

    def get(self, section: str, key: str) -> IniValue | None:
        return self.sections.get(section, {}).get(key)

    def value(self, section: str, key: str, default: str = "") -> str:
        """The value (``raw``) of ``[section] key``, or ``default`` when it is not set."""
        found = self.get(section, key)
        return found.raw if found is not None else default

    def diagnostic(self, line: int, code: Code, message: str) -> Diagnostic:
        """A problem at ``line`` of this config.ini."""
        return Diagnostic.make(str(self.path), line, code, message)

    def where(self, line: int) -> str:
        """``path:line``, for a note that names the line a value comes from (problems are
        :meth:`diagnostic`)."""
        return f"{self.path}:{line}"

    def __iter__(self) -> Iterator[IniValue]:
        """Every value, in file order."""
        values = [value for section in self.sections.values() for value in section.values()]
        return iter(sorted(values, key=lambda value: value.line))


def read_ini(path: Path) -> IniFile:
    """Read ``path``; raises :class:`IniError` naming ``path:line`` for what configparser refuses."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise IniError([IniFile(path).diagnostic(1, Code.IMPORT_INI, f"not UTF-8: {exc.reason}")]) from None
    except OSError as exc:
        raise IniError([IniFile(path).diagnostic(1, Code.IMPORT_INI, f"cannot read: {exc.strerror or exc}")]) from None
    return _Reader(path).read(text.splitlines())


class _Reader:
    """configparser's line loop, keeping line numbers (``_read`` in the standard library)."""

    def __init__(self, path: Path) -> None:
        self.ini = IniFile(path)
        self.section: dict[str, tuple[list[str], list[int]]] | None = None
        self.section_name = ""
        self.key: str | None = None
        self.indent = 0
        self.errors: list[Diagnostic] = []

    def read(self, lines: list[str]) -> IniFile:
        pending: dict[str, dict[str, tuple[list[str], list[int]]]] = {}
        for number, line in enumerate(lines, start=1):
            self.line(number, line, pending)
        if self.errors:
            raise IniError(self.errors)
        for name, values in pending.items():
            section = self.ini.sections.setdefault(name, {})
            for key, (texts, numbers) in values.items():
                while len(texts) > 1 and not texts[-1]:  # configparser rstrips a value
                    texts.pop()
                    numbers.pop()
                section[key] = IniValue(name, key, tuple(texts), tuple(numbers))
        return self.ini

    def line(self, number: int, line: str, pending: dict[str, dict[str, tuple[list[str], list[int]]]]) -> None:
        stripped = line.strip()
        if stripped.startswith(_COMMENT_PREFIXES):
            return
        if not stripped:
            if self.section is not None and self.key is not None:
                texts, numbers = self.section[self.key]
                texts.append("")
                numbers.append(number)
            return
        indent = len(line) - len(line.lstrip())
        if self.section is not None and self.key is not None and indent > self.indent:
            texts, numbers = self.section[self.key]
            texts.append(stripped)
            numbers.append(number)
            return
        self.indent = indent
        header = _SECTION_RE.match(stripped)
        if header:
            name = header.group("header")
            if name in self.ini.section_lines:
                self.error(number, f"section [{name}] again (first at line {self.ini.section_lines[name]})")
            self.ini.section_lines.setdefault(name, number)
            self.section = pending.setdefault(name, {})
            self.section_name = name
            self.key = None
            return
        if self.section is None:
            self.error(number, f"{stripped!r} before any [section]")
            return
        option = _OPTION_RE.match(stripped)
        if not option or not option.group("key"):
            self.error(number, f"not a 'key = value' line: {stripped!r}")
            self.key = None
            return
        key = option.group("key").rstrip().lower()
        if key in self.section:
            first = self.section[key][1][0]
            self.error(number, f"[{self.section_name}] {key} set again (first at line {first})")
        self.section[key] = ([option.group("value").strip()], [number])
        self.key = key

    def error(self, line: int, message: str) -> None:
        self.errors.append(self.ini.diagnostic(line, Code.IMPORT_INI, message))
