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
  When no worker declares a GPU, such programs are *not run*: :meth:`DaskExecutor.run`
  raises :class:`NoGPUWorker` and the evaluation records them as ``needs_gpu`` (not
  cached, so a later build with a GPU worker runs them; a frozen result is still used).
  Workers need the same environment (packages, kernel spec, book checkout path); each
  result names the worker that ran it (``provenance.worker``).
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Protocol

from polybook.execute.results import ProgramResult
from polybook.execute.runner import EventHook, Job, run_program


class Executor(Protocol):
    name: str
    slots: int

    def run(self, job: Job, on_event: EventHook) -> ProgramResult: ...

    def close(self) -> None: ...


class LocalExecutor:
    name = "local"

    def __init__(self, jobs: int | None = None) -> None:
        self.slots = max(1, jobs or os.cpu_count() or 1)

    def run(self, job: Job, on_event: EventHook) -> ProgramResult:
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
        self.gpu_workers = _gpu_workers(self.client)

    def run(self, job: Job, on_event: EventHook) -> ProgramResult:
        resources = None
        if job.wants_gpu:
            # Without a GPU worker the constraint could never be met (the task would wait for
            # ever), and running the program elsewhere is not what was asked: refuse it.
            self.gpu_workers = self.gpu_workers or _gpu_workers(self.client)
            if not self.gpu_workers:
                raise NoGPUWorker(
                    "no Dask worker declares a GPU resource (start one with `dask worker ADDRESS --resources GPU=1`)"
                    "; not run"
                )
            resources = {"GPU": 1}
        on_event("start", job.key, -1)
        key = f"polybook-{job.key[:16]}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(run_on_worker, job, key=key, resources=resources, pure=False)
        result: ProgramResult = future.result()
        result.provenance["resources"] = resources or {}
        return result

    def close(self) -> None:
        self.client.close()


class NoGPUWorker(Exception):
    """A program asks for a GPU and no worker of the cluster declares one."""


def run_on_worker(job: Job) -> ProgramResult:
    """:func:`run_program` on a Dask worker; the result names that worker."""
    from distributed import get_worker

    result = run_program(job)
    result.provenance["worker"] = get_worker().address
    return result


def _gpu_workers(client: Any) -> list[str]:
    workers = client.scheduler_info(n_workers=-1).get("workers", {})
    return [address for address, w in workers.items() if w.get("resources", {}).get("GPU", 0) > 0]


def make_executor(scheduler: Any = None, jobs: int | None = None) -> Executor:
    return DaskExecutor(scheduler, jobs) if scheduler else LocalExecutor(jobs)
