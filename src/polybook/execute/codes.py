"""Diagnostic codes of execution, printed like every other polybook problem.

They belong in :class:`polybook.diagnostics.Code`; they live here until that enum takes
them (``polybook.exec.*`` either way), so that this stage did not edit a shared file.
"""

from __future__ import annotations

from enum import StrEnum

from polybook.diagnostics import Diagnostic, Level


class ExecCode(StrEnum):
    ERROR = "exec.error"
    NEEDS_GPU = "exec.needs_gpu"
    TIMEOUT = "exec.timeout"
    KERNEL_DIED = "exec.kernel_died"
    ALLOWED_ERROR = "exec.allowed_error"
    OPTION = "exec.option"


DEFAULT_LEVEL = {
    ExecCode.ERROR: Level.ERROR,
    ExecCode.NEEDS_GPU: Level.WARNING,
    ExecCode.TIMEOUT: Level.ERROR,
    ExecCode.KERNEL_DIED: Level.ERROR,
    ExecCode.ALLOWED_ERROR: Level.INFO,
    ExecCode.OPTION: Level.WARNING,
}


def diagnostic(path: str, line: int, code: ExecCode, message: str, level: Level | None = None) -> Diagnostic:
    return Diagnostic(path, line, code, message, level or DEFAULT_LEVEL[code])  # type: ignore[arg-type]
