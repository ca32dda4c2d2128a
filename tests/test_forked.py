from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest

from polybook.forked import Forked


def test_the_work_runs_in_a_forked_child_and_its_result_comes_back() -> None:
    parent = os.getpid()
    loaded = {"book": [1, 2, 3]}  # what the child starts with, never pickled on the way in
    job = Forked(lambda: (os.getpid(), sum(loaded["book"])))
    pid, total = job.result()
    assert pid != parent and total == 6


def test_an_exception_of_the_work_is_raised_in_the_parent() -> None:
    def fails() -> None:
        raise ValueError("chapters/ja/a.md:3: not a table")

    with pytest.raises(ValueError, match=r"a\.md:3"):
        Forked(fails).result()


def test_a_child_that_dies_leaves_the_work_to_the_parent() -> None:
    parent = os.getpid()

    def dies_in_the_child() -> int:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return 42

    assert Forked(dies_in_the_child).result() == 42


def test_a_result_that_does_not_pickle_is_worked_out_in_the_parent() -> None:
    parent = os.getpid()

    def work() -> Callable[[], int]:
        made_in = os.getpid()
        return lambda: made_in  # a lambda does not pickle

    assert Forked(work).result()() == parent  # made again here, not in the child


def test_background_work_runs_at_a_lower_priority() -> None:
    here = os.getpriority(os.PRIO_PROCESS, 0)
    assert Forked(lambda: os.getpriority(os.PRIO_PROCESS, 0), nice=5).result() == min(here + 5, 19)
    assert Forked(lambda: os.getpriority(os.PRIO_PROCESS, 0)).result() == here
