"""The execution environment each framework needs, as a d2lbook project says it.

A d2lbook project names what its code needs in two places: its ``setup.py`` (the book's own
package's ``install_requires``, what every framework's kernel imports: numpy, matplotlib,
pandas...) and its installation chapter, where each framework's text tab shows the
``pip install`` line readers run (``pip install torch==2.0.0 torchvision==0.15.1``). The
import proposes ``polybook.execution.environments`` from both: per framework, the setup.py
requirements and the last install line of that framework's text tabs that installs no CUDA
build (d2l's books show a GPU line and a CPU line). Nothing is guessed: a framework no tab
installs gets the common requirements only, and the import says so. :func:`resolve` then asks
uv (no install) whether each can be installed here, as the registry was on the project's date
(:func:`project_date`), and adds what the framework's own library module imports that nothing
installs (d2l's ``jax.py`` imports tensorflow for its data loaders).

Written by hand: reading a ``pip install`` line (its options, quoted requirements) and a
setup.py's literal requirement list are small jobs no library does for us; each requirement is
checked with :mod:`packaging`.
"""

from __future__ import annotations

import ast
import re
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.nodes import Fence, TextTab
from polybook.uvtool import UvFailure, run_dated

#: pip options followed by a value, which is not a requirement.
_OPTIONS_WITH_VALUE = {
    "-f", "--find-links", "-i", "--index-url", "--extra-index-url", "-c", "--constraint",
    "-r", "--requirement", "-e", "--editable", "-t", "--target", "--prefix", "--root",
    "--platform", "--python-version", "--implementation", "--abi", "--trusted-host", "--proxy",
}  # fmt: skip
_SHELLS = ("bash", "sh", "shell", "console", "")
_GPU_RE = re.compile(r"(^|[-_])(cu\d+|cuda\w*|gpu)($|[-_])", re.IGNORECASE)


@dataclass(slots=True)
class Proposal:
    """Per framework, the requirements to install, and where each part came from."""

    environments: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)  # framework -> "path:line" of its install line
    common: str = ""  # where the common requirements came from ("setup.py:4"), "" for none
    missing: list[str] = field(default_factory=list)  # frameworks no tab installs
    unresolved: dict[str, str] = field(default_factory=dict)  # framework -> why it cannot be installed here
    # framework -> (the book's library module, the top-level modules it imports that are not Python's own)
    imports: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    added: dict[str, list[str]] = field(default_factory=dict)  # framework -> requirements added for its library
    as_of: str | None = None  # the day the project is from: its environments install as of then


def propose(
    project: Path, documents: list[str], tabs: tuple[str, ...], libraries: dict[str, str] | None = None
) -> Proposal:
    """What ``project`` says each of ``tabs`` needs; ``documents``: its Markdown files, relative;
    ``libraries``: framework -> its library module (``[library-x] lib_file``), whose imports
    :func:`resolve` adds what no requirement installs for."""
    proposal = Proposal()
    if not tabs:
        return proposal
    common, where = setup_requirements(project / "setup.py")
    proposal.common = where
    lines = install_lines(project, documents, tabs)
    if not common and not lines:
        return proposal  # the project says nothing: no environments (its kernel setting decides)
    for framework in tabs:
        own, source = lines.get(framework, ([], ""))
        if not own:
            proposal.missing.append(framework)
        names = {_name(req) for req in own}
        proposal.environments[framework] = [*own, *(req for req in common if _name(req) not in names)]
        proposal.sources[framework] = [source] if source else []
        module = (libraries or {}).get(framework)
        if module:
            proposal.imports[framework] = (module, library_imports(project / module))
    return proposal


def library_imports(module: Path) -> list[str]:
    """The top-level modules a library module imports at its top level, Python's own and the
    book's package left out (d2l's jax module: jax, flax, tensorflow, tensorflow_datasets...)."""
    try:
        tree = ast.parse(module.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return []
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            found += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module.split(".")[0])
    own = module.parent.name
    return [m for m in dict.fromkeys(found) if m not in sys.stdlib_module_names and m != own]


def resolve(proposal: Proposal, cwd: Path, as_of: str | None = None) -> None:
    """Ask uv whether each proposed environment can be installed with the Python polybook runs
    (without installing anything; the package indexes pip is set up with): a project of an
    older edition may pin what no longer exists for it (d2l 0.17: numpy 1.21.5, mxnet 1.7 on
    Python 3.11). What cannot is kept in ``proposal.unresolved`` with uv's reason, so the import
    can say so before a build finds out; without uv or an index, nothing is said. ``as_of``:
    the registry's date the environments install from (:func:`project_date`)."""

    pins = {_name(r): r for requirements in proposal.environments.values() for r in requirements if "==" in r}

    def complete(framework: str) -> str:
        """Why the environment cannot be resolved (""); a module its library imports that no
        resolved distribution is named after is added -- pinned as another framework's
        environment pins it, else as the newest that resolves -- when that resolves."""
        requirements = proposal.environments[framework]
        try:
            resolved = _compile(requirements, cwd, as_of)
        except UvFailure as exc:
            return exc.reason
        for module in proposal.imports.get(framework, ("", []))[1]:
            name = _name(module.replace("_", "-"))
            if name in resolved:
                continue
            candidate = pins.get(name, name)
            try:
                resolved = _compile([*requirements, candidate], cwd, as_of)
            except UvFailure:
                continue  # no distribution of that name (PIL is pillow's): left to what is installed
            requirements.append(candidate)
            proposal.added.setdefault(framework, []).append(candidate)
        return ""

    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="polybook-resolve") as pool:
        found = dict(zip(proposal.environments, pool.map(complete, list(proposal.environments)), strict=True))
    proposal.unresolved = {framework: why for framework, why in found.items() if why}


def _compile(requirements: list[str], cwd: Path, as_of: str | None) -> set[str]:
    """The names of the distributions ``requirements`` resolve to here (uv, nothing installed)."""
    command = ["pip", "compile", "-", "--python", sys.executable, "--quiet", "--no-header"]
    out, _ = run_dated(command, cwd, as_of, stdin="\n".join(requirements))
    return {_name(line.split("==")[0]) for line in out.splitlines() if "==" in line and not line.startswith(" ")}


def project_date(project: Path, files: list[str]) -> str | None:
    """The day the project's files are from, YYYY-MM-DD: its last commit's, when it is a git
    checkout, else the newest of its files' times (an archive of a tag keeps the commit's time
    on every file). Its environments install packages as the registry had them that day."""
    import datetime as dt
    import subprocess

    if (project / ".git").exists():
        try:
            done = subprocess.run(
                ["git", "-C", str(project), "log", "-1", "--format=%cs"], capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.SubprocessError):
            done = None
        if done is not None and done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    times = []
    for relative in files:
        try:
            times.append((project / relative).stat().st_mtime)
        except OSError:
            continue
    if not times:
        return None
    return dt.datetime.fromtimestamp(max(times), dt.UTC).date().isoformat()


def setup_requirements(setup: Path) -> tuple[list[str], str]:
    """The literal ``install_requires`` of a setup.py (directly, or through a name assigned a
    literal list), read without running it; and ``setup.py:line``. ``[]`` when there is none."""
    try:
        tree = ast.parse(setup.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return [], ""
    lists: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            lists[node.targets[0].id] = node.value
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "install_requires":
            value = lists.get(node.value.id) if isinstance(node.value, ast.Name) else node.value
            try:
                found = ast.literal_eval(value) if value is not None else None
            except ValueError:
                found = None
            if isinstance(found, list | tuple):
                requirements = [str(r) for r in found if _valid(str(r))]
                return requirements, f"{setup.name}:{getattr(value, 'lineno', node.value.lineno)}"
    return [], ""


def install_lines(project: Path, documents: list[str], tabs: tuple[str, ...]) -> dict[str, tuple[list[str], str]]:
    """Per framework, the requirements of the last ``pip install`` line in a shell fence of one of
    its text tabs that installs no CUDA build (else the last one), and ``path:line`` of that
    line (documents in name order)."""
    found: dict[str, tuple[list[str], str]] = {}
    lines: dict[str, list[tuple[list[str], str]]] = {}
    settings = DialectSettings(None, tabs, tabs[0])
    for relative in sorted(documents):
        try:
            text = (project / relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "pip" not in text or ":begin_tab:" not in text:
            continue
        doc = parse_text(text, relative, settings)
        for node in doc.walk():
            if not isinstance(node, TextTab):
                continue
            for child in node.children:
                if not isinstance(child, Fence) or child.language not in _SHELLS:
                    continue
                for offset, line in enumerate(child.code.split("\n")):
                    requirements = pip_requirements(line)
                    if requirements:
                        for framework in node.frameworks:
                            lines.setdefault(framework, []).append(
                                (requirements, f"{relative}:{child.line + 1 + offset}")
                            )
    for framework, candidates in lines.items():
        cpu = [candidate for candidate in candidates if not any(_for_gpu(r) for r in candidate[0])]
        found[framework] = (cpu or candidates)[-1]
    return found


def _for_gpu(requirement: str) -> bool:
    """A CUDA build (``mxnet-cu112``, ``paddlepaddle-gpu``, ``jax[cuda11_pip]``): books show it
    beside the CPU one; the machine that builds a book need not have a GPU."""
    parsed = Requirement(requirement)
    return bool(_GPU_RE.search(parsed.name)) or any(_GPU_RE.search(extra) for extra in parsed.extras)


def pip_requirements(line: str) -> list[str]:
    """The requirements a ``pip install`` (or ``python -m pip install``) line installs."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return []
    if "install" not in words:
        return []
    if "pip" not in [w.lstrip("!%").rsplit("/", 1)[-1] for w in words[: words.index("install")]]:
        return []  # ``pip install``, ``python -m pip install``, a notebook's ``!pip install``
    out, skip = [], False
    for word in words[words.index("install") + 1 :]:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _OPTIONS_WITH_VALUE
        elif _valid(word):
            out.append(word)
    return out


def _valid(text: str) -> bool:
    try:
        Requirement(text)
    except InvalidRequirement:
        return False
    return True


def _name(requirement: str) -> str:
    return Requirement(requirement).name.lower().replace("_", "-").replace(".", "-")
