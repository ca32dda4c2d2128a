"""Evaluate a book: every program once, from frozen results, the cache, or a kernel.

For each program, in one of ``slots`` threads: a frozen result with its key wins; else,
holding the key's lock, a cache hit is served (a stored failure too, unless
``rerun_failed``); else the executor runs it and the result is stored -- failures as
failures. The lock makes a second, concurrent build (or a program of this build with
the same key but other timeouts) wait for the first one's run and then hit, so no key
runs twice and no entry is written twice at once.

Planning keys the programs without any environment (:mod:`.envs`: a key is computed from
conf.py); the environments of the programs no store serves are then made, all missing ones at
once (:mod:`.provision`): a build whose results are all stored makes none. A program whose
environment could not be made is not run and is recorded as ``missing_framework``, the
environment's failure said once at its conf.py line.

``documents`` (``polybook build eval PATHS``) restricts an evaluation to the programs of some
documents, each serving those documents only: the others' results are left as they are.
"""

from __future__ import annotations

import errno
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from polybook.book import Book
from polybook.diagnostics import Code, Diagnostic, Level
from polybook.execute.cache import Store
from polybook.execute.environment import fingerprints
from polybook.execute.envs import Wanted, env_spec, unreadable
from polybook.execute.executors import Executor, NoGPUWorker, make_executor
from polybook.execute.failures import NO_ENVIRONMENT, classify, framework_modules
from polybook.execute.library import KernelLibrary, prepare_library
from polybook.execute.programs import Document, Program, build_programs, select_programs
from polybook.execute.provision import Provision, why_not
from polybook.execute.results import ProgramResult, RunStatus, Source
from polybook.execute.runner import EventHook, Job
from polybook.execute.workdir import mirror
from polybook.files import disk_full, display_path


@dataclass(slots=True)
class EvalOptions:
    jobs: int | None = None
    rerun_failed: bool = False
    freeze: bool = False
    scheduler: Any = None  # a Dask scheduler address (or Cluster)


@dataclass(slots=True)
class Outcome:
    program: Program
    result: ProgramResult
    source: Source
    wall: float  # seconds this build spent on it (waiting for a lock included)
    note: str = ""
    problems: list[Diagnostic] = field(default_factory=list)  # e.g. a corrupt frozen result

    fatal: bool = False  # set by the evaluation (Evaluation.fatal)

    @property
    def status(self) -> RunStatus:
        return self.result.status


@dataclass(slots=True)
class Evaluation:
    book: Book
    outcomes: list[Outcome]
    executor: str
    slots: int
    wall_time: float
    started: float
    problems: list[Diagnostic] = field(default_factory=list)
    frozen: list[str] = field(default_factory=list)  # keys written by --freeze
    documents: frozenset[Document] | None = None  # the documents evaluated, when not all of the book's

    def fatal(self) -> list[Outcome]:
        """Failures that make ``polybook build eval`` exit non-zero: errors, timeouts, dead
        kernels; what the machine lacks (a GPU, the network, a framework) is reported but not
        fatal, "needs a GPU" only with ``fail_on_needs_gpu``."""
        gpu_fatal = self.book.config.execution.fail_on_needs_gpu
        return [o for o in self.outcomes if o.status.fatal or (o.status is RunStatus.NEEDS_GPU and gpu_fatal)]


def program_job(program: Program, installed: dict[str, str | None] | None = None) -> Job:
    """What runs ``program``; ``installed``: the versions its environment has (for its provenance)."""
    packages = {**program.fingerprint.get("packages", {}), **{k: v for k, v in (installed or {}).items() if v}}
    return Job(
        key=program.key,
        label=program.label(),
        kernel=program.kernel,
        cwd=str(program.cwd),
        sources=program.sources,
        timeouts=[opt.timeout for opt in program.options],
        allow_errors=[opt.allow_errors for opt in program.options],
        environment={**program.fingerprint, "packages": packages},
        wants_gpu=program.wants_gpu,
        pythonpath=str(program.pythonpath),
        kernel_dir=str(program.kernel_dir or ""),
    )


def plan(book: Book, problems: list[Diagnostic] | None = None, library: KernelLibrary | None = None) -> list[Program]:
    """The book's programs, keyed with their kernels' environments -- as conf.py makes them: no
    environment is made or looked at -- and the book's library."""
    config = book.config
    if library is None:
        library = prepare_library(book)
        if problems is not None:
            problems.extend(library.problems)
    wanted = environments_wanted(book, problems)
    prints = fingerprints(config.execution, config.frameworks)
    derived = {want: env_spec(config.execution, *want).fingerprint() for want in wanted if want[1]}
    return build_programs(book, prints, problems, library, derived)


def environments_wanted(book: Book, problems: list[Diagnostic] | None = None) -> dict[Wanted, tuple[str, int] | None]:
    """The environments the book's programs run in -- (framework, a document's required_libs)
    for frameworks that have one and have programs -- each with where a failure is reported:
    None for a framework's own (its conf.py entry), the ``#required_libs`` cell of the first
    document that asks for a derived one. Requirements that cannot be read are reported there
    (the document's programs then run in the framework's own environment)."""
    config = book.config
    wanted: dict[Wanted, tuple[str, int] | None] = {}
    for lang, chapters in book.chapters.items():
        for doc in chapters.values():
            for framework in config.languages[lang].frameworks:
                if framework not in config.execution.environments or not doc.offers(framework):
                    continue
                if not doc.cells(framework):
                    continue
                wanted.setdefault((framework, ()), None)
                setup = doc.setup
                if not doc.required_libs or setup is None or (framework, doc.required_libs) in wanted:
                    continue
                bad = unreadable(doc.required_libs)
                if bad:
                    message = f"#required_libs: {bad}; the {framework} programs run without them"
                    if problems is not None and not any(d.message == message for d in problems):
                        problems.append(Diagnostic.make(doc.path, setup.line, Code.EXEC_NO_FRAMEWORK, message))
                    continue
                wanted[(framework, doc.required_libs)] = (doc.path, setup.line)
    return wanted


def evaluate(
    book: Book,
    options: EvalOptions,
    on_event: EventHook | None = None,
    on_plan: Any = None,
    documents: frozenset[Document] | None = None,
) -> Evaluation:
    """Run (or reuse) every program of ``book`` (of ``documents`` only, if given); never raises
    for what the code does."""
    started, t0 = time.time(), time.monotonic()
    config = book.config
    problems: list[Diagnostic] = []
    library = prepare_library(book)
    problems.extend(library.problems)
    programs = plan(book, problems, library)
    if documents is not None:
        programs = select_programs(config, programs, documents)
    if on_plan is not None:
        on_plan(programs)
    for language, framework in sorted({(program.uses[0].language, program.framework) for program in programs}):
        mirror(config, language, framework, library.overrides(language))  # build/run/<language>/<framework>/
    cache = Store(config.execution.cache_dir)
    cache.sweep()
    frozen = Store(config.execution.frozen_dir, fanout=False, discard_corrupt=False)  # committed: never deleted
    provision = Provision(config, environments_wanted(book))
    provision.prepare(p.environment for p in programs if p.environment and not _served(p, cache, frozen, options))
    executor = make_executor(options.scheduler, options.jobs or config.execution.jobs)
    hook = on_event or (lambda *_: None)
    stores = _Stores(cache, frozen, provision)
    try:
        with ThreadPoolExecutor(max_workers=executor.slots, thread_name_prefix="polybook-eval") as pool:
            futures = [pool.submit(_evaluate_one, p, stores, executor, options, hook) for p in programs]
            outcomes = [f.result() for f in futures]
    finally:
        executor.close()
    problems.extend(provision.problems())
    for outcome in outcomes:
        problems.extend(d for d in outcome.problems if d not in problems)
        framework = outcome.program.framework
        modules = framework_modules(framework, config.execution.packages_for(framework), outcome.program)
        outcome.result = classify(outcome.result, outcome.program, modules)
    wall = time.monotonic() - t0
    evaluation = Evaluation(book, outcomes, executor.name, executor.slots, wall, started, problems, documents=documents)
    for outcome in evaluation.fatal():
        outcome.fatal = True
    if options.freeze:
        for outcome in outcomes:
            # Only successes are worth committing and reusing; programs may share a key.
            if outcome.status is RunStatus.OK and outcome.program.key not in evaluation.frozen:
                frozen.put(outcome.program.key, outcome.result.to_json())
                evaluation.frozen.append(outcome.program.key)
    return evaluation


@dataclass(frozen=True, slots=True)
class _Stores:
    """Where an evaluation's programs get their results: stored ones, or a run in their environment."""

    cache: Store
    frozen: Store
    provision: Provision


def _served(program: Program, cache: Store, frozen: Store, options: EvalOptions) -> bool:
    """Whether a store holds a result ``program`` would be given (it then needs no environment)."""
    found, _ = _stored(frozen, program.key)
    if found is not None and found.status is RunStatus.OK:
        return True
    found, _ = _stored(cache, program.key)
    return found is not None and not _stale(found, program, options)


def _evaluate_one(
    program: Program, stores: _Stores, executor: Executor, options: EvalOptions, hook: EventHook
) -> Outcome:
    t0 = time.monotonic()
    found, reason = _stored(stores.frozen, program.key)
    if found is not None and found.status is RunStatus.OK:
        hook("hit", program.key, -1)
        return Outcome(program, found, Source.FROZEN, time.monotonic() - t0)
    outcome = _from_cache_or_run(program, stores, executor, options, hook, t0)
    if reason == "corrupt":  # a committed file: reported, never deleted
        message = "frozen result is corrupt (checksum, key or format does not match): ignored and left in place"
        outcome.problems.append(
            Diagnostic.make(display_path(stores.frozen.path(program.key)), 1, Code.READ, message, Level.WARNING)
        )
        outcome.note = "; ".join(filter(None, ["corrupt frozen result ignored", outcome.note]))
    return outcome


def _from_cache_or_run(
    program: Program, stores: _Stores, executor: Executor, options: EvalOptions, hook: EventHook, t0: float
) -> Outcome:
    cache = stores.cache
    with cache.lock(program.key):
        found, reason = _stored(cache, program.key)
        note = "corrupt entry discarded" if reason == "corrupt" else ""
        if found is not None:
            stale = _stale(found, program, options)
            if not stale:
                hook("hit", program.key, -1)
                return Outcome(program, found, Source.CACHE, time.monotonic() - t0)
            note = stale
        environment = stores.provision.environment(program)
        if environment is not None and not environment.ready:  # nothing to run it in: recorded, not cached
            result = _not_run(program, RunStatus.MISSING_FRAMEWORK, NO_ENVIRONMENT, why_not(environment))
            hook(f"done:{result.status}", program.key, -1)
            return Outcome(program, result, Source.SKIPPED, time.monotonic() - t0, "no environment")
        job = program_job(program, environment.installed() if environment is not None else None)
        try:
            result = executor.run(job, hook)
        except NoGPUWorker as exc:  # nothing ran: recorded as needing a GPU, not cached
            result = _not_run(program, RunStatus.NEEDS_GPU, "NoGPUWorker", str(exc), program.gpu_cell or 0)
            hook(f"done:{result.status}", program.key, -1)
            return Outcome(program, result, Source.SKIPPED, time.monotonic() - t0, "no GPU worker")
        except Exception as exc:  # the executor itself failed (e.g. a lost Dask worker): not cached
            if (full := disk_full(exc)) is not None:
                raise full from None  # the command stops, saying what to do
            result = _not_run(program, RunStatus.KERNEL_DIED, type(exc).__name__, str(exc))
            hook(f"done:{result.status}", program.key, -1)
            return Outcome(program, result, Source.RUN, time.monotonic() - t0, f"executor failed: {exc}")
        if _disk_was_full(result):  # the machine's failure, not the program's: never kept
            raise OSError(errno.ENOSPC, f"No space left on device (while {program.label()} ran)")
        cache.put(program.key, result.to_json())
        hook(f"done:{result.status}", program.key, -1)
        return Outcome(program, result, Source.RUN, time.monotonic() - t0, note)


def _stored(store: Store, key: str) -> tuple[ProgramResult | None, str]:
    """The result ``store`` holds for ``key``, or None and why not (``missing``, ``corrupt``:
    its checksum does not match, or it does not read as a result)."""
    found = store.get(key)
    if found.payload is None:
        return None, found.reason
    try:
        return ProgramResult.from_json(found.payload), ""
    except ValueError:
        return None, "corrupt"


def _disk_was_full(result: ProgramResult) -> bool:
    """Whether the program stopped on a full disk (an ``OSError`` of errno 28 in its cell)."""
    failure = result.failure
    return failure is not None and "OSError" in failure.ename and "[Errno 28]" in failure.evalue


def _stale(stored: ProgramResult, program: Program, options: EvalOptions) -> str:
    """Why a stored result must not be served ("" when it can be)."""
    if stored.status.failed and options.rerun_failed:
        return "--rerun-failed"
    if stored.status is RunStatus.TIMEOUT:
        # The timeout is not in the key (raising it should not re-run what succeeded), so a
        # stored timeout is stale once the cell may run longer than it was allowed to.
        index = stored.failure.cell if stored.failure is not None else 0
        allowed = stored.cells[index].timeout if index < len(stored.cells) else 0
        if index < len(program.options) and program.options[index].timeout > allowed:
            return f"timeout raised to {program.options[index].timeout}s"
    return ""


def _not_run(program: Program, status: RunStatus, ename: str, evalue: str, cell: int = 0) -> ProgramResult:
    """The result of a program the executor did not run, failed at ``cell`` (its diagnostics' line)."""
    timeouts = [option.timeout for option in program.options]
    return ProgramResult.not_run(program.key, program.label(), timeouts, status, ename, evalue, cell)


def evaluation_inputs(book: Book, lang: str, environment: dict[str, Any]) -> str:
    """Everything the evaluation of ``language`` depends on, in one digest: its cells (code,
    tab, attributes, in order), the execution and library settings, the kernels' environment,
    the frozen results and the language's own copy of the library. When it has not changed since
    the last evaluation, that evaluation's stored results stand (a prose edit runs, and reads, no
    program at all)."""
    import hashlib
    import json

    from polybook.execute.programs import KEY_VERSION

    config = book.config
    digest = hashlib.sha256(str(KEY_VERSION).encode())
    for name, doc in book.chapters.get(lang, {}).items():
        digest.update(name.encode() + b"\0")
        for cell in doc.cells():
            digest.update(json.dumps([cell.code, cell.tab, cell.attrs, cell.frameworks]).encode() + b"\0")
    library = [repr(config.library), *(problem.format() for problem in config.library_problems)]
    settings = [repr(config.execution), library, environment, config.default_tab]
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    for folder in (config.execution.frozen_dir, config.chapters_dir / lang / "d2l"):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            info = path.stat()
            digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}".encode())
    return digest.hexdigest()
