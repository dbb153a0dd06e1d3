"""The k-core decomposition in the engine (Neo4j + Graph Data Science: gds.kcore.stream over a
projection of the namespace) against the Python peel, on real engines: same cores, same edge
count, the projection always dropped; the peel where GDS is absent (ArcadeDB) or not chosen."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from conftest import settings_for
from neo4j.exceptions import ClientError
from test_dynamics_cypher import _clear_assoc, _link

from graph_db import GraphSettings, InvalidInputError, LiquidGraph
from graph_db.errors import SettingsError
from graph_db.maintenance import Maintainer, core_numbers

PREFIX = "mags-kcore-"  # how MAGS names its projections


@pytest.fixture(scope="module")
def neo4j_graph(neo4j, home, embedder) -> Iterator[LiquidGraph]:
    """The session's Neo4j (with GDS), triadic closure off: a pass must not add edges
    between the decomposition and the checks."""
    g = LiquidGraph(settings_for("neo4j", home, triadic_min_common=10**6), embedder=embedder)
    yield g
    g.close()


@pytest.fixture(scope="module")
def arcadedb_graph(home, embedder) -> Iterator[LiquidGraph]:
    g = LiquidGraph(settings_for("arcadedb", home), embedder=embedder)
    yield g
    g.close()


def _run(g: LiquidGraph, query: str, **params) -> list[dict]:
    with g.backend.driver.session(database=g.backend.database) as s:
        return [r.data() for r in s.run(query, params)]


def _projections(g: LiquidGraph) -> list[str]:
    """MAGS's projections in the GDS catalog."""
    rows = _run(g, "CALL gds.graph.list() YIELD graphName RETURN graphName")
    return [r["graphName"] for r in rows if r["graphName"].startswith(PREFIX)]


def _with(g: LiquidGraph, **over) -> Maintainer:
    return Maintainer(g.backend, g.settings.model_copy(update=over))


def _designed_graph(g: LiquidGraph, ns: str) -> tuple[dict[str, int], int]:
    """Memories of ``ns`` (episodes and facts) in several cores, isolated ones, a random part,
    and a namespace beside it tied to some of them: (expected core of every memory of ``ns``,
    ASSOC edges of ``ns`` as the report counts them)."""
    names = [f"k5-{i}" for i in range(5)] + ["k4-e0", "k4-e1"] + [f"c5-{i}" for i in range(5)]
    names += ["hub"] + [f"leaf{i}" for i in range(3)] + [f"alone{i}" for i in range(3)]
    names += [f"rnd{i}" for i in range(30)]
    ids = dict(zip(names, g.add_episodes(ns, [f"memory {n}" for n in names]), strict=True))
    facts = [
        {"subject": "Ann", "predicate": "likes", "object": "green tea"},
        {"subject": "Bob", "predicate": "plays", "object": "the cello"},
    ]
    ids["k4-f0"], ids["k4-f1"] = (w.id for w in g.add_facts(ns, facts))
    _run(g, "MATCH (:Episode|Fact {ns: $ns})-[x:ASSOC]-() DELETE x", ns=ns)

    def clique(members: list[str]) -> list[tuple[str, str]]:
        return list(itertools.combinations(members, 2))

    k5 = clique([f"k5-{i}" for i in range(5)])  # core 4
    k4 = clique(["k4-e0", "k4-e1", "k4-f0", "k4-f1"])  # core 3, episodes and facts
    cycle = [(f"c5-{i}", f"c5-{(i + 1) % 5}") for i in range(5)]  # core 2
    star = [("hub", "k5-0")] + [("hub", f"leaf{i}") for i in range(3)]  # core 1
    bridges = [("k4-e0", "k5-1"), ("c5-0", "k4-f1")]  # change no core
    rng = random.Random(12)
    rnd = sorted({tuple(sorted(rng.sample(range(30), 2))) for _ in range(80)})
    rnd_pairs = [(f"rnd{a}", f"rnd{b}") for a, b in rnd]
    pairs = k5 + k4 + cycle + star + bridges + rnd_pairs
    _link(g, ns, [(ids[a], ids[b], 0.95, True) for a, b in pairs])
    # a pair stored in both directions (the writers never do it) counts once in a core
    leaf, hub = sorted((ids["leaf0"], ids["hub"]))
    _run(
        g,
        "MATCH (a:Episode {ns: $ns, id: $a}), (b:Episode {ns: $ns, id: $b}) "
        "CREATE (b)-[:ASSOC {w: 0.95, w_at: 0.0, fired_at: 0.0, permanent: true}]->(a)",
        ns=ns,
        a=leaf,
        b=hub,
    )
    # another namespace: a 6-clique, every member also tied (both ways) to the isolated
    # memories of ns
    other = f"{ns}-other"
    beside = g.add_episodes(other, [f"elsewhere {i}" for i in range(6)])
    _link(g, other, [(a, b, 0.95, True) for a, b in itertools.combinations(beside, 2)])
    _run(
        g,
        "MATCH (a:Episode {ns: $ns}), (b:Episode {ns: $other}) "
        "WHERE a.id IN $alone CREATE (a)-[:ASSOC {w: 0.95, permanent: true}]->(b), "
        "(b)-[:ASSOC {w: 0.95, permanent: true}]->(a)",
        ns=ns,
        other=other,
        alone=[ids[f"alone{i}"] for i in range(3)],
    )
    expected = {n: 4 for n in names if n.startswith("k5")}
    expected |= dict.fromkeys(["k4-e0", "k4-e1", "k4-f0", "k4-f1"], 3)
    expected |= {n: 2 for n in names if n.startswith("c5")}
    expected |= dict.fromkeys(["hub", "leaf0", "leaf1", "leaf2"], 1)
    expected |= {f"alone{i}": 0 for i in range(3)}
    expected |= core_numbers([f"rnd{i}" for i in range(30)], rnd_pairs)
    edges = len(pairs) + 1  # the reversed duplicate is an edge; the other namespace's are not
    return {ids[n]: core for n, core in expected.items()}, edges


def test_gds_cores_equal_the_python_peel_on_neo4j(neo4j_graph, ns):
    g = neo4j_graph
    expected, _ = _designed_graph(g, ns)
    assert _with(g, kcore_method="gds").kcore_in_engine() is True
    in_engine = _with(g, kcore_method="gds").kcore(ns)
    peeled = _with(g, kcore_method="peel").kcore(ns)
    assert in_engine == peeled == expected
    assert {0, 1, 2, 3, 4} <= set(in_engine.values())
    assert _projections(g) == []


def test_maintain_on_neo4j_decomposes_with_gds_and_the_forced_peel_agrees(neo4j_graph, ns):
    g = neo4j_graph
    expected, edges = _designed_graph(g, ns)
    histogram = dict(Counter(expected.values()))
    assert g.settings.kcore_method == "auto"
    via_gds = g.maintain(ns)
    assert (via_gds.kcore, via_gds.kcore_method) == (True, "gds")
    assert via_gds.cores == histogram
    assert via_gds.edges_before == edges
    stored = {r["id"]: r["core"] for r in g.backend.read("memory_cores", ns=ns)}
    assert stored == expected
    assert _projections(g) == []
    g.settings.kcore_method = "peel"  # as MAGS_KCORE_METHOD=peel
    try:
        peeled = g.maintain(ns, kcore=True)
    finally:
        g.settings.kcore_method = "auto"
    assert (peeled.kcore, peeled.kcore_method) == (True, "peel")
    assert peeled.cores == histogram
    assert peeled.edges_before == edges


def test_the_projection_is_dropped_when_the_stream_fails(neo4j_graph, ns):
    g = neo4j_graph
    g.add_episodes(ns, ["a first memory", "a second memory", "a third memory"])
    projected: list[str] = []
    (assoc,) = g.backend.read("assoc_count", ns=ns)
    projection = Maintainer(g.backend, g.settings).gds_projection(ns)
    with pytest.raises(ClientError, match="NoSuchLabel"), projection as (graph, edges):
        projected.append(graph)
        assert _projections(g) == [graph]
        assert edges == assoc["edges"]
        _run(  # a real GDS failure on the projection while it is held
            g,
            "CALL gds.kcore.stream($graph, {nodeLabels: ['NoSuchLabel']}) "
            "YIELD nodeId RETURN nodeId",
            graph=graph,
        )
    assert projected[0].startswith(PREFIX)
    assert _projections(g) == []


def test_each_engine_decomposes_where_it_can_and_the_peel_runs_on_both(graph, ns):
    """ArcadeDB always peels; Neo4j (with GDS here) decomposes in the engine unless the
    setting forces the peel. Same exact cores either way."""
    ids = dict(zip("abcdef", graph.add_episodes(ns, [f"memo {n}" for n in "abcdef"]), strict=True))
    _clear_assoc(graph, ns)
    a, b, c, d, e, f = ids.values()
    k4 = [(a, b), (a, c), (a, d), (b, c), (b, d), (c, d)]
    _link(graph, ns, [(x, y, 0.95, True) for x, y in k4] + [(a, e, 0.95, True)])  # not pruned
    auto, peel = _with(graph), _with(graph, kcore_method="peel")
    in_engine = {"neo4j": True, "arcadedb": False}[graph.backend.dialect.name]
    assert auto.kcore_in_engine() is in_engine
    assert peel.kcore_in_engine() is False
    expected = {a: 3, b: 3, c: 3, d: 3, e: 1, f: 0}
    assert auto.kcore(ns) == peel.kcore(ns) == expected
    report = peel.run(ns, kcore=True)
    assert (report.kcore_method, report.cores, report.edges_before) == (
        "peel",
        {3: 4, 1: 1, 0: 1},
        7,
    )


def test_gds_required_where_the_engine_has_none_is_an_error(arcadedb_graph, ns):
    arcadedb_graph.add_episodes(ns, ["one memory"])
    with pytest.raises(InvalidInputError, match="MAGS_KCORE_METHOD"):
        _with(arcadedb_graph, kcore_method="gds").kcore(ns)


def test_kcore_method_is_a_typed_setting(monkeypatch):
    monkeypatch.setenv("MAGS_KCORE_METHOD", "peel")
    assert GraphSettings().kcore_method == "peel"
    monkeypatch.setenv("MAGS_KCORE_METHOD", "cypher")
    with pytest.raises(SettingsError, match=r"MAGS_KCORE_METHOD .*'cypher'"):
        GraphSettings()
    monkeypatch.delenv("MAGS_KCORE_METHOD")
    assert GraphSettings().kcore_method == "auto"
