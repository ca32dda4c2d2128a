"""uv, as polybook runs it: the binary, pip's index settings passed on, failures as reasons.

The execution environments (:mod:`polybook.execute.envs`) are made with it, and ``polybook
import`` resolves the environments it proposes with it (:mod:`polybook.importer.environments`).

uv reads neither ``pip.conf`` nor ``PIP_*`` variables. A machine whose pip is set up with
local mirrors (``find-links``, an ``extra-index-url`` of ``file://`` indexes) would have uv
download from the registry what the mirrors hold -- a CUDA torch is 3 GB -- so what
``python -m pip config list`` and the ``PIP_INDEX_URL`` / ``PIP_EXTRA_INDEX_URL`` /
``PIP_FIND_LINKS`` variables say is read once and passed to ``uv pip install`` as
``--index-url`` / ``--extra-index-url`` / ``--find-links``, with ``--index-strategy
unsafe-best-match``: a version that a mirror lacks still comes from the registry.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import threading
from functools import cache
from pathlib import Path

#: pip's settings passed on, and the uv option each becomes.
_FORWARDED = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links"}
#: Sections of ``pip config list`` that ``pip install`` reads, weakest first (variables win).
_SECTIONS = ("global", "install", ":env:")
#: What uv says on the way that is not a reason.
_CHATTER = re.compile(
    r"^(Using (C?Python|Python \S+ environment)|Creating virtual environment|Activate with|Resolved|Prepared|Installed"
    r"|Uninstalled|Audited|Downloading|Downloaded|Building|Built|[+-] )"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
TIMEOUT = 3600  # seconds one uv call may take (a cold CUDA torch from the registry is slow)
_FIRST = threading.Lock()  # find_uv_bin reads sysconfig, whose first use is not thread-safe


class UvFailure(Exception):
    """uv could not do what was asked; ``reason`` is what it said, in short, ``said`` all of it."""

    def __init__(self, reason: str, said: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.said = said


def uv_binary() -> str:
    """The uv of the ``uv`` package installed with polybook."""
    with _FIRST:
        return _uv_binary()


@cache
def _uv_binary() -> str:
    try:
        from uv import find_uv_bin
    except ImportError:
        raise UvFailure("uv is not installed (pip install uv)") from None
    try:
        return str(find_uv_bin())
    except FileNotFoundError as exc:
        raise UvFailure(f"the uv package has no binary: {exc}") from None


@cache  # threads making two environments at once may both ask: the same answer
def uv_version() -> str:
    said = run_uv(["--version"], Path.cwd()).split()  # "uv 0.13.9 (x86_64-unknown-linux-gnu)"
    return said[1] if len(said) > 1 else "?"


def run_uv(args: list[str], cwd: Path, stdin: str | None = None) -> str:
    """uv's standard output; :class:`UvFailure` with its last meaningful lines when it fails."""
    command = [uv_binary(), *args]
    env = {**os.environ, "NO_COLOR": "1"}
    try:
        done = subprocess.run(
            command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise UvFailure(f"uv {' '.join(args[:2])} did not finish within {TIMEOUT} s") from None
    except OSError as exc:
        raise UvFailure(f"cannot run uv: {exc}") from None
    if done.returncode != 0:
        said = reason(done.stderr) or f"uv {' '.join(args[:2])} exited with status {done.returncode}"
        raise UvFailure(said, done.stderr)
    return done.stdout


#: uv's hint when a version a requirement needs was published after ``--exclude-newer``.
_FILTERED_RE = re.compile(r"`([A-Za-z0-9][A-Za-z0-9_.\-]*)` was filtered by `exclude-newer`")
_UNDATED = "2100-01-01T00:00:00Z"


def run_dated(args: list[str], cwd: Path, as_of: str | None, stdin: str | None = None) -> tuple[str, list[str]]:
    """:func:`run_uv` of a ``pip install``/``pip compile`` as the registry was on ``as_of``; a
    package whose needed version the registry only got later (jaxlib 0.4.13's wheels for Python
    3.11, published in 2025) is taken as the registry has it now. Returns uv's output and those
    packages."""
    undated: list[str] = []
    while True:
        extra = [option for name in undated for option in ("--exclude-newer-package", f"{name}={_UNDATED}")]
        try:
            return run_uv([*args, *install_options(as_of), *extra], cwd, stdin), undated
        except UvFailure as exc:
            found = [name for name in _FILTERED_RE.findall(exc.said) if name not in undated] if as_of else []
            if not found or len(undated) > 20:
                raise
            undated += found


def reason(stderr: str, lines: int = 4) -> str:
    """The last meaningful lines of uv's stderr, on one line: from its ``error:`` on."""
    said = [ln.strip().lstrip("╰─▶").strip() for ln in _ANSI.sub("", stderr).splitlines()]
    said = [ln for ln in said if ln and not _CHATTER.match(ln)]
    start = next((i for i, ln in enumerate(said) if ln.startswith("error:")), max(0, len(said) - lines))
    return " ".join(said[start : start + lines])[:600]


def install_options(as_of: str | None = None) -> list[str]:
    """``uv pip install`` options for the package indexes pip is set up with; ``as_of``
    (YYYY-MM-DD): only what the registry had at the end of that day. A dated install reads
    only indexes served over http(s), which record when each file was published; a local
    mirror (``file://``, find-links) does not, or dates its copies by when it made them."""
    options = []
    for name, values in pip_indexes().items():
        for value in values:
            if as_of and (name == "find-links" or not value.startswith(("http://", "https://"))):
                continue
            options += [_FORWARDED[name], value]
    dated = ["--exclude-newer", f"{as_of}T23:59:59Z"] if as_of else []
    return [*options, "--index-strategy", "unsafe-best-match", *dated]


@cache
def pip_indexes() -> dict[str, tuple[str, ...]]:
    """index-url, extra-index-url and find-links as ``pip install`` would use them here."""
    found: dict[str, tuple[int, str]] = {}
    for line in _pip_config_list().splitlines():
        key, sep, raw = line.partition("=")
        section, _, name = key.rpartition(".")
        if not sep or name not in _FORWARDED or section not in _SECTIONS:
            continue
        rank = _SECTIONS.index(section)
        if rank >= found.get(name, (-1, ""))[0]:
            found[name] = (rank, _unquote(raw))
    for name in _FORWARDED:
        value = os.environ.get("PIP_" + name.upper().replace("-", "_"))
        if value:
            found[name] = (len(_SECTIONS), value)
    return {name: tuple(found[name][1].split()) for name in _FORWARDED if name in found and found[name][1].strip()}


def _pip_config_list() -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _unquote(raw: str) -> str:
    """pip prints values as Python string literals."""
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        return raw.strip()
    return value if isinstance(value, str) else raw.strip()
