"""A namespace's size and weights over time: one JSON line per sample in the store's home
(``MAGS_HOME/stats/``), for the UI's charts. The REST API takes a sample after the changes
it makes (at most one per ``every`` seconds, or at once after maintenance or a rollback), in
the background (a sample reads every liquid edge: never in a request's way), and when the
history is asked for; ``mags maintain`` takes one after its pass. A file keeps the newest
``KEEP`` samples."""

from __future__ import annotations

import json
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, Field

from graph_db import LiquidGraph, MagsError

log = logging.getLogger(__name__)

HISTORY_MAX = 5_000  # the most samples one answer holds (the newest)
KEEP = 2 * HISTORY_MAX  # a file longer than this is cut back to its newest HISTORY_MAX


class StatsSample(BaseModel):
    at: str = Field(description="When (ISO 8601, UTC).")
    nodes: dict[str, int] = Field(description="Episode, Fact, Entity counts.")
    edges: int = Field(description="Edges of every type.")
    weights: list[int] = Field(description="Liquid edges by weight now: [0, 0.1), ... [0.9, 1].")


class StatsLog:
    def __init__(self, folder: Path, every: float = 30.0) -> None:
        self.folder = folder
        self.every = every
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mags-stats")
        self._pending: set[Future] = set()

    @classmethod
    def of(cls, graph: LiquidGraph) -> StatsLog:
        """The samples of ``graph``'s home."""
        return cls(graph.settings.home / "stats")

    def record_later(self, graph: LiquidGraph, ns: str, *, force: bool = False) -> None:
        """``record`` in the background; a failure is logged, never raised."""
        done = self._pool.submit(self._quietly, graph, ns, force)
        with self._lock:
            self._pending.add(done)
        done.add_done_callback(self._settled)

    def flush(self) -> None:
        """Wait for the samples taken in the background."""
        with self._lock:
            pending = set(self._pending)
        wait(pending)

    def _settled(self, done: Future) -> None:
        with self._lock:
            self._pending.discard(done)

    def _quietly(self, graph: LiquidGraph, ns: str, force: bool) -> None:
        try:
            self.record(graph, ns, force=force)
        except MagsError as e:  # e.g. the namespace was just forgotten
            log.info("no stats sample of %r: %s", ns, e)

    def record(self, graph: LiquidGraph, ns: str, *, force: bool = False) -> None:
        """Append a sample of ``ns`` now (unless one was taken less than ``every`` s ago)."""
        now = time.monotonic()
        with self._lock:
            if not force and now - self._last.get(ns, -self.every) < self.every:
                return
            self._last[ns] = now
        stats = graph.stats(ns, weights=True)
        sample = StatsSample(
            at=datetime.now(UTC).isoformat("T", "seconds"),
            nodes=stats["nodes"],
            edges=sum(e["count"] for e in stats["edges"].values()),
            weights=stats["weights"],
        )
        path = self._path(ns)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            with path.open("a", encoding="utf-8") as f:
                f.write(sample.model_dump_json() + "\n")
                size = f.tell()
            if size > KEEP * 200:  # about KEEP samples of ~200 bytes: count, then cut
                self._cut(path)

    def _cut(self, path: Path) -> None:
        """Keep the newest ``HISTORY_MAX`` samples (written whole, then renamed over)."""
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if len(lines) <= KEEP:
            return
        spare = path.with_suffix(".tmp")
        spare.write_text("".join(lines[-HISTORY_MAX:]), encoding="utf-8")
        spare.replace(path)

    def history(self, ns: str, limit: int = HISTORY_MAX) -> list[StatsSample]:
        """The newest ``limit`` samples of ``ns``, oldest first (a torn last line skipped)."""
        path = self._path(ns)
        if not path.is_file():
            return []
        with self._lock:
            lines = path.read_text(encoding="utf-8").splitlines()[-limit:]
        samples = []
        for line in lines:
            try:
                samples.append(StatsSample.model_validate(json.loads(line)))
            except ValueError:
                continue
        return samples

    def _path(self, ns: str) -> Path:
        return self.folder / f"ns-{quote(ns, safe='')}.jsonl"
