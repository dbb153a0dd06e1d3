"""``maintain(ns)``: decay, prune, consolidate and forget, in batches.

One pass, in this order (each step batched so no transaction grows with the graph):
1. decay sweep: lazy decay materialised on edges not touched since the pass began;
2. prune: non-permanent ASSOC edges under ``w_min`` deleted;
3. births (triadic closure): two memories with enough strong common neighbours get an edge;
4. k-core decomposition of the ASSOC graph (Cypher peeling; the same numbers GDS gives);
5. vitals: importance recomputed (see ``memory_vitals.cypher`` for the formula); inner
   cores (k >= ``core_protect``) consolidated and protected; memories without any edge
   weakened and marked isolated;
6. death: isolated for longer than ``grace_days``, importance under ``forget_importance``,
   not protected, not permanent -> forgotten with their edges;
7. capacity: above ``capacity`` memories, the least important unprotected ones go.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, Field

from graph_db.backends import GraphBackend, Tx
from graph_db.dynamics import DAY_S, DecayParams
from graph_db.settings import GraphSettings


class MaintenanceReport(BaseModel):
    """What one ``maintain()`` pass changed."""

    ns: str
    nodes_before: int
    nodes_after: int = 0
    edges_before: int
    edges_after: int = 0
    decayed: int = 0
    pruned_edges: int = 0
    births: int = 0
    cores: dict[int, int] = Field(default_factory=dict, description="core number -> memories")
    consolidated: int = 0
    forgotten: int = 0
    capacity_dropped: int = 0
    kcore_method: str = "cypher-peel"
    seconds: float = 0.0


def delete_memories(tx: Tx, ns: str, ids: list[str]) -> None:
    """Delete memories in the caller's transaction: NEXT chains bridged, orphans dropped."""
    entities: set[str] = set()
    for mid in ids:
        tx.run("next_bridge", ns=ns, id=mid)
        for r in tx.run("memory_delete", ns=ns, id=mid):
            entities.update(r["entities"])
    if entities:
        tx.run("entities_drop_orphans", ns=ns, ids=sorted(entities))


class Maintainer:
    """Runs maintenance passes for one store."""

    def __init__(self, backend: GraphBackend, settings: GraphSettings) -> None:
        self.backend = backend
        self.settings = settings

    def _loop(self, name: str, key: str, **params: Any) -> int:
        """Run a batched query until a batch comes back short; total of ``key``."""
        total, batch = 0, self.settings.maintain_batch
        while True:
            rows = self.backend.write(name, batch=batch, **params)
            n = int(rows[0][key]) if rows else 0
            total += n
            if n < batch:
                return total

    def kcore(self, ns: str) -> dict[str, int]:
        """Core number of every memory of ``ns`` over ASSOC edges (stored as ``core``)."""
        left = int(self.backend.write("kcore_init", ns=ns)[0]["memories"])
        k = 1
        while left > 0:
            peeled = int(self.backend.write("kcore_peel", ns=ns, k=k)[0]["peeled"])
            left -= peeled
            if peeled == 0:
                k += 1
        return {r["id"]: r["core"] for r in self.backend.read("kcore_result", ns=ns)}

    def run(
        self, ns: str, now: float | None = None, capacity: int | None = None
    ) -> MaintenanceReport:
        s = self.settings
        t0 = time.perf_counter()
        now = time.time() if now is None else now
        decay = DecayParams.of(s).as_params()
        report = MaintenanceReport(
            ns=ns,
            nodes_before=self._count(ns, "memory_count", "memories"),
            edges_before=self._count(ns, "assoc_count", "edges"),
        )
        report.decayed = self._loop("decay_sweep", "decayed", ns=ns, now=now, before=now, **decay)
        report.pruned_edges = self._loop(
            "edges_prune", "pruned", ns=ns, now=now, w_min=s.w_min, **decay
        )
        report.births = int(
            self.backend.write(
                "triadic_close",
                ns=ns,
                now=now,
                min_common=s.triadic_min_common,
                min_w=s.triadic_min_w,
                limit=s.maintain_batch,
            )[0]["births"]
        )
        cores = self.kcore(ns)
        for core in cores.values():
            report.cores[core] = report.cores.get(core, 0) + 1
        after = ""
        while True:
            (row,) = self.backend.write(
                "memory_vitals",
                ns=ns,
                now=now,
                after=after,
                batch=s.maintain_batch,
                core_protect=s.core_protect,
                isolation_decay=s.isolation_decay,
            )
            report.consolidated += int(row["consolidated"] or 0)
            if not row["done"] or row["last"] is None:
                break
            after = row["last"]
        dying = [
            r["id"]
            for r in self.backend.read(
                "forget_candidates",
                ns=ns,
                isolated_before=now - s.grace_days * DAY_S,
                max_importance=s.forget_importance,
                limit=s.maintain_batch,
            )
        ]
        self._delete(ns, dying)
        report.forgotten = len(dying)
        limit = capacity if capacity is not None else s.capacity
        left = report.nodes_before - report.forgotten
        if limit is not None and left > limit:
            rows = self.backend.read("capacity_victims", ns=ns, excess=left - limit)
            victims = [r["id"] for r in rows]
            self._delete(ns, victims)
            report.capacity_dropped = len(victims)
        report.nodes_after = self._count(ns, "memory_count", "memories")
        report.edges_after = self._count(ns, "assoc_count", "edges")
        report.seconds = time.perf_counter() - t0
        return report

    def _count(self, ns: str, name: str, key: str) -> int:
        rows = self.backend.read(name, ns=ns)
        return int(rows[0][key]) if rows else 0

    def _delete(self, ns: str, ids: list[str]) -> None:
        batch = 500
        for i in range(0, len(ids), batch):
            chunk = ids[i : i + batch]
            self.backend.write_tx(lambda tx, chunk=chunk: delete_memories(tx, ns, chunk))
