"""The engine's own vector and full-text indexes exist only while searches ask the engine
(graph_db.search.engine_indexes). With the read index on they would only cost every write,
and on ArcadeDB a rebuild of their vector graphs after each restart (over ten minutes of a
core at 900k memories). Asked later, they are made over what the store already holds."""

from __future__ import annotations

import json
import uuid

import pytest

from graph_db import LiquidGraph

ALL = {
    ("Episode", "embedding"),
    ("Fact", "embedding"),
    ("Entity", "embedding"),
    ("Episode", "terms"),
    ("Fact", "terms"),
}
TURNS = [
    "I adopted a grey cat called Miso last spring",
    "My sister Lena lives in Porto and teaches maths",
    "I am allergic to peanuts, so no satay for me",
    "The spare key used to be under the doormat",
]


def _search_indexes(g: LiquidGraph) -> set[tuple[str, str]]:
    """(label, property) of each vector or full-text index the engine has."""
    with g.backend.driver.session(database=g.backend.database) as session:
        rows = [r.data() for r in session.run("SHOW INDEXES")]
    return {
        (r["labelsOrTypes"][0], r["properties"][0])
        for r in rows
        if r["labelsOrTypes"] and r["properties"] and r["properties"][0] in ("embedding", "terms")
    }


def _recalled(g: LiquidGraph, ns: str, query: str) -> list[str]:
    return [r.memory.id for r in g.recall(ns, query, k=1, fire=False)]


@pytest.fixture
def settings(graph, tmp_path):
    """A store of its own on ArcadeDB; on Neo4j the session's database (its search indexes
    are made again whatever the test does: the session's graph may have asked for them).
    Vector searches go to the index however small the namespace's share."""
    s = graph.settings.model_copy(update={"home": tmp_path, "exact_search_max": 0})
    yield s
    graph.backend.ensure_schema(graph.embedder.dim, ("vectors", "fulltext"))


def test_searches_in_process_leave_the_engine_without_search_indexes_until_asked(
    settings, embedder
):
    ns = f"test-{uuid.uuid4().hex[:12]}"
    with LiquidGraph(settings, embedder=embedder) as g:
        g.backend.ensure_schema(embedder.dim, ("drop-vectors", "drop-fulltext"))
        ids = g.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
        g.add_fact(ns, "user", "lives_in", "Leeds")
        assert _recalled(g, ns, "grey cat Miso") == [ids[0]]
        assert g.search(ns, "spare key doormat", k=1)[0].memory.id == ids[3]
        assert _search_indexes(g) == set()

        kept = g.search_engine.index
        g.search_engine.index = None  # as with MAGS_READ_INDEX=false
        try:
            assert _recalled(g, ns, "grey cat Miso") == [ids[0]]
            assert g.search(ns, "peanuts allergy", k=1)[0].memory.id == ids[2]
        finally:
            g.search_engine.index = kept
        assert _search_indexes(g) == ALL


def test_a_store_from_before_schema_4_drops_the_search_indexes_nothing_asks(settings, embedder):
    with LiquidGraph(settings, embedder=embedder) as g:
        g.backend.ensure_schema(embedder.dim, ("vectors", "fulltext"))
        assert _search_indexes(g) == ALL
        meta = json.loads(g.backend.read("meta_get", key="schema")[0]["value"])
        g.backend.write("meta_put", key="schema", value=json.dumps({**meta, "version": 3}))

    engine_fulltext = settings.model_copy(update={"read_index_fulltext": False})
    with LiquidGraph(engine_fulltext, embedder=embedder) as g:
        assert _search_indexes(g) == {("Episode", "terms"), ("Fact", "terms")}
        assert json.loads(g.backend.read("meta_get", key="schema")[0]["value"])["version"] == 4

    with LiquidGraph(settings.model_copy(update={"read_index": False}), embedder=embedder) as g:
        assert _search_indexes(g) == ALL  # made at open: every search asks the engine
