"""The dynamics queries of the Cypher library on a small hand-made graph, exact numbers.

(Their Python API, schedules and benchmarks belong to graph_db's dynamics layer.)
"""

from __future__ import annotations

import json
import math
import re
import time

import pytest

from graph_db import cypher, maintenance

BOOKKEEPING = ("id", "created_at", "vitals_due", "expire_at", "edges_at", "protected")


def _stored_many(graph, ns: str, ids: list[str]) -> dict[str, dict]:
    """Memories' bookkeeping as stored (the API hides it), by id, in one read."""
    rows = graph.backend.read("memory_get", ns=ns, ids=ids, fields=BOOKKEEPING)
    return {r["values"][0]: dict(zip(BOOKKEEPING, r["values"], strict=True)) for r in rows}


def _stored(graph, ns: str, memory_id: str) -> dict:
    """A memory's bookkeeping as stored."""
    return _stored_many(graph, ns, [memory_id])[memory_id]


def _episodes(graph, ns, names):
    return dict(zip(names, graph.add_episodes(ns, [f"memory {n}" for n in names]), strict=True))


def _clear_assoc(graph, ns):
    with graph.backend.driver.session(database=graph.backend.database) as s:
        s.run("MATCH (a:Episode {ns: $ns})-[x:ASSOC]-() DELETE x", ns=ns).consume()


def _link(graph, ns, pairs):
    rows = [
        {
            "a": a,
            "b": b,
            "props": {"w": w, "w_at": 0.0, "fired_at": 0.0, "fired_count": 0, "permanent": p},
        }
        for a, b, w, p in pairs
    ]
    graph.backend.write("link_assoc", ns=ns, rows=rows)


def _weights(graph, ns):
    """ASSOC edges by their (unordered) pair of ends."""
    return {
        frozenset((e["a"], e["b"])): e["props"]
        for e in graph.backend.read("export_edges", ns=ns)
        if e["type"] == "ASSOC"
    }


def test_two_reinforcements_and_a_decay_give_the_expected_weight(graph, ns):
    ids = _episodes(graph, ns, "ab")
    _clear_assoc(graph, ns)
    a, b = sorted(ids.values())
    _link(graph, ns, [(a, b, 0.5, False)])
    args = {
        "ns": ns,
        "eta": 0.5,
        "decay": 0.01,
        "hold": 0.0,
        "w_perm": 0.95,
        "w_min": 0.02,
    }
    graph.backend.write("hebbian_update", rows=[{"a": a, "b": b, "u": 1.0, "now": 10.0}], **args)
    w1 = 0.5 * math.exp(-0.1)
    w1 += 0.5 * (1 - w1)
    (row,) = graph.backend.write(
        "hebbian_update", rows=[{"a": a, "b": b, "u": 1.0, "now": 20.0}], **args
    )
    w2 = w1 * math.exp(-0.1)
    w2 += 0.5 * (1 - w2)
    assert row["w"] == pytest.approx(w2) and row["permanent"] is False
    edge = _weights(graph, ns)[frozenset((a, b))]
    assert edge["fired_count"] == 2 and edge["w_at"] == 20.0
    # decay is lazy: the prune computes when the edge falls under w_min and leaves it till then
    prune = {"ns": ns, "ids": [a], "decay": 0.01, "hold": 0.0, "w_min": 0.1}
    dies = 20.0 + math.log(w2 / 0.1) / 0.01
    (row,) = graph.backend.write("edges_prune", now=30.0, **prune)
    assert row == {"checked": 1, "pruned": 0, "dead_pairs": [[]]}
    assert _stored(graph, ns, a)["expire_at"] == pytest.approx(dies)
    (row,) = graph.backend.write("edges_prune", now=dies - 1.0, **prune)
    assert row["pruned"] == 0  # (deleted just after: test_prune_deletes_weak_edges...)
    reversed_pair = {**args, "rows": [{"a": b, "b": a, "u": 1.0, "now": 30.0}], "w_perm": 0.8}
    (row,) = graph.backend.write("hebbian_update", **reversed_pair)
    assert row["permanent"] is True
    assert list(_weights(graph, ns)) == [frozenset((a, b))], "one edge per pair, in any order"


def test_co_fired_memories_without_an_edge_get_one(graph, ns):
    ids = _episodes(graph, ns, "xy")
    _clear_assoc(graph, ns)
    x, y = sorted(ids.values())
    with graph.backend.driver.session(database=graph.backend.database) as s:
        s.run("MATCH (m:Episode {ns: $ns}) SET m.expire_at = null", ns=ns).consume()
    (row,) = graph.backend.write(
        "hebbian_update",
        ns=ns,
        eta=0.3,
        decay=0.01,
        hold=2.0,
        w_perm=0.95,
        w_min=0.02,
        rows=[{"a": x, "b": y, "u": 1.0, "now": 5.0}],
    )
    assert row["w"] == pytest.approx(0.3)
    # the writer keeps the source's expiry bound: held 2 s, then 0.3 e^(-0.01 t) hits 0.02
    expire_at = _stored(graph, ns, x)["expire_at"]
    assert expire_at == pytest.approx(5.0 + 2.0 + math.log(0.3 / 0.02) / 0.01)
    assert _stored(graph, ns, y)["edges_at"] == 5.0


def test_rows_of_one_statement_leave_the_graph_as_the_rows_one_by_one_would(graph, ns):
    """A recall's traces go in one hebbian_update statement, each row as it would be alone
    (graph_db/plasticity.py): the same rows in one statement and one statement each leave the
    same edges and memories (each its last firing's time; as a source, its earliest expiry)."""
    args = {"eta": 0.4, "decay": 0.01, "hold": 1.0, "w_perm": 0.95, "w_min": 0.02}
    spaces = {side: f"{ns}-{side.replace(' ', '-')}" for side in ("together", "one by one")}
    left = {}
    for side, space in spaces.items():
        ids = _episodes(graph, space, "abcd")
        _clear_assoc(graph, space)
        a, b, c, d = rank = sorted(ids.values())  # named by rank: the edges run low to high
        name = dict(zip(rank, "abcd", strict=True))
        _link(graph, space, [(a, b, 0.9, False), (a, c, 0.05, False)])
        with graph.backend.driver.session(database=graph.backend.database) as s:
            s.run("MATCH (m:Episode {ns: $ns}) SET m.expire_at = null", ns=space).consume()
        rows = [
            {"a": a, "b": b, "u": 1.0, "now": 5.0},
            {"a": c, "b": a, "u": 0.5, "now": 6.0},
            {"a": b, "b": d, "u": 1.0, "now": 7.0},
            {"a": a, "b": d, "u": 0.2, "now": 8.0},
        ]
        if side == "together":
            out = graph.backend.write("hebbian_update", ns=space, rows=rows, **args)
        else:
            write = graph.backend.write
            out = [r for row in rows for r in write("hebbian_update", ns=space, rows=[row], **args)]
        stored = _stored_many(graph, space, rank)
        left[side] = (
            [{**r, "a": name[r["a"]], "b": name[r["b"]]} for r in out],
            {
                name[m]: {k: stored[m][k] for k in ("vitals_due", "edges_at", "expire_at")}
                for m in rank
            },
            {frozenset(map(name.get, pair)): e for pair, e in _weights(graph, space).items()},
        )
    for space in spaces.values():
        graph.forget_namespace(space)
    assert left["together"] == left["one by one"]
    returned, memories, edges = left["together"]
    assert [(r["a"], r["b"]) for r in returned] == [("a", "b"), ("c", "a"), ("b", "d"), ("a", "d")]
    assert {m: v["vitals_due"] for m, v in memories.items()} == {
        "a": 8.0,
        "b": 7.0,
        "c": 6.0,
        "d": 8.0,
    }
    assert memories["a"]["expire_at"] is not None and memories["d"]["expire_at"] is None
    assert edges[frozenset("ab")]["fired_count"] == 1 and len(edges) == 4


def test_prune_deletes_weak_edges_but_never_permanent_ones(graph, ns):
    ids = _episodes(graph, ns, "abcd")
    _clear_assoc(graph, ns)
    a, b, c, d = (ids[n] for n in "abcd")
    _link(graph, ns, [(a, b, 0.05, False), (c, d, 0.05, True), (a, c, 0.5, False)])
    prune = {"ns": ns, "ids": [a, b, c, d], "decay": 0.01, "hold": 0.0, "w_min": 0.1}
    (row,) = graph.backend.write("edges_prune", now=0.0, **prune)
    assert row["pruned"] == 1 and row["checked"] == 2  # the permanent edge is not touched
    assert set(_weights(graph, ns)) == {frozenset((c, d)), frozenset((a, c))}
    # decayed under w_min by t=300: 0.5 * e^-3 = 0.025
    source = min(a, c)  # an edge is stored from its smaller id: its expiry is kept there
    assert _stored(graph, ns, source)["expire_at"] == pytest.approx(math.log(5) / 0.01)
    graph.backend.write("edges_prune", now=300.0, **prune)
    assert set(_weights(graph, ns)) == {frozenset((c, d))}
    assert _stored(graph, ns, source).get("expire_at") is None  # no edge left to expire


SET_PROPS = {  # a label's memories by id, given properties (the tests' own due times)
    "Episode": "UNWIND $rows AS r MATCH (m:Episode {id: r.id}) WHERE m.ns = $ns SET m += r.props",
    "Fact": "UNWIND $rows AS r MATCH (m:Fact {id: r.id}) WHERE m.ns = $ns SET m += r.props",
}


def _set(graph, ns, label, prop, values):
    with graph.backend.driver.session(database=graph.backend.database) as s:
        rows = [{"id": m, "props": {prop: v}} for m, v in values.items()]
        s.run(SET_PROPS[label], ns=ns, rows=rows).consume()


def test_memories_made_due_together_each_keep_a_due_time_of_their_own(graph, ns):
    """New memories, new cores and pruned edges make memories due without putting them on
    one shared time: a memory already due keeps its time, one due later gets its creation
    time. (A time shared by a namespace's memories is one key with all of them under it in
    the range index, and ArcadeDB removes an entry in a time that grows with the entries under
    its key: a first maintenance pass at 1M memories had not finished after half an hour.)"""
    made = [graph.add_episodes(ns, [f"memory {n}"])[0] for n in "abcd"]  # four writes
    _clear_assoc(graph, ns)
    created = {m: _stored(graph, ns, m)["created_at"] for m in made}
    assert len(set(created.values())) == 4
    assert {m: _stored(graph, ns, m)["vitals_due"] for m in made} == created  # due at once
    a, b, c, d = made
    now = max(created.values()) + 100.0
    _set(graph, ns, "Episode", "vitals_due", {a: now + 1000.0, b: now + 1000.0, c: now - 50.0})
    graph.backend.write(
        "memory_cores_set", ns=ns, rows=[{"id": m, "core": 2} for m in made], now=now
    )
    due = {m: _stored(graph, ns, m)["vitals_due"] for m in made}
    assert due == {a: created[a], b: created[b], c: now - 50.0, d: created[d]}

    _link(graph, ns, [(a, b, 0.05, False)])  # w_at 0: under w_min at once
    _set(graph, ns, "Episode", "vitals_due", {a: now + 1000.0, b: now - 70.0})
    prune = {"ids": [a, b], "decay": 0.01, "hold": 0.0, "w_min": 0.1}
    (row,) = graph.backend.write("edges_prune", ns=ns, now=now, **prune)
    assert row["pruned"] == 1
    assert _stored(graph, ns, a)["vitals_due"] == created[a]
    assert _stored(graph, ns, b)["vitals_due"] == now - 70.0

    # a new link: the edge's time
    _set(graph, ns, "Episode", "vitals_due", {c: now + 1000.0, d: now - 30.0})
    graph.backend.write("link_assoc", ns=ns, rows=[{"a": c, "b": d, "props": {"created_at": now}}])
    assert (_stored(graph, ns, c)["vitals_due"], _stored(graph, ns, d)["vitals_due"]) == (
        now,
        now - 30.0,
    )


def test_kcore_of_the_stored_graph_gives_the_exact_core_numbers(graph, ns):
    from graph_db.maintenance import Maintainer

    ids = _episodes(graph, ns, "abcdef")
    _clear_assoc(graph, ns)
    a, b, c, d, e, f = (ids[n] for n in "abcdef")
    # a-b-c-d is a 4-clique: K4 (core 3); e hangs on a (core 1); f is alone (core 0)
    k4 = [(a, b), (a, c), (a, d), (b, c), (b, d), (c, d)]
    _link(graph, ns, [(x, y, 0.5, False) for x, y in k4] + [(a, e, 0.5, False)])
    cores = Maintainer(graph.backend, graph.settings).kcore(ns)
    assert cores == {a: 3, b: 3, c: 3, d: 3, e: 1, f: 0}


def test_core_numbers_of_a_chain_of_triangles_and_a_star():
    from graph_db.maintenance import core_numbers

    triangles = [("t1", "t2"), ("t2", "t3"), ("t3", "t1"), ("t3", "t4"), ("t4", "t5"), ("t5", "t3")]
    star = [("hub", f"leaf{i}") for i in range(5)]
    nodes = sorted({n for pair in triangles + star for n in pair} | {"alone"})
    cores = core_numbers(nodes, triangles + star + [("t1", "t1"), ("ghost", "t1")])
    assert {n: cores[n] for n in ("t1", "t2", "t3", "t4", "t5")} == dict.fromkeys(
        ("t1", "t2", "t3", "t4", "t5"), 2
    )
    assert cores["hub"] == 1 and cores["leaf0"] == 1 and cores["alone"] == 0
    assert "ghost" not in cores  # edges to unknown nodes are ignored


DUE_FORMS = [("due_for_vitals", "vitals_due"), ("due_for_prune", "expire_at")]


@pytest.mark.parametrize(("name", "prop"), DUE_FORMS)
def test_due_memories_found_through_the_namespace_are_those_of_the_range(graph, ns, name, prop):
    """The two forms of a due lookup (the store's due range, then the namespace; the
    namespace's memories, then their due time) give the same memories, of ``ns`` only."""
    now = 1_000_000.0
    other = f"{ns}-other"
    theirs = graph.add_episodes(other, ["their turn one", "their turn two"])
    _set(graph, other, "Episode", prop, dict.fromkeys(theirs, now - 500.0))
    a, b, c = graph.add_episodes(ns, ["turn a", "turn b", "turn c"])
    fact = graph.add_fact(ns, "Ann", "likes", "tea")
    _set(graph, ns, "Episode", prop, {a: now - 10.0, b: now + 1000.0, c: now})
    _set(graph, ns, "Fact", prop, {fact: now - 1.0})
    found = {
        form: {r["id"] for r in graph.backend.read(form, ns=ns, now=now, limit=50)}
        for form in (name, f"{name}_by_ns")
    }
    assert found == {name: {a, c, fact}, f"{name}_by_ns": {a, c, fact}}
    for form in (name, f"{name}_by_ns"):  # at most $limit a label, the turns first
        one = [r["id"] for r in graph.backend.read(form, ns=ns, now=now, limit=1)]
        assert len(one) == 2 and one[0] in {a, c} and one[1] == fact
    # a pass takes at most maintain_batch of them, through either form (memories counted)
    batch = maintenance.Maintainer(
        graph.backend, graph.settings.model_copy(update={"maintain_batch": 1})
    )
    for counted in (None, 4):
        due = batch._due(ns, name, now, counted)
        assert due[0] in {a, c}
        assert len(due) == 1


def test_a_small_namespace_finds_its_due_memories_among_its_own(graph, ns, monkeypatch):
    """A pass counts the namespace's memories when it reads them all (a full or k-core
    pass); later passes of a namespace counted small look among its own memories, not
    through the store's due range (which every namespace's due memories share)."""
    graph.add_episodes(ns, ["a first turn", "a second turn", "a third turn"])
    graph.add_fact(ns, "Ann", "likes", "tea")
    now = time.time() + 60  # (within the grace period: nothing is forgotten)
    graph.maintain(ns, now=now)  # the first pass: full
    (state,) = graph.backend.read("namespace_maintenance", ns=ns)
    assert state["memories"] == 4
    asked: list[str] = []
    read = graph.backend.read

    def spy(name, **params):
        asked.append(name)
        return read(name, **params)

    monkeypatch.setattr(graph.backend, "read", spy)
    graph.maintain(ns, now=now + 60, kcore=False)
    monkeypatch.setattr(maintenance, "DUE_BY_NS_UP_TO", 3)
    graph.maintain(ns, now=now + 120, kcore=False)
    due = [name for name in asked if name.startswith("due_for")]
    assert due == [
        "due_for_prune_by_ns",
        "due_for_vitals_by_ns",
        "due_for_prune",
        "due_for_vitals",
    ]


@pytest.mark.parametrize(("name", "prop"), DUE_FORMS)
def test_a_namespace_due_lookup_seeks_its_own_memories(graph, ns, name, prop):
    """The namespace's form seeks the namespace's memories by index: on ArcadeDB its
    namespace index (its Cypher seeks a composite index by equality only), on Neo4j an index
    on the namespace, the composite (ns, due time) where its statistics say so, for the
    range form too."""
    graph.add_episodes(ns, ["a first turn", "a second turn"])
    graph.add_fact(ns, "Ann", "likes", "tea")
    arcadedb = graph.backend.dialect.name == "arcadedb"
    # the label and the first property of each index sought
    seek = r"index=(\w+)\[(\w+)" if arcadedb else r"RANGE INDEX \w+:(\w+)\(([\w, ]+)\)"
    seeks = {}  # the whole query explained: a range inside a CALL () { } was not sought
    with graph.backend.driver.session(database=graph.backend.database) as session:
        for form in (name, f"{name}_by_ns"):
            params = {"ns": ns, "now": 1.0, "limit": 10}
            query = cypher.query(form, graph.backend.dialect.name)
            plan = json.dumps(session.run("EXPLAIN " + query, params).consume().plan)
            seeks[form] = sorted(
                {(label, on.split(",")[0]) for label, on in re.findall(seek, plan)}
            )
    if arcadedb:  # (Fact's may be its (ns, subject_key, predicate) index: by ns too)
        assert seeks == {
            name: [("Episode", prop), ("Fact", prop)],
            f"{name}_by_ns": [("Episode", "ns"), ("Fact", "ns")],
        }
    else:  # by its statistics, (ns, due time) or (ns): never the store's due range
        both = [("Episode", "ns"), ("Fact", "ns")]
        assert seeks == {name: both, f"{name}_by_ns": both}
