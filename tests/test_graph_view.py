"""What a person sees and tries (the UI's backing, on both engines): the graph view, the
liquid weights in bins, a rehearsed maintenance pass that changes nothing, and recall with
other settings for one call."""

from __future__ import annotations

import pytest
from test_dynamics import _turns
from test_dynamics_cypher import _clear_assoc, _link, _weights

from graph_db import InvalidInputError


def test_a_rehearsed_pass_changes_nothing_and_foretells_the_real_one(graph, ns):
    ids = _turns(graph, ns, [("x", f"note {n}") for n in "abcdefgh"])
    _clear_assoc(graph, ns)
    a, b, c, d, e, f, g, h = ids
    k4 = [(a, b), (a, c), (a, d), (b, c), (b, d), (c, d)]
    _link(graph, ns, [(x, y, 0.9, True) for x, y in k4] + [(a, e, 0.5, False), (e, f, 0.01, False)])
    for mid in ids:  # g and h: unlinked and unimportant, the first to go over capacity
        graph.update(ns, mid, salience=0.0 if mid in (g, h) else 1.0)
    graph.update(ns, f, permanent=True)  # left alone once its only edge is pruned
    edges_before = _weights(graph, ns)

    preview = graph.preview_maintenance(ns, now=1.0, capacity=6)

    assert preview.report.pruned_edges == 1
    assert [frozenset(p) for p in preview.pruned] == [frozenset((e, f))]
    assert preview.report.capacity_dropped == 2
    assert sorted(preview.forgotten) == sorted([g, h])
    assert _weights(graph, ns) == edges_before  # rolled back: every edge as it was
    assert {m.id for m in graph.list(ns)} == set(ids)
    report = graph.maintain(ns, now=1.0, capacity=6)
    assert report.pruned_edges == 1 and report.capacity_dropped == 2
    assert set(ids) - {m.id for m in graph.list(ns)} == set(preview.forgotten)


def test_a_rehearsal_with_other_settings_keeps_what_the_store_would_prune(graph, ns):
    ids = _turns(graph, ns, [("x", f"item {n}") for n in "abc"])
    _clear_assoc(graph, ns)
    a, b, c = ids
    _link(graph, ns, [(a, b, 0.3, False), (b, c, 0.05, False)])
    assert graph.preview_maintenance(ns, now=1.0).report.pruned_edges == 0
    strict = graph.tuned(w_min=0.1).preview_maintenance(ns, now=1.0)
    assert [frozenset(p) for p in strict.pruned] == [frozenset((b, c))]
    assert len(_weights(graph, ns)) == 2


def test_tuned_recall_uses_its_settings_and_leaves_the_store_as_it_was(graph, ns):
    _turns(graph, ns, [("ann", "I adopted a dog called Rex"), ("ann", "Rex loves the beach")])
    walked = graph.tuned(walk_depth=0)
    hits = walked.recall(ns, "Which pet did Ann adopt?", k=5, fire=False)
    assert hits and all(not h.path for h in hits)
    assert walked.settings.walk_depth == 0 and graph.settings.walk_depth != 0
    walked.close()  # a view: the store stays open
    assert graph.recall(ns, "Which pet did Ann adopt?", k=5, fire=False)
    with pytest.raises(InvalidInputError, match="tunable settings"):
        graph.tuned(home="/tmp/elsewhere")
    with pytest.raises(InvalidInputError, match="walk_depth"):
        graph.tuned(walk_depth=-1)


def test_the_view_holds_memories_entities_history_and_weights_now(graph, ns):
    ids = _turns(graph, ns, [("ann", "Ann moved to Paris"), ("ann", "Ann moved to Leeds")])
    (old,) = graph.add_facts(ns, [{"subject": "Ann", "predicate": "lives_in", "object": "Paris"}])
    (new,) = graph.add_facts(ns, [{"subject": "Ann", "predicate": "lives_in", "object": "Leeds"}])
    _clear_assoc(graph, ns)
    _link(graph, ns, [(ids[0], ids[1], 0.8, False)])

    view = graph.view(ns)

    kinds = {n.id: n.kind for n in view.nodes}
    assert kinds[ids[0]] == "episode" and kinds[old.id] == "fact"
    assert "entity" in kinds.values()
    by_id = {n.id: n for n in view.nodes}
    assert by_id[old.id].current is False and by_id[new.id].current is True
    typed = {(x.source, x.type, x.target) for x in view.edges}
    assert (new.id, "SUPERSEDES", old.id) in typed
    between = {x.type: x for x in view.edges if {x.source, x.target} == set(ids)}
    assoc = between["ASSOC"]
    assert between["NEXT"].w is None  # a structural edge has no weight of its own
    assert 0.0 < assoc.w < 0.8  # decayed since w_at = 0 (1970)
    assert all(x.source in by_id and x.target in by_id for x in view.edges)
    assert view.truncated is False
    assert graph.view(ns, limit=1).truncated is True
    with pytest.raises(InvalidInputError, match="limit"):
        graph.view(ns, limit=0)


def test_stats_bin_the_liquid_edges_by_their_weight_now(graph, ns):
    ids = _turns(graph, ns, [("x", f"thing {n}") for n in "abc"])
    _clear_assoc(graph, ns)
    a, b, c = ids
    _link(graph, ns, [(a, b, 0.95, True), (b, c, 0.45, True)])
    weights = graph.stats(ns, weights=True)["weights"]
    assert len(weights) == 10 and weights[9] == 1 and weights[4] == 1 and sum(weights) == 2
