"""Reading chapter files: bytes -> text, with a diagnostic (and byte offset) for bad UTF-8."""

from __future__ import annotations

from pathlib import Path

from polybook.diagnostics import Code, Diagnostic


def decode(data: bytes, path: str) -> tuple[str, list[Diagnostic]]:
    """Decode UTF-8; undecodable bytes become U+FFFD and are reported, never raised."""
    diagnostics: list[Diagnostic] = []
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), diagnostics
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.end].hex(" ")
        diagnostics.append(
            Diagnostic.make(
                path, line, Code.ENCODING, f"not UTF-8: byte(s) {bad} at byte offset {exc.start}; shown as U+FFFD"
            )
        )
        return data.decode("utf-8", errors="replace"), diagnostics


def read_text(path: Path, display: str) -> tuple[str, list[Diagnostic]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return "", [Diagnostic.make(display, 1, Code.READ, f"cannot read file: {exc.strerror or exc}")]
    return decode(data, display)
