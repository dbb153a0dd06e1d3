"""Concurrent writers lose nothing and keep the graph's invariants: threads on one
``LiquidGraph``, two graphs on one store, and a second process on the same home."""

from __future__ import annotations

import threading

from graph_db import LiquidGraph, clock
from graph_db.reconcile import Verdict
from tests.helpers.threads import all_at_once, assert_one_chain
from tests.helpers.workers import start_fact_writer


def test_eight_threads_writing_where_a_user_lives_leave_one_current_value(graph, ns):
    for r in range(3):
        all_at_once(
            8,
            lambda t, r=r: graph.add_facts(
                ns, [{"subject": "Maya", "predicate": "lives_in", "object": f"Town {r}-{t}"}]
            ),
        )
        assert_one_chain(graph, ns, "Maya", "lives_in", 8 * (r + 1))
    hits = graph.recall(ns, "where does Maya live?", k=20, blocks="semantic")
    assert sum(h.memory.properties.get("predicate") == "lives_in" for h in hits) == 1


def test_two_graphs_on_one_store_keep_one_current_value_and_every_lesson(graph, ns):
    """As two processes would: each graph has its own writer lock; the engine orders them."""
    other = LiquidGraph(graph.settings, embedder=graph.embedder)
    asked = threading.Lock()
    verdicts = []

    def judge(conflict):
        with asked:
            verdicts.append(conflict.new.object)
        return Verdict("new", "moved desks")

    try:
        graph.add_facts(ns, [{"subject": "Cy", "predicate": "sits_at", "object": "D0"}])
        all_at_once(
            6,
            lambda t: (graph if t % 2 else other).add_facts(
                ns,
                [{"subject": "Cy", "predicate": "sits_at", "object": f"D{t + 1}"}],
                adjudicator=judge,
            ),
        )
    finally:
        other.close()
    assert_one_chain(graph, ns, "Cy", "sits_at", 7)
    assert graph._engram.cardinality.kind(ns, "sits_at") == "functional"  # learned


def test_what_one_graph_declares_or_learns_the_other_sees_and_keeps(graph, ns):
    """Cardinality lives in the store, added to inside the writes: a second graph (another
    process) neither misses a declaration nor overwrites it, and no count is lost."""
    other = LiquidGraph(graph.settings, embedder=graph.embedder)
    try:
        assert other._engram.cardinality.kind(ns, "sits_at") == "unknown"
        graph.set_cardinality(ns, "sits_at", True)
        assert other._engram.cardinality.kind(ns, "sits_at") == "functional"
        lesson = [{"key": f"{ns}\nwears", "name": "wears", "replaced": 0, "kept_both": 1}]
        all_at_once(
            8,
            lambda t: (graph if t % 2 else other).backend.write(
                "predicates_learn", ns=ns, rows=lesson
            ),
        )
        assert graph._engram.cardinality.kind(ns, "sits_at") == "functional"
    finally:
        other.close()
    (row,) = graph.backend.read("predicates_get", ns=ns, keys=[{"key": f"{ns}\nwears"}])
    assert (row["replaced"], row["kept_both"]) == (0, 8)
    graph.forget_namespace(ns)
    assert graph._engram.cardinality.kind(ns, "sits_at") == "unknown"  # all forgotten
    assert graph._engram.cardinality.kind(ns, "wears") == "unknown"


def test_a_second_process_writing_the_same_fact_loses_nothing(graph, ns):
    child = start_fact_writer(graph, ns, "far", 8, 4)
    try:
        assert child.stdout.readline().strip() == "ready"
        child.stdin.write("go\n")
        child.stdin.flush()
        all_at_once(
            4,
            lambda t: [
                graph.add_facts(
                    ns, [{"subject": "Maya", "predicate": "lives_in", "object": f"near {t}-{i}"}]
                )
                for i in range(2)
            ],
        )
        assert child.stdout.readline().strip() == "done"
    finally:
        child.stdin.close()
        assert child.wait(timeout=120) == 0
    assert_one_chain(graph, ns, "Maya", "lives_in", 16)


def test_a_failed_co_firing_write_is_counted_not_raised_into_the_next_call(graph, ns, monkeypatch):
    graph.add_episodes(ns, ["red apples", "green apples", "apple pie"])
    plasticity = graph._plasticity
    failures = plasticity.failures
    real = plasticity.backend

    class Refusing:  # the background writer's view of the engine, refusing the trace
        def __getattr__(self, name):
            return getattr(real, name)

        def write_tx(self, work):
            raise RuntimeError("the engine refused the recall's trace")

    monkeypatch.setattr(plasticity, "backend", Refusing())
    assert graph.recall(ns, "apples", k=3)
    graph.flush()  # waits, does not raise
    assert plasticity.failures == failures + 1
    assert graph.add_episodes(ns, ["an unrelated write"])  # no earlier failure raised here


def test_recalls_close_together_leave_their_traces_in_one_transaction(graph, ns):
    """Each trace as it would be alone (every returned memory touched once a recall),
    one version of the namespace for all of them (a transaction's fixed cost once)."""
    ids = graph.add_episodes(ns, ["red apples", "green apples", "apple pie", "pear tart"])
    plasticity = graph._plasticity
    plasticity.settings = plasticity.settings.model_copy(update={"cofire_linger_ms": 60_000})
    graph.flush()
    version = graph.backend.read("namespace_version", ns=ns)[0]["version"]
    counts = {m.id: m.access_count or 0 for m in graph.get_many(ns, ids)}
    returned = [[r.id for r in graph.recall(ns, q, k=2)] for q in ("apples", "pie", "apples")]
    graph.flush()  # cuts the linger short
    assert graph.backend.read("namespace_version", ns=ns)[0]["version"] == version + 1
    for m in graph.get_many(ns, ids):
        assert (m.access_count or 0) == counts[m.id] + sum(m.id in r for r in returned)


def test_traces_written_together_leave_what_each_alone_would(graph, ns):
    """Several recalls' traces in one write (a pair fired again in it, a memory returned
    twice, one returned and later fired) leave the same weights, firing counts, access
    counts and times, and maintenance due times as each trace written on its own."""
    together, alone = ns, f"{ns}-alone"
    with clock.at(500.0):
        made = {n: graph.add_episodes(n, ["red apples", "green apples", "apple pie"]) for n in
                (together, alone)}  # fmt: skip
    plasticity = graph._plasticity
    traces = [(0, 1), (1, 2), (0, 1)]  # the anchors: (0, 1) fires twice...
    try:
        for n, linger in ((together, 60_000), (alone, 0)):
            plasticity.settings = graph.settings.model_copy(update={"cofire_linger_ms": linger})
            for t, order in enumerate(traces):
                anchors = [made[n][i] for i in order]
                with clock.at(1_000.0 + 60 * t):  # ... and memory 0 is returned twice
                    plasticity.after_recall(n, anchors, anchors[:1])
                if n == alone:
                    graph.flush()
            graph.flush()

        def left(n: str) -> tuple[list, list]:
            at = {mid: i for i, mid in enumerate(made[n])}
            edges = sorted(
                (sorted(at[e] for e in (x["a"], x["b"])), x["props"]["fired_count"],
                 x["props"]["w_at"], round(x["props"]["w"], 12))
                for x in graph.backend.read("export_edges", ns=n)
                if x["type"] == "ASSOC" and x["props"].get("fired_count")
            )  # fmt: skip
            props = {r["props"]["id"]: r["props"] for r in graph.backend.read("export_nodes", ns=n)}
            touched = [
                tuple(props[mid].get(k) for k in ("access_count", "last_access", "vitals_due",
                                                   "edges_at"))
                for mid in made[n]
            ]  # fmt: skip
            return edges, touched

        assert left(together) == left(alone)
        edges, touched = left(together)
        assert [(e[0], e[1], e[2]) for e in edges] == [([0, 1], 2, 1_120.0), ([1, 2], 1, 1_060.0)]
        # 1 was returned at 1,060 and fired at 1,120: due from the later
        assert touched == [(2, 1_120.0, 1_120.0, 1_120.0), (1, 1_060.0, 1_120.0, 1_120.0),
                           (0, 500.0, 1_060.0, 1_060.0)]  # fmt: skip
    finally:
        plasticity.settings = graph.settings
        graph.forget_namespace(alone)


def test_a_fact_changed_between_planning_and_writing_is_planned_again(graph, ns, monkeypatch):
    """A batch of facts is planned against the current facts read before its transaction; in
    it their ids and objects are read again. A current fact whose object another writer
    changed meanwhile is planned against as it is now: the new fact is not merged into it."""
    [old] = graph.add_facts(ns, [{"subject": "Maya", "predicate": "lives_in", "object": "Paris"}])
    write_tx, changed = graph.backend.write_tx, []

    def meanwhile(work):
        if not changed:  # the next transaction is the batch's, planned already
            changed.append(graph.update(ns, old.id, object="Lisbon"))
        return write_tx(work)

    monkeypatch.setattr(graph.backend, "write_tx", meanwhile)
    [new] = graph.add_facts(ns, [{"subject": "Maya", "predicate": "lives_in", "object": "Paris"}])
    assert changed and new.action == "created" and new.supersedes == [old.id]
    current = [m for m in graph.list(ns, blocks="semantic") if m.properties.get("valid_to") is None]
    assert [m.properties["object"] for m in current] == ["Paris"]
