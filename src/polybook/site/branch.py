"""``polybook publish --branch``: commit the site as the only content of a git branch.

Like ``mkdocs gh-deploy`` (ghp-import), each publish is one new commit on the branch whose
tree is exactly the site, with the previous publish as its parent, so history is kept and
any page can be rolled back. Done with git plumbing on a temporary index whose work tree is
the assembled site (``GIT_INDEX_FILE``, ``GIT_WORK_TREE``): the user's working tree, index
and checked-out branch are never touched; only ``refs/heads/<branch>`` moves (and the
remote's, with ``--remote``). Shelling out to git, not a library: it is what users have,
with their credentials, hooks and remotes already set up.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from polybook.files import display_path


class GitProblem(Exception):
    """A git command failed; the message names the command and quotes git's error."""


@dataclass(slots=True)
class BranchResult:
    branch: str
    commit: str
    parent: str | None
    changed: bool  # False: the site is the same as the branch's tip; no commit made
    pushed: str | None = None  # the remote pushed to


def git(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise GitProblem(f"git {' '.join(args)} failed ({done.returncode}):\n{done.stderr.strip()}")
    return done.stdout.strip()


def _maybe(args: list[str], cwd: Path) -> str | None:
    try:
        return git(args, cwd) or None
    except GitProblem:
        return None


def git_dir(root: Path) -> Path | None:
    out = _maybe(["rev-parse", "--absolute-git-dir"], root)
    return Path(out) if out else None


def publish_branch(
    root: Path, site: Path, branch: str, remote: str | None = None, message: str | None = None
) -> BranchResult:
    """Commit the folder ``site`` as the whole tree of ``branch`` in the repository holding
    ``root``; with ``remote``, on top of the remote's branch, then push it there."""
    repo = git_dir(root)
    if repo is None:
        raise GitProblem(f"{display_path(root)} is not in a git repository: `git init` it, or publish with --to")
    ref = f"refs/heads/{branch}"
    if subprocess.run(["git", "check-ref-format", ref], capture_output=True, check=False).returncode != 0:
        raise GitProblem(f"not a valid branch name: {branch!r}")
    for line in git(["worktree", "list", "--porcelain"], root).splitlines():
        if line == f"branch {ref}":
            raise GitProblem(
                f"{branch} is checked out in a working tree: publishing would change files under it; "
                "switch to another branch first"
            )
    parent = _maybe(["rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], root)
    if remote:
        listed = git(["ls-remote", "--heads", remote, ref], root)
        parent = listed.split()[0] if listed else None
        if parent:  # the objects of the remote's tip, without touching any ref
            git(["fetch", "--no-tags", "--no-write-fetch-head", remote, ref], root)
    with tempfile.TemporaryDirectory(prefix="polybook-index-") as tmp:
        env = {"GIT_DIR": str(repo), "GIT_WORK_TREE": str(site.resolve()), "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        # -f: the site is published whole, whatever the repository's ignore rules say.
        git(["-c", "core.autocrlf=false", "add", "--all", "--force", "."], site, env)
        tree = git(["write-tree"], site, env)
    if parent and git(["rev-parse", f"{parent}^{{tree}}"], root) == tree:
        return BranchResult(branch, parent, parent, changed=False)
    source = _maybe(["rev-parse", "--short", "HEAD"], root)
    text = message or (f"Publish the site built from {source}" if source else "Publish the site")
    commit = git(["commit-tree", tree, *(["-p", parent] if parent else []), "-m", text], root, _identity(root))
    git(["update-ref", "-m", f"polybook publish: {text}", ref, commit], root)
    result = BranchResult(branch, commit, parent, changed=True)
    if remote:
        git(["push", "--quiet", remote, f"{ref}:{ref}"], root)
        result.pushed = remote
    return result


def _identity(root: Path) -> dict[str, str]:
    """CI runners often have no git identity; commit as polybook there rather than fail."""
    if _maybe(["var", "GIT_COMMITTER_IDENT"], root) and _maybe(["var", "GIT_AUTHOR_IDENT"], root):
        return {}
    who = {"NAME": "polybook", "EMAIL": "polybook@localhost"}
    return {f"GIT_{role}_{key}": value for role in ("AUTHOR", "COMMITTER") for key, value in who.items()}
