"""Launch notebooks: what Colab or SageMaker Studio Lab opens from a page -- the download's notebook
with a first cell that installs exactly what its outputs were computed with, so it does not rot
when a release moves on (d2l-en #2474: a hand-typed ``pip install d2l==1.0.0-beta0`` that no
longer installs stopped every Colab notebook).

The install cell pins:

- the packages the program's outputs were computed with, at their versions: the provenance
  ``build eval`` recorded with them (the framework environment's packages, as installed), else
  the environment's record, else its requirements as conf.py writes them;
- the book's own library at the build's version (its ``version_file``, which ``build lib``
  writes from conf.py's ``release``), not a release name typed by hand;
- the document's ``#required_libs``.

A program that asks for a GPU gets the accelerator metadata Colab reads. :func:`check_installs`
resolves each distinct install cell against the package index with uv, installing nothing.
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.dialect.nodes import Document
from polybook.stage.names import library_version

#: What Colab reads to start a notebook on a GPU runtime.
GPU_METADATA = {"accelerator": "GPU", "colab": {"gpuType": "T4", "provenance": []}}


@dataclass(frozen=True, slots=True)
class InstallCell:
    requirements: tuple[str, ...]  # "torch==2.14.1", ...

    def source(self) -> str:
        pins = " ".join(shlex.quote(requirement) for requirement in self.requirements)
        return f"# What this notebook's outputs were computed with\n%pip install {pins}"


def install_cell(
    config: BookConfig, lang: str, framework: str, doc: Document, program: dict[str, Any] | None
) -> InstallCell:
    """The install cell of ``doc``'s ``framework`` notebook; ``program``: its program's record in
    the results file (with the provenance of its outputs), None when it was never evaluated."""
    library = library_distribution(config, framework)
    pinned = recorded_packages(program) or environment_packages(config, framework, doc.required_libs)
    requirements = {name: spec for name, spec in pinned.items() if name != library}
    for extra in doc.required_libs:
        name = _name(extra)
        requirements.setdefault(name, extra)
    if library:
        version = library_version(config, lang, framework)
        requirements[library] = f"{library}=={version}" if version else library
    return InstallCell(tuple(requirements[name] for name in sorted(requirements)))


def recorded_packages(program: dict[str, Any] | None) -> dict[str, str]:
    """name -> ``name==version`` of what a program's outputs were computed with (installed ones)."""
    packages = ((program or {}).get("provenance") or {}).get("packages") or {}
    return {_name(name): f"{name}=={version}" for name, version in sorted(packages.items()) if version}


def environment_packages(config: BookConfig, framework: str, extra: Sequence[str]) -> dict[str, str]:
    """The framework environment's requirements at their installed versions (as written when it
    was not made here)."""
    if framework not in config.execution.environments:
        return {}
    from polybook.execute.envs import look_up

    environment = look_up(config.execution, framework, extra)
    installed = environment.record.packages if environment.record is not None else {}
    out = {}
    for requirement in environment.spec.requirements:
        name = _name(requirement)
        out[name] = f"{name}=={installed[name]}" if name in installed else requirement
    return out


def library_distribution(config: BookConfig, framework: str) -> str:
    """The distribution the book's library is published as: its package folder (``d2l``)."""
    settings = config.library.frameworks.get(framework)
    return settings.lib_file.split("/")[0] if settings and "/" in settings.lib_file else ""


def wants_gpu(doc: Document, framework: str) -> bool:
    """Whether the framework's program of ``doc`` asks for a GPU."""
    from polybook.execute.programs import asks_for_gpu

    return any(asks_for_gpu(cell.code_for(framework)) for cell in doc.cells(framework))


def _name(requirement: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0]))


@dataclass(frozen=True, slots=True)
class InstallProblem:
    requirements: tuple[str, ...]
    reason: str  # what uv said


def check_installs(cells: Sequence[InstallCell], index: Sequence[str] | None = None) -> list[InstallProblem]:
    """Resolve each distinct install cell with uv against the package index (``index``: uv's
    index options; default: those pip is set up with), installing nothing; the ones that cannot
    be installed, with uv's reason."""
    from polybook.uvtool import UvFailure, install_options, run_uv

    options = list(index) if index is not None else install_options()
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    problems = []
    with tempfile.TemporaryDirectory(prefix="polybook-install-") as tmp:
        for requirements in dict.fromkeys(cell.requirements for cell in cells):
            command = ["pip", "compile", "-", "--python-version", python, "--quiet", "--no-header", *options]
            try:
                run_uv(command, Path(tmp), stdin="\n".join(requirements))
            except UvFailure as exc:
                problems.append(InstallProblem(requirements, exc.reason))
    return problems
