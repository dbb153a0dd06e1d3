"""What time it is for the store: the wall clock, or the event time of a replay.

Every time the store writes or weighs (a memory's creation and last access, an edge's
firing, decay in recall and maintenance) comes from ``now()``. A replay of an old
conversation (a benchmark, ``mags tune``) runs each step ``at(its event time)``, so that a
turn written in month 5 is younger than one of month 1 and forgetting, decay and recency
see the conversation's months rather than the seconds the replay took. The override is
per context (thread or task): other callers of the same store keep the wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_AT: ContextVar[float | None] = ContextVar("mags_clock_at", default=None)


def now() -> float:
    """Seconds since the epoch: the replayed time inside ``at()``, else the wall clock."""
    at_ = _AT.get()
    return time.time() if at_ is None else at_


@contextmanager
def at(ts: float) -> Iterator[None]:
    """Run the block as if it were ``ts`` (epoch seconds) for the store."""
    token = _AT.set(float(ts))
    try:
        yield
    finally:
        _AT.reset(token)
