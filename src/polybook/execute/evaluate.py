"""Evaluate a book: every program once, from frozen results, the cache, or a kernel.

For each program, in one of ``slots`` threads: a frozen result with its key wins; else,
holding the key's lock, a cache hit is served (a stored failure too, unless
``rerun_failed``); else the executor runs it and the result is stored -- failures as
failures. The lock makes a second, concurrent build (or a program of this build with
the same key but other timeouts) wait for the first one's run and then hit, so no key
runs twice and no entry is written twice at once.

Planning makes the environments (:mod:`.envs`) of the frameworks that have programs, all
missing ones at once; a program whose environment could not be made is not run and is
recorded as ``missing_framework``, the environment's failure said once at its conf.py line.
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
from polybook.execute.envs import (
    Environment,
    EnvState,
    Wanted,
    ensure_environments,
    environment_problem,
    look_up,
    unreadable,
)
from polybook.execute.executors import Executor, NoGPUWorker, make_executor
from polybook.execute.failures import NO_ENVIRONMENT, classify, framework_modules
from polybook.execute.library import KernelLibrary, prepare_library
from polybook.execute.programs import Program, build_programs
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

    def fatal(self) -> list[Outcome]:
        """Failures that make ``polybook build eval`` exit non-zero: errors, timeouts, dead
        kernels; what the machine lacks (a GPU, the network, a framework) is reported but not
        fatal, "needs a GPU" only with ``fail_on_needs_gpu``."""
        gpu_fatal = self.book.config.execution.fail_on_needs_gpu
        return [o for o in self.outcomes if o.status.fatal or (o.status is RunStatus.NEEDS_GPU and gpu_fatal)]


def program_job(program: Program) -> Job:
    return Job(
        key=program.key,
        label=program.label(),
        kernel=program.kernel,
        cwd=str(program.cwd),
        sources=program.sources,
        timeouts=[opt.timeout for opt in program.options],
        allow_errors=[opt.allow_errors for opt in program.options],
        environment=program.fingerprint,
        wants_gpu=program.wants_gpu,
        pythonpath=str(program.pythonpath),
    )


def plan(
    book: Book,
    problems: list[Diagnostic] | None = None,
    library: KernelLibrary | None = None,
    make_environments: bool = True,
) -> list[Program]:
    """The book's programs, keyed with the kernels' current environment and the book's library.

    The environments their frameworks need are made first (``make_environments``; else looked
    up only, and a program whose environment is not there yet is ``unavailable``)."""
    config = book.config
    if library is None:
        library = prepare_library(book)
        if problems is not None:
            problems.extend(library.problems)
    wanted = environments_wanted(book, problems)
    if make_environments:
        made = ensure_environments(config, wanted)
    else:
        made = {want: look_up(config.execution, *want) for want in wanted}
    base = {framework: env for (framework, extra), env in made.items() if not extra}
    prints = fingerprints(config.execution, config.frameworks, base)
    derived = {want: env.fingerprint() for want, env in made.items() if want[1]}
    programs = build_programs(book, prints, problems, library, derived)
    unavailable = {env.spec.kernel: _why(env) for env in made.values() if not env.ready}
    for program in programs:
        program.unavailable = unavailable.get(program.kernel, "")
    if problems is not None:
        problems.extend(environment_problem(config, env, wanted[want]) for want, env in made.items() if env.reason)
    return programs


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


def _why(environment: Environment) -> str:
    if environment.state is EnvState.ABSENT:
        return f"environment {environment.spec.folder.name} is not made yet (polybook build env)"
    return f"environment {environment.spec.folder.name} could not be made: {environment.reason}"


def evaluate(
    book: Book,
    options: EvalOptions,
    on_event: EventHook | None = None,
    on_plan: Any = None,
) -> Evaluation:
    """Run (or reuse) every program of ``book``; never raises for what the code does."""
    started, t0 = time.time(), time.monotonic()
    config = book.config
    problems: list[Diagnostic] = []
    library = prepare_library(book)
    problems.extend(library.problems)
    programs = plan(book, problems, library)
    if on_plan is not None:
        on_plan(programs)
    for language, framework in sorted({(program.uses[0].language, program.framework) for program in programs}):
        mirror(config, language, framework, library.overrides(language))  # build/run/<language>/<framework>/
    cache = Store(config.execution.cache_dir)
    cache.sweep()
    frozen = Store(config.execution.frozen_dir, fanout=False, discard_corrupt=False)  # committed: never deleted
    executor = make_executor(options.scheduler, options.jobs or config.execution.jobs)
    hook = on_event or (lambda *_: None)
    try:
        with ThreadPoolExecutor(max_workers=executor.slots, thread_name_prefix="polybook-eval") as pool:
            futures = [pool.submit(_evaluate_one, p, cache, frozen, executor, options, hook) for p in programs]
            outcomes = [f.result() for f in futures]
    finally:
        executor.close()
    for outcome in outcomes:
        problems.extend(d for d in outcome.problems if d not in problems)
        framework = outcome.program.framework
        modules = framework_modules(framework, config.execution.packages_for(framework), outcome.program)
        outcome.result = classify(outcome.result, outcome.program, modules)
    evaluation = Evaluation(book, outcomes, executor.name, executor.slots, time.monotonic() - t0, started, problems)
    for outcome in evaluation.fatal():
        outcome.fatal = True
    if options.freeze:
        for outcome in outcomes:
            # Only successes are worth committing and reusing; programs may share a key.
            if outcome.status is RunStatus.OK and outcome.program.key not in evaluation.frozen:
                frozen.put(outcome.program.key, outcome.result.to_json())
                evaluation.frozen.append(outcome.program.key)
    return evaluation


def _evaluate_one(
    program: Program, cache: Store, frozen: Store, executor: Executor, options: EvalOptions, hook: EventHook
) -> Outcome:
    t0 = time.monotonic()
    if program.unavailable:  # nothing to run it in: said once (plan), recorded per program, not cached
        result = _not_run(program, RunStatus.MISSING_FRAMEWORK, NO_ENVIRONMENT, program.unavailable)
        hook(f"done:{result.status}", program.key, -1)
        return Outcome(program, result, Source.SKIPPED, time.monotonic() - t0, "no environment")
    found, reason = _stored(frozen, program.key)
    if found is not None and found.status is RunStatus.OK:
        hook("hit", program.key, -1)
        return Outcome(program, found, Source.FROZEN, time.monotonic() - t0)
    outcome = _from_cache_or_run(program, cache, executor, options, hook, t0)
    if reason == "corrupt":  # a committed file: reported, never deleted
        message = "frozen result is corrupt (checksum, key or format does not match): ignored and left in place"
        outcome.problems.append(
            Diagnostic.make(display_path(frozen.path(program.key)), 1, Code.READ, message, Level.WARNING)
        )
        outcome.note = "; ".join(filter(None, ["corrupt frozen result ignored", outcome.note]))
    return outcome


def _from_cache_or_run(
    program: Program, cache: Store, executor: Executor, options: EvalOptions, hook: EventHook, t0: float
) -> Outcome:
    with cache.lock(program.key):
        found, reason = _stored(cache, program.key)
        note = "corrupt entry discarded" if reason == "corrupt" else ""
        if found is not None:
            stale = _stale(found, program, options)
            if not stale:
                hook("hit", program.key, -1)
                return Outcome(program, found, Source.CACHE, time.monotonic() - t0)
            note = stale
        try:
            result = executor.run(program_job(program), hook)
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
