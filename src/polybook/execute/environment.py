"""The kernel environment: where a kernel's Python lives, its fingerprint, and provenance.

A framework with an environment of its own (``polybook.execution.environments``,
:mod:`.envs`) is fingerprinted from what that environment is made from instead: its kernel,
Python, identity and the versions its requirements pin -- no kernel is probed and the
environment need not exist.

Each *framework* has its own fingerprint (the kernel's name and Python major.minor, the
versions of that framework's packages, ``d2l`` and ``numpy``), and it enters the key of
every program of that framework, so upgrading torch re-runs the PyTorch programs and
nothing else -- also when one kernel serves several frameworks. It is read from the
*kernel's* interpreter with :mod:`importlib.metadata` (no framework import: a few tens
of milliseconds, one probe per kernel), not from the process running polybook.
The device is deliberately not in it: results computed on a GPU machine must keep their
key on a CPU-only CI, which is what frozen results are for; it is part of the provenance.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polybook.config import ExecutionConfig

_PROBE = """
import json, sys
from importlib import metadata
out = {"python": "%d.%d" % sys.version_info[:2], "packages": {}, "path": sys.path}
for name in sys.argv[1:]:
    try:
        out["packages"][name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        out["packages"][name] = None
print(json.dumps(out))
"""


class KernelProblem(Exception):
    """A kernel the config names is missing or unusable."""


def kernel_python(kernel: str) -> str:
    """The interpreter a kernel spec starts (``argv[0]``)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(kernel)
    except NoSuchKernel:
        raise KernelProblem(
            f"Jupyter kernel {kernel!r} is not installed; run scripts/setup-kernel.sh (or `make setup`)"
        ) from None
    exe = spec.argv[0] if spec.argv else sys.executable
    if exe in {"python", "python3", "{python}"}:
        exe = sys.executable if exe == "{python}" else (shutil.which(exe) or sys.executable)
    return exe


@cache
def fingerprint(kernel: str, packages: tuple[str, ...], store: Path | None = None) -> dict[str, Any]:
    """``{"python": "3.11", "packages": {name: version or None}}`` as a kernel sees them.

    ``store``: a file keeping the last probe with the modification times of the kernel's
    import folders (installing or removing a package changes its folder's): while they stay
    the same, the answer is read from there instead of starting the kernel's Python.
    """
    exe = kernel_python(kernel)
    wanted = sorted(set(packages))
    kept = _kept_probe(store, kernel, exe, wanted)
    if kept is not None:
        return kept
    try:
        done = subprocess.run([exe, "-c", _PROBE, *wanted], capture_output=True, text=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise KernelProblem(f"cannot read the environment of kernel {kernel!r} ({exe}): {exc}") from None
    probed = json.loads(done.stdout)
    paths = probed.pop("path", [])
    if store is not None:
        _keep_probe(store, kernel, {"exe": exe, "packages": wanted, "folders": _mtimes(paths), "result": probed})
    return probed


def _mtimes(paths: list[str]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for path in paths:
        try:
            out[path] = os.stat(path).st_mtime_ns
        except OSError:
            out[path] = None
    return out


def _kept_probe(store: Path | None, kernel: str, exe: str, packages: list[str]) -> dict[str, Any] | None:
    if store is None:
        return None
    try:
        entry = json.loads(store.read_text(encoding="utf-8")).get(kernel, {})
    except (OSError, ValueError, AttributeError):
        return None
    if entry.get("exe") != exe or entry.get("packages") != packages or not entry.get("folders"):
        return None
    if _mtimes(list(entry["folders"])) != entry["folders"]:
        return None
    return entry.get("result")


def _keep_probe(store: Path, kernel: str, entry: dict[str, Any]) -> None:
    from polybook.files import atomic_write

    try:
        kept = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = {}
    kept = kept if isinstance(kept, dict) else {}
    kept[kernel] = entry
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(store, json.dumps(kept, indent=1, sort_keys=True))
    except OSError:
        pass  # only slower next time


def fingerprints(execution: ExecutionConfig, frameworks: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """framework -> ``{"kernel", "python", "packages"}``, the packages being that framework's only.

    A framework with an environment: ``{"kernel", "python", "environment", "packages"}`` from its
    spec (:meth:`.envs.EnvSpec.fingerprint`), made or not.
    """
    from polybook.execute.envs import env_spec

    own = {}
    for framework in frameworks:
        if framework in execution.environments:
            own[framework] = env_spec(execution, framework).fingerprint()
    wanted: dict[str, set[str]] = {}
    for framework in frameworks:
        if framework not in own:
            wanted.setdefault(execution.kernel_for(framework), set()).update(execution.packages_for(framework))
    store = execution.cache_dir / "environment.json"
    probed = {kernel: fingerprint(kernel, tuple(sorted(pkgs)), store) for kernel, pkgs in wanted.items()}
    out = {}
    for framework in frameworks:
        if framework in own:
            out[framework] = own[framework]
            continue
        kernel = execution.kernel_for(framework)
        versions = probed[kernel]["packages"]
        out[framework] = {
            "kernel": kernel,
            "python": probed[kernel]["python"],
            "packages": {name: versions.get(name) for name in sorted(set(execution.packages_for(framework)))},
        }
    return out


def device() -> str:
    """``GPU: <name>`` when nvidia-smi lists one, else ``CPU: <model>``."""
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            names = subprocess.run(
                [smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=20
            ).stdout.split("\n")
            names = [n.strip() for n in names if n.strip()]
            if names:
                return "GPU: " + ", ".join(names)
        except (OSError, subprocess.SubprocessError):
            pass
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), model)
    except OSError:
        pass
    return f"CPU: {model}"


def provenance(environment: dict[str, Any]) -> dict[str, Any]:
    """Where and when a program ran; computed on the machine that ran it."""
    return {
        "device": device(),
        "host": socket.gethostname(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "python": environment.get("python"),
        "packages": environment.get("packages", {}),
    }
