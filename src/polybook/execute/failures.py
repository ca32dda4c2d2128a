"""Why a program failed, in classes a maintainer can act on.

The runner records what happened (``error``, ``timeout``, ...) with the exception's name,
value and traceback; the class is decided here, from that record and the program's code,
every time a result is used -- so a stored or frozen result is classified with today's
rules without running it again. On a machine without a GPU:

* ``needs_gpu`` -- the program asks for a GPU (``d2l.try_gpu``, ``npx.gpu``, ``.cuda()``...)
  and fails at or after the cell that asks, whatever it raises (``IndexError: list index out
  of range`` from an empty GPU list, ``ZeroDivisionError`` from ``% num_gpus``), or raises
  what CUDA code raises without a GPU;
* ``download_failed`` -- a dataset or weights could not be fetched (no network): the URL is named;
* ``missing_framework`` -- the framework is not installed (``No module named 'tensorflow'``),
  reported once per framework; or its environment could not be made (``NoEnvironment``,
  said once at its conf.py line when the programs are planned, :mod:`.evaluate`);
* otherwise ``error`` stays a bug of the code.
"""

from __future__ import annotations

import re

from polybook.execute.programs import Program
from polybook.execute.results import Failure, ProgramResult, RunStatus
from polybook.execute.runner import strip_ansi

#: The ``ename`` of a program not run because its environment could not be made (:mod:`.envs`).
NO_ENVIRONMENT = "NoEnvironment"
#: What Python's, urllib3's and requests' network failures say.
_NETWORK_RE = re.compile(
    r"ConnectionError|URLError|gaierror|NewConnectionError|MaxRetryError|Max retries exceeded"
    r"|Name or service not known|Temporary failure in name resolution|Network is unreachable"
    r"|No address associated with hostname|Failed to establish a new connection|ConnectTimeout",
)
_URL_RE = re.compile(r"https?://[^\s'\"<>)\]]+")
_NO_MODULE_RE = re.compile(r"No module named '([\w.]+)'")


_IMPORT_RE = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", re.MULTILINE)


def framework_modules(framework: str, packages: tuple[str, ...], program: Program | None = None) -> set[str]:
    """Top-level modules whose absence means the framework is not installed: the framework's
    distributions' names, and what its own cells import (those whose tab names it, not ``all``:
    ``import torch`` in a pytorch cell), so no table of frameworks is needed."""
    own: set[str] = set()
    if program is not None and program.uses:
        for cell in program.uses[0].cells:
            if cell.tab is not None and cell.tab.strip() == "all":
                continue
            own.update(_IMPORT_RE.findall(cell.code_for(framework)))
    return {framework, *(p.replace("-", "_") for p in packages), *own} - {"d2l", "numpy"}


def classify(result: ProgramResult, program: Program, modules: set[str]) -> ProgramResult:
    """``result`` with its status (and its failure's ``kind``) reclassified; the same result
    when nothing changes. ``modules``: :func:`framework_modules` of the program's framework."""
    failure = result.failure
    if not result.status.raised or failure is None:
        return result
    cells = result.cells
    # What the failing cell printed before it raised: some libraries say there why they fail
    # and raise something vaguer (torchvision prints ``<urlopen error ...>``, then raises
    # ``RuntimeError: Error downloading train-images-idx3-ubyte.gz``).
    printed = cells[failure.cell].printed() if failure.cell < len(cells) else ""
    device = str(result.provenance.get("device", ""))
    status, url, module = _class_of(failure, program, modules, device, printed)
    if status == result.status and url is None and module is None:
        return result
    return result.reclassified(status, url, module)


def _class_of(
    failure: Failure, program: Program, modules: set[str], device: str, printed: str = ""
) -> tuple[RunStatus, str | None, str | None]:
    """The failure's class, and the URL or module it names."""
    ename, evalue = failure.ename, strip_ansi(failure.evalue)
    text = "\n".join([ename, evalue, *(strip_ansi(line) for line in failure.traceback), printed])
    missing = _NO_MODULE_RE.search(evalue) if ename in ("ModuleNotFoundError", "ImportError") else None
    if missing and missing[1].split(".")[0] in modules:
        return RunStatus.MISSING_FRAMEWORK, None, missing[1].split(".")[0]
    if _NETWORK_RE.search(text):
        urls = _URL_RE.findall(text)
        return RunStatus.DOWNLOAD_FAILED, urls[-1].rstrip(".,:;") if urls else "", None
    gpu_cell = program.gpu_cell
    if gpu_cell is not None and failure.cell >= gpu_cell and not device.startswith("GPU"):
        return RunStatus.NEEDS_GPU, None, None
    return failure.kind, None, None  # the runner's own verdict: a CUDA error, or a bug
