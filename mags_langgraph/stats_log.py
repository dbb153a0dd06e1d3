"""A namespace's size and weights over time: one JSON line per sample in the store's home
(``MAGS_HOME/stats/``), for the UI's charts. The REST API takes a sample after the changes
it makes (at most one per ``every`` seconds, or at once after maintenance or a rollback)
and when the history is asked for."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, Field

from graph_db import LiquidGraph

HISTORY_MAX = 5_000  # the most samples one answer holds (the newest)


class StatsSample(BaseModel):
    at: str = Field(description="When (ISO 8601, UTC).")
    nodes: dict[str, int] = Field(description="Episode, Fact, Entity counts.")
    edges: int = Field(description="Edges of every type.")
    weights: list[int] = Field(description="Liquid edges by weight now: [0, 0.1), ... [0.9, 1].")


class StatsLog:
    def __init__(self, folder: Path, every: float = 5.0) -> None:
        self.folder = folder
        self.every = every
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def record(self, graph: LiquidGraph, ns: str, *, force: bool = False) -> None:
        """Append a sample of ``ns`` now (unless one was taken less than ``every`` s ago)."""
        now = time.monotonic()
        with self._lock:
            if not force and now - self._last.get(ns, -self.every) < self.every:
                return
            self._last[ns] = now
        stats = graph.stats(ns)
        sample = StatsSample(
            at=datetime.now(UTC).isoformat("T", "seconds"),
            nodes=stats["nodes"],
            edges=sum(e["count"] for e in stats["edges"].values()),
            weights=stats["weights"],
        )
        path = self._path(ns)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, path.open("a", encoding="utf-8") as f:
            f.write(sample.model_dump_json() + "\n")

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
