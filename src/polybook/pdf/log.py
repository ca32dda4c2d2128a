"""Read a xelatex log: missing glyphs and errors, traced back to the chapter's path:line.

Two kinds of problems matter. ``Missing character: There is no 🧪 (U+1F9EA) in font ...``
means a glyph would silently print as nothing: an error, named by language and character
and located where the character is written. ``./book.tex:812: Undefined control sequence``
(``-file-line-error``) is located through the ``% polybook-src DOC:LINE`` markers the
extension puts in the ``.tex`` (:mod:`polybook.pdf.sphinx_ext`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from polybook.diagnostics import Code, Diagnostic
from polybook.files import display_path
from polybook.stage.myst import Transpiled

_MISSING_RE = re.compile(
    r"Missing character: There is no (?P<char>.)(?: \(U\+(?P<code>[0-9A-Fa-f]{4,6})\))? in font (?P<font>[^!\n]*)!?"
)
_FILE_LINE_RE = re.compile(r"^(?P<file>\.?/?[^\s:]+\.(?:tex|aux|toc|sty|cls|def|cfg)):(?P<line>\d+): (?P<message>.+)$")
_BANG_RE = re.compile(r"^! (?P<message>.+)$")
#: The comment the LaTeX sources carry before each chapter's and paragraph's text (written by
#: :mod:`polybook.pdf.sphinx_ext`; here, so reading a log does not import Sphinx).
MARKER = "% polybook-src"
_MARKER_RE = re.compile(rf"^{re.escape(MARKER)} (?P<doc>\S+):(?P<line>\d+)$")


@dataclass(frozen=True, slots=True)
class MissingGlyph:
    char: str
    font: str
    log_line: int

    @property
    def codepoint(self) -> str:
        return f"U+{ord(self.char):04X}"

    @property
    def name(self) -> str:
        return unicodedata.name(self.char, "unnamed character")


@dataclass(frozen=True, slots=True)
class LatexError:
    message: str
    log_line: int
    tex_line: int | None  # line of the book's .tex file, when LaTeX said it
    file: str = ""  # the file LaTeX named, when not the book's .tex (a stale .aux, a package)
    context: str = ""  # TeX's "l.138 Broken math \\(\\undefinedmacro": the input up to the error


@dataclass(slots=True)
class LatexLog:
    missing: list[MissingGlyph]
    errors: list[LatexError]


def read_log(text: str) -> LatexLog:
    """The missing glyphs (each character once) and errors of a LaTeX log."""
    missing: dict[str, MissingGlyph] = {}
    errors: list[LatexError] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        for m in _MISSING_RE.finditer(line):
            char = chr(int(m["code"], 16)) if m["code"] else m["char"]
            font = m["font"].strip().split("/")[0].split(":")[0]  # "Noto Serif Regular/OT:script=latn;..."
            missing.setdefault(char, MissingGlyph(char, font, number))
        if m := _FILE_LINE_RE.match(line):
            in_book = m["file"].endswith(".tex") and "/" not in m["file"].removeprefix("./")
            tex_line = int(m["line"]) if in_book else None
            errors.append(LatexError(m["message"].strip(), number, tex_line, m["file"], _context(lines, number)))
        elif m := _BANG_RE.match(line):
            context = _context(lines, number)
            tex_line = int(context.split()[0][2:]) if context else None
            errors.append(LatexError(m["message"].strip(), number, tex_line, "", context))
    return LatexLog(list(missing.values()), errors)


def _context(lines: list[str], number: int) -> str:
    """TeX's ``l.<line> <input read so far>`` shown a few lines below an error message."""
    return next((n.strip() for n in lines[number : number + 12] if re.match(r"l\.\d+ ", n)), "")


def source_of(tex: list[str], tex_line: int) -> tuple[str, int] | None:
    """(docname, MyST line) of the nearest source marker at or above ``tex_line``."""
    for line in reversed(tex[: max(tex_line, 0)]):
        if m := _MARKER_RE.match(line.strip()):
            return m["doc"], int(m["line"])
    return None


def diagnose(
    log: LatexLog,
    *,
    lang: str,
    tex: list[str],
    log_path: Path,
    docs: dict[str, Transpiled],
    paths: dict[str, str],
) -> list[Diagnostic]:
    """Diagnostics for ``log``, at the chapter's path:line when it can be traced, else the log's."""
    shown_log = display_path(log_path)
    out: list[Diagnostic] = []
    for glyph in log.missing:
        where = _find_char(glyph.char, docs, paths) or (shown_log, glyph.log_line)
        message = (
            f"{lang}: no font has {glyph.char!r} ({glyph.codepoint} {glyph.name}); it would print as a blank"
            f" (font {glyph.font}; log {shown_log}:{glyph.log_line})"
        )
        out.append(Diagnostic.make(*where, Code.PDF_GLYPH, message))
    for error in log.errors:
        source = source_of(tex, error.tex_line) if error.tex_line else None
        where = (shown_log, error.log_line)
        if source and source[0] in docs:
            where = (paths[source[0]], docs[source[0]].source_line(source[1]))
        named = f" in {error.file}" if error.file and error.tex_line is None else ""
        near = f' near "{error.context.split(" ", 1)[-1][-40:]}"' if error.context else ""
        message = f"{lang}: LaTeX error{named}: {error.message}{near} (log {shown_log}:{error.log_line})"
        out.append(Diagnostic.make(*where, Code.PDF_LATEX, message))
    return out


def _find_char(char: str, docs: dict[str, Transpiled], paths: dict[str, str]) -> tuple[str, int] | None:
    for name, doc in docs.items():
        for number, line in enumerate(doc.text.split("\n"), 1):
            if char in line:
                return paths[name], doc.source_line(number)
    return None
