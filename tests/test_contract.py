"""The store's contract, run on every backend (embedded ArcadeDB; Neo4j when configured)."""

from __future__ import annotations

import numpy as np
import pytest

from graph_db import EpisodeIn, FactIn, InvalidInputError, LiquidGraph, NotFoundError


@pytest.fixture(autouse=True, params=["read-index", "engine-reads"])
def reads(request, graph):
    """Each contract test twice: searches answered by the in-process read index, and by
    the engine's indexes (MAGS_READ_INDEX=false)."""
    kept = graph.search_engine.index
    if request.param == "engine-reads":
        graph.search_engine.index = None
    yield
    graph.search_engine.index = kept


def _edges(graph, ns):
    return {t: v["count"] for t, v in graph.stats(ns)["edges"].items()}


def _session_order(graph, ns, session):
    """Follow NEXT from the episode with no predecessor: the chain as stored."""
    rows = graph.backend.read("export_edges", ns=ns)
    nxt = {r["a"]: r["b"] for r in rows if r["type"] == "NEXT"}
    eps = [
        m for m in graph.list(ns, "episodic", limit=1000) if m.properties["session_id"] == session
    ]
    ids = {m.id for m in eps}
    heads = ids - set(nxt.values())
    assert len(heads) == 1, f"session {session} is not one chain: heads={heads}"
    order, cur = [], heads.pop()
    while cur is not None:
        order.append(cur)
        cur = nxt.get(cur)
    return order


def test_episodes_round_trip_with_their_fields(graph, ns):
    ids = graph.add_episodes(
        ns,
        [
            EpisodeIn(text="I moved to Berlin.", speaker="Alice", session_id="s1", ts=100.0),
            {"text": "Nice!", "speaker": "Bob", "session_id": "s1", "ts": 101.0},
        ],
    )
    got = graph.get(ns, ids[0], with_embedding=True)
    assert got.text == "I moved to Berlin."
    assert got.block == "episodic"
    assert got.properties["speaker"] == "Alice"
    assert got.properties["ts"] == 100.0
    assert len(got.embedding) == graph.embedder.dim
    assert np.linalg.norm(got.embedding) == pytest.approx(1.0, abs=1e-3)
    assert [m.id for m in graph.get_many(ns, [ids[1], "nope", ids[0]])] == [ids[1], ids[0]]


def test_every_property_the_write_path_builds_is_stored(graph, ns):
    """episodes_create and facts_create name the rows' keys in their CREATE maps: a key the
    write path adds to its rows and not there would be dropped silently. The rows are taken
    as the write path sent them (the backend's commit listeners are handed them)."""
    sent: dict[str, list[dict]] = {"episodes_create": [], "facts_create": []}

    def listen(commit):
        for name, params in commit.writes:
            if name in sent and params["ns"] == ns:
                sent[name] += params["rows"]

    graph.backend.on_commit.append(listen)
    try:
        (ep,) = graph.add_episodes(
            ns,
            [
                EpisodeIn(
                    text="Did I move to Lisbon?",
                    speaker="Ana",
                    session_id="s1",
                    ts=100.0,
                    salience=0.7,
                    permanent=True,
                    metadata={"mood": "happy"},
                )
            ],
        )
        fact = {"subject": "Ana", "predicate": "lives_in", "source_episode_id": ep}
        graph.add_facts(ns, [{**fact, "object": "Lisbon", "valid_from": 200.0}])
        # older than the current value: kept as history, so its row has a valid_to
        rejected = graph.add_facts(
            ns, [{**fact, "object": "Porto", "valid_from": 100.0, "metadata": {"n": 1}}]
        )
    finally:
        graph.backend.on_commit.remove(listen)
    assert rejected[0].action == "rejected"
    assert [len(rows) for rows in sent.values()] == [1, 2]
    stored = {r["props"]["id"]: r["props"] for r in graph.backend.read("export_nodes", ns=ns)}
    for name, rows in sent.items():
        given = {k for row in rows for k, v in row.items() if v is not None}
        assert given == set().union(*rows), f"{name}: give every key a value in this test"
        for row in rows:
            props = stored[row["id"]]
            lost = {k for k, v in row.items() if v is not None and k not in props}
            assert not lost, f"{name} drops {sorted(lost)} of its rows"
            for k, v in row.items():
                want = pytest.approx(v) if k == "embedding" else v
                assert props.get(k) == want, f"{name} stores {k} as {props.get(k)!r}, not {v!r}"


def test_next_links_follow_event_time_even_when_written_out_of_order(graph, ns):
    a, c = graph.add_episodes(
        ns,
        [
            {"text": "first", "session_id": "s", "ts": 1},
            {"text": "third", "session_id": "s", "ts": 3},
        ],
    )
    (b,) = graph.add_episodes(ns, [{"text": "second", "session_id": "s", "ts": 2}])
    (d,) = graph.add_episodes(ns, [{"text": "fourth", "session_id": "s", "ts": 4}])
    graph.add_episodes(ns, [{"text": "other session", "session_id": "t", "ts": 2.5}])
    assert _session_order(graph, ns, "s") == [a, b, c, d]
    assert _edges(graph, ns)["NEXT"] == 3


def test_entities_are_merged_by_normalised_name_and_linked(graph, ns):
    graph.add_episodes(
        ns,
        [
            {"text": "Berlin is big", "speaker": "Alice", "entities": ["Berlin"]},
            {"text": "I love berlin", "speaker": "alice", "entities": ["BERLIN "]},
        ],
    )
    assert graph.stats(ns)["nodes"]["Entity"] == 2  # alice, berlin
    assert _edges(graph, ns)["MENTIONS"] == 4


def test_new_memories_get_gat_style_assoc_edges(graph, ns):
    graph.add_episodes(
        ns, ["My cat Luna is sick.", "Luna the cat has a fever.", "Stock prices fell."]
    )
    edges = [e for e in graph.backend.read("export_edges", ns=ns) if e["type"] == "ASSOC"]
    assert edges, "similar memories must be linked"
    s = graph.settings
    for e in edges:
        assert 0 < e["props"]["w"] <= s.assoc_w0
        assert e["props"]["fired_count"] == 0 and e["props"]["permanent"] is False
    texts = {m.id: m.text for m in graph.list(ns)}
    pairs = {frozenset((texts[e["a"]], texts[e["b"]])) for e in edges}
    assert frozenset(("My cat Luna is sick.", "Luna the cat has a fever.")) in pairs
    assert not any("Stock prices fell." in p for p in pairs)


def test_a_batch_links_as_if_written_one_by_one_on_either_engine(graph, ns):
    """Each new memory's neighbours are the stored memories and the batch's earlier items,
    never itself or a later item (ArcadeDB's index sees the open transaction's writes)."""
    one = LiquidGraph(graph.settings.model_copy(update={"assoc_neighbours": 1}),
                      embedder=graph.embedder)  # fmt: skip
    try:
        one.add_episodes(ns, ["My cat Luna is sick."])
        one.add_episodes(ns, ["Luna the cat has a fever.", "Luna the cat has a high fever."])
        sick = {"subject": "Luna", "predicate": "is", "object": "a sick cat"}
        one.add_facts(ns, [sick, {"subject": "Luna", "predicate": "has", "object": "a fever"}])
        texts = {m.id: m.text for m in one.list(ns)}
        pairs = {
            frozenset((texts[e["a"]], texts[e["b"]]))
            for e in one.backend.read("export_edges", ns=ns)
            if e["type"] == "ASSOC"
        }
    finally:
        one.close()
    assert frozenset(("Luna the cat has a fever.", "My cat Luna is sick.")) in pairs
    assert frozenset(("Luna the cat has a high fever.", "Luna the cat has a fever.")) in pairs
    assert len(pairs) == 4  # one edge per new memory: 2 episodes, 2 facts


def test_facts_merge_near_duplicates_and_link_their_source(graph, ns):
    (ep,) = graph.add_episodes(ns, [{"text": "I live in Berlin", "speaker": "Alice"}])
    first = graph.add_facts(
        ns,
        [
            FactIn(
                subject="Alice",
                predicate="Lives in",
                object="Berlin",
                confidence=0.6,
                source_episode_id=ep,
            )
        ],
    )
    again = graph.add_facts(
        ns, [{"subject": "alice", "predicate": "lives_in", "object": "berlin", "confidence": 0.5}]
    )
    assert first[0].action == "created" and again[0].action == "merged"
    assert again[0].id == first[0].id
    fact = graph.get(ns, first[0].id)
    assert fact.block == "semantic"
    assert fact.properties["predicate"] == "lives_in"
    assert fact.text == "Alice lives in Berlin"
    assert fact.properties["confidence"] == pytest.approx(1 - 0.4 * 0.5)
    edges = _edges(graph, ns)
    assert edges["DERIVED_FROM"] == 1 and edges["ABOUT"] == 2
    other = graph.add_facts(ns, [{"subject": "Alice", "predicate": "likes", "object": "jazz"}])
    assert other[0].action == "created"


def test_a_batch_is_all_or_nothing(graph, ns):
    graph.add_episodes(ns, ["keep me"])
    before = graph.stats(ns)
    with pytest.raises(NotFoundError):
        graph.add_facts(
            ns,
            [
                {"subject": "a", "predicate": "p", "object": "b"},
                {"subject": "c", "predicate": "p", "object": "d", "source_episode_id": "missing"},
            ],
        )
    assert graph.stats(ns) == before


def test_search_modes_find_the_right_memory(graph, ns):
    graph.add_episodes(
        ns,
        ["I adopted a cat named Luna", "We went hiking in the Alps", "My sister works as a nurse"],
    )
    graph.add_facts(ns, [{"subject": "Alice", "predicate": "owns", "object": "a cat named Luna"}])
    for mode in ("vector", "hybrid"):
        hits = graph.search(ns, "What pet does she have?", k=2, blocks="episodic", mode=mode)
        assert hits[0].memory.text == "I adopted a cat named Luna"
    hits = graph.search(ns, "Alps", k=3, mode="fulltext")
    assert [h.memory.text for h in hits] == ["We went hiking in the Alps"]
    sem = graph.search(ns, "pet cat", k=5, blocks="semantic")
    assert {h.memory.block for h in sem} == {"semantic"}
    assert sem[0].similarity is not None and -1 <= sem[0].similarity <= 1


def test_update_re_embeds_and_refuses_unknown_fields(graph, ns):
    (eid,) = graph.add_episodes(ns, ["I like tea"])
    old = graph.get(ns, eid, with_embedding=True).embedding
    graph.update(ns, eid, text="I like coffee", metadata={"edited": True})
    new = graph.get(ns, eid, with_embedding=True)
    assert new.text == "I like coffee" and new.metadata == {"edited": True}
    assert not np.allclose(old, new.embedding)
    with pytest.raises(InvalidInputError, match="cannot update"):
        graph.update(ns, eid, ns="someone-else")
    fid = graph.add_fact(ns, "Bob", "lives_in", "Paris")
    assert graph.update(ns, fid, object="Rome").text == "Bob lives in Rome"


def test_delete_leaves_no_orphans_and_bridges_the_session(graph, ns):
    a, b, c = graph.add_episodes(
        ns,
        [
            {"text": "one", "ts": 1, "entities": ["Zed"]},
            {"text": "two", "ts": 2, "entities": ["Zed", "Yan"]},
            {"text": "three", "ts": 3},
        ],
    )
    graph.delete(ns, b)
    assert _session_order(graph, ns, "default") == [a, c]
    assert graph.stats(ns)["nodes"]["Entity"] == 1  # Yan was only in b
    graph.delete(ns, a)
    graph.delete(ns, c)
    stats = graph.stats(ns)
    assert stats["nodes"] == {"Episode": 0, "Fact": 0, "Entity": 0}
    assert stats["edges"] == {}
    with pytest.raises(NotFoundError):
        graph.delete(ns, a)


def test_forget_cascades_to_facts_learned_only_from_that_turn(graph, ns):
    e1, e2 = graph.add_episodes(ns, ["I live in Oslo", "Still in Oslo, yes"])
    only = graph.add_fact(ns, "me", "lives_in", "Oslo", source_episode_id=e1)
    both = graph.add_fact(ns, "me", "likes", "fjords", source_episode_id=e1)
    graph.add_facts(
        ns, [{"subject": "me", "predicate": "likes", "object": "fjords", "source_episode_id": e2}]
    )
    deleted = graph.forget(ns, e1)
    assert set(deleted) == {e1, only}
    assert graph.get(ns, both).properties["object"] == "fjords"


def test_list_namespaces_and_forget_namespace(graph, ns):
    graph.add_episodes(ns, ["a", "b", "c"])
    assert len(graph.list(ns, limit=2)) == 2
    assert len(graph.list(ns, limit=10, offset=2)) == 1
    assert ns in graph.namespaces(prefix="test-")
    assert graph.forget_namespace(ns) >= 4
    assert ns not in graph.namespaces(prefix="test-")


def test_ingest_writes_batch_by_batch_and_keeps_the_session_chain(graph, ns):
    turns = [{"text": f"turn number {i}", "session_id": "long", "ts": float(i)} for i in range(25)]
    ids = graph.ingest(ns, turns, batch_size=10)
    assert len(ids) == 25 and graph.stats(ns)["nodes"]["Episode"] == 25
    assert _session_order(graph, ns, "long") == ids
    bad = [{"text": "fine"}] * 10 + [{"text": ""}] + [{"text": "never written"}] * 5
    with pytest.raises(InvalidInputError, match="empty"):
        graph.ingest(ns, bad, batch_size=10)
    assert graph.stats(ns)["nodes"]["Episode"] == 35  # the batch before the bad one


def test_facts_that_differ_in_a_number_are_not_merged(graph, ns):
    first = graph.add_facts(ns, [{"subject": "Alice", "predicate": "pin_is", "object": "4711"}])
    second = graph.add_facts(
        ns,
        [
            {"subject": "Alice", "predicate": "pin_is", "object": "1234"},
            {"subject": "Alice", "predicate": "pin_is", "object": "4711 "},
        ],
    )
    assert second[0].action == "created" and second[0].id != first[0].id
    assert second[1].action == "merged" and second[1].id == first[0].id
