"""Memory dynamics through the public API, on small hand-made graphs with expected numbers:
recall (anchors, walk, paths), plasticity, decay with hold, maintenance (prune, k-core,
death, capacity, births), reconciliation (winner, history, as_of, learned cardinality)."""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
from test_dynamics_cypher import _clear_assoc, _link, _stored, _stored_many, _weights

from graph_db import GraphSettings, InvalidInputError, LiquidGraph, clock
from graph_db import recall as recall_module
from graph_db import search as search_module
from graph_db.dynamics import DAY_S, DecayParams, effective_weight
from graph_db.liquid_graph import SCHEMA_VERSION
from graph_db.maintenance import Maintainer
from graph_db.reconcile import Verdict

T0 = 1_700_000_000.0


def _turns(graph, ns, turns, session="s1"):
    rows = [
        {"text": t, "speaker": sp, "session_id": session, "ts": T0 + i}
        for i, (sp, t) in enumerate(turns)
    ]
    return graph.add_episodes(ns, rows)


# -- recall ------------------------------------------------------------------------------
@contextmanager
def _recall_settings(graph, **changes):
    """Recall with other settings for one test (the store is shared)."""
    kept = graph._recaller.settings
    graph._recaller.settings = kept.model_copy(update=changes)
    try:
        yield
    finally:
        graph._recaller.settings = kept


def test_recall_walks_to_the_answer_turn_and_says_how(graph, ns):
    ids = _turns(
        graph,
        ns,
        [
            ("ann", "Morning! The weather is lovely today."),
            ("ann", "What did you paint for the art fair last weekend?"),
            ("bob", "A big sunset over the lake, in oils."),
            ("ann", "I adopted a kitten called Zippy."),
            ("bob", "My brother started a new job at the bakery."),
        ],
    )
    with _recall_settings(graph, recall_candidates=1):  # one candidate: the rest is walked to
        hits = graph.recall(ns, "What did Bob paint for the art fair?", k=5, fire=False)
    by_id = {h.id: h for h in hits}
    assert by_id[ids[1]].anchor  # the question anchors the walk ...
    assert hits[0].id == ids[2]  # ... to its answer, ranked above it (a question holds none)
    answer = by_id[ids[2]]
    assert answer.block == "episodic" and "walk" in answer.sources
    walked = [h for h in hits if h.path]
    assert answer in walked
    for h in walked:  # a path starts at an anchor and ends at the memory
        assert h.path[-1].target == h.id and by_id[h.path[0].source].anchor


def test_walk_activation_is_anchor_relevance_times_edge_weights(graph, ns):
    ids = _turns(graph, ns, [("a", "zebra stripes pattern"), ("a", "unrelated cooking notes")])
    _clear_assoc(graph, ns)
    with _recall_settings(graph, recall_candidates=1):
        first, second = graph.recall(ns, "zebra stripes pattern", k=2, fire=False)
    assert first.id == ids[0] and first.relevance == pytest.approx(1.0)
    assert second.id == ids[1] and [s.edge for s in second.path] == ["NEXT"]
    assert second.activation == pytest.approx(graph.settings.walk_next_weight)  # 1 x w_next


def test_a_walk_keeps_its_strongest_memories_up_to_walk_max_reached(graph, ns):
    """An anchor linked to four memories: the walk reaches all four by default; held to three
    memories it keeps the anchor and the two it reached most strongly, their paths whole."""
    texts = ["quokka island ferry", "bread recipe notes", "tax form deadline", "garden shed paint",
             "violin lesson time"]  # fmt: skip
    anchor, *linked = [  # one turn a speaker and a session: no NEXT, no shared entity
        graph.add_episodes(ns, [{"text": t, "speaker": f"p{i}", "session_id": f"s{i}"}])[0]
        for i, t in enumerate(texts)
    ]
    _clear_assoc(graph, ns)
    weights = dict(zip(linked, (0.9, 0.8, 0.7, 0.6), strict=True))
    _link(graph, ns, [(anchor, b, w, True) for b, w in weights.items()])  # permanent: no decay

    def walked(cap):
        with _recall_settings(graph, recall_candidates=1, walk_max_reached=cap):
            hits = graph.recall(ns, "quokka island ferry", k=5, fire=False)
        assert hits[0].id == anchor and hits[0].anchor
        return {h.id: (h.activation, [(s.source, s.target) for s in h.path]) for h in hits[1:]}

    assert walked(0) == {b: (pytest.approx(w), [(anchor, b)]) for b, w in weights.items()}
    strongest = linked[:2]
    assert walked(3) == {b: (pytest.approx(weights[b]), [(anchor, b)]) for b in strongest}


def test_the_walks_cut_keeps_the_anchors_then_the_strongest_ties_to_the_smaller_id():
    """Held to n memories, a walk keeps every anchor (no path), then its most activated;
    of those tied at the cut, the smaller ids; nothing is cut under n."""
    from graph_db.recall import _most_activated

    hop = [("a", "x", "ASSOC", 1.0)]
    best = {"a": (0.9, []), "b": (0.1, []), "m5": (0.5, hop), "m1": (0.3, hop),
            "m4": (0.3, hop), "m2": (0.3, hop), "m3": (0.2, hop), "m0": (0.7, hop)}  # fmt: skip
    assert set(_most_activated(best, 5)) == {"a", "b", "m0", "m5", "m1"}
    assert set(_most_activated(best, 6)) == {"a", "b", "m0", "m5", "m1", "m2"}
    assert set(_most_activated(best, 2)) == {"a", "b"}  # anchors stay, even over n
    assert _most_activated(best, 8) == best


def test_single_shot_vector_mode_ranks_by_cosine_only(graph, ns):
    _turns(graph, ns, [("a", "I love my cat"), ("a", "Stock markets fell"), ("a", "Cats purr")])
    hits = graph.recall(ns, "kittens and cats", k=3, mode="vector", fire=False)
    sims = [h.similarity for h in hits]
    assert sims == sorted(sims, reverse=True)
    assert all(not h.path for h in hits)
    with pytest.raises(InvalidInputError):
        graph.recall(ns, "x", mode="telepathy")


def test_the_length_prior_scales_relevance_by_content_words(graph, ns):
    """relevance x (1 + min(content words, cap))^w: two candidates' relevance ratio changes
    by exactly ((1 + n_a) / (1 + n_b))^w when the prior is switched on without a cap, and
    by the capped counts with recall_length_cap (words past it add nothing)."""
    ids = _turns(
        graph,
        ns,
        [
            ("ann", "Hey Mel!"),
            ("mel", "I ran the Boston marathon last week and finished in under four hours"),
            ("ann", "Taxes are due in April"),
        ],
    )
    rows = graph.backend.read("recall_rows", ns=ns, ids=ids, vecs=True)
    words = {r["id"]: len(r["row"]["terms"].split()) for r in rows}
    assert words[ids[0]] == 3 and words[ids[1]] == 10  # stemmed, no stop words, speaker in

    def relevance(**changes):
        with _recall_settings(graph, **changes):
            hits = graph.recall(ns, "What did Mel do last week?", k=3, fire=False)
            return {h.id: h.relevance for h in hits}

    off = relevance(recall_length_prior=0.0)
    whole = relevance(recall_length_prior=0.75, recall_length_cap=None)
    capped = relevance(recall_length_prior=0.75, recall_length_cap=5)
    a, b = ids[1], ids[0]
    assert whole[a] / whole[b] == pytest.approx((off[a] / off[b]) * (11 / 4) ** 0.75, rel=1e-6)
    assert capped[a] / capped[b] == pytest.approx((off[a] / off[b]) * (6 / 4) ** 0.75, rel=1e-6)


def test_turns_about_the_same_thing_come_newest_first(graph, ns):
    """Of two recalled turns that match the query by the same words, the later one comes
    first (it tells where the laptop is now), though the longer, earlier one scores higher;
    which turns are recalled does not change, and a question about the past keeps them in
    score order."""
    ids = _turns(
        graph,
        ns,
        [
            ("pat", "The laptop is on the mantle in the studio, next to a brass lamp, an old "
                    "clock and a toolbox full of tools."),
            ("pat", "The weather was fine all week."),
            ("pat", "Grabbed the laptop on my way out."),
        ],
    )  # fmt: skip
    with _recall_settings(graph, recall_newest_first=False):
        by_score = [h.id for h in graph.recall(ns, "Where is the laptop?", k=3, fire=False)]
    newest = [h.id for h in graph.recall(ns, "Where is the laptop?", k=3, fire=False)]
    assert by_score.index(ids[0]) < by_score.index(ids[2])
    assert newest.index(ids[2]) < newest.index(ids[0])
    assert sorted(newest) == sorted(by_score)
    past = [h.id for h in graph.recall(ns, "Where was the laptop before?", k=3, fire=False)]
    assert past.index(ids[0]) < past.index(ids[2])  # asked about the past: by score


def test_the_first_places_do_not_depend_on_how_many_are_asked_for(graph, ns):
    """Newest first reorders within a fixed window (recall_newest_window), not within k:
    asking for 8 memories does not move newer turns from places 4-8 into the first 3."""
    _turns(
        graph,
        ns,
        [
            ("pat", "My laptop is on the desk, the laptop with the blue laptop sleeve."),
            ("pat", "The laptop charger and the laptop stand are on the desk too."),
            ("pat", "The laptop fan is loud, the laptop gets hot on the laptop stand."),
            ("pat", "Lent the laptop to Sam."),
            ("pat", "Sam gave the laptop back."),
            ("pat", "The weather was fine all week."),
            ("pat", "Took the laptop to the office."),
        ],
    )  # fmt: skip

    def first(k, window):
        with _recall_settings(graph, recall_newest_window=window):
            return [h.id for h in graph.recall(ns, "Where is the laptop?", k=k, fire=False)][:3]

    assert first(8, 3) == first(3, 3)
    assert first(8, 8) != first(3, 3)  # what a window of k did


def test_the_newest_turn_about_every_query_word_comes_in_from_below(graph, ns):
    """Asked where the laptop is now, the latest turn about it is recalled first though it
    scores under the top k: older, longer turns about the laptop filled the places. A
    question about the past, or with recall_newest_first off, keeps the ranking."""
    ids = _turns(
        graph,
        ns,
        [
            ("pat", "My laptop is on the desk, the laptop with the blue laptop sleeve."),
            ("pat", "The laptop charger and the laptop stand are on the desk too."),
            ("pat", "The weather was fine all week."),
            ("pat", "Took the laptop to the office."),
        ],
    )  # fmt: skip
    with _recall_settings(graph, recall_newest_first=False):
        by_score = [h.id for h in graph.recall(ns, "Where is the laptop?", k=2, fire=False)]
    assert ids[3] not in by_score
    now = [h.id for h in graph.recall(ns, "Where is the laptop?", k=2, fire=False)]
    assert now[0] == ids[3]
    past = [h.id for h in graph.recall(ns, "Where was the laptop before?", k=2, fire=False)]
    assert ids[3] not in past


def test_a_turn_repeated_word_for_word_takes_one_place(graph, ns):
    """Asked how things stand, the copies of one text (a room described on every visit)
    take one place and the places they free go to other turns; asked about the past, the
    copies stay apart (the same words twice are two events), and so do copies shorter than
    recall_length_cap content words ("go west" in two rooms is two moves)."""
    room = (
        "The studio. On the mantle you see a laptop, a brass lamp, an old clock and a "
        "toolbox full of rusty tools."
    )
    said = [room, room, "You take the laptop.", "The weather was fine all week.", room]
    ids = _turns(graph, ns, [("game", t) for t in said])
    copies = {ids[0], ids[1], ids[4]}
    query = "Where is the laptop?"
    # k=4 of 5 turns: two places or more go to one text unless the copies are collapsed
    # (a smaller k made the check depend on term weights that other tests' turns change)
    with _recall_settings(graph, recall_collapse_repeats=False):
        apart = {h.id for h in graph.recall(ns, query, k=4, fire=False)}
    once = [h.id for h in graph.recall(ns, query, k=4, fire=False)]
    past = {h.id for h in graph.recall(ns, "Where was the laptop before?", k=4, fire=False)}
    with _recall_settings(graph, recall_length_cap=40):  # the room: fewer words than that
        long_only = {h.id for h in graph.recall(ns, query, k=4, fire=False)}
    assert len(apart) == 4 and len(apart & copies) >= 2
    assert len(copies & set(once)) == 1 and set(once) - copies == {ids[2], ids[3]}
    assert len(past) == 4 and len(past & copies) >= 2  # asked about the past: not collapsed
    assert len(long_only) == 4 and len(long_only & copies) >= 2


def test_recall_grounds_a_query_in_who_and_when(graph, ns):
    """A speaker named in the query adds recall_speaker_weight to the final score; a date
    written in it lifts the memories of that day above the same words on another day."""
    day = datetime(2022, 11, 9, tzinfo=UTC).timestamp()
    rows = [
        {"text": "I made coconut ice cream", "speaker": "Nate", "session_id": "a", "ts": day},
        {"text": "I made coconut ice cream", "speaker": "Joanna", "session_id": "b", "ts": day},
        {"text": "I made coconut ice cream", "speaker": "Joanna", "session_id": "c", "ts": T0},
    ]
    nate, joanna, joanna_before = graph.add_episodes(ns, rows)
    hits = {h.id: h for h in graph.recall(ns, "What did Nate make?", k=3, fire=False)}
    assert set(hits) == {nate, joanna, joanna_before}

    def bonus(h):
        return h.score - max(h.relevance, h.activation)

    w = graph.settings.recall_speaker_weight
    assert bonus(hits[nate]) - bonus(hits[joanna]) == pytest.approx(w, abs=1e-6)
    dated = {
        h.id: h for h in graph.recall(ns, "What was made on 9 November, 2022?", k=3, fire=False)
    }
    # the same words by the same speaker: relevance differs by the time boost alone
    lift = math.exp(graph.settings.recall_time_weight)  # on the day vs. a year off
    ratio = dated[joanna].relevance / dated[joanna_before].relevance
    assert ratio == pytest.approx(lift, rel=1e-3)


def test_recall_also_searches_the_query_without_its_names(graph, ns, monkeypatch):
    """Turns that only greet someone by name match a question about that person too well:
    the walk recall searches the name-free query too (the single-shot one does not)."""
    _turns(
        graph,
        ns,
        [
            ("Joanna", "Hey Nate! Good to see you, Nate!"),
            ("Nate", "I finally cooked that coconut ice cream recipe last night"),
        ],
    )
    embedded: list[list[str]] = []
    embed = graph._engram.embed
    monkeypatch.setattr(
        graph._engram, "embed", lambda texts: embedded.append(texts) or embed(texts)
    )
    worded: set[str] = set()  # the texts searched in full text (in process or in the engine)
    for module in (recall_module, search_module):
        words = module.fulltext_query
        monkeypatch.setattr(
            module, "fulltext_query", lambda t, *a, w=words: worded.add(t) or w(t, *a)
        )
    hits = graph.recall(ns, "What did Nate cook?", k=2, fire=False)
    assert embedded[-1] == ["What did Nate cook?", "What did cook?"]
    assert worded == {"What did Nate cook?", "What did cook?"}
    assert hits[0].memory.text.startswith("I finally cooked")
    worded.clear()  # searched by meaning alone: its words are the asked query's less the names
    graph.tuned(recall_name_free_fulltext=False).recall(ns, "What did Nate cook?", fire=False)
    assert embedded[-1] == ["What did Nate cook?", "What did cook?"]
    assert worded == {"What did Nate cook?"}
    graph.recall(ns, "What did Nate cook?", k=2, fire=False, mode="vector")
    assert embedded[-1] == ["What did Nate cook?"]
    # a what-if turns it off (a knob of the UI, a trade `bench_dynamics --compare` times)
    graph.tuned(recall_name_free=False).recall(ns, "What did Nate cook?", k=2, fire=False)
    assert embedded[-1] == ["What did Nate cook?"]


def test_recall_never_crosses_namespaces(graph, ns):
    other = ns + "-other"
    _turns(graph, other, [("eve", "The vault code is 8812, secret.")])
    _turns(graph, ns, [("ann", "I like vaults of old churches."), ("ann", "Code reviews are fun")])
    hits = graph.recall(ns, "vault code secret", k=10)
    graph.flush()
    assert hits and all(h.memory.ns == ns for h in hits)
    assert all("8812" not in h.memory.text for h in hits)


def test_co_fired_anchors_are_linked_after_a_recall(graph, ns):
    ids = _turns(graph, ns, [("a", "red apples"), ("a", "green apples"), ("a", "apple pie")])
    _clear_assoc(graph, ns)
    hits = graph.recall(ns, "apples", k=3)
    graph.flush()
    anchors = [h.id for h in hits if h.anchor][: graph.settings.cofire_anchors]
    edges = _weights(graph, ns)
    for i, a in enumerate(anchors):
        for b in anchors[i + 1 :]:
            w = edges[frozenset((a, b))]["w"]
            assert w == pytest.approx(graph.settings.hebbian_eta * graph.settings.cofire_usefulness)
    touched = graph.get_many(ns, ids)
    assert all(m.properties["access_count"] >= 1 for m in touched if m.id in {h.id for h in hits})


# -- plasticity --------------------------------------------------------------------------
def test_reinforce_twice_then_decay_gives_the_expected_weight(graph, ns):
    a, b = sorted(_turns(graph, ns, [("a", "alpha one"), ("a", "beta two")]))
    _clear_assoc(graph, ns)
    eta = graph.settings.hebbian_eta
    assert graph.reinforce(ns, [a, b], 1.0) == 1  # co-used: an edge is born
    graph.reinforce(ns, [a, b], 0.5)
    w = eta
    w = w + eta * 0.5 * (1 - w)
    edge = _weights(graph, ns)[frozenset((a, b))]
    assert edge["w"] == pytest.approx(w, rel=1e-6)
    params = DecayParams.of(graph.settings)
    # held for decay_recency_days after firing, then exp decay per day
    later = edge["fired_at"] + params.hold + 10 * DAY_S
    expected = w * math.exp(-graph.settings.decay_per_day * 10)
    assert effective_weight(w, edge["w_at"], edge["fired_at"], later, params) == pytest.approx(
        expected
    )
    assert effective_weight(w, edge["w_at"], edge["fired_at"], edge["fired_at"] + 1, params) == w
    # the store's prune agrees: the edge leaving a expires when its weight reaches w_min
    lo = min(a, b)
    graph.backend.write("edges_prune", ns=ns, ids=[lo], now=later, w_min=0.01, **params.as_params())
    dies = _stored(graph, ns, lo)["expire_at"]
    assert effective_weight(w, edge["w_at"], edge["fired_at"], dies, params) == pytest.approx(0.01)
    importance = graph.get(ns, a).properties["importance"]
    assert importance > 0.5  # raised by use
    with pytest.raises(InvalidInputError):
        graph.reinforce(ns, [a, b], [1.0])


def test_reinforce_strengthens_the_path_of_a_useful_memory(graph, ns):
    ids = _turns(graph, ns, [("a", "quasar telescope night"), ("b", "yes, I saw it too")])
    _clear_assoc(graph, ns)
    with _recall_settings(graph, recall_candidates=1):  # the second turn is walked to
        hits = graph.recall(ns, "quasar telescope night", k=2, fire=False)
    walked = [h for h in hits if h.path]
    assert [h.id for h in walked] == [ids[1]]
    graph.reinforce(ns, walked, 1.0)
    step = walked[0].path[-1]
    edge = _weights(graph, ns)[frozenset((step.source, step.target))]
    assert edge["w"] == pytest.approx(graph.settings.hebbian_eta)  # a learned shortcut
    assert set(ids) >= {step.source, step.target}


def test_a_pair_named_twice_in_one_reinforcement_gets_one_edge_fired_twice(graph, ns):
    """The walked step and the co-use of its two ends name one new pair twice: one edge is
    made (not one per naming) and the rule applies to it twice, in turn."""
    ids = _turns(graph, ns, [("a", "quasar telescope night"), ("b", "yes, I saw it too")])
    _clear_assoc(graph, ns)
    with _recall_settings(graph, recall_candidates=1):
        hits = graph.recall(ns, "quasar telescope night", k=2, fire=False)
    (walked,) = [h for h in hits if h.path]
    step = walked.path[-1]
    graph.reinforce(ns, [walked, step.source], 1.0)
    eta = graph.settings.hebbian_eta
    assert graph.stats(ns)["edges"]["ASSOC"]["count"] == 1
    edge = _weights(graph, ns)[frozenset((step.source, step.target))]
    assert edge["w"] == pytest.approx(eta + eta * (1 - eta))
    assert set(ids) == {step.source, step.target}


# -- maintenance -------------------------------------------------------------------------
def test_maintain_prunes_decayed_edges_keeps_permanent_and_reports_cores(graph, ns):
    ids = _turns(graph, ns, [("x", f"note {n}") for n in "abcdef"])
    _clear_assoc(graph, ns)
    a, b, c, d, e, f = ids
    k4 = [(a, b), (a, c), (a, d), (b, c), (b, d), (c, d)]
    _link(graph, ns, [(x, y, 0.9, True) for x, y in k4] + [(a, e, 0.5, False), (e, f, 0.01, False)])
    share = graph.settings.protect_share
    graph.settings.protect_share = 0.7  # the K4 is 4 of 6 memories
    try:
        report = graph.maintain(ns, now=1.0)
    finally:
        graph.settings.protect_share = share
    assert report.protect_core == 3
    assert report.pruned_edges == 1  # e-f under w_min; permanent K4 untouched
    assert report.cores == {3: 4, 1: 1, 0: 1}
    assert report.consolidated == 4
    assert report.edges_after == 7
    protected = {mid for mid, row in _stored_many(graph, ns, ids).items() if row["protected"]}
    assert protected == {a, b, c, d}


def test_a_full_pass_over_a_large_namespace_shows_each_steps_progress(
    graph, ns, monkeypatch, capsys
):
    """A full pass visits every memory, a step at a time (minutes a step at 1M memories):
    past PROGRESS_MIN memories (here every namespace is large) each step shows a progress
    bar of the memories it goes through, their number known; a smaller one stays quiet."""
    from graph_db import progress

    ids = _turns(graph, ns, [("x", f"note {n}") for n in "abc"])
    capsys.readouterr()
    graph.maintain(ns, now=1.0, full=True)
    assert "memory_vitals" not in capsys.readouterr().err
    monkeypatch.setattr(progress, "PROGRESS_MIN", 1)
    graph.maintain(ns, now=2.0, full=True)
    err = capsys.readouterr().err
    for step in ("edges_prune", "memory_vitals", "triadic_close", "forget_candidates"):
        assert f"{step}: {ns}:   0%|          | 0/{len(ids)} [" in err


def test_after_the_first_pass_maintenance_visits_only_what_is_due(graph, ns, monkeypatch):
    import time

    a, b, c, d, e, f = sorted(_turns(graph, ns, [("x", f"memo {n}") for n in "abcdef"]))
    _clear_assoc(graph, ns)
    now = time.time()
    props = {"w_at": now, "fired_at": now, "fired_count": 1, "permanent": False}
    rows = [{"a": x, "b": y, "props": {**props, "w": w}} for x, y, w in
            [(a, b, 0.5), (c, d, 0.5), (e, f, 0.03)]]  # fmt: skip
    graph.backend.write("link_assoc", ns=ns, rows=rows)
    first = graph.maintain(ns, now=now)
    assert (first.full, first.visited, first.kcore, first.edges_checked) == (True, 6, True, 3)
    quiet = graph.maintain(ns, now=now + 60)
    assert (quiet.full, quiet.visited, quiet.edges_checked, quiet.kcore) == (False, 0, 0, False)
    assert quiet.nodes_before is None  # not counted: that would scan the namespace
    graph.reinforce(ns, [a, b], 1.0)  # a and b change: due, and only they
    graph.settings.maintain_batch = 1
    try:
        one = graph.maintain(ns, now=now + 120)
        two = graph.maintain(ns, now=now + 180)
    finally:
        graph.settings.maintain_batch = GraphSettings().maintain_batch
    assert (one.visited, two.visited) == (1, 1)  # bounded per pass; the rest waits
    graph.reinforce(ns, [c, d], 1.0)

    def maintained_at() -> float:
        return graph.backend.read("namespace_maintenance", ns=ns)[0]["maintained_at"]

    graph.settings.maintain_budget_s = 1e-9  # spent before the first page, which still runs
    monkeypatch.setattr(Maintainer, "BUDGET_PAGE", 1)
    written: list[str] = []
    write = graph.backend.write
    monkeypatch.setattr(
        graph.backend, "write", lambda name, **p: written.append(name) or write(name, **p)
    )
    try:
        spent = graph.maintain(ns, now=now + 200)
    finally:
        graph.settings.maintain_budget_s = GraphSettings().maintain_budget_s
        monkeypatch.setattr(graph.backend, "write", write)
    # the vitals and the births around what was visited each took their one page
    assert (written.count("memory_vitals"), written.count("triadic_close")) == (1, 1)
    # births' window stays open while work is left: the passes at the batch bound (one, two:
    # more may have been due) and the one out of budget did not move it past the quiet pass
    assert maintained_at() == now + 60
    resumed = graph.maintain(ns, now=now + 210)
    assert (spent.visited, spent.deferred) == (1, 1)  # one page, however late: one stays due
    assert (resumed.visited, resumed.deferred) == (1, 0)  # and the next pass does it
    assert maintained_at() == now + 210
    # the Hebbian write kept a's expiry bound itself: no prune check is needed for it
    assert one.edges_checked + two.edges_checked == 0
    # e-f (0.03, held 7 days after firing, then -1%/day) falls under w_min=0.02 on day ~47.5
    params = DecayParams.of(graph.settings)
    dies = now + params.hold + math.log(0.03 / graph.settings.w_min) / params.decay
    assert _stored(graph, ns, e)["expire_at"] == pytest.approx(dies)
    before = graph.maintain(ns, now=dies - DAY_S)
    after = graph.maintain(ns, now=dies + DAY_S)
    assert (before.pruned_edges, after.pruned_edges) == (0, 1)
    assert set(_weights(graph, ns)) == {frozenset((a, b)), frozenset((c, d))}
    assert before.kcore and after.kcore  # the last decomposition was over a day old
    assert after.cores == {1: 4, 0: 2}


def test_isolated_unimportant_memories_die_after_the_grace_period(graph, ns):
    ids = _turns(graph, ns, [("x", "lonely thought"), ("x", "another lonely thought")])
    _clear_assoc(graph, ns)
    graph.update(ns, ids[0], permanent=True)
    first = graph.maintain(ns)
    assert first.forgotten == 0  # isolated now, but within the grace period
    later = graph.settings.grace_days * DAY_S + 3650 * DAY_S
    import time

    report = graph.maintain(ns, now=time.time() + later)
    assert report.forgotten == 1
    assert [m.id for m in graph.list(ns)] == [ids[0]]  # the permanent one stays


def test_a_replayed_turn_ages_from_its_own_event_time(graph, ns):
    """graph_db.clock: what is written inside ``clock.at(t)`` is made at t, so a replay's
    old turn is older than its recent one and a pass at the replay's time forgets only it
    (without the clock both would be as old as the seconds the replay took)."""
    t0 = T0 - 3650 * DAY_S
    grace = graph.settings.grace_days * DAY_S
    with clock.at(t0):
        (old,) = _turns(graph, ns, [("x", "lonely thought")])
    with clock.at(t0 + grace):
        (new,) = _turns(graph, ns, [("x", "another lonely thought")])
        _clear_assoc(graph, ns)
        assert graph.maintain(ns).forgotten == 0  # the old one is exactly grace_days old
    assert (graph.get(ns, old).created_at, graph.get(ns, new).created_at) == (t0, t0 + grace)
    # a visited memory is due again within 1.5 x vitals_refresh_days (randomised): step past it
    revisit = 1.5 * graph.settings.vitals_refresh_days * DAY_S + DAY_S
    with clock.at(t0 + grace + revisit):
        report = graph.maintain(ns)
    assert report.forgotten == 1
    assert [m.id for m in graph.list(ns)] == [new]


def test_capacity_drops_the_least_important(graph, ns):
    ids = _turns(graph, ns, [("x", f"fact number {i}") for i in range(5)])
    _clear_assoc(graph, ns)
    for i, mid in enumerate(ids):
        graph.update(ns, mid, salience=i / 4)
    report = graph.maintain(ns, capacity=3)
    assert report.capacity_dropped == 2 and report.nodes_after == 3
    left = {m.id for m in graph.list(ns)}
    assert ids[4] in left and ids[0] not in left


def test_triadic_closure_births_an_edge(graph, ns):
    ids = _turns(graph, ns, [("x", f"triad {n}") for n in "acbd"])
    _clear_assoc(graph, ns)
    a, c, b1, b2 = ids
    _link(
        graph, ns, [(a, b1, 0.8, True), (b1, c, 0.5, True), (a, b2, 0.6, True), (b2, c, 0.5, True)]
    )
    report = graph.maintain(ns, now=1.0)
    assert report.births == 2  # a-c (via b1, b2) and b1-b2 (via a, c)
    edges = _weights(graph, ns)
    assert edges[frozenset((a, c))]["w"] == pytest.approx((0.8 * 0.5 + 0.6 * 0.5) / 2)
    assert edges[frozenset((b1, b2))]["w"] == pytest.approx((0.8 * 0.6 + 0.5 * 0.5) / 2)


# -- reconcile ---------------------------------------------------------------------------
def test_newer_value_of_a_functional_predicate_supersedes_with_history(graph, ns):
    (w1,) = graph.add_facts(
        ns, [{"subject": "Ann", "predicate": "lives in", "object": "Berlin", "valid_from": 100}]
    )
    (w2,) = graph.add_facts(
        ns, [{"subject": "ann", "predicate": "lives_in", "object": "Lisbon", "valid_from": 200}]
    )
    assert w2.action == "created" and w2.supersedes == [w1.id]
    (w3,) = graph.add_facts(
        ns,
        [
            {
                "subject": "Ann",
                "predicate": "lives_in",
                "object": "Rome",
                "valid_from": 300,
                "confidence": 0.2,
            }
        ],
    )
    assert w3.action == "rejected" and "less certain" in (w3.reason or "")
    chain = graph.history(ns, "Ann", "lives in")
    assert [m.properties["object"] for m in chain] == ["Berlin", "Lisbon", "Rome"]
    assert [m.properties.get("valid_to") for m in chain] == [200.0, None, 300.0]
    edges = [e for e in graph.backend.read("export_edges", ns=ns) if e["type"] == "SUPERSEDES"]
    assert {(e["a"], e["b"]) for e in edges} == {(w2.id, w1.id), (w2.id, w3.id)}
    assert all(e["props"]["reason"] for e in edges)
    current = graph.recall(ns, "Where does Ann live?", k=5, blocks="semantic", fire=False)
    assert [h.memory.properties["object"] for h in current] == ["Lisbon"]
    past = graph.recall(ns, "Where does Ann live?", k=5, blocks="semantic", as_of=150)
    assert [h.memory.properties["object"] for h in past] == ["Berlin"]
    every = graph.recall(ns, "Where does Ann live?", k=5, blocks="semantic", history=True)
    assert {h.memory.properties["object"] for h in every} == {"Berlin", "Lisbon", "Rome"}


def test_as_of_leaves_out_episodes_of_a_later_time(graph, ns):
    graph.add_episodes(
        ns,
        [
            {"text": "Ann said she lives in Berlin.", "session_id": "a", "ts": 100.0},
            {"text": "Ann said she lives in Lisbon now.", "session_id": "b", "ts": 500.0},
        ],
    )
    past = graph.recall(ns, "Where does Ann live?", k=5, blocks="episodic", as_of=150, fire=False)
    assert [h.memory.text for h in past] == ["Ann said she lives in Berlin."]
    now = graph.recall(ns, "Where does Ann live?", k=5, blocks="episodic", fire=False)
    assert len(now) == 2


def test_multi_valued_predicates_just_add_and_batches_reconcile_in_time_order(graph, ns):
    likes = graph.add_facts(
        ns,
        [
            {"subject": "Bo", "predicate": "likes", "object": "tea"},
            {"subject": "Bo", "predicate": "likes", "object": "jazz"},
        ],
    )
    assert [w.action for w in likes] == ["created", "created"]
    sides = graph.add_facts(
        ns,
        [
            {"subject": "red die", "predicate": "has_sides", "object": "8", "valid_from": 2},
            {"subject": "red die", "predicate": "has_sides", "object": "6", "valid_from": 1},
        ],
    )
    assert sides[0].supersedes == [sides[1].id]
    assert [m.properties["object"] for m in graph.history(ns, "red die", "has_sides")] == ["6", "8"]


def test_custom_adjudicator_decides_and_teaches_cardinality(graph, ns):
    calls = []

    def judge(conflict):
        calls.append((conflict.current.object, conflict.new.object))
        return Verdict("new", "the user moved desks")

    for i, desk in enumerate(["D1", "D2", "D3"]):
        graph.add_facts(
            ns,
            [{"subject": "Cy", "predicate": "sits_at", "object": desk, "valid_from": i}],
            adjudicator=judge,
        )
    assert calls == [("D1", "D2"), ("D2", "D3")]
    assert graph._engram.cardinality.kind(ns, "sits_at") == "functional"  # learned
    (w,) = graph.add_facts(
        ns, [{"subject": "Cy", "predicate": "sits_at", "object": "D4", "valid_from": 9}]
    )
    assert w.supersedes  # default rule now applies: it was learned single-valued
    graph.set_cardinality(ns, "sits_at", False)
    (w,) = graph.add_facts(
        ns, [{"subject": "Cy", "predicate": "sits_at", "object": "D5", "valid_from": 10}]
    )
    assert w.supersedes == []


def test_a_look_alike_new_value_is_a_change_not_a_duplicate(graph, ns):
    (old,) = graph.add_facts(
        ns,
        [{"subject": "drake", "predicate": "lives_in", "object": "Rylal Arena", "valid_from": 1}],
    )
    (new,) = graph.add_facts(
        ns,
        [{"subject": "drake", "predicate": "lives_in", "object": "Rylil Arena", "valid_from": 2}],
    )
    assert new.action == "created" and new.supersedes == [old.id]
    (again,) = graph.add_facts(
        ns,
        [{"subject": "Drake", "predicate": "lives in", "object": "rylil arena", "valid_from": 3}],
    )
    assert again.action == "merged" and again.id == new.id  # the same value, said again


def test_capacity_drops_superseded_history_before_current_facts(graph, ns):
    for i, city in enumerate(["Oslo", "Rome", "Lima"]):
        graph.add_facts(
            ns, [{"subject": "Ann", "predicate": "lives_in", "object": city, "valid_from": i}]
        )
    graph.add_facts(ns, [{"subject": "Ann", "predicate": "likes", "object": "tea"}])
    report = graph.maintain(ns, capacity=2)
    assert report.capacity_dropped == 2
    left = {m.properties["object"] for m in graph.list(ns)}
    assert left == {"Lima", "tea"}


def test_capacity_drops_episodes_whose_facts_were_extracted_before_facts(graph, ns):
    told, _chat = _turns(graph, ns, [("ann", "I live in Oslo"), ("ann", "nice weather today")])
    graph.add_facts(
        ns,
        [{"subject": "Ann", "predicate": "lives_in", "object": "Oslo", "source_episode_id": told}],
    )
    graph.maintain(ns, capacity=2)
    left = {m.text for m in graph.list(ns)}
    assert left == {"Ann lives in Oslo", "nice weather today"}


def test_a_failing_or_nonsense_adjudicator_falls_back_to_the_default_rule(graph, ns):
    def broken(conflict):
        raise RuntimeError("model server down")

    def nonsense(conflict):
        return {"winner": "banana"}

    fact = {"subject": "Dee", "predicate": "lives_in", "object": "Oslo", "valid_from": 1}
    graph.add_facts(ns, [fact])
    (w,) = graph.add_facts(ns, [{**fact, "object": "Rome", "valid_from": 2}], adjudicator=broken)
    assert w.action == "created" and len(w.supersedes) == 1  # newer wins by default
    (w,) = graph.add_facts(ns, [{**fact, "object": "Lima", "valid_from": 3}], adjudicator=nonsense)
    assert w.action == "created" and len(w.supersedes) == 1
    objects = [m.properties["object"] for m in graph.history(ns, "Dee", "lives_in")]
    assert objects == ["Oslo", "Rome", "Lima"]


def test_under_a_hard_cap_current_facts_outlive_raw_episodes(graph, ns):
    _turns(graph, ns, [("ann", "what a day, so much rain")])
    graph.add_facts(ns, [{"subject": "Ann", "predicate": "likes", "object": "rain", "salience": 0}])
    graph.maintain(ns, capacity=1)
    assert [m.block for m in graph.list(ns)] == ["semantic"]


def test_a_schema_2_cardinality_blob_becomes_predicate_nodes_when_opened(graph, ns):
    """Schema 2 kept what a namespace declared and learned as one JSON blob (a process
    cache wrote it whole, so two processes overwrote each other's lessons)."""
    blob = {"sits_at": {"override": True}, "wears": {"kept_both": 3, "replaced": 1}}
    graph.backend.write("meta_put", key=f"cardinality:{ns}", value=json.dumps(blob))
    (row,) = graph.backend.read("meta_get", key="schema")
    meta = json.loads(row["value"])
    graph.backend.write("meta_put", key="schema", value=json.dumps({**meta, "version": 2}))
    try:
        with LiquidGraph(graph.settings, embedder=graph.embedder) as reopened:
            assert reopened._engram.cardinality.kind(ns, "sits_at") == "functional"
            assert reopened._engram.cardinality.kind(ns, "wears") == "multi"
    finally:  # schema 4 dropped the engine's search indexes, which other tests switch to
        graph.backend.ensure_schema(graph.embedder.dim, ("vectors", "fulltext"))
    assert graph.backend.read("meta_get", key=f"cardinality:{ns}") == []
    (row,) = graph.backend.read("meta_get", key="schema")
    assert json.loads(row["value"])["version"] == SCHEMA_VERSION
