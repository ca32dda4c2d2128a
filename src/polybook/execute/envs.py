"""One environment per framework: a virtualenv made by uv from conf.py's requirements.

``polybook.execution.environments`` maps a framework to PEP 508 requirements; that
framework's programs then run in a virtualenv of its own rather than in the shared
``kernel``, so pins that do not agree (mxnet 1.9 wants numpy<1.24, torch 2.14 a newer one)
never meet. A framework without an entry keeps its ``kernel``.

* Identity: sha256 of what an environment is made from -- the implementation and
  major.minor of the Python running polybook, the normalised and sorted requirements,
  ``ipykernel`` (added by polybook) and ``as_of``, the date whose registry it installs from
  (uv's ``--exclude-newer``: what the requirements leave open resolves the same way years later,
  as the book's authors had it). It lives in ``<env_dir>/<framework>-<id12>/``; a
  document's ``#required_libs`` make a derived environment, base and extra requirements
  installed together, with an identity of its own. Changing a requirement makes a new
  folder and never touches an old one.
* Made with ``uv venv --python <this Python>`` then ``uv pip install``; the record
  ``polybook-env.json`` (requirements, Python, the frozen package list, seconds, uv's
  version) is written last and atomically, so a folder without it is incomplete and is made
  again. One file lock per environment: two builds never make the same one twice. Missing
  environments are made in parallel threads; a made one is kept without calling uv.
* Where packages come from: uv does not read pip's configuration, so the index settings of
  ``python -m pip config list`` (``global``, ``install`` and ``PIP_*`` variables) and
  ``PIP_INDEX_URL`` / ``PIP_EXTRA_INDEX_URL`` / ``PIP_FIND_LINKS`` are passed on as
  ``--index-url`` / ``--extra-index-url`` / ``--find-links``, with ``--index-strategy
  unsafe-best-match``: a local mirror serves the versions it holds, the registry the others.
* Key: what enters its programs' keys (:meth:`EnvSpec.fingerprint`) is what it is made from
  -- kernel, Python, identity and the versions its requirements pin -- never what is installed,
  so a build whose results are all stored needs no environment at all: none is made, looked at
  or checked with uv (what was installed goes to each result's provenance instead).
* Kernel: a Jupyter kernel spec ``polybook-<framework>-<id8>`` starting the environment's
  Python is written to the book's ``<build_dir>/kernels`` (:func:`kernel_dir`), which the
  runner hands to its kernel manager: polybook's own environment is never written to.
* Disk: uv links each package file from its cache (``--link-mode``: hardlink, a clone on macOS,
  ``UV_LINK_MODE`` when set), so environments that share a package share its files where the
  file system allows; :func:`disk_usage` tells what they take, shared files counted once.
* An environment that cannot be made never stops a build: it comes back ``failed`` with the
  last lines uv said, is reported once (:func:`environment_problem`, ``exec.no_framework`` at
  its conf.py line) and its programs are recorded as ``missing_framework``, not run. The
  failure is remembered beside it (``<folder>.failed.json``), so later builds say it again
  without spending minutes on the same failing install; ``polybook build env`` tries again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.diagnostics import Code, Diagnostic
from polybook.files import atomic_write, stage_lock
from polybook.uvtool import UvFailure, run_dated, run_uv, uv_version

if TYPE_CHECKING:
    from polybook.config import BookConfig, ExecutionConfig

RECORD = "polybook-env.json"
FAILED = ".failed.json"  # suffix of a failed environment's record, beside its folder
KERNEL_PACKAGE = "ipykernel"  # added to every environment: its programs run in a Jupyter kernel
#: (framework, extra requirements): what one environment is asked for.
Wanted = tuple[str, tuple[str, ...]]
Say = Callable[[str], None]


class EnvState(StrEnum):
    MADE = "made"  # by this call
    KEPT = "kept"  # made before (its record is there)
    FAILED = "failed"  # uv could not make it: ``reason`` says why
    ABSENT = "absent"  # looked up only, not made yet


@dataclass(frozen=True, slots=True)
class EnvSpec:
    """What an environment is made from, and where it lives."""

    framework: str
    requirements: tuple[str, ...]  # normalised and sorted: the base's and the extra ones
    extra: tuple[str, ...]  # the #required_libs part, normalised
    python: str  # implementation-major.minor of the Python it is made with: "cpython-3.11"
    identity: str  # sha256 hex
    folder: Path
    as_of: str | None = None  # YYYY-MM-DD: packages as the registry had them that day

    @property
    def kernel(self) -> str:
        return f"polybook-{self.framework}-{self.identity[:8]}"

    @property
    def executable(self) -> Path:
        return self.folder / "bin" / "python"

    @property
    def names(self) -> tuple[str, ...]:
        """The distributions its requirements name, normalised."""
        from packaging.requirements import Requirement

        return tuple(dict.fromkeys(normalise_name(Requirement(r).name) for r in self.requirements))

    @property
    def label(self) -> str:
        return self.framework + (f" + {', '.join(self.extra)}" if self.extra else "")

    def fingerprint(self) -> dict[str, Any]:
        """What enters the key of its programs: kernel, Python, identity and the version each of
        its requirements pins (None for one left open: ``as_of``, in the identity, settles it).
        Computed from conf.py alone: the environment need not exist."""
        return {
            "kernel": self.kernel,
            "python": self.python,
            "environment": self.identity,
            "packages": {name: self.pins().get(name) for name in sorted(self.names)},
        }

    def pins(self) -> dict[str, str]:
        """Normalised name -> the exact version a requirement pins (``==1.2``, not ``==1.*``)."""
        from packaging.requirements import Requirement

        out = {}
        for requirement in self.requirements:
            parsed = Requirement(requirement)
            exact = [s.version for s in parsed.specifier if s.operator in {"==", "==="} and "*" not in s.version]
            if len(exact) == 1:
                out[normalise_name(parsed.name)] = exact[0]
        return out


@dataclass(frozen=True, slots=True)
class EnvRecord:
    """``polybook-env.json``: what was installed, written once the environment is complete."""

    requirements: tuple[str, ...]
    python: str  # "cpython-3.11.7"
    packages: dict[str, str]  # normalised name -> version, as ``uv pip freeze`` lists them
    seconds: float
    uv: str
    as_of: str | None = None  # the registry's date it was installed from
    undated: tuple[str, ...] = ()  # packages taken as the registry has them now (published after as_of)

    def to_json(self) -> str:
        names = ("requirements", "python", "packages", "seconds", "uv", "as_of", "undated")
        data = {"format": 1, **{k: getattr(self, k) for k in names}}
        return json.dumps(data, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EnvRecord:
        """Raises ValueError for anything but a complete record."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != 1 or not isinstance(data.get("packages"), dict):
            raise ValueError("not a polybook environment record")
        return cls(
            tuple(data["requirements"]),
            data["python"],
            data["packages"],
            data["seconds"],
            data["uv"],
            data.get("as_of"),
            tuple(data.get("undated", ())),
        )


@dataclass(frozen=True, slots=True)
class Environment:
    """An environment as this build found or made it."""

    spec: EnvSpec
    state: EnvState
    record: EnvRecord | None = None
    seconds: float = 0.0  # spent by this call (making it, or waiting for another build's lock)
    reason: str = ""  # why it could not be made

    @property
    def ready(self) -> bool:
        return self.record is not None

    def fingerprint(self) -> dict[str, Any]:
        """Its spec's (:meth:`EnvSpec.fingerprint`): the same made or not."""
        return self.spec.fingerprint()

    def installed(self) -> dict[str, str | None]:
        """The versions installed of what its requirements name (None before it is made)."""
        packages = self.record.packages if self.record is not None else {}
        return {name: packages.get(name) for name in sorted(self.spec.names)}


def normalise_name(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def normalise(requirement: str) -> str:
    """One spelling per requirement: ``Torch >= 2.0 ,<3`` -> ``torch<3,>=2.0``."""
    from packaging.requirements import Requirement

    parsed = Requirement(requirement)
    extras = f"[{','.join(sorted(normalise_name(e) for e in parsed.extras))}]" if parsed.extras else ""
    specifier = ",".join(sorted(str(s) for s in parsed.specifier))
    url = f" @ {parsed.url}" if parsed.url else ""
    marker = f"; {parsed.marker}" if parsed.marker else ""
    return f"{normalise_name(parsed.name)}{extras}{specifier}{url}{marker}"


def unreadable(requirements: Iterable[str]) -> str:
    """Why some of ``requirements`` are not PEP 508 requirements ("" when all are)."""
    from packaging.requirements import InvalidRequirement, Requirement

    for requirement in requirements:
        try:
            Requirement(requirement)
        except InvalidRequirement as exc:
            return f"{requirement!r} is not a PEP 508 requirement ({exc})"
    return ""


def env_dir(execution: ExecutionConfig) -> Path:
    """``env_dir``; load_config fills it in (``<build_dir>/envs``), else beside the cache."""
    return execution.env_dir or execution.cache_dir.parent / "envs"


def kernel_dir(config: BookConfig) -> Path:
    """Where the environments' kernel specs are written: ``<build_dir>/kernels``."""
    return config.build_dir / "kernels"


def env_spec(execution: ExecutionConfig, framework: str, extra: Iterable[str] = ()) -> EnvSpec:
    """The environment of ``framework`` (which has one in conf.py), with ``extra`` requirements."""
    base = execution.environments[framework].requirements
    extra = tuple(sorted({normalise(r) for r in extra}))
    requirements = tuple(sorted({normalise(r) for r in base} | set(extra)))
    python = f"{sys.implementation.name}-{sys.version_info.major}.{sys.version_info.minor}"
    material: dict[str, Any] = {"python": python, "requirements": requirements, "added": [KERNEL_PACKAGE]}
    if execution.as_of:
        material["as_of"] = execution.as_of
    identity = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
    folder = env_dir(execution) / f"{framework}-{identity[:12]}"
    return EnvSpec(framework, requirements, extra, python, identity, folder, execution.as_of)


def look_up(execution: ExecutionConfig, framework: str, extra: Iterable[str] = ()) -> Environment:
    """The environment as it is on disk (kept, or absent), without making anything."""
    spec = env_spec(execution, framework, extra)
    record = _kept(spec)
    return Environment(spec, EnvState.KEPT if record else EnvState.ABSENT, record)


def ensure_environment(
    config: BookConfig, framework: str, extra: Iterable[str] = (), say: Say | None = None, retry: bool = False
) -> Environment:
    """The environment of ``framework`` (plus ``extra`` requirements), made when missing.
    Never raises for what uv or the machine refuse: the result is then ``failed``. One that
    failed before is not tried again unless ``retry``: the failure is said again."""
    say = say or _stderr
    spec = env_spec(config.execution, framework, extra)
    t0 = time.monotonic()
    record, state = _kept(spec), EnvState.KEPT
    failed_before = _failure(spec) if record is None and not retry else None
    if failed_before is not None:
        return Environment(spec, EnvState.FAILED, None, 0.0, failed_before)
    try:
        if record is None:
            lock = spec.folder.with_name(f".{spec.folder.name}.lock")
            with stage_lock(lock, f"environment {spec.folder.name} (made by another build)", say):
                record = _kept(spec)  # another build may have made it while this one waited
                if record is None:
                    record, state = _make(spec), EnvState.MADE
        register_kernel(spec, kernel_dir(config))
    except UvFailure as exc:
        _remember_failure(spec, exc.reason)
        return Environment(spec, EnvState.FAILED, None, time.monotonic() - t0, exc.reason)
    except OSError as exc:
        return Environment(spec, EnvState.FAILED, None, time.monotonic() - t0, f"{type(exc).__name__}: {exc}")
    spec.folder.with_name(spec.folder.name + FAILED).unlink(missing_ok=True)
    return Environment(spec, state, record, time.monotonic() - t0)


def _remember_failure(spec: EnvSpec, reason: str) -> None:
    import datetime as dt

    when = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    text = json.dumps({"reason": reason, "date": when, "requirements": list(spec.requirements)}, indent=1)
    with contextlib.suppress(OSError):  # else only tried again next time
        atomic_write(spec.folder.with_name(spec.folder.name + FAILED), text)


def _failure(spec: EnvSpec) -> str | None:
    """Why the last attempt to make ``spec`` failed, as the next builds say it; None when none did."""
    try:
        data = json.loads(spec.folder.with_name(spec.folder.name + FAILED).read_text(encoding="utf-8"))
        reason, when = str(data["reason"]), str(data["date"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return f"{reason} (as the attempt of {when} found; `polybook build env` tries again)"


def ensure_environments(
    config: BookConfig, wanted: Iterable[Wanted], say: Say | None = None, retry: bool = False
) -> dict[Wanted, Environment]:
    """:func:`ensure_environment` for each of ``wanted``; the missing ones made at once, in threads
    (one that failed before only with ``retry``)."""
    say = say or _stderr
    wanted = list(dict.fromkeys((framework, tuple(extra)) for framework, extra in wanted))
    found = {want: look_up(config.execution, *want) for want in wanted}
    missing = [want for want, env in found.items() if not env.ready and (retry or _failure(env.spec) is None)]
    if missing:
        names = ", ".join(found[want].spec.label for want in missing)
        say(f"environments: making {names} with uv" + (" at once" if len(missing) > 1 else ""))
    with ThreadPoolExecutor(max_workers=max(1, len(wanted)), thread_name_prefix="polybook-env") as pool:
        futures = {want: pool.submit(ensure_environment, config, *want, say, retry) for want in wanted}
        out = {want: future.result() for want, future in futures.items()}
    for want in missing:
        env = out[want]
        done = f"made in {env.seconds:.1f}s" if env.state is EnvState.MADE else str(env.state)
        say(f"environment {env.spec.label} ({env.spec.folder.name}): {done}")
    return out


def environment_problem(config: BookConfig, environment: Environment, at: tuple[str, int] | None = None) -> Diagnostic:
    """The one diagnostic of an environment that could not be made: at its conf.py entry
    (``at``: elsewhere, e.g. the ``#required_libs`` cell of a derived one)."""
    from polybook.files import display_path

    spec = environment.spec
    path, line = at or (display_path(config.path), config.execution.environments[spec.framework].line)
    name = f"the {spec.label} environment ({spec.folder.name})"
    message = f"{name} could not be made, so its programs were not run: {environment.reason}"
    return Diagnostic.make(path, line, Code.EXEC_NO_FRAMEWORK, message)


def register_kernel(spec: EnvSpec, kernels: Path) -> Path:
    """Write the environment's kernel spec into ``kernels`` (:func:`kernel_dir`), never into
    polybook's own environment; left alone when it already says the same."""
    folder = kernels / spec.kernel
    text = json.dumps(
        {
            "argv": [str(spec.executable), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": f"Python (polybook: {spec.folder.name})",
            "language": "python",
            "metadata": {"debugger": False, "polybook": {"environment": str(spec.folder)}},
        },
        indent=1,
    )
    path = folder / "kernel.json"
    try:
        if path.read_text(encoding="utf-8") == text:
            return path
    except OSError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    return path


def _kept(spec: EnvSpec) -> EnvRecord | None:
    """The record of a complete environment made from ``spec``, else None."""
    try:
        record = EnvRecord.from_json(spec.folder.joinpath(RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if record.requirements != (*spec.requirements, KERNEL_PACKAGE) or not spec.executable.exists():
        return None
    return record


def _make(spec: EnvSpec) -> EnvRecord:
    """Make the environment from scratch, the record last (the caller holds its lock); raises
    :class:`UvFailure`, leaving nothing half-made behind."""
    if spec.folder.exists():  # an incomplete one (no record): made again
        shutil.rmtree(spec.folder)
    spec.folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        return _install(spec)
    except UvFailure:
        shutil.rmtree(spec.folder, ignore_errors=True)
        raise


def _install(spec: EnvSpec) -> EnvRecord:
    t0 = time.monotonic()
    run_uv(["venv", "--no-project", "--python", sys.executable, str(spec.folder)], spec.folder.parent)
    python = str(spec.executable)
    requirements = (*spec.requirements, KERNEL_PACKAGE)
    install = ["pip", "install", "--python", python, *link_mode(), *requirements]
    _, undated = run_dated(install, spec.folder.parent, spec.as_of)
    frozen = run_uv(["pip", "freeze", "--python", python], spec.folder.parent)
    packages = {}
    for line in frozen.splitlines():
        name, sep, version = line.partition("==")
        if sep:
            packages[normalise_name(name.strip())] = version.strip()
    implementation = f"{sys.implementation.name}-{platform.python_version()}"
    seconds = round(time.monotonic() - t0, 2)
    record = EnvRecord(requirements, implementation, packages, seconds, uv_version(), spec.as_of, tuple(undated))
    atomic_write(spec.folder / RECORD, record.to_json())
    return record


def link_mode() -> list[str]:
    """uv's option to link package files from its cache rather than copy them: a clone on macOS
    (copy-on-write), else a hardlink (uv copies where the cache is on another file system);
    none when ``UV_LINK_MODE`` says otherwise."""
    if os.environ.get("UV_LINK_MODE"):
        return []
    return ["--link-mode", "clone" if sys.platform == "darwin" else "hardlink"]


@dataclass(frozen=True, slots=True)
class DiskUsage:
    """What folders take: ``apparent`` (every file's size, as if each were a copy of its own),
    ``real`` (blocks on disk, a file linked into several places counted once) and of that, ``shared``
    with what is outside them (uv's cache: its link count is higher than the links seen)."""

    apparent: int
    real: int
    shared: int

    def __str__(self) -> str:
        gb = 1e9
        return (
            f"{self.real / gb:.2f} GB on disk, files linked into several places counted once "
            f"({self.apparent / gb:.2f} GB were each a copy of its own; {self.shared / gb:.2f} GB of it "
            "also in uv's cache)"
        )


def disk_usage(folders: Iterable[Path]) -> DiskUsage:
    """The disk ``folders`` take together (symbolic links not followed)."""
    apparent = 0
    seen: dict[tuple[int, int], list[int]] = {}  # inode -> [links seen, links, blocks in bytes]
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in files:
                try:
                    info = os.lstat(os.path.join(root, name))
                except OSError:
                    continue
                apparent += info.st_size
                entry = seen.setdefault((info.st_dev, info.st_ino), [0, info.st_nlink, info.st_blocks * 512])
                entry[0] += 1
    real = sum(blocks for _, _, blocks in seen.values())
    shared = sum(blocks for found, links, blocks in seen.values() if links > found)
    return DiskUsage(apparent, real, shared)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
