"""Run one program in its own Jupyter kernel (nbformat + nbclient + ipykernel).

:func:`run_program` is the unit every executor runs: it takes a picklable :class:`Job`,
starts a fresh kernel in the chapter folder, executes the cells in order like a notebook
and returns a :class:`~polybook.execute.results.ProgramResult`. It never raises for what the code does: an exception,
a timeout or a dying kernel becomes data (``status`` and ``failure``), with whatever the
cells printed until then.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from polybook.execute.environment import provenance
from polybook.execute.results import CellResult, Failure, ProgramResult, RunStatus
from polybook.files import disk_full

KEPT_MIME = ("text/plain", "text/html", "image/png", "image/svg+xml")
# What CUDA-only code says on a machine without a usable GPU (torch and mxnet wordings).
_GPU_RE = re.compile(
    r"no NVIDIA driver|not compiled with CUDA|no CUDA GPUs are available|CUDA driver version is insufficient"
    r"|CUDA error|cudaGetDeviceCount|Expected a cuda device|libcuda\.so|Cannot access accelerator device"
    r"|GPU is not enabled|Compile with USE_CUDA|Unknown device type gpu|Unknown backend:? '?gpu"
    r"|no platforms that are instances of gpu",
    re.IGNORECASE,
)
# Jupyter tracebacks carry ANSI colours; messages on a terminal line should not.
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

#: ``on_event(kind, key, cell_index)``; kinds: "start", "cell_start", "cell_done", and from the
#: evaluation "hit" (served from a store) and "done:<status>".
EventHook = Callable[[str, str, int], None]


@dataclass(slots=True)
class Job:
    """What a worker needs to run a program: plain data, picklable for Dask."""

    key: str
    label: str
    kernel: str
    cwd: str
    sources: list[str]
    timeouts: list[int]
    allow_errors: list[bool]  # per cell (effective: the cell's setting, else its chapter's)
    environment: dict[str, Any] = field(default_factory=dict)  # fingerprint, for provenance
    wants_gpu: bool = False
    pythonpath: str = ""  # put first on the kernel's sys.path (the book's own package)
    kernel_dir: str = ""  # the folder of kernel specs ``kernel`` is found in (else Jupyter's own)


def strip_ansi(text: str) -> str:
    return _ANSI_RE.sub("", text)


def needs_gpu(ename: str, evalue: str, traceback: list[str] | None = None) -> bool:
    """Is this error what CUDA code raises without a GPU (rather than a bug)?"""
    if _GPU_RE.search(evalue or ""):
        return True
    text = strip_ansi("\n".join(traceback or []))
    return ename == "AssertionError" and "torch/cuda" in text and "CUDA" in text


def clean_outputs(outputs: list[Any]) -> list[dict[str, Any]]:
    """Streams, results, displays and errors, with only the MIME types a page can show."""
    kept = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            kept.append({"output_type": kind, "name": out["name"], "text": out["text"]})
        elif kind in {"execute_result", "display_data"}:
            data = {m: v for m, v in out.get("data", {}).items() if m in KEPT_MIME}
            if data:
                entry = {"output_type": kind, "data": data, "metadata": dict(out.get("metadata", {}))}
                if kind == "execute_result":
                    entry["execution_count"] = out.get("execution_count")
                kept.append(entry)
        elif kind == "error":
            kept.append(
                {"output_type": kind, "ename": out["ename"], "evalue": out["evalue"], "traceback": out["traceback"]}
            )
    return kept


def run_program(job: Job, on_event: EventHook | None = None) -> ProgramResult:
    """Execute ``job`` in a new kernel; synchronous, safe to call from any thread."""
    return asyncio.run(_run(job, on_event or (lambda *_: None)))


async def _run(job: Job, on_event: EventHook) -> ProgramResult:
    """The program as a notebook, run by nbclient; what became of each cell, as data."""
    run = _Run(job, on_event)
    on_event("start", job.key, -1)
    begun = time.monotonic()
    status, failure = await run.execute()
    cells = run.finish(status, failure)
    stopped = failure.cell if failure is not None else None
    allowed = sum(1 for i, c in enumerate(cells) if c.status.raised and i != stopped)
    duration = round(time.monotonic() - begun, 4)
    return ProgramResult(job.key, job.label, status, cells, failure, allowed, duration, provenance(job.environment))


class _Run:
    """One program's run: its notebook, nbclient's client and what each cell did."""

    def __init__(self, job: Job, on_event: EventHook) -> None:
        import nbformat
        from nbclient import NotebookClient

        self.job, self.on_event = job, on_event
        self.nb = nbformat.v4.new_notebook()
        for index, source in enumerate(job.sources):
            cell = nbformat.v4.new_code_cell(source)
            cell.metadata["polybook"] = {"index": index, "timeout": job.timeouts[index]}
            if job.allow_errors[index]:
                # nbclient's per-cell "errors allowed"; its global allow_errors stays off, so a
                # cell saying allow_errors=false stops the program even where the chapter allows.
                cell.metadata["tags"] = ["raises-exception"]
            self.nb.cells.append(cell)
        self.cells = [CellResult(timeout=timeout) for timeout in job.timeouts]
        self.state: dict[str, Any] = {"current": None, "started": 0.0, "process": None}
        self.client = NotebookClient(
            self.nb,
            kernel_name=job.kernel,
            timeout_func=lambda cell: cell.metadata["polybook"]["timeout"],
            interrupt_on_timeout=False,
            allow_errors=False,
            startup_timeout=120,
            extra_arguments=["--matplotlib=inline"],  # plain plt.show() figures as PNG, as in a notebook
            shutdown_kernel="immediate",
            record_timing=False,
            coalesce_streams=True,
            resources={"metadata": {"path": job.cwd}},
            on_cell_start=self.cell_start,
            on_cell_executed=self.cell_executed,
        )
        if job.kernel_dir:  # an environment's kernel: its spec is in the book's build folder only
            from jupyter_client.kernelspec import KernelSpecManager

            self.client.km = self.client.create_kernel_manager()  # still owned (and shut down) by the client
            self.client.km.kernel_spec_manager = KernelSpecManager(kernel_dirs=[job.kernel_dir])

    def cell_start(self, cell: Any, cell_index: int, **_: Any) -> None:
        self.state["current"], self.state["started"] = cell_index, time.monotonic()
        if self.state["process"] is None and self.client.km is not None:
            self.state["process"] = getattr(self.client.km.provisioner, "process", None)
        self.on_event("cell_start", self.job.key, cell_index)

    def cell_executed(self, cell: Any, cell_index: int, execute_reply: dict[str, Any], **_: Any) -> None:
        done = self.cells[cell_index]
        done.duration = round(time.monotonic() - self.state["started"], 4)
        reply = (execute_reply or {}).get("content", {})
        done.status = RunStatus.OK
        if reply.get("status") == "error":  # a CUDA error is "needs a GPU", also where errors are allowed
            gpu = needs_gpu(reply.get("ename", ""), reply.get("evalue", ""), reply.get("traceback"))
            done.status = RunStatus.NEEDS_GPU if gpu else RunStatus.ERROR
        self.on_event("cell_done", self.job.key, cell_index)

    async def execute(self) -> tuple[RunStatus, Failure | None]:
        """Run the notebook; the program's status, and its failure (None when it ran through)."""
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

        state, cells = self.state, self.cells
        failure: Failure | None = None
        status = RunStatus.OK
        # The kernel's own stderr (its log, a segfault's report) goes to a file, not our terminal.
        stderr = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in the finally below, after _tail reads it
        env = dict(os.environ)
        if self.job.pythonpath:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [self.job.pythonpath, env.get("PYTHONPATH", "")]))
        try:
            await self.client.async_execute(stderr=stderr, env=env)
        except CellTimeoutError:
            status, failure = RunStatus.TIMEOUT, _failure(state, RunStatus.TIMEOUT)
            failure.evalue = f"cell did not finish within {cells[failure.cell].timeout} s; kernel stopped"
        except DeadKernelError:
            status, failure = RunStatus.KERNEL_DIED, _failure(state, RunStatus.KERNEL_DIED)
            code = _exit_code(state["process"])
            failure.evalue = "the kernel died while running this cell" + (f" (exit status {code})" if code else "")
            failure.traceback = _tail(stderr)
        except CellExecutionError as exc:
            gpu = needs_gpu(exc.ename, exc.evalue, exc.traceback.split("\n"))
            status = RunStatus.NEEDS_GPU if gpu else RunStatus.ERROR
            failure = _failure(state, status, exc.ename, exc.evalue)
        except Exception as exc:  # the kernel did not start, or nbclient itself failed: still data
            if (full := disk_full(exc)) is not None:
                raise full from None  # not the program's failure: kept as one, it would outlive the full disk
            status, failure = (
                RunStatus.KERNEL_DIED,
                _failure(state, RunStatus.KERNEL_DIED, type(exc).__name__, str(exc) or "kernel failure"),
            )
        finally:
            stderr.close()
        return status, failure

    def finish(self, status: RunStatus, failure: Failure | None) -> list[CellResult]:
        """Each cell's outputs, and the failing cell's status, traceback and duration."""
        cells = self.cells
        for index, cell in enumerate(self.nb.cells):
            cells[index].outputs = clean_outputs(cell.get("outputs", []))
        if failure is not None:
            stopped = cells[failure.cell]
            stopped.status = status
            errors = stopped.errors()
            if errors and status.raised:
                failure.traceback = errors[-1]["traceback"]
            if stopped.duration is None:
                started = self.state["started"]
                stopped.duration = round(time.monotonic() - started, 4) if started else 0.0
        return cells


def _failure(state: dict[str, Any], kind: RunStatus, ename: str = "", evalue: str = "") -> Failure:
    return Failure(state["current"] if state["current"] is not None else 0, kind, ename, evalue)


def _tail(stream: Any, lines: int = 20) -> list[str]:
    """The last lines of the kernel's stderr, without its start-up chatter."""
    stream.seek(0)
    text = stream.read().decode("utf-8", "replace").splitlines()
    return [ln for ln in text if not ln.startswith("[IPKernelApp]")][-lines:]


def _exit_code(process: Any) -> int | None:
    if process is None:
        return None
    try:
        return process.wait(timeout=5)
    except Exception:
        return None
