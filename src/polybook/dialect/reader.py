"""Reading chapter files: bytes -> text, with a diagnostic (and byte offset) for bad UTF-8."""

from __future__ import annotations

from pathlib import Path

from polybook.diagnostics import Code, Diagnostic

#: More bad sequences than this in one file are summed up in one last diagnostic.
MAX_ENCODING_REPORTS = 10


def decode(data: bytes, path: str) -> tuple[str, list[Diagnostic]]:
    """Decode UTF-8; undecodable bytes and NUL bytes become U+FFFD and are reported, never raised."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\0" in data:  # no text file holds one (a file cut or garbled on disk): CommonMark makes it U+FFFD
        text, diagnostics = decode(data.replace(b"\0", "\ufffd".encode()), path)
        return text, [*_nul_bytes(data, path), *diagnostics]
    try:
        return data.decode("utf-8"), []  # the common case: decoded once
    except UnicodeDecodeError:
        pass
    bad = _undecodable(data)
    diagnostics = [
        Diagnostic.make(
            path,
            data.count(b"\n", 0, start) + 1,
            Code.ENCODING,
            f"not UTF-8: byte(s) {data[start:end].hex(' ')} at byte offset {start}; shown as U+FFFD",
        )
        for start, end in bad[:MAX_ENCODING_REPORTS]
    ]
    if len(bad) > MAX_ENCODING_REPORTS:
        start = bad[MAX_ENCODING_REPORTS][0]
        more = len(bad) - MAX_ENCODING_REPORTS
        diagnostics.append(
            Diagnostic.make(
                path,
                data.count(b"\n", 0, start) + 1,
                Code.ENCODING,
                f"not UTF-8: {more} more undecodable sequence(s) from byte offset {start} on",
            )
        )
    return data.decode("utf-8", errors="replace"), diagnostics


def _nul_bytes(data: bytes, path: str) -> list[Diagnostic]:
    """A diagnostic for each line with NUL bytes (the first :data:`MAX_ENCODING_REPORTS` of them)."""
    lines: dict[int, list[int]] = {}
    start = data.find(b"\0")
    while start >= 0:
        lines.setdefault(data.count(b"\n", 0, start) + 1, []).append(start)
        start = data.find(b"\0", start + 1)
    found = []
    for line, offsets in list(lines.items())[:MAX_ENCODING_REPORTS]:
        count = f"{len(offsets)} NUL bytes" if len(offsets) > 1 else "a NUL byte"
        message = f"{count} at byte offset {offsets[0]}: not text (a damaged file?); shown as U+FFFD"
        found.append(Diagnostic.make(path, line, Code.ENCODING, message))
    if len(lines) > MAX_ENCODING_REPORTS:
        more = sum(len(offsets) for offsets in list(lines.values())[MAX_ENCODING_REPORTS:])
        line = list(lines)[MAX_ENCODING_REPORTS]
        found.append(Diagnostic.make(path, line, Code.ENCODING, f"{more} more NUL byte(s) from this line on"))
    return found


def _undecodable(data: bytes) -> list[tuple[int, int]]:
    """(start, end) byte offsets of every run of undecodable bytes."""
    found: list[tuple[int, int]] = []
    offset = 0
    while True:
        try:
            data[offset:].decode("utf-8")
        except UnicodeDecodeError as exc:
            start, end = offset + exc.start, offset + exc.end
            if found and found[-1][1] == start:
                start = found.pop()[0]
            found.append((start, end))
            offset += exc.end
        else:
            return found


def read_text(path: Path, display: str) -> tuple[str, list[Diagnostic]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return "", [Diagnostic.make(display, 1, Code.READ, f"cannot read file: {exc.strerror or exc}")]
    return decode(data, display)
