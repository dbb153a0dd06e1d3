"""Plasticity: what a recall and a useful answer change in the graph.

- Co-firing: after each recall, the returned memories are touched (access count, time)
  and the top anchors are linked/strengthened pairwise with a small usefulness. These
  writes go to one background thread in order, so a recall never waits for them; they
  take the store's writer lock like any other write (no deadlock with the caller's next
  write), and a failure is logged and counted (``failures``), never raised into an
  unrelated call. ``flush()`` waits for them (tests, shutdown); no caller needs it.
- Reinforcement: ``reinforce`` applies w <- w + eta*u*(1-w) along the path of each useful
  memory (a structural hop gets a parallel ASSOC edge, a learned shortcut) and between
  the memories used together, and raises their importance by the same rule.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from graph_db import clock
from graph_db.backends import GraphBackend, Tx
from graph_db.dynamics import DecayParams
from graph_db.errors import InvalidInputError
from graph_db.models import Recalled
from graph_db.settings import GraphSettings

log = logging.getLogger(__name__)


class Plasticity:
    """Hebbian updates of one store (see the module doc)."""

    def __init__(self, backend: GraphBackend, settings: GraphSettings) -> None:
        self.backend = backend
        self.settings = settings
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._lock = threading.Lock()
        self.failures = 0  # co-firing writes that failed (logged)

    def _params(self, now: float) -> dict[str, float]:
        s = self.settings
        decay = DecayParams.of(s).as_params()
        return {"now": now, "eta": s.hebbian_eta, "w_perm": s.w_perm, "w_min": s.w_min, **decay}

    def hebbian(self, ns: str, pairs: Sequence[tuple[str, str, float]], now: float) -> list[dict]:
        """Apply the Hebbian rule to each (a, b, usefulness); an absent edge is created."""
        return self.backend.write_tx(lambda tx: self._hebbian(tx, ns, pairs, now))

    def _hebbian(
        self, tx: Tx, ns: str, pairs: Sequence[tuple[str, str, float]], now: float
    ) -> list[dict]:
        rows = [{"a": a, "b": b, "u": u} for a, b, u in pairs if a != b and u > 0]
        if not rows:
            return []
        return tx.run("hebbian_update", ns=ns, rows=rows, **self._params(now))

    def after_recall(self, ns: str, anchors: Sequence[str], returned: Sequence[str]) -> None:
        """Queue the co-firing writes of one recall (see the module doc)."""
        u = self.settings.cofire_usefulness
        top = list(anchors)[: self.settings.cofire_anchors]
        pairs = [(a, b, u) for a, b in itertools.combinations(top, 2)] if u > 0 else []
        if not returned and not pairs:
            return
        now = clock.now()  # when the recall happened, not when the write gets its turn

        def trace(tx: Tx) -> None:  # one transaction: one version of the namespace
            if returned:
                tx.run("memory_touch", ns=ns, ids=list(returned), now=now)
            self._hebbian(tx, ns, pairs, now)

        def work() -> None:
            try:
                self.backend.write_tx(trace)
            except Exception as e:  # the recall has returned: nobody to raise it to
                self.failures += 1
                log.warning("co-firing of a recall in %r was not stored: %s", ns, e)

        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mags-fire")
            self._pending = [f for f in self._pending if not f.done()]
            self._pending.append(self._pool.submit(work))

    def reinforce(
        self,
        ns: str,
        used: Sequence[Recalled | str],
        usefulness: float | Sequence[float] = 1.0,
    ) -> int:
        """Strengthen the paths of useful memories; returns the number of edges changed."""
        if isinstance(usefulness, int | float):
            us = [float(usefulness)] * len(used)
        else:
            us = [float(u) for u in usefulness]
        if len(us) != len(used):
            raise InvalidInputError(
                f"{len(used)} memories but {len(us)} usefulness values; give one each"
            )
        if any(not 0.0 <= u <= 1.0 for u in us):
            raise InvalidInputError("usefulness must be between 0 and 1")
        pairs: list[tuple[str, str, float]] = []
        ids: list[tuple[str, float]] = []
        for item, u in zip(used, us, strict=True):
            mid = item if isinstance(item, str) else item.id
            ids.append((mid, u))
            if isinstance(item, Recalled):
                pairs += [(step.source, step.target, u) for step in item.path]
        useful = [(i, u) for i, u in ids if u > 0]
        pairs += [(a, b, min(ua, ub)) for (a, ua), (b, ub) in itertools.combinations(useful[:8], 2)]
        now = clock.now()
        self.flush()  # the recall's own trace first: the answer's reinforcement builds on it
        changed = self.hebbian(ns, pairs, now)
        if useful:
            rows = [{"id": i, "u": u} for i, u in useful]
            self.backend.write(
                "importance_bump", ns=ns, rows=rows, now=now, eta=self.settings.hebbian_eta
            )
        return len(changed)

    def flush(self) -> None:
        """Wait until the queued co-firing writes are done (failures are logged)."""
        with self._lock:
            pending, self._pending = self._pending, []
        for f in pending:
            f.result()

    def close(self) -> None:
        self.flush()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
