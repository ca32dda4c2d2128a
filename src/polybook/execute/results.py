"""What became of a program, typed: the one hand-off from the runner to everything after it.

:class:`ProgramResult` is what a kernel run (:mod:`.runner`), the execution cache and the
frozen results hold, what :mod:`.failures` classifies and what the report and the per-document
outputs read. Its JSON (:meth:`ProgramResult.to_json`) is the stored form; a stored entry that
does not read back (:meth:`ProgramResult.from_json` raises :class:`ValueError`) is treated as
corrupt, like one whose checksum does not match.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class RunStatus(StrEnum):
    """A program's or a cell's status, as results and reports write it. ``needs_gpu`` is a
    failure whose cause is a missing GPU; :mod:`polybook.execute.failures` tells a download that
    failed and a framework not installed from a plain error."""

    OK = "ok"
    ERROR = "error"
    NEEDS_GPU = "needs_gpu"
    TIMEOUT = "timeout"
    KERNEL_DIED = "kernel_died"
    DOWNLOAD_FAILED = "download_failed"
    MISSING_FRAMEWORK = "missing_framework"
    NOT_RUN = "not_run"

    @property
    def failed(self) -> bool:
        """The program (or cell) did not finish."""
        return self not in (RunStatus.OK, RunStatus.NOT_RUN)

    @property
    def fatal(self) -> bool:
        """A failure of the book's code (an error, a timeout, a dead kernel): it fails the build.
        What the machine lacks (a GPU, the network, a framework) does not; "needs a GPU" only
        where the book says so (``fail_on_needs_gpu``, decided by the evaluation)."""
        return self in (RunStatus.ERROR, RunStatus.TIMEOUT, RunStatus.KERNEL_DIED)

    @property
    def raised(self) -> bool:
        """The runner's own verdict for a cell that raised: a plain error or a CUDA one."""
        return self in (RunStatus.ERROR, RunStatus.NEEDS_GPU)


class Source(StrEnum):
    """Where an outcome came from; ``skipped``: nothing ran (no environment, no GPU worker)."""

    RUN = "run"
    CACHE = "cache"
    FROZEN = "frozen"
    SKIPPED = "skipped"


@dataclass(slots=True)
class CellResult:
    status: RunStatus = RunStatus.NOT_RUN
    outputs: list[dict[str, Any]] = field(default_factory=list)  # nbformat outputs, as kept
    duration: float | None = None
    timeout: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"status": str(self.status), "outputs": self.outputs, "duration": self.duration, "timeout": self.timeout}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CellResult:
        return cls(RunStatus(data["status"]), list(data["outputs"]), data.get("duration"), int(data.get("timeout", 0)))

    def errors(self) -> list[dict[str, Any]]:
        return [o for o in self.outputs if o.get("output_type") == "error"]

    def printed(self) -> str:
        """What the cell wrote to its streams."""
        return "\n".join(str(o.get("text", "")) for o in self.outputs if o.get("output_type") == "stream")


@dataclass(slots=True)
class Failure:
    """Where and how a program stopped. ``url``/``module``: what a failed download or a
    missing framework named (set by the classification)."""

    cell: int
    kind: RunStatus
    ename: str = ""
    evalue: str = ""
    traceback: list[str] = field(default_factory=list)
    url: str | None = None
    module: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cell": self.cell,
            "kind": str(self.kind),
            "ename": self.ename,
            "evalue": self.evalue,
            "traceback": self.traceback,
        }
        out.update({k: v for k, v in (("url", self.url), ("module", self.module)) if v is not None})
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Failure:
        return cls(
            int(data["cell"]),
            RunStatus(data["kind"]),
            str(data.get("ename", "")),
            str(data.get("evalue", "")),
            list(data.get("traceback", [])),
            data.get("url"),
            data.get("module"),
        )


@dataclass(slots=True)
class ProgramResult:
    key: str
    label: str
    status: RunStatus
    cells: list[CellResult]
    failure: Failure | None = None
    allowed_errors: int = 0  # cells that raised where errors are allowed (not the one it stopped at)
    duration: float = 0.0
    provenance: dict[str, Any] = field(default_factory=dict)  # environment.provenance(): versions, device

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "status": str(self.status),
            "failure": self.failure.to_json() if self.failure is not None else None,
            "allowed_errors": self.allowed_errors,
            "cells": [cell.to_json() for cell in self.cells],
            "duration": self.duration,
            "provenance": self.provenance,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProgramResult:
        """The stored form read back; :class:`ValueError` when it is not one."""
        try:
            failure = data.get("failure")
            return cls(
                str(data["key"]),
                str(data.get("label", "")),
                RunStatus(data["status"]),
                [CellResult.from_json(cell) for cell in data["cells"]],
                Failure.from_json(failure) if failure else None,
                int(data.get("allowed_errors", 0)),
                float(data.get("duration") or 0.0),
                dict(data.get("provenance") or {}),
            )
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"not a program result: {exc}") from exc

    @classmethod
    def not_run(
        cls, key: str, label: str, timeouts: list[int], status: RunStatus, ename: str, evalue: str, cell: int = 0
    ) -> ProgramResult:
        """A program that was not run, failed at ``cell`` (its diagnostics' line)."""
        cells = [CellResult(timeout=timeout) for timeout in timeouts]
        return cls(key, label, status, cells, Failure(cell, status, ename, evalue))

    def stopped_at(self) -> int | None:
        """The cell the program stopped at, None when it ran through."""
        return self.failure.cell if self.failure is not None and self.status.failed else None

    def cells_run(self) -> int:
        return sum(1 for cell in self.cells if cell.status is not RunStatus.NOT_RUN)

    def reclassified(self, status: RunStatus, url: str | None = None, module: str | None = None) -> ProgramResult:
        """This result with its status (the failing cell's and the failure's kind) changed."""
        assert self.failure is not None
        cells = list(self.cells)
        index = self.failure.cell
        if index < len(cells):
            cells[index] = replace(cells[index], status=status)
        url = url if url is not None else self.failure.url  # "" too: a download whose URL was not said
        module = module if module is not None else self.failure.module
        failure = replace(self.failure, kind=status, url=url, module=module)
        return replace(self, status=status, failure=failure, cells=cells)
