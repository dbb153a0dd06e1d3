"""The in-process read index (graph_db/read_index.py): what another process writes is seen
by the next recall, a rolled-back write never reaches it, a process killed between commit
and index update loses nothing, recall gives the same results with it as without (the
engine's full-text both ways), and its own full-text search is BM25 over the namespace
alone."""

from __future__ import annotations

import contextlib
import gc
import signal
import threading
import weakref
from contextlib import contextmanager

import numpy as np
import pytest

from graph_db import MagsError, progress, read_index
from graph_db.dynamics import DecayParams
from tests.helpers.workers import (
    delete_elsewhere,
    recall_elsewhere,
    write_entity_elsewhere,
    write_episode_elsewhere,
)

TURNS = [
    "I adopted a grey cat called Miso last spring",
    "My sister Lena lives in Porto and teaches maths",
    "We hiked the West Highland Way in June, it rained every day",
    "I am allergic to peanuts, so no satay for me",
    "Our team moved the release to the first week of March",
    "The spare key used to be under the doormat",
    "I started learning the cello in January",
    "Miso sleeps on the sofa all afternoon",
    "My favourite restaurant is the Lebanese place on King Street",
    "Lena's birthday is on the 14th of August",
]
QUERIES = [
    "what pet do I have",
    "where does my sister live",
    "what am I allergic to",
    "when is the release",
    "which instrument am I learning",
    "Lena birthday",
    "where is the spare key",
]


def _stamp(graph, ns):
    rows = graph.backend.read("namespace_version", ns=ns)
    return rows[0]["epoch"], rows[0]["version"]


def _recalled(graph, ns, query, k=5):
    return [r.memory.id for r in graph.recall(ns, query, k=k, fire=False)]


@contextmanager
def counted_reads(graph):
    """The (name, parameters) of the queries ``graph`` reads through its backend meanwhile,
    in order."""
    reads: list[tuple[str, dict]] = []
    read = graph.backend.read

    def counted(name, **params):
        reads.append((name, params))
        return read(name, **params)

    graph.backend.read = counted
    try:
        yield reads
    finally:
        graph.backend.read = read


def _names(reads):
    return [name for name, _ in reads]


@contextmanager
def write_through_held(graph):
    """While inside, this process's commits are held between the engine and the read index
    (a listener ahead of the index's waits): yields (a commit came, release it); released on
    the way out. A writer held must be joined inside: the listener goes on the way out, and
    a list changed while a commit walks it skips the next listener (the index's)."""
    committed, release = threading.Event(), threading.Event()

    def held(commit):
        committed.set()
        release.wait(60)

    graph.backend.on_commit.insert(0, held)
    try:
        yield committed, release
    finally:
        release.set()
        graph.backend.on_commit.remove(held)


@contextmanager
def index_off(graph):
    kept = graph.search_engine.index
    graph.search_engine.index = None
    try:
        yield
    finally:
        graph.search_engine.index = kept


@contextmanager
def engine_fulltext(graph):
    """Full-text from the engine, with the read index on (its own is the namespace's BM25,
    which the engine's global index cannot equal)."""
    searcher = graph.search_engine
    kept = searcher.settings
    searcher.settings = kept.model_copy(update={"read_index_fulltext": False})
    try:
        yield
    finally:
        searcher.settings = kept


def test_the_index_is_on_by_default_and_own_writes_go_through_it(graph, ns):
    index = graph.read_index
    assert index is not None and graph.search_engine.index is index
    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "what pet do I have", k=1) == [ids[0]]
    builds = index.builds
    new = graph.add_episode(ns, "The spare key is now in the blue flowerpot", session_id="s")
    assert _recalled(graph, ns, "blue flowerpot key", k=1) == [new]
    graph.delete(ns, ids[0])
    assert ids[0] not in _recalled(graph, ns, "grey cat Miso adopted", k=10)
    graph.update(ns, ids[6], text="I started learning the bassoon in January")
    assert _recalled(graph, ns, "bassoon lessons", k=1) == [ids[6]]
    assert index.builds == builds  # applied as written: the namespace was not read again
    assert list(index.vectors(ns, [new, ids[0]])) == [new]
    graph.forget_namespace(ns)


def test_a_second_process_write_is_seen_by_the_next_recall(graph, ns):
    """... caught up on, not read whole: what the other process wrote and deleted since,
    and this process's own writes in between."""
    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "where is the spare key", k=1)  # the index holds ns now
    index = graph.read_index
    before, builds, catch_ups = _stamp(graph, ns), index.builds, index.catch_ups
    child = write_episode_elsewhere(graph, ns, "The spare key is now in the blue flowerpot")
    assert child.returncode == 0, child.stderr[-2000:]
    new = child.stdout.strip().splitlines()[-1]
    assert _stamp(graph, ns)[1] == before[1] + 1
    mine = graph.add_episode(ns, "The cello teacher moved to Thursdays", session_id="s")
    child = delete_elsewhere(graph, ns, ids[0])
    assert child.returncode == 0, child.stderr[-2000:]
    assert _recalled(graph, ns, "blue flowerpot spare key", k=1) == [new]
    assert _recalled(graph, ns, "cello teacher Thursdays", k=1) == [mine]
    assert ids[0] not in _recalled(graph, ns, "grey cat Miso adopted", k=10)
    assert ids[0] not in {f.id for f in graph.search_engine.fulltext(
        graph.backend.read, ns, "Episode", "grey cat Miso adopted", 10)}  # fmt: skip
    # caught up twice (the write path's neighbour search before this process's own write,
    # then the recall after the deletion), never read whole
    assert (index.builds, index.catch_ups) == (builds, catch_ups + 2)
    with index_off(graph):  # and it holds what the store holds
        assert _recalled(graph, ns, "blue flowerpot spare key", k=3) == _recalled(
            graph, ns, "blue flowerpot spare key", k=3
        )
    graph.forget_namespace(ns)


MUSEUMS = [f"the {n} museum of Tallinn" for n in range(40)]
CITIES = ["Seville", "Oslo", "Kyoto", "Quito", "Dakar", "Perth", "Lima", "Riga", "Hanoi", "Cork"]
CATHEDRALS = [f"the cathedral of {c}" for c in CITIES]
PLACES = ["the Lebanese place on King Street", "the old harbour of Porto",
          "the night market in Taipei", *MUSEUMS, *CATHEDRALS]  # fmt: skip
AGAIN = ["the Lebanese place on King St", "the old harbor of Porto", "Taipei's night market",
         "the 7 museum of Tallinn", "a lighthouse in Brittany"]  # fmt: skip


def _visited(objects, tag):
    return [{"id": f"{tag}{i}", "subject": "I", "predicate": "visited", "object": o}
            for i, o in enumerate(objects)]  # fmt: skip


def test_a_facts_duplicates_are_found_on_the_indexs_vectors_as_on_the_stores(graph, ns):
    """Each current fact of the new ones' subject and predicate is compared with them: its
    vector comes from the index, and from the store only where the index's float16 copy is
    too close to the threshold to tell (and the numbers in the objects agree: "the 8
    museum" is never merged into "the 7 museum"). The same merges either way."""
    done, reads = {}, {}
    for space, on in ((f"{ns}-on", True), (f"{ns}-off", False)):
        with contextlib.nullcontext() if on else index_off(graph):
            graph.add_facts(space, _visited(PLACES, "p"))
            with counted_reads(graph) as asked:
                done[on] = graph.add_facts(space, _visited(AGAIN, "a"))
        reads[on] = (
            [p["with_embedding"] for n, p in asked if n == "facts_current_by_key"],
            [p["ids"] for n, p in asked if n == "memory_get" and "embedding" in p["fields"]],
        )
        graph.forget_namespace(space)
    assert done[True] == done[False]
    assert {"p1", "p2", "p10"} <= {w.id for w in done[True] if w.action == "merged"}
    assert reads[False] == ([True], [])
    with_index, embeddings = reads[True]
    assert with_index == [False] and len(embeddings) == 1
    # harbor, Taipei's, the 7 museum, maybe King St (0.950): not the other 39 museums, nor
    # the cathedrals (far from all)
    assert {"p1", "p2", "p10"} <= set(embeddings[0]) and len(embeddings[0]) <= 4


def test_entity_linking_searches_the_index_for_what_any_process_wrote(graph, ns, monkeypatch):
    """A name not known by its key is matched by its vector among the namespace's entities,
    which the read index holds: one this process made, one another process made (caught
    up on), never one deleted since (orphaned, in another process); and the engine is
    asked for no nearest neighbour."""
    from graph_db.backends.bolt import Tx

    asked = []
    run = Tx.run
    monkeypatch.setattr(Tx, "run", lambda tx, name, **p: asked.append(name) or run(tx, name, **p))

    def entities():
        found = graph.backend.read("entities_by_name", ns=ns, names=[
            "porto harbour museum", "lena moreau", "moreau, lena"])  # fmt: skip
        return {r["name"]: r["id"] for r in found}

    def linked(turn):  # the entities through which the walk reaches another memory
        return {e for _, _, e, _ in graph.read_index.walked(
            ns, lambda adj: adj.entity_step([(turn, 1.0)], 0.0, 99, 1.0))}  # fmt: skip

    graph.add_episodes(ns, [{"text": "We visited the museum by the harbour", "session_id": "s",
                             "entities": ["Porto Harbour Museum"]}])  # fmt: skip
    child = write_entity_elsewhere(graph, ns, "Lena Moreau")
    assert child.returncode == 0, child.stderr[-2000:]
    elsewhere = child.stdout.strip().splitlines()[-1]
    made = entities()
    assert set(made) == {"porto harbour museum", "lena moreau"}
    names = ["Harbour Museum of Porto", "Moreau, Lena"]
    turn = graph.add_episodes(ns, [{"text": "Back at the museum with Lena", "session_id": "s",
                                    "entities": names}])[0]  # fmt: skip
    assert entities() == made  # both names matched by their vectors: no entity made
    assert linked(turn) == set(made.values())
    assert "vector_search" not in asked and "vector_exact_entity" not in asked
    graph.delete(ns, turn)
    child = delete_elsewhere(graph, ns, elsewhere)  # Lena's entity orphaned and deleted there
    assert child.returncode == 0, child.stderr[-2000:]
    assert "lena moreau" not in entities()
    again = graph.add_episodes(ns, [{"text": t, "session_id": "s", "entities": ["Moreau, Lena"]}
                                    for t in ("Lena called", "Lena called again")])  # fmt: skip
    now = entities()  # ...so the name makes an entity anew, which the turns link to
    assert now.keys() == {"porto harbour museum", "moreau, lena"}
    assert linked(again[0]) == {now["moreau, lena"]}
    graph.forget_namespace(ns)


def _held_and_stored(graph, ns):
    """Every memory's row as the read index holds it, and as the store has it now."""
    ids = [m.id for m in graph.list(ns, limit=1000)]
    stored = {r["id"]: r["row"] for r in graph.backend.read("recall_rows", ns=ns, ids=ids,
              vecs=False)}  # fmt: skip
    for row in stored.values():
        row.pop("vecs")
    return graph.read_index.rows(ns, ids), stored


def test_the_rows_recall_ranks_by_are_the_stores_after_every_kind_of_write(graph, ns):
    """Access times (recall's trace), importance (an answer's reinforcement, maintenance),
    a fact superseded and one repeated: held as the store has them, written through by
    this process and caught up on after another's, so recall reads from the engine only
    the version and the memories it returns."""
    graph.add_episodes(ns, [{"text": t, "session_id": "s", "speaker": "Ann"} for t in TURNS])
    allergy = {"subject": "Ann", "predicate": "allergic_to", "object": "peanuts"}
    graph.add_facts(ns, [{"subject": "Lena", "predicate": "lives_in", "object": "Porto"}, allergy])
    index = graph.read_index
    with counted_reads(graph) as reads:
        hits = graph.recall(ns, "where does Lena live", k=4)
    # held (the writes went through it): the version comes with the results, one read
    assert _names(reads) == ["recall_results"]
    builds = index.builds
    graph.flush()  # the trace: access times
    graph.reinforce(ns, hits[:2], 1.0)  # importance
    graph.add_facts(ns, [{"subject": "Lena", "predicate": "lives_in", "object": "Lisbon"}, allergy])
    graph.maintain(ns, full=True)  # importance recomputed
    held, stored = _held_and_stored(graph, ns)
    assert held == stored and len(held) == len(TURNS) + 3
    assert sum(row["valid_to"] is not None for row in held.values()) == 1  # Porto, closed
    assert index.builds == builds  # written through, not read again
    child = recall_elsewhere(graph, ns, "which instrument am I learning")
    assert child.returncode == 0, child.stderr[-2000:]
    touched = child.stdout.split()
    before = graph.read_index.rows(ns, touched)
    _recalled(graph, ns, "cello")  # caught up on the other process's trace
    held, stored = _held_and_stored(graph, ns)
    assert held == stored and index.builds == builds
    assert all(held[m]["last_access"] > before[m]["last_access"] for m in touched)
    graph.forget_namespace(ns)


def _steps_held_and_stored(graph, ns, now):
    """Every memory's walk steps (edges, then entities) from the read index and from the
    engine's walk_edges and walk_entities, at activation 1 and no threshold."""
    s = graph.settings
    ids = sorted(m.id for m in graph.list(ns, limit=1000))
    at = [(mid, 1.0) for mid in ids]
    decay = DecayParams.of(s)
    weights = (s.walk_next_weight, s.walk_derived_weight, s.walk_max_fanout)
    held = graph.read_index.walked(ns, lambda adj: adj.step(at, 0.0, now, decay, *weights))
    held += graph.read_index.walked(
        ns, lambda adj: adj.entity_step(at, 0.0, s.walk_entity_max_degree, 1.0)
    )
    frontier = [{"id": mid, "act": 1.0} for mid in ids]
    params = {"ns": ns, "frontier": frontier, "stop": 0.0, "now": now, "rows": False,
              "vecs": False, "known": [], **decay.as_params()}  # fmt: skip
    stored = [(r["source"], r["id"], r["edge"], r["w"]) for r in graph.backend.read(
        "walk_edges", next_w=s.walk_next_weight, derived_w=s.walk_derived_weight,
        fanout=s.walk_max_fanout, **params)]  # fmt: skip
    stored += [(r["source"], r["id"], r["entity"], r["w"]) for r in graph.backend.read(
        "walk_entities", max_degree=s.walk_entity_max_degree, entity_w=1.0, **params)]  # fmt: skip
    return _rounded(held), _rounded(stored)


def _rounded(steps):
    return sorted((src, dst, edge, round(w, 9)) for src, dst, edge, w in steps)


def test_the_walk_steps_over_the_stores_edges_after_every_kind_of_write(graph, ns):
    """New turns and facts (NEXT, ASSOC, DERIVED_FROM, entity links), a turn written into
    the middle of its session (a NEXT link replaced), recall's Hebbian trace and an
    answer's, maintenance a month on (triadic births, pruning), a turn deleted (the chain
    bridged), another process's write and recall: the read index's walk steps are the
    engine's, and recall asks the engine for none."""
    from graph_db import clock

    start = clock.now() - 3_600
    turns = [{"text": t, "session_id": "s", "speaker": "Ann", "entities": ["Lena"] * (i % 2),
              "ts": start + 60 * i} for i, t in enumerate(TURNS)]  # fmt: skip
    ids = graph.add_episodes(ns, turns)
    graph.add_episodes(ns, [{"text": "Between the hike and the peanuts: I bought boots",
                             "session_id": "s", "speaker": "Ann", "ts": start + 150}])  # fmt: skip
    held, stored = _steps_held_and_stored(graph, ns, clock.now())
    assert held == stored
    assert (ids[2], ids[3], "NEXT") not in {(a, b, e) for a, b, e, _ in held}  # replaced
    graph.add_facts(ns, [{"subject": "Lena", "predicate": "lives_in", "object": "Porto",
                          "source_episode_id": ids[1]}])  # fmt: skip
    index = graph.read_index
    hits = graph.recall(ns, "where does my sister Lena live", k=5)
    builds = index.builds
    graph.reinforce(ns, hits[:3], 1.0)
    graph.delete(ns, ids[4])
    assert _steps_held_and_stored(graph, ns, clock.now())[0]  # held, and not empty
    later = clock.now() + 30 * 86_400
    report = graph.maintain(ns, now=later, full=True)
    assert report.pruned_edges > 0 and report.visited > 0  # pruned, importance recomputed
    held, stored = _steps_held_and_stored(graph, ns, later)
    assert held == stored
    assert {"ASSOC", "NEXT", "DERIVED_FROM"} <= {edge for _, _, edge, _ in held}
    assert index.builds == builds  # written through
    child = write_episode_elsewhere(graph, ns, "Lena moved to Lisbon with her cat")
    assert child.returncode == 0, child.stderr[-2000:]
    child = recall_elsewhere(graph, ns, "where does Lena live now")
    assert child.returncode == 0, child.stderr[-2000:]
    _recalled(graph, ns, "Lena")  # caught up
    held, stored = _steps_held_and_stored(graph, ns, later)
    assert held == stored and index.builds == builds
    graph.forget_namespace(ns)


def test_a_process_killed_between_commit_and_index_update_loses_nothing(graph, ns):
    graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "where is the spare key", k=1)
    child = write_episode_elsewhere(graph, ns, "The spare key is now in the red mailbox", True)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    new = child.stdout.strip().splitlines()[-1]
    assert _recalled(graph, ns, "red mailbox spare key", k=1) == [new]
    graph.forget_namespace(ns)


def test_a_write_that_rolls_back_never_reaches_the_index(graph, ns):
    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "what pet do I have", k=1) == [ids[0]]
    before, builds = _stamp(graph, ns), graph.read_index.builds

    class Boom(MagsError):
        pass

    prepared = graph._engram.prepare_episodes(ns, ["The treasure is buried under the oak"])

    def work(tx):
        tx.run("episodes_create", ns=ns, rows=[{"id": "ghost", "text": prepared.texts[0],
               "vecs": "", "terms": "treasur buri oak",
               "embedding": prepared.vectors[0].tolist()}])  # fmt: skip
        raise Boom("abort")

    with pytest.raises(Boom):
        graph.backend.write_tx(work)
    assert _stamp(graph, ns) == before
    assert "ghost" not in _recalled(graph, ns, "buried treasure oak", k=10)
    assert graph.read_index.builds == builds
    graph.forget_namespace(ns)


def test_a_recall_during_this_process_own_commit_waits_for_its_write_through(graph, ns):
    """The store is a version ahead while this process's commit is between the engine and
    the index: a recall then waits for the write-through, it does not read the changed
    memories back (at 100k, a hub's edges took 130-180 ms to read back)."""
    graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "where is the spare key", k=1)
    index = graph.read_index
    catch_ups, builds = index.catch_ups, index.builds
    written: list[str] = []

    def write():
        written.append(graph.add_episode(ns, "The spare key is now in the red mailbox"))

    writer = threading.Thread(target=write)
    # told before the index: the commit is in the store, not in the index
    with write_through_held(graph) as (committed, release):
        writer.start()
        assert committed.wait(60)
        threading.Timer(0.3, release.set).start()
        found = _recalled(graph, ns, "red mailbox spare key", k=1)
        release.set()
        writer.join(60)  # its listeners all told before the held one goes
    assert found == written
    assert (index.catch_ups, index.builds) == (catch_ups, builds)
    graph.forget_namespace(ns)


@pytest.mark.parametrize("beside", [False, True], ids=["one-thread", "side-search"])
def test_recall_and_search_with_the_index_equal_those_without(graph, ns, beside, monkeypatch):
    """``beside``: the episodes are searched on the index's own thread (as a label of
    ``SIDE_SEARCH_MIN`` memories or more is) while the facts and the terms are searched."""
    monkeypatch.setattr(read_index, "SIDE_SEARCH_MIN", 1 if beside else 10**9)
    threads: set[str] = set()  # where the labels' vector searches ran
    nearest = read_index._Block.nearest

    def seen(block: read_index._Block, *args: object) -> object:
        threads.add(threading.current_thread().name)
        return nearest(block, *args)

    monkeypatch.setattr(read_index._Block, "nearest", seen)
    graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    graph.add_facts(
        ns,
        [
            {"subject": "Lena", "predicate": "lives_in", "object": "Porto"},
            {"subject": "I", "predicate": "allergic_to", "object": "peanuts"},
            {"subject": "Miso", "predicate": "is_a", "object": "grey cat"},
        ],
    )
    with engine_fulltext(graph):
        with_index = {q: _recalled(graph, ns, q, k=8) for q in QUERIES}
    searched = {q: [h.memory.id for h in graph.search(ns, q, k=8, mode="vector")] for q in QUERIES}
    assert any(name.startswith("mags-read-index") for name in threads) == beside
    with index_off(graph):
        assert {q: _recalled(graph, ns, q, k=8) for q in QUERIES} == with_index
        assert {
            q: [h.memory.id for h in graph.search(ns, q, k=8, mode="vector")] for q in QUERIES
        } == searched
    graph.forget_namespace(ns)


def test_a_namespace_deleted_and_written_again_is_not_answered_from_the_old_one(graph, ns):
    old = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "what pet do I have", k=1) == [old[0]]
    epoch = _stamp(graph, ns)[0]
    graph.forget_namespace(ns)
    new = graph.add_episodes(ns, ["My dog Rex chases the postman"])
    assert _stamp(graph, ns)[0] != epoch
    assert _recalled(graph, ns, "what pet do I have", k=10) == new
    graph.forget_namespace(ns)


def test_past_its_budget_the_index_lets_the_least_recently_searched_namespace_go(graph, ns):
    index, other = graph.read_index, ns + "-other"
    kept = index.max_memories
    index.max_memories = len(TURNS) + 3  # room for one of the two
    try:
        ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
        graph.add_episodes(other, [{"text": t, "session_id": "s"} for t in TURNS[:6]])
        assert not index.vectors(ns, [ids[0]])  # let go when the other grew past the budget
        assert _recalled(graph, ns, "what pet do I have", k=1) == [ids[0]]  # read again
        assert _recalled(graph, other, "what pet do I have", k=1)
        assert not index.vectors(ns, [ids[0]])  # let go: the other was searched last
        builds = index.builds
        assert _recalled(graph, ns, "what pet do I have", k=1) == [ids[0]]
        assert index.builds == builds + 1
    finally:
        index.max_memories = kept
        graph.forget_namespace(ns)
        graph.forget_namespace(other)


def test_full_text_is_bm25_over_the_namespace_alone(graph, ns):
    """The index's full-text scores are Lucene's BM25 over this namespace's stored terms
    (bm25s as the reference), kept as written, updated and deleted; another namespace's
    turns, which weigh on the engine's global index, change nothing."""
    import bm25s

    from graph_db.text import fulltext_query

    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    graph.update(ns, ids[6], text="Lena started learning the cello in January")
    graph.delete(ns, ids[2])
    query = "Lena my sister in Porto plays the cello"

    def ours():
        hits = graph.search_engine.fulltext(graph.backend.read, ns, "Episode", query, 50)
        return {f.id: f.score for f in hits}

    before = ours()
    other = f"{ns}-other"
    graph.add_episodes(other, [{"text": "Lena Lena Porto Porto cello", "session_id": "s"}] * 5)
    assert ours() == before
    rows = [r for r in graph.backend.read("index_memories", ns=ns) if r["label"] == "Episode"]
    ref = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    ref.index([r["terms"].split() for r in rows], show_progress=False)
    found, scores = ref.retrieve([fulltext_query(query).split()], k=len(rows), show_progress=False)
    expected = {rows[i]["id"]: float(s) for i, s in zip(found[0], scores[0], strict=True) if s > 0}
    assert len(expected) >= 3 and ids[2] not in expected
    assert before == pytest.approx(expected, rel=1e-5)
    graph.forget_namespace(ns)
    graph.forget_namespace(other)


def test_an_index_further_behind_than_the_change_log_reads_the_namespace_whole(
    graph, ns, monkeypatch
):
    """The change log keeps a namespace's last versions (bolt.CHANGES_KEPT); an index
    further behind cannot tell what went, so it reads the namespace whole, and holds none
    of what was deleted."""
    from graph_db import LiquidGraph
    from graph_db.backends import bolt

    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "what pet do I have", k=1) == [ids[0]]
    index = graph.read_index
    builds = index.builds
    monkeypatch.setattr(bolt, "CHANGES_KEPT", 1)
    with LiquidGraph(graph.settings) as other:  # another writer, with its own index
        other.delete(ns, ids[0])
        other.delete(ns, ids[7])  # past the bound: the first deletion's entry is dropped
    query = "grey cat Miso sleeps on the sofa"
    recalled = _recalled(graph, ns, query, k=10)
    found = {
        f.id for f in graph.search_engine.fulltext(graph.backend.read, ns, "Episode", query, 10)
    }
    assert not {ids[0], ids[7]} & (set(recalled) | found)
    assert index.builds == builds + 1
    graph.forget_namespace(ns)


def test_past_exact_below_an_hnsw_graph_finds_what_the_exact_scan_finds(graph, ns):
    """A label past ``exact_below`` memories is searched through an HNSW graph built in the
    background (exact until it is ready), kept up to date by each write after that: recall
    gives what the exact scan gives, a new turn is found, a deleted one never is."""
    index = graph.read_index
    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    graph.add_facts(ns, [{"subject": "Lena", "predicate": "lives_in", "object": "Porto"}])
    exact = {q: _recalled(graph, ns, q, k=8) for q in QUERIES}
    kept = index.exact_below
    index.exact_below = 4  # the episodes pass it, the one fact does not
    try:
        index.forget(ns)
        assert {q: _recalled(graph, ns, q, k=8) for q in QUERIES} == exact  # exact meanwhile
        assert set(index.hnsw(ns, wait=60)) == {"Episode"}
        assert {q: _recalled(graph, ns, q, k=8) for q in QUERIES} == exact
        new = graph.add_episode(ns, "The spare key is now in the blue flowerpot", session_id="s")
        assert _recalled(graph, ns, "blue flowerpot key", k=1) == [new]
        graph.delete(ns, ids[0])
        assert ids[0] not in _recalled(graph, ns, "grey cat Miso adopted", k=10)
        searched = graph.search(ns, "what pet do I have", k=20, mode="vector")
        assert ids[0] not in {h.memory.id for h in searched} and new in {
            h.memory.id for h in searched
        }
        assert len(index._spaces[ns].blocks["Episode"].ann) == len(TURNS)  # 10 - 1 + 1
    finally:
        index.exact_below = kept
        graph.forget_namespace(ns)


def test_an_hnsw_graph_built_after_the_save_is_saved_at_close(graph, ns):
    """An HNSW graph built after the namespace's file was written (in the background, after
    a build or a load) is saved at close though nothing else changed, so the next process
    searches through it at once instead of scanning while it builds the graph again."""
    from graph_db import LiquidGraph

    exact = graph.settings.model_copy(update={"read_index_persist_min": 1})
    with LiquidGraph(exact, embedder=graph.embedder) as first:  # saved without a graph
        first.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
        expected = {q: _recalled(first, ns, q, k=8) for q in QUERIES}
    hnsw = exact.model_copy(update={"read_index_exact_below": 4})
    with LiquidGraph(hnsw, embedder=graph.embedder) as second:  # loads it, builds the graph
        assert {q: _recalled(second, ns, q, k=8) for q in QUERIES} == expected
        assert second.read_index.loads == 1
        assert set(second.read_index.hnsw(ns, wait=60)) == {"Episode"}
    with LiquidGraph(hnsw, embedder=graph.embedder) as third:
        assert {q: _recalled(third, ns, q, k=8) for q in QUERIES} == expected
        assert third.read_index.loads == 1
        assert set(third.read_index.hnsw(ns, wait=0)) == {"Episode"}
        assert not third.read_index._spaces[ns].blocks["Episode"].built.is_set()  # not rebuilt
    graph.forget_namespace(ns)


def test_a_saved_index_is_read_back_and_caught_up_never_trusted_blindly(graph, ns):
    """A namespace's index is saved in the home (at close, and after a build) and read back
    by the next process, which catches up on what others wrote since instead of reading the
    namespace whole; deleting the namespace deletes its file; a file of the namespace as it
    was before it was deleted and made again, or one that cannot be read, is not used."""
    from graph_db import LiquidGraph, index_file

    settings = graph.settings.model_copy(update={"read_index_persist_min": 1})
    with LiquidGraph(settings, embedder=graph.embedder) as first:
        ids = first.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
        assert _recalled(first, ns, "what pet do I have", k=1) == [ids[0]]
        directory = first.read_index.directory
    assert index_file.path_for(directory, ns).exists()
    child = write_episode_elsewhere(graph, ns, "The spare key is now in the blue flowerpot")
    assert child.returncode == 0, child.stderr[-2000:]
    new = child.stdout.strip().splitlines()[-1]
    graph.delete(ns, ids[1])
    with LiquidGraph(settings, embedder=graph.embedder) as second:
        index = second.read_index
        assert _recalled(second, ns, "blue flowerpot spare key", k=1) == [new]
        assert (index.loads, index.builds, index.catch_ups) == (1, 0, 1)
        assert ids[1] not in _recalled(second, ns, "sister Lena Porto maths", k=10)
        with_file = {q: _recalled(second, ns, q, k=8) for q in QUERIES}
        with index_off(second), engine_fulltext(second):
            off = {q: _recalled(second, ns, q, k=8) for q in QUERIES}
        with engine_fulltext(second):
            assert {q: _recalled(second, ns, q, k=8) for q in QUERIES} == off
        assert with_file == {q: _recalled(graph, ns, q, k=8) for q in QUERIES}  # built anew
    path = index_file.path_for(directory, ns)
    old = path.read_bytes()
    graph.forget_namespace(ns)
    assert not path.exists()  # deleting a namespace deletes its file
    again = graph.add_episodes(ns, ["My dog Rex chases the postman"])
    path.write_bytes(old)  # as a home that did not see the deletion would still have it
    with LiquidGraph(settings, embedder=graph.embedder) as third:  # the file: the old epoch
        assert _recalled(third, ns, "what pet do I have", k=10) == again
        assert (third.read_index.loads, third.read_index.builds) == (0, 1)
    path.write_bytes(path.read_bytes()[:100])  # cut short
    with LiquidGraph(settings, embedder=graph.embedder) as fourth:
        assert _recalled(fourth, ns, "what pet do I have", k=10) == again
        assert (fourth.read_index.loads, fourth.read_index.builds) == (0, 1)
    graph.forget_namespace(ns)


def test_a_saved_index_is_filed_under_the_store_not_the_address_it_is_reached_at(graph, ns):
    """A Neo4j server reached at another address (started again on another port, or named
    another way) is the same store: its saved index is read back, not built again. The
    folder is named by an id the store itself holds, made once."""
    from graph_db import LiquidGraph

    uri = graph.settings.neo4j_uri
    if uri is None:
        pytest.skip("the embedded engine has one address, its home")
    settings = graph.settings.model_copy(update={"read_index_persist_min": 1})
    with LiquidGraph(settings, embedder=graph.embedder) as first:
        first.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
        expected = {q: _recalled(first, ns, q, k=8) for q in QUERIES}
        directory = first.read_index.directory
    elsewhere = uri.replace("://127.0.0.1:", "://localhost:")
    assert elsewhere != uri
    other = settings.model_copy(update={"neo4j_uri": elsewhere})
    with LiquidGraph(other, embedder=graph.embedder) as second:
        assert second.store_id == first.store_id == graph.store_id
        assert second.read_index.directory == directory
        assert {q: _recalled(second, ns, q, k=8) for q in QUERIES} == expected
        assert (second.read_index.loads, second.read_index.builds) == (1, 0)
    graph.forget_namespace(ns)


def test_a_large_namespace_read_whole_shows_its_progress(graph, ns, monkeypatch, capsys):
    """Reading a namespace whole takes minutes at 1M memories: a progress bar of its
    memories, their number known, is shown while they arrive (past PROGRESS_MIN; here every
    namespace is large), then cleared."""
    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    graph.add_facts(ns, [{"subject": "Lena", "predicate": "lives_in", "object": "Porto",
                          "source_episode_id": ids[1]}])  # fmt: skip
    monkeypatch.setattr(progress, "PROGRESS_MIN", 1)
    graph.read_index.forget(ns)
    capsys.readouterr()
    assert _recalled(graph, ns, "where does Lena live", k=3)
    err = capsys.readouterr().err
    assert f"read index: {ns}:   0%|          | 0/{len(TURNS) + 1} [" in err
    graph.forget_namespace(ns)


def test_a_large_namespace_read_whole_is_frozen_out_of_the_collectors_way(graph, ns, monkeypatch):
    """Past FREEZE_MIN memories read whole (here every namespace is large), what the process
    holds is frozen: Python's full collections no longer visit the index. Nothing is lost
    for good: a namespace let go is freed at once, without a collection (no cycle in it).
    With the setting off, nothing is frozen."""
    ids = graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    index = graph.read_index
    monkeypatch.setattr(read_index, "FREEZE_MIN", len(TURNS))
    try:
        for freeze in (False, True):  # the last one read whole is frozen
            monkeypatch.setattr(index, "gc_freeze", freeze)
            gc.unfreeze()
            index.forget(ns)
            assert _recalled(graph, ns, "what pet do I have", k=1) == [ids[0]]  # read whole
            assert (gc.get_freeze_count() > 0) is freeze
        held = weakref.ref(index._spaces[ns])
        gc.disable()  # no collection may free it meanwhile
        try:
            index.forget(ns)
            assert held() is None
        finally:
            gc.enable()
    finally:
        gc.unfreeze()
        graph.forget_namespace(ns)


def test_the_exact_scan_takes_the_earlier_written_of_those_tied_at_the_cut():
    """Memories with the same vector (a turn written twice) tied at the k-th place: the
    scan takes the earlier written, not whichever argpartition left there."""
    rng = np.random.default_rng(0)
    query, tied = np.array([1, 0, 0, 0], np.float32), np.array([0.6, 0.8, 0, 0], np.float32)
    for n, k in [(100, 10), (500, 20), (2000, 50)]:
        block = read_index._Block(4, threading.Lock())
        for i in range(n):
            other = rng.normal(size=4).astype(np.float32)
            other[0] = -abs(other[0])  # further from the query than the tied ones
            vec = tied if i % 4 == 0 else other / np.linalg.norm(other)
            block.put(None, f"m{i:05d}", vec, seq=i)  # written one after another
        found = [mid for mid, _ in block.nearest(query[None, :], k)[0]]
        assert found == [f"m{i:05d}" for i in range(0, 4 * k, 4)]


def test_the_walk_keeps_a_hubs_strongest_edges_ties_by_id_whatever_order_they_came_in():
    """A hub with more edges than the fan-out, many tied at the cut (the edges one recall
    co-fired start out equal): the walk steps over its strongest, the tied by the smaller
    id at the other end, the same whether its edges were written through one by one or
    read back from the store in another order."""
    from graph_db.adjacency import Adjacency

    rng = np.random.default_rng(0)
    now, fanout, next_w = 1_000.0, 256, 0.2
    strong = [(f"s{i:03d}", "ASSOC", 0.9) for i in range(10)]
    tied = [(f"t{i:04d}", "ASSOC", next_w) for i in rng.permutation(400)]
    tied.append(("t0000", "NEXT", None))  # the first tied one a second way, as strong
    weak = [(f"w{i:03d}", "ASSOC", 0.1) for i in range(20)]
    edges = strong + tied + weak

    def steps(order):
        held = Adjacency()
        for i in order:
            other, kind, w = edges[i]
            held.set_edge("hub", other, kind, w, now, now, False)
        return held.step([("hub", 1.0)], 0.0, now, DecayParams(0.01, 0.0), next_w, 0.5, fanout)

    as_written = steps(range(len(edges)))
    for order in (rng.permutation(len(edges)), range(len(edges) - 1, -1, -1)):
        assert steps(order) == as_written  # read back in another order
    reached = [(dst, kind) for _, dst, kind, _ in as_written]
    ties = sorted((other, kind) for other, kind, _ in tied)[: fanout - len(strong)]
    assert ties[:2] == [("t0000", "ASSOC"), ("t0000", "NEXT")]
    assert reached == [(other, kind) for other, kind, _ in strong] + ties


def test_a_hubs_steps_that_reach_the_threshold_come_strongest_first_and_decayed():
    """A hub of more edges than the fan-out of which fewer reach ``stop``: those, and only
    those, strongest first (the fan-out is chosen among all its edges), weighed as decayed
    (an edge stored strong enough but decayed since is not stepped over); a node under the
    fan-out keeps its listing order."""
    from graph_db.adjacency import Adjacency

    rng = np.random.default_rng(1)
    now, fanout, decay = 1_000.0, 256, DecayParams(0.01, 0.0)
    weights = {f"e{i:03d}": float(w) for i, w in enumerate(rng.uniform(0.01, 0.99, 300))}
    held = Adjacency()
    for other in rng.permutation(sorted(weights)):
        held.set_edge("hub", other, "ASSOC", weights[other], now, now, True)  # no decay
    held.set_edge("hub", "faded", "ASSOC", 0.95, 0.0, 0.0, False)  # 0.95 x e^-10 now
    for other in ("z", "y", "x"):
        held.set_edge(
            "small", other, "ASSOC", {"z": 0.3, "y": 0.7, "x": 0.9}[other], now, now, True
        )
    stop, act = 0.5, 0.8  # reached: w >= 0.625

    def steps(name):
        return held.step([(name, act)], stop, now, decay, 0.37, 0.8, fanout)

    strong = sorted((o for o, w in weights.items() if act * w >= stop), key=lambda o: -weights[o])
    assert 0 < len(strong) < fanout
    assert [(dst, w) for _, dst, _, w in steps("hub")] == [(o, weights[o]) for o in strong]
    assert [dst for _, dst, _, _ in steps("small")] == ["y", "x"]  # as listed, not by strength


def test_a_namespace_read_back_from_the_store_ranks_ties_as_written_through(graph, ns):
    """Memories tied in a search (the same text: the same vector and terms) are told apart
    by their write order as stored (``seq``); so a namespace read back from the store,
    whose rows come in the store's order and not in the write order, finds and ranks them
    as the one written through, and a rewrite (a new row) keeps its place."""
    from graph_db.text import fulltext_query

    same = "The spare key is under the blue flowerpot by the door"
    first = graph.add_episodes(ns, [{"text": same, "session_id": "s"}] * 6)
    graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    later = graph.add_episodes(ns, [{"text": same, "session_id": "s"}] * 6)
    in_order = first + later
    vector, words = graph.embedder.embed([same]), [fulltext_query(same).split()]

    def found(k):
        near, text = graph.read_index.find(graph.backend.read, ns, ["Episode"], k, vector, words)
        return [mid for mid, _ in near["Episode"][0]], [mid for mid, _ in text["Episode"][0]]

    graph.update(ns, first[0], metadata={"checked": True})  # read back: a new lexicon row
    written_through = {k: found(k) for k in (4, 9, 12)}
    assert written_through[4] == (in_order[:4], in_order[:4])  # also which make the cut
    assert written_through[12] == (in_order, in_order)
    recalled = _recalled(graph, ns, same, k=12)
    builds = graph.read_index.builds
    graph.read_index.forget(ns)
    assert {k: found(k) for k in (4, 9, 12)} == written_through
    assert graph.read_index.builds == builds + 1  # read back from the store
    assert _recalled(graph, ns, same, k=12) == recalled
    graph.forget_namespace(ns)


def test_a_recall_searches_full_text_while_its_query_is_embedded(graph, ns, monkeypatch):
    """The full-text search needs the query's words only: it runs on the recall's threads
    while the query is embedded (the core the embedding leaves idle), and finds as before."""
    graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "where is the spare key", k=1)  # held
    searched = threading.Event()
    find = read_index.ReadIndex.find

    def noted(self, run, ns_, labels, k, vectors=None, words=None, stamp=None):
        if words:
            searched.set()
        return find(self, run, ns_, labels, k, vectors, words, stamp)

    monkeypatch.setattr(read_index.ReadIndex, "find", noted)
    embedder, during = graph.embedder, []

    class Waiting:  # embeds once the full-text search has started (or 30 s went by)
        name, dim = embedder.name, embedder.dim

        def embed(self, texts):
            during.append(searched.wait(30))
            return embedder.embed(texts)

    graph.embedder = Waiting()
    try:
        hits = graph.recall(ns, "cello", k=1, fire=False)
    finally:
        graph.embedder = embedder
    assert during == [True]
    assert [h.memory.text for h in hits] == ["I started learning the cello in January"]
    graph.forget_namespace(ns)


@pytest.mark.parametrize("landed", ["before the read", "after the read"])
def test_a_recall_that_meets_its_own_processs_commit_keeps_its_answer(graph, ns, landed):
    """This process commits while a recall is between its search and its results' check (a
    recall's trace, another thread's write). Before the read, the store is a version ahead of
    the index: the recall waits for the commit's write-through. After it, the store as read
    is the version searched, and the index has moved on. Either way the recall keeps its
    answer and is not run again (another process's write makes it: the test below)."""
    graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "where is the spare key", k=1)  # held
    main, reads, read = threading.get_ident(), [], graph.backend.read
    written: list[list[str]] = []
    writer = threading.Thread(
        target=lambda: written.append(graph.add_episodes(ns, ["I sold the cello"]))
    )

    def counted(name, **params):
        if threading.get_ident() != main:
            return read(name, **params)
        reads.append(name)
        if name != "recall_results" or writer.ident:  # searched once: now the commit
            return read(name, **params)
        if landed == "after the read":
            rows = read(name, **params)
            release.set()
            writer.start()  # committed and written through before the check
            writer.join(30)
            return rows
        writer.start()
        assert committed.wait(30)  # committed, not written through
        threading.Timer(0.3, release.set).start()
        return read(name, **params)

    graph.backend.read = counted
    with write_through_held(graph) as (committed, release):
        try:
            hits = graph.recall(ns, "which instrument am I learning", k=1, fire=False)
        finally:
            graph.backend.read = read
            release.set()
            if writer.ident:  # started: its commit's listeners told before the held one goes
                writer.join(30)
    assert [h.memory.text for h in hits] == ["I started learning the cello in January"]
    assert reads == ["recall_results"]  # the store's version came with the results: kept
    assert written and _recalled(graph, ns, "I sold the cello", k=1) == written[0]
    graph.forget_namespace(ns)


def test_a_held_namespace_is_searched_as_held_and_again_when_another_process_wrote(graph, ns):
    """A recall of a namespace the index holds reads the store once, for its results and
    version together; when another process wrote since, the version read with the results
    tells, and the recall runs again, checked first, and finds what it wrote."""
    graph.add_episodes(ns, [{"text": t, "session_id": "s"} for t in TURNS])
    assert _recalled(graph, ns, "where is the spare key", k=1)  # held
    with counted_reads(graph) as reads:
        assert _recalled(graph, ns, "which instrument am I learning", k=1)
        assert _names(reads) == ["recall_results"]
        child = write_episode_elsewhere(graph, ns, "The spare key is now in the blue flowerpot")
        assert child.returncode == 0, child.stderr[-2000:]
        new = child.stdout.strip().splitlines()[-1]
        reads.clear()
        assert _recalled(graph, ns, "blue flowerpot spare key", k=1) == [new]
        assert _names(reads) == ["recall_results", "namespace_version", "memory_get"]
        reads.clear()  # caught up on another process's write: searched as held again
        for mode in ("walk", "vector"):
            hits = graph.recall(ns, "blue flowerpot spare key", k=1, mode=mode, fire=False)
            assert [h.memory.id for h in hits] == [new]
        assert _names(reads) == ["recall_results", "recall_results"]
    graph.forget_namespace(ns)
