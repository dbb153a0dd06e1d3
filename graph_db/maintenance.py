"""``maintain(ns)``: decay, prune, consolidate and forget, in batches.

One pass, in this order (each step batched so no transaction grows with the graph):
1. decay and prune, one page of memories at a time (one pass over the edges): lazy decay
   materialised, and non-permanent ASSOC edges left under ``w_min`` deleted;
2. births (triadic closure): two memories with enough strong common neighbours get an edge;
3. k-core decomposition of the ASSOC graph: the edge list is read once and peeled in
   Python (linear time; peeling in Cypher rescans every memory per round and does not
   scale);
4. vitals: importance recomputed (see ``memory_vitals.cypher`` for the formula); the
   innermost cores (at most ``protect_share`` of the memories, k >= ``core_protect``)
   consolidated and protected; memories without any edge weakened;
5. death: periphery (core <= ``forget_core``), importance under ``forget_importance``, not
   accessed for ``grace_days``, not protected, not permanent -> forgotten with their edges;
6. capacity: above ``capacity`` memories, the least important unprotected ones go.
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
    protect_core: int = Field(default=0, description="k of the cores consolidated this pass")
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

    def decay_prune(self, ns: str, now: float, memories: int) -> tuple[int, int]:
        """Decay materialised and weak edges pruned, one page of memories at a time (a
        single pass: no page rescans the edges of another); (decayed, pruned)."""
        s, decay = self.settings, DecayParams.of(self.settings).as_params()
        decayed = pruned = 0
        for skip in range(0, memories, s.maintain_batch):
            rows = self.backend.write(
                "decay_prune",
                ns=ns,
                skip=skip,
                page=s.maintain_batch,
                now=now,
                w_min=s.w_min,
                **decay,
            )
            decayed += _first(rows, "decayed")
            pruned += _first(rows, "pruned")
        return decayed, pruned

    def kcore(self, ns: str) -> dict[str, int]:
        """Core number of every memory of ``ns`` over its ASSOC edges."""
        ids = [r["id"] for r in self.backend.read("memory_ids", ns=ns)]
        edges = [(r["a"], r["b"]) for r in self.backend.read("assoc_edges", ns=ns)]
        return core_numbers(ids, edges)

    def protect_core(self, cores: dict[str, int]) -> int:
        """The smallest k whose k-core holds at most ``protect_share`` of the memories (and
        k >= ``core_protect``): centrality is relative to the namespace."""
        s = self.settings
        counts: dict[int, int] = {}
        for c in cores.values():
            counts[c] = counts.get(c, 0) + 1
        k, inside = (max(counts) + 1 if counts else s.core_protect), 0
        for core in sorted(counts, reverse=True):
            if inside + counts[core] > s.protect_share * len(cores):
                break
            inside += counts[core]
            k = core
        return max(k, s.core_protect)

    def run(
        self, ns: str, now: float | None = None, capacity: int | None = None
    ) -> MaintenanceReport:
        s = self.settings
        t0 = time.perf_counter()
        now = time.time() if now is None else now
        report = MaintenanceReport(
            ns=ns,
            nodes_before=self._count(ns, "memory_count", "memories"),
            edges_before=self._count(ns, "assoc_count", "edges"),
        )
        report.decayed, report.pruned_edges = self.decay_prune(ns, now, report.nodes_before)
        report.births = _first(
            self.backend.write(
                "triadic_close",
                ns=ns,
                now=now,
                min_common=s.triadic_min_common,
                min_w=s.triadic_min_w,
                limit=s.maintain_batch,
            ),
            "births",
        )
        cores = self.kcore(ns)
        for core in cores.values():
            report.cores[core] = report.cores.get(core, 0) + 1
        report.protect_core = self.protect_core(cores)
        rows = [{"id": i, "core": c} for i, c in cores.items()]
        page = 5_000
        for i in range(0, len(rows), page):
            done = self.backend.write(
                "memory_vitals",
                ns=ns,
                now=now,
                rows=rows[i : i + page],
                protect_core=report.protect_core,
                isolation_decay=s.isolation_decay,
            )
            report.consolidated += _first(done, "consolidated")
        dying = [
            r["id"]
            for r in self.backend.read(
                "forget_candidates",
                ns=ns,
                max_core=s.forget_core,
                inactive_before=now - s.grace_days * DAY_S,
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
        return _first(self.backend.read(name, ns=ns), key)

    def _delete(self, ns: str, ids: list[str]) -> None:
        batch = 500
        for i in range(0, len(ids), batch):
            chunk = ids[i : i + batch]
            self.backend.write_tx(lambda tx, chunk=chunk: delete_memories(tx, ns, chunk))


def _first(rows: list[dict[str, Any]], key: str) -> int:
    """A count from an aggregate's single row (engines may return no row for nothing)."""
    return int(rows[0][key] or 0) if rows else 0


def core_numbers(ids: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """k-core decomposition (Batagelj & Zaversnik, O(V + E)): the core number of each node,
    the largest k such that it belongs to a subgraph where every node has degree >= k."""
    index = {node: i for i, node in enumerate(ids)}
    adj: list[set[int]] = [set() for _ in ids]
    for a, b in edges:
        ia, ib = index.get(a), index.get(b)
        if ia is not None and ib is not None and ia != ib:
            adj[ia].add(ib)
            adj[ib].add(ia)
    degree = [len(n) for n in adj]
    buckets: dict[int, set[int]] = {}
    for v, d in enumerate(degree):
        buckets.setdefault(d, set()).add(v)
    core = [0] * len(ids)
    done = [False] * len(ids)
    k = 0
    for _ in range(len(ids)):
        while not buckets.get(k):
            k += 1
        v = buckets[k].pop()
        done[v], core[v] = True, k
        for u in adj[v]:
            if not done[u] and degree[u] > k:
                buckets[degree[u]].discard(u)
                degree[u] -= 1
                buckets.setdefault(degree[u], set()).add(u)
    return {node: core[i] for node, i in index.items()}
