"""The outputs ``polybook build eval`` recorded for a notebook's code cells, never run again.

They are read from the per-document results files (``build/eval/<lang>/<document>.json``, as the
site and the PDFs read them: :class:`polybook.stage.outputs.ChapterResults`) and matched the
same way -- a cell's place in its framework's program and the hash of the code up to it -- so a
notebook shows a cell's outputs only while they are of its code. They already are nbformat
output dicts; an ``execute_result`` gets its cell's execution count.
"""

from __future__ import annotations

from typing import Any

from polybook.dialect.nodes import CodeCell
from polybook.execute.outputs import code_hashes, raw_hashes
from polybook.execute.results import RunStatus
from polybook.library.reader_code import ReaderCode
from polybook.stage.outputs import ChapterResults, quiet_outputs

#: Keys an output of each kind may have in nbformat 4 (the results file may hold more).
_KEYS = {
    "stream": ("output_type", "name", "text"),
    "display_data": ("output_type", "data", "metadata"),
    "execute_result": ("output_type", "data", "metadata", "execution_count"),
    "error": ("output_type", "ename", "evalue", "traceback"),
}


class RecordedOutputs:
    """The stored results of one document's program for one framework."""

    def __init__(self, results: ChapterResults, framework: str, program: list[CodeCell], reader: ReaderCode) -> None:
        self.results = results
        self.framework = framework
        self.program = program
        self.codes = reader.program(program, framework)  # as the program ran them
        self.raw = raw_hashes(self.codes)
        self._normalised: list[str] | None = None

    @property
    def recorded(self) -> bool:
        """Whether ``build eval`` recorded this framework's program of the document at all."""
        return self.framework in self.results.programs

    def _code_hashes(self) -> list[str]:
        if self._normalised is None:
            self._normalised = code_hashes(self.codes)
        return self._normalised

    def of(self, cell: CodeCell) -> dict[str, Any] | None:
        """The stored cell of ``cell`` (None: none of this code was recorded)."""
        index = next(i for i, c in enumerate(self.program) if c is cell)
        return self.results.find(self.framework, index, self.raw[index], lambda: self._code_hashes()[index])


def notebook_outputs(stored: dict[str, Any], count: int, quiet: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """A stored cell's outputs as nbformat 4 outputs (nothing for a cell that did not run), without
    the stderr lines ``quiet`` names (conf.py's ``execution.quiet_stderr``), as the page shows them."""
    if RunStatus(stored.get("status", RunStatus.OK)) is RunStatus.NOT_RUN:
        return []
    out = []
    for output in quiet_outputs(stored.get("outputs", []), quiet):
        kind = output.get("output_type")
        if kind not in _KEYS:
            continue
        kept = {key: output[key] for key in _KEYS[kind] if key in output}
        if kind in ("display_data", "execute_result"):
            kept.setdefault("data", {})
            kept.setdefault("metadata", {})
        if kind == "execute_result":
            kept["execution_count"] = count
        if kind == "error":
            kept.setdefault("ename", "")
            kept.setdefault("evalue", "")
            kept.setdefault("traceback", [])
        if kind == "stream":
            kept.setdefault("name", "stdout")
            kept.setdefault("text", "")
        out.append(kept)
    return out
