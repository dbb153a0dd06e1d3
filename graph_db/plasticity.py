"""Plasticity: what a recall and a useful answer change in the graph.

- Co-firing: after each recall, the returned memories are touched (access count, time)
  and the top anchors are linked/strengthened pairwise with a small usefulness. These
  writes go to one background thread in order, so a recall never waits for them; they
  take the store's writer lock like any other write (no deadlock with the caller's next
  write), and a failure is logged and counted (``failures``), never raised into an
  unrelated call. ``flush()`` waits for them (tests, shutdown); no caller needs it.
  The traces of recalls that come within ``cofire_linger_ms`` of each other are written
  in one transaction, each as it would be alone (its time, in order): a transaction's
  fixed cost (its version bump, the commit) was most of a trace's, and on 2 cores the
  engine's work for it slowed the recalls that followed. In it, the accesses are one
  statement and the co-firings as few as keep each pair's firings in order (``_rounds``),
  not two statements a trace: a write of ~5 traces takes a third less time.
- Reinforcement: ``reinforce`` applies w <- w + eta*u*(1-w) along the path of each useful
  memory (a structural hop gets a parallel ASSOC edge, a learned shortcut) and between
  the memories used together, and raises their importance by the same rule.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from graph_db import clock
from graph_db.backends import GraphBackend, Tx
from graph_db.dynamics import DecayParams
from graph_db.errors import InvalidInputError
from graph_db.models import Recalled
from graph_db.settings import GraphSettings

log = logging.getLogger(__name__)


@dataclass
class _Trace:
    """What one recall left to write: the memories it returned, the anchor pairs that fired
    together, and when."""

    ns: str
    returned: list[str]
    pairs: list[tuple[str, str, float]]
    now: float


class Plasticity:
    """Hebbian updates of one store (see the module doc)."""

    def __init__(self, backend: GraphBackend, settings: GraphSettings) -> None:
        self.backend = backend
        self.settings = settings
        self._pool: ThreadPoolExecutor | None = None
        self._queue: list[_Trace] = []  # recalls' traces not yet written, in order
        self._job: Future[None] | None = None  # the writer, while there are any
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)  # a flush cuts the linger short
        self._flushing = 0
        self.failures = 0  # recalls whose co-firing writes failed (logged)

    def _params(self) -> dict[str, float]:
        s = self.settings
        decay = DecayParams.of(s).as_params()
        return {"eta": s.hebbian_eta, "w_perm": s.w_perm, "w_min": s.w_min, **decay}

    def hebbian(self, ns: str, pairs: Sequence[tuple[str, str, float]], now: float) -> list[dict]:
        """Apply the Hebbian rule to each (a, b, usefulness) in turn; an absent edge is
        created. A pair named again goes to the next statement (``_rounds``)."""
        runs = _rounds([[row] for row in _rows(pairs, now)])
        return self.backend.write_tx(
            lambda tx: [x for rows in runs for x in self._fire(tx, ns, rows)]
        )

    def _fire(self, tx: Tx, ns: str, rows: list[dict]) -> list[dict]:
        """``hebbian_update`` over ``rows`` (a, b, u, now), in their order; no pair twice (a
        new pair's edge is made by OPTIONAL MATCH and CREATE, and an engine may read all
        rows before it writes any: Neo4j's eager plans)."""
        return tx.run("hebbian_update", ns=ns, rows=rows, **self._params()) if rows else []

    def after_recall(self, ns: str, anchors: Sequence[str], returned: Sequence[str]) -> None:
        """Queue the co-firing writes of one recall (see the module doc)."""
        u = self.settings.cofire_usefulness
        top = list(anchors)[: self.settings.cofire_anchors]
        pairs = [(a, b, u) for a, b in itertools.combinations(top, 2)] if u > 0 else []
        if not returned and not pairs:
            return
        # when the recall happened, not when the write gets its turn
        trace = _Trace(ns, list(returned), pairs, clock.now())
        with self._lock:
            self._queue.append(trace)
            if self._job is None:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mags-fire")
                self._job = self._pool.submit(self._write_queued)

    def _write_queued(self) -> None:
        """Write the queued traces, those of one namespace in one transaction each time,
        until none is left (waiting ``cofire_linger_ms`` for more first, unless flushed)."""
        linger = self.settings.cofire_linger_ms / 1000
        while True:
            with self._lock:
                if not self._queue:
                    self._job = None
                    return
                until = time.monotonic() + linger
                while not self._flushing and (left := until - time.monotonic()) > 0:
                    self._wake.wait(left)
                batch, self._queue = self._queue, []
            for ns in dict.fromkeys(t.ns for t in batch):
                self._write(ns, [t for t in batch if t.ns == ns])

    def _write(self, ns: str, traces: list[_Trace]) -> None:
        def work(tx: Tx) -> None:  # one transaction: one version of the namespace
            for rows in _rounds([_rows(t.pairs, t.now) for t in traces]):
                self._fire(tx, ns, rows)
            if touched := _touches(traces):  # last: a memory's last trace sets vitals_due
                tx.run("memory_touch", ns=ns, rows=touched)

        try:
            self.backend.write_tx(work)
        except Exception as e:  # the recalls have returned: nobody to raise it to
            self.failures += len(traces)
            log.warning("co-firing of %d recall(s) in %r was not stored: %s", len(traces), ns, e)

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
            job = self._job
            if job is None:
                return
            self._flushing += 1
            self._wake.notify_all()
        try:
            job.result()
        finally:
            with self._lock:
                self._flushing -= 1

    def close(self) -> None:
        self.flush()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _rows(pairs: Sequence[tuple[str, str, float]], now: float) -> list[dict]:
    """``hebbian_update``'s rows of one firing: its pairs of two memories, used (u > 0)."""
    return [{"a": a, "b": b, "u": u, "now": now} for a, b, u in pairs if a != b and u > 0]


def _touches(traces: list[_Trace]) -> list[dict]:
    """``memory_touch``'s rows of ``traces`` (in time order): each memory returned, how
    often, when last, and when it was last in any of them (returned or fired: its
    ``vitals_due``, as the last of them would have set it)."""
    rows: dict[str, dict] = {}
    last: dict[str, float] = {}
    for t in traces:
        for a, b, _ in t.pairs:
            last[a] = last[b] = t.now
        for mid in t.returned:
            row = rows.setdefault(mid, {"id": mid, "n": 0})
            row["n"], row["now"], last[mid] = row["n"] + 1, t.now, t.now
    return [{**row, "due": last[mid]} for mid, row in rows.items()]


def _rounds(firings: list[list[dict]]) -> list[list[dict]]:
    """The rows of ``firings`` (in time order) in as few runs as keep them in that order
    with no pair twice in a run: a pair fired again starts the next. Rows that share a
    memory may share a run, as within one firing (the engine applies a run's rows in turn)."""
    runs: list[list[dict]] = []
    pairs: set[frozenset[str]] = set()
    for rows in filter(None, firings):
        mine = {frozenset((r["a"], r["b"])) for r in rows}
        if not runs or pairs & mine:
            runs.append([])
            pairs = set()
        runs[-1] += rows
        pairs |= mine
    return runs
