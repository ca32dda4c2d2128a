"""The execution environment each framework needs, as a d2lbook project says it.

A d2lbook project names what its code needs in two places: its ``setup.py`` (the book's own
package's ``install_requires``, what every framework's kernel imports: numpy, matplotlib,
pandas...) and its installation chapter, where each framework's text tab shows the
``pip install`` line readers run (``pip install torch==2.0.0 torchvision==0.15.1``). The
import proposes ``polybook.execution.environments`` from both: per framework, the setup.py
requirements and the last install line of that framework's text tabs (the CPU one, after the
GPU variant, in d2l's books). Nothing is guessed: a framework no tab installs gets the common
requirements only, and the import says so.

Written by hand: reading a ``pip install`` line (its options, quoted requirements) and a
setup.py's literal requirement list are small jobs no library does for us; each requirement is
checked with :mod:`packaging`.
"""

from __future__ import annotations

import ast
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from polybook.dialect import DialectSettings, parse_text
from polybook.dialect.nodes import Fence, TextTab

#: pip options followed by a value, which is not a requirement.
_OPTIONS_WITH_VALUE = {
    "-f", "--find-links", "-i", "--index-url", "--extra-index-url", "-c", "--constraint",
    "-r", "--requirement", "-e", "--editable", "-t", "--target", "--prefix", "--root",
    "--platform", "--python-version", "--implementation", "--abi", "--trusted-host", "--proxy",
}  # fmt: skip
_SHELLS = ("bash", "sh", "shell", "console", "")


@dataclass(slots=True)
class Proposal:
    """Per framework, the requirements to install, and where each part came from."""

    environments: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)  # framework -> "path:line" of its install line
    common: str = ""  # where the common requirements came from ("setup.py:4"), "" for none
    missing: list[str] = field(default_factory=list)  # frameworks no tab installs


def propose(project: Path, documents: list[str], tabs: tuple[str, ...]) -> Proposal:
    """What ``project`` says each of ``tabs`` needs; ``documents``: its Markdown files, relative."""
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
    return proposal


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
    its text tabs, and ``path:line`` of that line (documents in name order)."""
    found: dict[str, tuple[list[str], str]] = {}
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
                            found[framework] = (requirements, f"{relative}:{child.line + 1 + offset}")
    return found


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
    return Requirement(requirement).name.lower().replace("_", "-")
