"""The environments an evaluation's programs run in, made only for programs that must run.

A program served by the frozen results or the cache runs nowhere, and its key is computed from
conf.py alone (:meth:`.envs.EnvSpec.fingerprint`): a build whose results are all stored makes,
checks (uv) or registers no environment. The environments of the programs that must run are
made together, in parallel, before they run (:meth:`Provision.prepare`); one a program turns
out to need anyway (its cache entry went away meanwhile) is made when it does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from polybook.diagnostics import Diagnostic
from polybook.execute.envs import Environment, EnvState, Wanted, ensure_environments, environment_problem
from polybook.execute.programs import Program

if TYPE_CHECKING:
    from polybook.config import BookConfig


class Provision:
    """The environments made so far by one evaluation, each at most once."""

    def __init__(self, config: BookConfig, wanted: dict[Wanted, tuple[str, int] | None]) -> None:
        self.config = config
        self.wanted = wanted  # where each one's failure is said (None: its conf.py entry)
        self.made: dict[Wanted, Environment] = {}
        self._lock = threading.Lock()

    def prepare(self, wants: Iterable[Wanted]) -> None:
        """Make (or find kept) those of ``wants`` not asked for yet, all at once."""
        with self._lock:
            missing = [want for want in dict.fromkeys(wants) if want not in self.made]
            if missing:
                self.made.update(ensure_environments(self.config, missing))

    def environment(self, program: Program) -> Environment | None:
        """The environment ``program`` runs in, made if need be; None: it runs in a plain kernel."""
        if program.environment is None:
            return None
        self.prepare([program.environment])
        return self.made[program.environment]

    def problems(self) -> list[Diagnostic]:
        """One diagnostic per environment that could not be made."""
        return [
            environment_problem(self.config, env, self.wanted.get(want))
            for want, env in self.made.items()
            if env.reason
        ]


def why_not(environment: Environment) -> str:
    """Why ``environment`` cannot run a program."""
    if environment.state is EnvState.ABSENT:
        return f"environment {environment.spec.folder.name} is not made yet (polybook build env)"
    return f"environment {environment.spec.folder.name} could not be made: {environment.reason}"
