"""``maintain(ns)``: prune, consolidate and forget, with work bounded by what changed.

Decay is lazy (weights are computed on read), so a pass never has to touch an edge that is
neither dying nor changed. A pass visits two kinds of memories, found by range indexes:
- due to expire (``expire_at <= now``): one of their liquid edges may have decayed under
  ``w_min``; ``expire_at`` is a lower bound on that time, recomputed by each prune and
  lowered by every query that writes an edge (hebbian_update and births to the edge's own
  death time, link_assoc to the edge's creation: check at the next pass);
- due for vitals (``vitals_due <= now``): written, used, re-linked or re-cored since their
  last visit (the write queries set it), or not visited for ``vitals_refresh_days``.
Each kind at most ``maintain_batch`` per pass (the rest waits for the next pass). In order:
1. prune: dead edges of the memories due to expire deleted, ``expire_at`` recomputed
   (``edges_prune``);
2. k-core decomposition of the ASSOC graph when the last one is older than
   ``kcore_every_days`` (a global pass; ``kcore=False`` defers it, e.g. to a quieter moment
   or another thread): in the engine where the dialect allows it and the Graph Data Science
   procedures are installed (Neo4j + GDS: a projection of the namespace streamed through
   ``gds.kcore.stream``, then dropped), else the edge list is read once and peeled in
   Python, O(V + E); ``kcore_method`` chooses. Same core numbers either way; only changed
   ones are written, and those memories become due;
3. vitals of the memories due: importance recomputed (formula in ``memory_vitals.cypher``),
   the innermost cores (at most ``protect_share`` of the memories, k >= ``core_protect``)
   consolidated and protected, memories without any edge weakened;
4. births (triadic closure) around the memories visited whose edges changed since the last
   pass (``edges_at``);
5. death among the memories visited: periphery (core <= ``forget_core``), importance under
   ``forget_importance``, not accessed for ``grace_days``, not protected, not permanent;
6. capacity: above ``capacity`` memories, the least important unprotected ones go.
A full pass (the first of a namespace, or ``full=True``) visits every memory instead, in
pages, and always decomposes.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from pydantic import BaseModel, Field

from graph_db import clock
from graph_db.backends import GraphBackend, Tx
from graph_db.backends.bolt import TxBackend
from graph_db.dynamics import DAY_S, DecayParams
from graph_db.errors import EngineError, InvalidInputError
from graph_db.progress import progress
from graph_db.settings import GraphSettings

log = logging.getLogger(__name__)

# shares of the time budget after which pruning, visiting and births stop (between pages,
# each after its first: a pass whose reads outlast the budget still moves on)
PRUNE_SHARE, VITALS_SHARE, BIRTHS_SHARE = 0.35, 0.75, 0.9
# a namespace of at most this many memories (as its last full or k-core pass counted them)
# finds its due memories among its own (a read of each: ~50 ms at 10k on ArcadeDB), not in
# the store's due range, which holds every namespace's (``due_for_vitals_by_ns.cypher``)
DUE_BY_NS_UP_TO = 10_000


class MaintenanceReport(BaseModel):
    """What one ``maintain()`` pass changed. Counts of the whole namespace are taken only where
    the pass needs them anyway (a full pass, a capacity, a decomposition): else None."""

    ns: str
    full: bool = Field(default=False, description="every memory visited, not only those due")
    visited: int = Field(default=0, description="memories visited (vitals recomputed)")
    deferred: int = Field(
        default=0, description="memories due but left for the next pass (time budget spent)"
    )
    nodes_before: int | None = None
    nodes_after: int | None = None
    edges_before: int | None = Field(
        default=None, description="ASSOC edges the k-core decomposition read (after pruning)"
    )
    edges_after: int | None = None
    edges_checked: int = Field(default=0, description="liquid edges whose decay was evaluated")
    pruned_edges: int = 0
    births: int = 0
    kcore: bool = Field(default=False, description="the k-core was decomposed in this pass")
    kcore_method: Literal["gds", "peel"] | None = Field(
        default=None, description="how: in the engine (GDS gds.kcore) or peeled in Python"
    )
    cores: dict[int, int] = Field(default_factory=dict, description="core number -> memories")
    consolidated: int = 0
    forgotten: int = 0
    capacity_dropped: int = 0
    protect_core: int | None = Field(default=None, description="k of the consolidated cores")
    seconds: float = 0.0


class MaintenancePreview(BaseModel):
    """What a maintenance pass would do now, rehearsed in one transaction that was rolled
    back: its report, the memories it would forget (capacity included) and the liquid edges
    it would prune or create (id pairs; the edges of forgotten memories go with them and are
    not listed)."""

    report: MaintenanceReport
    forgotten: list[str] = Field(default_factory=list)
    pruned: list[tuple[str, str]] = Field(default_factory=list)
    born: list[tuple[str, str]] = Field(default_factory=list)


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

    PAGE = 2_000  # memories per write transaction
    BUDGET_PAGE = 250  # per transaction when a time budget is checked between pages
    TRIADIC_PAGE, TRIADIC_NEAR = 1_000, 16  # centres per call; strongest neighbours of each

    def __init__(self, backend: GraphBackend | TxBackend, settings: GraphSettings) -> None:
        self.backend = backend
        self.settings = settings
        self._gds: bool | None = None  # the engine has GDS k-core (None: not asked yet)

    def prune(
        self, ns: str, ids: list[str], now: float, deadline: float | None = None
    ) -> tuple[int, int]:
        """Dead liquid edges leaving ``ids`` deleted (until ``deadline``: the rest stays
        due); (edges checked, edges pruned)."""
        s = self.settings
        decay = DecayParams.of(s).as_params()
        done, _ = self._write_pages(
            deadline, "edges_prune", ns, ids, now=now, w_min=s.w_min, **decay
        )
        return done["checked"], done["pruned"]

    def kcore(self, ns: str) -> dict[str, int]:
        """Core number of every memory of ``ns`` over its ASSOC edges."""
        return self._decompose(ns, self._stored_cores(ns))[0]

    def _stored_cores(self, ns: str) -> dict[str, int | None]:
        """Every memory id of ``ns`` with the core number stored on it."""
        return {r["id"]: r["core"] for r in self.backend.read("memory_cores", ns=ns)}

    def _decompose(
        self, ns: str, stored: dict[str, int | None]
    ) -> tuple[dict[str, int], int, Literal["gds", "peel"]]:
        """(core numbers of the memories ``stored``, number of ASSOC edges, how)."""
        if self.kcore_in_engine():
            try:
                cores, edges = self._gds_cores(ns, stored)
                return cores, edges, "gds"
            except EngineError as e:
                if self.settings.kcore_method == "gds":
                    raise
                log.warning("GDS k-core failed (%s); peeling in Python instead", e)
        pairs = [(r["a"], r["b"]) for r in self.backend.read("assoc_edges", ns=ns)]
        return core_numbers(list(stored), pairs), len(pairs), "peel"

    def kcore_in_engine(self) -> bool:
        """Whether the decomposition runs in the engine (GDS): ``kcore_method`` "auto" and
        the dialect allows it and the procedures are there (asked once per backend), or "gds"
        (an error if they are not)."""
        method = self.settings.kcore_method
        if method == "peel":
            return False
        present = self._gds_present()
        if method == "gds" and not present:
            raise InvalidInputError(
                f"MAGS_KCORE_METHOD=gds, but {self.backend.describe} has no Graph Data Science "
                "procedure gds.kcore.stream (GDS runs on Neo4j only): install the GDS plugin, "
                "or set MAGS_KCORE_METHOD=auto (GDS when present) or peel."
            )
        return present

    def _gds_present(self) -> bool:
        """Whether the engine has the GDS k-core procedure (asked once, only where the
        dialect may have it)."""
        if self._gds is None:
            self._gds = False
            if self.backend.dialect.kcore == "gds-or-peel":
                try:
                    self._gds = bool(_first(self.backend.read("kcore_gds_available"), "gds"))
                except EngineError as e:  # e.g. not allowed to list procedures: peel
                    log.warning("cannot tell whether GDS is installed (%s): peeling k-cores", e)
        return self._gds

    @contextmanager
    def gds_projection(self, ns: str) -> Iterator[tuple[str | None, int]]:
        """Project the memories of ``ns`` and their ASSOC edges into the GDS catalog under a
        fresh name (see kcore_gds_project.cypher): (graph name, ASSOC edges of ``ns``); the
        name is None when ``ns`` holds no memory (nothing projected). The projection is
        dropped on leaving, whatever happens inside. Every step runs in a write transaction:
        in a cluster they all reach the same member (the catalog is per member)."""
        names: list[str] = []

        def project(tx: Tx) -> tuple[str | None, int]:
            name = f"mags-kcore-{uuid.uuid4().hex}"  # one per attempt: the driver may retry
            names.append(name)
            row = _first_row(tx.run("kcore_gds_project", ns=ns, graph=name))
            return (name if row.get("nodes") else None), int(row.get("edges") or 0)

        try:
            yield self.backend.write_tx(project)
        except BaseException:
            self._gds_drop(names, quiet=True)
            raise
        self._gds_drop(names, quiet=False)

    def _gds_drop(self, names: list[str], quiet: bool) -> None:
        for name in names:
            try:
                self.backend.write("kcore_gds_drop", graph=name)
            except Exception as e:  # an error already on its way is the one to report
                if not quiet:
                    raise
                log.warning("could not drop the GDS projection %s: %s", name, e)

    def _gds_cores(self, ns: str, stored: dict[str, int | None]) -> tuple[dict[str, int], int]:
        """(core numbers of the memories ``stored`` computed by gds.kcore.stream, ASSOC
        edges of ``ns``); a memory without edges has core 0, as in the peel."""
        cores = dict.fromkeys(stored, 0)
        if not cores:
            return cores, 0
        with self.gds_projection(ns) as (graph, edges):
            if graph is not None:
                for r in self.backend.write("kcore_gds_stream", graph=graph):
                    if r["id"] in cores:  # written since ``stored`` was read: next time
                        cores[r["id"]] = int(r["core"])
        return cores, edges

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
        self,
        ns: str,
        now: float | None = None,
        capacity: int | None = None,
        full: bool | None = None,
        kcore: bool | None = None,
    ) -> MaintenanceReport:
        """One pass (see the module doc); ``full`` and ``kcore`` None: when due."""
        s = self.settings
        t0 = time.perf_counter()
        now = clock.now() if now is None else now
        state = _first_row(self.backend.read("namespace_maintenance", ns=ns))
        full = state.get("maintained_at") is None if full is None else full
        report = MaintenanceReport(ns=ns, full=full)
        stored: dict[str, int | None] | None = None  # read once, for a full pass's ids
        if full:
            stored = self._stored_cores(ns)
            every = list(stored)
            report.nodes_before = len(every)
            expiring, due = every, every
        else:
            expiring = self._due(ns, "due_for_prune", now, state.get("memories"))
        budget = None if full else s.maintain_budget_s
        started = t0  # the budget's clock: the whole pass but the decomposition

        def until(share: float) -> float | None:
            """When a step stops taking new pages (None: a full pass is not bounded)."""
            return None if budget is None else started + budget * share

        report.edges_checked, report.pruned_edges = self.prune(
            ns, expiring, now, until(PRUNE_SHARE)
        )

        protect = state.get("protect_core")
        last_kcore = state.get("kcore_at")
        if kcore is None:
            kcore = last_kcore is None or now - last_kcore >= s.kcore_every_days * DAY_S
        if full or kcore:
            t_kcore = time.perf_counter()
            stored = stored if stored is not None else self._stored_cores(ns)
            protect = self._kcore(ns, now, report, protect, stored)
            started += time.perf_counter() - t_kcore
        protect = protect if protect is not None else s.core_protect
        report.protect_core = protect

        if not full:  # after pruning and decomposing: both mark memories due
            due = self._due(ns, "due_for_vitals", now, state.get("memories"))
        report.consolidated, report.visited = self._vitals(
            ns, due, now, protect, until(VITALS_SHARE)
        )
        report.deferred = len(due) - report.visited
        # the due list may have been cut at the batch bound: more may be waiting
        batch_full = not full and len(due) >= s.maintain_batch
        due = due[: report.visited]  # the rest stays due: the next pass goes on
        since = 0.0 if full else float(state.get("maintained_at") or 0.0)
        report.births, births_done = self._births(ns, due, now, since, until(BIRTHS_SHARE))
        dying = self._dying(ns, due, now)
        self._delete(ns, dying)
        report.forgotten = len(dying)
        limit = capacity if capacity is not None else s.capacity
        if limit is not None:
            left, report.capacity_dropped = self._cap(ns, limit)
            report.nodes_after = left - report.capacity_dropped
        elif full:  # nodes_before was counted by this pass
            report.nodes_after = len(every) - report.forgotten
        if report.edges_before is not None:  # counted after pruning, by the decomposition
            lost = report.forgotten or report.capacity_dropped  # their edges went with them
            report.edges_after = (
                self._count(ns, "assoc_count", "edges")
                if lost
                else report.edges_before + report.births
            )
        # births look at edges changed since the last pass: while memories are left due (or
        # births were cut short) the window must not move past them (a first pass sets it)
        complete = births_done and not report.deferred and not batch_full
        counted = report.nodes_after  # (None unless the pass counted them)
        if counted is None and stored is not None:  # read for the decomposition
            counted = len(stored) - report.forgotten
        self.backend.write(
            "namespace_maintained",
            ns=ns,
            now=now if complete else state.get("maintained_at") or now,
            kcore_at=now if report.kcore else None,
            protect_core=protect if report.kcore else None,
            memories=counted,
        )
        report.seconds = time.perf_counter() - t0
        return report

    def rehearse(
        self,
        ns: str,
        now: float | None = None,
        capacity: int | None = None,
        full: bool | None = None,
    ) -> MaintenancePreview:
        """The pass ``run`` would make, run in one transaction and rolled back (the k-core
        peeled in Python: GDS projects committed data only). Reads every memory id and
        liquid edge of ``ns`` twice: meant for a person's preview, not a hot path."""
        if not isinstance(self.backend, GraphBackend):
            raise InvalidInputError("a rehearsal cannot run inside another transaction")
        settings = self.settings.model_copy(update={"kcore_method": "peel"})

        def work(backend: TxBackend) -> MaintenancePreview:
            inside = Maintainer(backend, settings)
            ids, edges = set(inside._stored_cores(ns)), inside._assoc(ns)
            report = inside.run(ns, now=now, capacity=capacity, full=full)
            ids_after, edges_after = set(inside._stored_cores(ns)), inside._assoc(ns)
            gone = ids - ids_after
            return MaintenancePreview(
                report=report,
                forgotten=sorted(gone),
                pruned=sorted(p for p in edges - edges_after if not gone.intersection(p)),
                born=sorted(edges_after - edges),
            )

        return self.backend.rehearse(work)

    def _assoc(self, ns: str) -> set[tuple[str, str]]:
        return {(r["a"], r["b"]) for r in self.backend.read("assoc_edges", ns=ns)}

    def _due(self, ns: str, name: str, now: float, memories: int | None) -> list[str]:
        """Query ``name``'s due memories: through the namespace's own when it held at most
        ``DUE_BY_NS_UP_TO`` memories at its last count (``memories``), else through the
        store's due range (reading a large namespace whole would cost more); at most
        ``maintain_batch``, the turns first (the query bounds each label)."""
        if memories is not None and memories <= DUE_BY_NS_UP_TO:
            name += "_by_ns"
        limit = self.settings.maintain_batch
        return [r["id"] for r in self.backend.read(name, ns=ns, now=now, limit=limit)][:limit]

    def _kcore(
        self,
        ns: str,
        now: float,
        report: MaintenanceReport,
        old: int | None,
        stored: dict[str, int | None],
    ) -> int:
        """Decompose, store the core numbers that changed (those memories become due, and
        so do those whose protection changes with the new ``protect_core``)."""
        cores, edges, method = self._decompose(ns, stored)
        report.kcore, report.edges_before, report.kcore_method = True, edges, method
        for core in cores.values():
            report.cores[core] = report.cores.get(core, 0) + 1
        protect = self.protect_core(cores)
        changed = [
            {"id": mid, "core": core}
            for mid, core in cores.items()
            if stored.get(mid) != core or (old is not None and (core >= old) != (core >= protect))
        ]
        for page in _pages(changed, self.PAGE, f"memory_cores_set: {ns}"):
            self.backend.write("memory_cores_set", ns=ns, rows=page, now=now)
        return protect

    def _vitals(
        self, ns: str, ids: list[str], now: float, protect: int, deadline: float | None
    ) -> tuple[int, int]:
        """Importance and protection of ``ids`` recomputed (in order, until ``deadline``):
        how many were consolidated, how many visited."""
        s = self.settings
        done, visited = self._write_pages(
            deadline,
            "memory_vitals",
            ns,
            ids,
            now=now,
            protect_core=protect,
            isolation_decay=s.isolation_decay,
            refresh=s.vitals_refresh_days * DAY_S,
            **DecayParams.of(s).as_params(),
        )
        return done["consolidated"], visited

    def _write_pages(
        self, deadline: float | None, name: str, ns: str, ids: list[str], **params: Any
    ) -> tuple[Counter, int]:
        """Run write query ``name`` over ``ids`` a page at a time until ``deadline``
        (``_pages``): its counts summed, and how many ids were done."""
        totals: Counter = Counter()
        done = 0
        size = self.PAGE if deadline is None else self.BUDGET_PAGE
        for page in _pages(ids, size, f"{name}: {ns}", deadline):
            for row in self.backend.write(name, ns=ns, ids=page, **params)[:1]:
                totals.update({k: int(v or 0) for k, v in row.items() if not isinstance(v, list)})
            done += len(page)
        return totals, done

    def _cap(self, ns: str, limit: int) -> tuple[int, int]:
        """Drop the memories above ``limit`` (see capacity_victims.cypher): (memories
        counted before, memories dropped)."""
        left = self._count(ns, "memory_count", "memories")
        if left <= limit:
            return left, 0
        rows = self.backend.read("capacity_victims", ns=ns, excess=left - limit)
        victims = [r["id"] for r in rows]
        self._delete(ns, victims)
        return left, len(victims)

    def _births(
        self, ns: str, centres: list[str], now: float, since: float, deadline: float | None
    ) -> tuple[int, bool]:
        """Triadic closure around the centres whose edges changed since ``since``: (edges
        born, whether every centre was looked at before ``deadline``: ``_pages``)."""
        s, births, looked = self.settings, 0, 0
        for page in _pages(centres, self.TRIADIC_PAGE, f"triadic_close: {ns}", deadline):
            if births >= s.maintain_batch:
                break
            rows = self.backend.write(
                "triadic_close",
                ns=ns,
                ids=page,
                now=now,
                min_common=s.triadic_min_common,
                min_w=s.triadic_min_w,
                max_near=self.TRIADIC_NEAR,
                limit=s.maintain_batch - births,
                since=since,
                w_min=s.w_min,
                **DecayParams.of(s).as_params(),
            )
            births += _first(rows, "births")
            looked += len(page)
        return births, looked == len(centres)

    def _dying(self, ns: str, ids: list[str], now: float) -> list[str]:
        s, dying = self.settings, []
        for page in _pages(ids, self.PAGE, f"forget_candidates: {ns}"):
            rows = self.backend.read(
                "forget_candidates",
                ns=ns,
                ids=page,
                max_core=s.forget_core,
                inactive_before=now - s.grace_days * DAY_S,
                max_importance=s.forget_importance,
            )
            dying.extend(r["id"] for r in rows)
        return dying[: s.maintain_batch]

    def _count(self, ns: str, name: str, key: str) -> int:
        return _first(self.backend.read(name, ns=ns), key)

    def _delete(self, ns: str, ids: list[str]) -> None:
        batch = 500
        for i in range(0, len(ids), batch):
            chunk = ids[i : i + batch]
            self.backend.write_tx(lambda tx, chunk=chunk: delete_memories(tx, ns, chunk))


def _pages(
    items: list[Any], size: int, desc: str, deadline: float | None = None
) -> Iterator[list[Any]]:
    """``items`` in lists of ``size``, with a progress bar named ``desc`` (``progress``: a
    full pass of a large namespace; an incremental one visits ``maintain_batch``); none
    after the first once ``deadline`` has passed (a pass whose reads alone outlast its
    budget still moves on)."""
    with progress(len(items), desc) as bar:
        for i in range(0, len(items), size):
            if i and deadline is not None and time.perf_counter() >= deadline:
                return
            yield items[i : i + size]
            bar.update(min(size, len(items) - i))


def _first_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return rows[0] if rows else {}


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
