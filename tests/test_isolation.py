"""One user never sees another's memories, through any API; no tenant starves another."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from graph_db import NotFoundError, UnknownNamespaceError, search


def test_memories_of_a_never_come_back_for_b(graph):
    a, b = f"iso-a-{uuid.uuid4().hex[:8]}", f"iso-b-{uuid.uuid4().hex[:8]}"
    a_ids = graph.add_episodes(
        a,
        ["Alice's secret: the safe code is 4711"],
    )
    a_fact = graph.add_fact(a, "Alice", "safe_code", "4711")
    graph.add_episodes(b, ["Bob likes football"])
    seen = set()
    for mode in ("vector", "fulltext", "hybrid"):
        for blocks in ("episodic", "semantic", "both"):
            seen |= {
                h.memory.id
                for h in graph.search(b, "safe code 4711", k=50, blocks=blocks, mode=mode)
            }
    seen |= {m.id for m in graph.list(b, limit=1000)}
    seen |= {m.id for m in graph.get_many(b, [*a_ids, a_fact])}
    assert seen.isdisjoint({*a_ids, a_fact})
    for mid in (*a_ids, a_fact):
        with pytest.raises(NotFoundError):
            graph.get(b, mid)
        with pytest.raises(NotFoundError):
            graph.delete(b, mid)
        with pytest.raises(NotFoundError):
            graph.update(b, mid, importance=0.0)
    assert graph.get(a, a_ids[0]).text.startswith("Alice's secret")
    assert graph.stats(b)["nodes"]["Episode"] == 1
    # b's entities and edges never reach into a
    assert all(
        e["a"] not in a_ids and e["b"] not in a_ids
        for e in graph.backend.read("export_edges", ns=b)
    )


def test_same_entity_name_is_a_different_entity_per_namespace(graph):
    a, b = f"iso-a-{uuid.uuid4().hex[:8]}", f"iso-b-{uuid.uuid4().hex[:8]}"
    graph.add_episodes(a, [{"text": "Paris trip", "entities": ["Paris"]}])
    graph.add_episodes(b, [{"text": "Paris again", "entities": ["Paris"]}])
    graph.forget_namespace(a)
    assert graph.stats(b)["nodes"]["Entity"] == 1
    with pytest.raises(UnknownNamespaceError):
        graph.stats(a)


def test_a_big_tenant_does_not_starve_a_small_ones_top_k(graph, embedder):
    big, small = f"iso-big-{uuid.uuid4().hex[:8]}", f"iso-small-{uuid.uuid4().hex[:8]}"
    graph.add_episodes(big, [f"We talked about cats and dogs, note {i}" for i in range(400)])
    mine = graph.add_episodes(
        small, ["My cat sleeps all day", "My dog barks at night", "Taxes are due"]
    )
    hits = graph.search(small, "cats and dogs", k=3, mode="vector")
    assert {h.memory.id for h in hits} == set(mine)
    # and through the index path too (the small tenant forced above the exact-search share)
    graph.search_engine.settings = graph.settings.model_copy(update={"exact_search_max": 0})
    try:
        hits = graph.search(small, "cats and dogs", k=3, mode="vector")
    finally:
        graph.search_engine.settings = graph.settings
    assert {h.memory.id for h in hits} == set(mine)
    graph.forget_namespace(big)


def test_full_text_search_is_bounded_yet_finds_a_tenants_weaker_hits(graph):
    """The engine's full-text index is asked for a bounded number of hits (unbounded, common
    terms exhausted the engine's heap at 100k memories); when another tenant's stronger hits
    fill that window, it is asked again, wider, until this tenant's hits are found. The
    read index's own full-text finds them without asking the engine."""
    big, mid = f"iso-big-{uuid.uuid4().hex[:8]}", f"iso-mid-{uuid.uuid4().hex[:8]}"
    graph.add_episodes(big, ["apple apple apple pie"] * 300)
    filler = [f"we walked along the river on day {i}" for i in range(60)]
    weak = [f"on day {i} of the long trip by the sea we ate an apple" for i in range(4)]
    mine = graph.add_episodes(mid, [*filler, *weak])[-4:]
    calls: list[int] = []

    def run(name, **params):
        if name == "fulltext_search":  # (a count of the tenant's memories may come first)
            calls.append(params["fetch"])
        return graph.backend.read(name, **params)

    searcher = graph.search_engine
    kept = searcher.settings  # the engine's index (the read index's full-text off)
    searcher.settings = kept.model_copy(update={"read_index_fulltext": False})
    try:
        hits = searcher.fulltext(run, mid, "Episode", "apple", 4)
    finally:
        searcher.settings = kept
    assert {h.id for h in hits} == set(mine)
    assert calls[0] < 300 < calls[-1]  # bounded at first, widened after
    calls.clear()  # the read index searches the namespace alone: the engine is not asked
    assert {h.id for h in searcher.fulltext(run, mid, "Episode", "apple", 4)} == set(mine)
    assert calls == []
    graph.forget_namespace(big)
    graph.forget_namespace(mid)


def test_an_expired_count_is_served_while_it_is_counted_again(monkeypatch):
    """Counting a label is a scan (seconds at 100k): a recall must not wait for it once a
    count is known; a first count, and a zero (a first write elsewhere), are waited for."""
    monkeypatch.setattr(search, "ZERO_TTL_S", 0.0)
    rows = {"stats_nodes": {"label": "Episode", "count": 5}, "label_totals": {}}
    rows["label_totals"] = {"label": "Episode", "total": 50}
    release, calls = threading.Event(), []

    def run(name, **params):
        calls.append(("caller", name))
        return [rows[name]]

    def slow_read(name, **params):
        calls.append(("background", name))
        release.wait(10)
        return [{**rows[name], "count": 7, "total": 70}]

    counts = search.Counts(ttl_s=60.0, read=slow_read)
    assert counts.get(run, "a", "Episode") == (50, 5)
    assert calls == [("caller", "stats_nodes"), ("caller", "label_totals")]
    counts.ttl_s = 0.0  # both counts expire
    time.sleep(0.01)
    assert counts.get(run, "a", "Episode") == (50, 5)  # the stale counts, at once
    counts.ttl_s = 60.0
    assert sorted(calls[2:]) == [("background", "label_totals"), ("background", "stats_nodes")]
    release.set()
    while counts._counting:
        time.sleep(0.01)
    assert counts.get(run, "a", "Episode") == (70, 7)
    assert len(calls) == 4  # no more counting
    assert counts.get(run, "a", "Fact") == (1, 0)  # none of them: counted again, waited for
    assert calls[-1] == ("caller", "stats_nodes")
