"""Stopping a build at a chosen point, for the interruption tests (``tests/test_interrupt.py``,
``bench/fault_kill.py``): with ``POLYBOOK_FAULT=<point>:<k>:<signal>`` in the environment
(``page:3:SIGKILL``), the k-th time a process reaches ``point`` it sends ``signal`` to its
process group -- the whole build, as Ctrl-C or a CI cancel would. Unset, a point costs one look-up
of the environment.

Points: ``page``, a page Sphinx is about to write (the pages before it are written; Sphinx pickled
the language's environment before the first).
"""

from __future__ import annotations

import os
import signal
from collections import Counter

VARIABLE = "POLYBOOK_FAULT"
_reached: Counter[str] = Counter()  # this process's


def reached(point: str) -> None:
    """``point`` is reached: stop the build when the environment says to, here and now."""
    spec = os.environ.get(VARIABLE)
    if not spec:
        return
    name, _, rest = spec.partition(":")
    count, _, how = rest.partition(":")
    if name != point:
        return
    _reached[point] += 1
    if _reached[point] == int(count or 1):
        os.killpg(os.getpgrp(), getattr(signal, how or "SIGKILL"))
