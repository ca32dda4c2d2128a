"""A cell's results from the execution cache -> MyST lines under its code.

Streams, ``text/plain`` and tracebacks become literal blocks, which the HTML writer
escapes: a ``<script>`` printed by a cell is shown, never run. Only a real ``text/html``
output is passed through as raw HTML, as Jupyter does. Images are written once to
``_outputs/<hash>.<ext>`` of the staged source. Failures are notices, never hidden:
"needs a GPU" says where it ran and what it raised; a program whose outputs were frozen
on a GPU machine says where they come from, once, on its first cell. Libraries' start-up
chatter on stderr (conf.py's ``polybook.execution.quiet_stderr``) is left out of what readers
see (:func:`quiet_outputs`, for the notebooks too); the stored results keep every line.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from polybook.diagnostics import Code, Diagnostic
from polybook.dialect.nodes import CodeCell
from polybook.execute.outputs import code_hashes, raw_hashes
from polybook.execute.results import RunStatus, Source
from polybook.execute.runner import strip_ansi
from polybook.library.reader_code import ReaderCode
from polybook.stage.i18n import text
from polybook.stage.inline import fence

#: ``write_asset(data, suffix)`` stores bytes and returns their path for an image directive.
AssetWriter = Callable[[bytes, str], str]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|$])")


def escape(value: str) -> str:
    """Text as literal Markdown (device names, error messages in notices)."""
    return _MD_SPECIAL.sub(r"\\\1", value)


@dataclass(slots=True)
class ChapterResults:
    """One (language, chapter) evaluation document: ``build/eval/<lang>/<chapter>.json``.

    Cells are found by framework and place in the program, and used only when the hash of
    the code up to them still matches (:mod:`polybook.execute.outputs`).
    """

    programs: dict[str, dict[str, Any]] = field(default_factory=dict)  # framework -> program info
    cells: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)  # (fw, index) -> cell

    @classmethod
    def from_doc(cls, doc: dict[str, Any] | None) -> ChapterResults:
        if not doc:
            return cls()
        cells = {(c["framework"], c["index"]): c for c in doc.get("cells", []) if "index" in c}
        return cls(dict(doc.get("programs", {})), cells)

    def find(self, framework: str, index: int, raw: str, code: Callable[[], str]) -> dict[str, Any] | None:
        """The results of cell ``index`` of ``framework``'s program, if they are of this code:
        the same code as written (``raw``), else the same normalised code (``code()``: computed
        only then -- a translated comment keeps the outputs)."""
        cell = self.cells.get((framework, index))
        if cell is None:
            return None
        return cell if cell.get("raw") == raw or cell.get("code") == code() else None


def literal(body: str, classes: str) -> list[str]:
    body = body.rstrip("\n")
    marks = fence(body)
    return [f"{marks}{{code-block}} none", f":class: {classes}", "", *body.split("\n"), marks, ""]


def admonition(title: str, classes: str, body: list[str]) -> list[str]:
    marks = fence("\n".join(body), ":")
    return [f"{marks}{{admonition}} {escape(title)}", f":class: {classes}", "", *body, marks, ""]


def _date(provenance: dict[str, Any]) -> str:
    """The day a program ran, as literal Markdown (it comes from a results file)."""
    return escape(str(provenance.get("date", "?")).split("T")[0])


@functools.lru_cache(maxsize=8)
def _quiet_regex(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


def quiet_outputs(outputs: Sequence[dict[str, Any]], patterns: tuple[str, ...]) -> list[dict[str, Any]]:
    """``outputs`` without the stderr lines one of ``patterns`` is found in (each searched in one
    line, its newline aside); a stderr output left empty goes. Nothing else is touched."""
    regex = _quiet_regex(patterns)
    if regex is None:
        return list(outputs)
    kept = []
    for output in outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            raw = output.get("text", "")
            lines = ("".join(raw) if isinstance(raw, list) else str(raw)).splitlines(keepends=True)
            shown = "".join(line for line in lines if not regex.search(line.rstrip("\r\n")))
            if not shown:
                continue
            output = {**output, "text": shown}
        kept.append(output)
    return kept


class OutputRenderer:
    """Renders the results of one chapter in one language."""

    def __init__(
        self,
        lang: str,
        results: ChapterResults,
        write_asset: AssetWriter,
        rich: bool = True,
        label: Callable[[str], str] = str,
        reader: ReaderCode | None = None,
        quiet: tuple[str, ...] = (),
    ) -> None:
        self.language = lang
        self.reader = reader or ReaderCode()  # the code a framework runs, which results are matched to
        self.quiet = quiet  # regexes of stderr lines not shown (conf.py's execution.quiet_stderr)
        self.label = label  # how readers see a framework's name (conf.py's framework_labels)
        self.results = results
        self.write_asset = write_asset
        self.rich = rich  # False: text/plain instead of raw HTML (e.g. for LaTeX)
        self.missing: dict[tuple[int, str], None] = {}  # (line, framework) of cells shown without results
        self._hashes: dict[tuple[str, ...], list[str]] = {}
        self._raw: dict[tuple[str, ...], list[str]] = {}

    def cell(self, code_cell: CodeCell, framework: str, program: list[CodeCell]) -> list[str]:
        """MyST lines for the results of ``code_cell`` run by ``framework``; ``program`` is that
        framework's cells of the page, in order (as :meth:`Document.cells` gives them)."""
        index = next(i for i, c in enumerate(program) if c is code_cell)
        codes = tuple(self.reader.program(program, framework))
        if codes not in self._raw:
            self._raw[codes] = raw_hashes(list(codes))
        cell = self.results.find(framework, index, self._raw[codes][index], lambda: self._normalised(codes)[index])
        if cell is None:
            self.missing[(code_cell.line, framework)] = None
            return [*self.notice("not_executed", "polybook-not-run"), ""]
        program_info = self.results.programs.get(framework, {})
        provenance = program_info.get("provenance", {})
        status = RunStatus(cell.get("status", RunStatus.OK))
        if status is RunStatus.NOT_RUN:
            return self.notice("not_run", "polybook-not-run", framework=self.label(framework))
        out: list[str] = []
        outputs = _merge_streams(quiet_outputs(cell.get("outputs", []), self.quiet))
        errors = [o for o in outputs if o.get("output_type") == "error"]
        lacking = status in (RunStatus.NEEDS_GPU, RunStatus.DOWNLOAD_FAILED)  # the machine lacked it: a notice
        for output in outputs:
            if output.get("output_type") == "error" and lacking:
                continue  # shown in the notice below
            out += self.output(output)
        values = {"device": escape(str(provenance.get("device", "?"))), "date": _date(provenance)}
        if lacking:
            failure = program_info.get("failure") or {}
            values["url"] = f"<{failure['url']}>" if failure.get("url") else "?"
            body = [text(self.language, f"{status}_body", **values), ""]
            for error in errors:
                body += literal(f"{error.get('ename', '')}: {strip_ansi(error.get('evalue', ''))}", "output error")
            css = "warning polybook-needs-gpu" if status is RunStatus.NEEDS_GPU else "warning polybook-download-failed"
            out += admonition(text(self.language, status), css, body)
        elif status is RunStatus.MISSING_FRAMEWORK:
            message = text(self.language, "missing_framework", framework=self.label(framework), **values)
            out += self.notice_text(message, "polybook-missing-framework")
        elif status not in (RunStatus.OK, RunStatus.ERROR) and not errors:
            body = [text(self.language, "failed", status=status.replace("_", " "))]
            out += admonition(status.replace("_", " "), "error polybook-failed", body)
        device = str(provenance.get("device", ""))
        frozen = program_info.get("source") == Source.FROZEN and device.startswith("GPU")
        if frozen and code_cell is _first_shown(program):
            # Once per program, on its first cell shown: every output of it comes from there.
            values = {"framework": self.label(framework), "device": escape(device), "date": _date(provenance)}
            title = text(self.language, "computed_on", device=device)
            out += admonition(title, "note polybook-frozen", [text(self.language, "frozen", **values)])
        return out

    def _normalised(self, codes: tuple[str, ...]) -> list[str]:
        if codes not in self._hashes:
            self._hashes[codes] = code_hashes(list(codes))
        return self._hashes[codes]

    def missing_diagnostics(self, path: str) -> list[Diagnostic]:
        """A warning at ``path``:line for every cell shown without stored results."""
        return [
            Diagnostic.make(
                path, line, Code.OUTPUT_MISSING, f"no stored output for this cell ({fw}): run polybook build eval"
            )
            for line, fw in self.missing
        ]

    def notice(self, key: str, classes: str, **values: str) -> list[str]:
        return self.notice_text(text(self.language, key, **values), classes)

    @staticmethod
    def notice_text(message: str, classes: str) -> list[str]:
        return [f"```{{rst-class}} polybook-notice {classes}", "```", "", message, ""]

    def output(self, output: dict[str, Any]) -> list[str]:
        kind = output.get("output_type")
        if kind == "stream":
            return literal(strip_ansi(output.get("text", "")), f"output stream {output.get('name', 'stdout')}")
        if kind == "error":
            trace = "\n".join(strip_ansi(t) for t in output.get("traceback", []))
            return literal(trace or f"{output.get('ename')}: {output.get('evalue')}", "output error")
        data = output.get("data", {})
        for mime, suffix in (("image/png", ".png"), ("image/svg+xml", ".svg")):
            if mime in data:
                raw = data[mime]
                blob = base64.b64decode(raw) if suffix == ".png" else str(raw).encode()
                return [f"```{{image}} {self.write_asset(blob, suffix)}", ":class: output image", "```", ""]
        if "text/html" in data and self.rich:
            html = data["text/html"]
            html = "".join(html) if isinstance(html, list) else str(html)
            marks = fence(html)
            return [f"{marks}{{raw}} html", f'<div class="output html">{html}</div>', marks, ""]
        if "text/plain" in data:
            plain = data["text/plain"]
            return literal("".join(plain) if isinstance(plain, list) else str(plain), "output result")
        return []


def _first_shown(program: list[CodeCell]) -> CodeCell | None:
    """The first cell of a program whose outputs the page shows."""
    return next((c for c in program if not any(m.name in ("hide", "hide_output") for m in c.markers)), None)


def _merge_streams(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive writes to one stream as one block (a notebook shows them so)."""
    merged: list[dict[str, Any]] = []
    for output in outputs:
        last = merged[-1] if merged else None
        if (
            last is not None
            and output.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and last.get("name") == output.get("name")
        ):
            merged[-1] = {**last, "text": last.get("text", "") + output.get("text", "")}
        else:
            merged.append(output)
    return merged


def asset_name(data: bytes, suffix: str) -> str:
    """Content-addressed file name: unchanged outputs keep their file (and Sphinx its cache)."""
    return hashlib.sha256(data).hexdigest()[:20] + suffix
