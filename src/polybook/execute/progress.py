"""A live display of programs and cells with elapsed time (rich); silent off a terminal."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any

from polybook.execute.programs import Program


class EvalProgress:
    """Use as a context manager; pass :meth:`plan` and :meth:`event` to ``evaluate``."""

    def __init__(self, console: Any = None, enabled: bool | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console or Console(stderr=True)
        on = self.console.is_terminal if enabled is None else enabled
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[state]}"),
            TimeElapsedColumn(),
            console=self.console,
            disable=not on,
        )
        self.tasks: dict[str, list[Any]] = {}  # key -> its programs' unfinished tasks (several may share a key)
        self.overall: Any = None
        self.lock = threading.Lock()

    def __enter__(self) -> EvalProgress:
        self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.progress.stop()

    def plan(self, programs: list[Program]) -> None:
        self.overall = self.progress.add_task("programs", total=len(programs), state="")
        for program in programs:
            task = self.progress.add_task(
                f"  {program.label()}", total=len(program.sources), state="waiting", start=False
            )
            self.tasks.setdefault(program.key, []).append(task)

    def event(self, kind: str, key: str, index: int) -> None:
        with self.lock:
            # Programs sharing a key run one after the other (the key's lock): events go to
            # the first unfinished one.
            tasks = self.tasks.get(key)
            if not tasks:
                return
            task = tasks[0]
            if kind == "start":
                self.progress.start_task(task)
                self.progress.update(task, state="running")
            elif kind == "cell_start":
                self.progress.update(task, state=f"cell {index + 1}")
            elif kind == "cell_done":
                self.progress.update(task, completed=index + 1)
            elif kind == "hit":
                self.progress.start_task(task)
                self.progress.update(task, completed=self.progress.tasks[task].total, state="cached")
                self.progress.stop_task(task)
                self.progress.advance(self.overall)
                tasks.pop(0)
            elif kind.startswith("done:"):
                self.progress.update(task, state=kind.removeprefix("done:"))
                self.progress.stop_task(task)
                self.progress.advance(self.overall)
                tasks.pop(0)
