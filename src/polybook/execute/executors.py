"""Where programs run, behind one small interface.

An executor runs one :class:`~polybook.execute.runner.Job` at a time per call of
:meth:`run` (blocking) and says how many calls may be in flight (``slots``); the
evaluation drives it from that many threads, so cache look-ups, locks and progress stay
in one place whatever the backend.

* :class:`LocalExecutor` (default): the job runs in the calling thread; each program has
  its own kernel process, so ``slots`` kernels run at once.
* :class:`DaskExecutor` (``--scheduler ADDRESS``): jobs are submitted to a Dask
  ``distributed`` cluster; programs that ask for a GPU carry ``resources={"GPU": 1}``
  so the scheduler only places them on workers started with ``--resources GPU=1``.
  Workers need the same environment (packages, kernel spec, book checkout path).
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Protocol

from polybook.execute.runner import EventHook, Job, run_program


class Executor(Protocol):
    name: str
    slots: int

    def run(self, job: Job, on_event: EventHook) -> dict[str, Any]: ...

    def close(self) -> None: ...


class LocalExecutor:
    name = "local"

    def __init__(self, jobs: int | None = None) -> None:
        self.slots = max(1, jobs or os.cpu_count() or 1)

    def run(self, job: Job, on_event: EventHook) -> dict[str, Any]:
        return run_program(job, on_event)

    def close(self) -> None:
        pass


class DaskExecutor:
    """Programs as Dask tasks; cell progress is not streamed back, program progress is."""

    name = "dask"

    def __init__(self, address: Any, jobs: int | None = None) -> None:
        from distributed import Client

        # ``address`` is a scheduler address, or a Cluster object (tests use LocalCluster).
        self.client = Client(address)
        workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
        threads = sum(w.get("nthreads", 1) for w in workers.values()) or 1
        self.slots = max(1, jobs or threads)
        self.gpu_workers = [a for a, w in workers.items() if w.get("resources", {}).get("GPU", 0) > 0]

    def run(self, job: Job, on_event: EventHook) -> dict[str, Any]:
        # Without any GPU worker the constraint could never be met and the task would wait
        # for ever; the program then runs anywhere and, if it really needs CUDA, its
        # failure is recorded as "needs_gpu" like on a local CPU machine.
        resources = {"GPU": 1} if job.wants_gpu and self.gpu_workers else None
        on_event("start", job.key, -1)
        key = f"polybook-{job.key[:16]}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(run_program, job, key=key, resources=resources, pure=False)
        result: dict[str, Any] = future.result()
        result.setdefault("provenance", {})["worker"] = _where(self.client, future)
        result["provenance"]["resources"] = resources or {}
        return result

    def close(self) -> None:
        self.client.close()


def _where(client: Any, future: Any) -> str | None:
    try:
        who = client.who_has([future]).get(future.key) or []
        return who[0] if who else None
    except Exception:  # informational only
        return None


def make_executor(scheduler: Any = None, jobs: int | None = None) -> Executor:
    return DaskExecutor(scheduler, jobs) if scheduler else LocalExecutor(jobs)
