"""The read index's vector block (graph_db/read_index.py ``_Block``) on its own: past
``exact_below`` rows its HNSW graph (usearch) answers as the exact scan does on vectors with
clear neighbours, and rows put or dropped while the graph is built or after are searched as
they are, never as they were."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from graph_db.read_index import _Block

DIM = 64


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _pair(n: int, exact_below: int) -> tuple[_Block, _Block, np.ndarray]:
    """An exact block and one that builds a graph past ``exact_below``, holding the same
    ``n`` clustered vectors."""
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((n // 10, DIM))
    vectors = _unit(centres[rng.integers(0, len(centres), n)] + 0.3 * rng.standard_normal((n, DIM)))
    exact, approx = _Block(DIM, threading.Lock(), 10**9), _Block(DIM, threading.Lock(), exact_below)
    for i, v in enumerate(vectors):
        exact.put(None, f"m{i}", v)
        approx.put(None, f"m{i}", v)
    return exact, approx, vectors


def _ids(block: _Block, queries: np.ndarray, k: int) -> list[list[str]]:
    return [[mid for mid, _ in hits] for hits in block.nearest(queries, k)]


def test_the_graph_is_built_past_exact_below_and_finds_the_exact_neighbours():
    exact, approx, vectors = _pair(2000, 500)
    queries = _unit(vectors[:20] + 0.05 * np.random.default_rng(1).standard_normal((20, DIM)))
    with approx.lock:
        assert _ids(approx, queries, 10) == _ids(exact, queries, 10)  # exact while it builds
    assert approx.built.wait(60) and approx.ann is not None and len(approx.ann) == 2000
    assert [hits[0] for hits in _ids(approx, queries, 10)] == [f"m{i}" for i in range(20)]
    found, wanted = _ids(approx, queries, 10), _ids(exact, queries, 10)
    overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, wanted, strict=True)])
    assert overlap >= 0.95
    scores = approx.nearest(queries[:1], 3)[0]  # scored exactly, as the scan scores them
    assert [s for _, s in scores] == pytest.approx(
        [float(queries[0] @ exact.own[int(m[1:])]) for m, _ in scores], rel=1e-6
    )


def test_a_batch_searched_on_several_threads_finds_what_each_query_finds_alone(monkeypatch):
    """A write batch's vectors are searched on every core (read_index.BATCH_THREADS); each
    query's hits, scores and order are those it gets alone (on one thread)."""
    from graph_db import read_index

    monkeypatch.setattr(read_index, "BATCH_THREADS", 4)  # several, whatever this machine has
    calls: list[int] = []
    _, approx, vectors = _pair(3000, 500)
    approx.nearest(vectors[:1], 1)  # the first search past exact_below starts the build
    assert approx.built.wait(60) and approx.ann is not None
    search = approx.ann.search
    monkeypatch.setattr(
        approx.ann, "search", lambda q, k, threads: calls.append(threads) or search(q, k, threads)
    )
    n = read_index.BATCH_SEARCH_MIN + 8
    queries = _unit(vectors[:n] + 0.2 * np.random.default_rng(2).standard_normal((n, DIM)))
    together = approx.nearest(queries, 7)
    alone = [approx.nearest(q[None, :], 7)[0] for q in queries]
    assert calls == [4] + [1] * n
    assert together == alone


def test_rows_put_or_dropped_while_the_graph_builds_or_after_are_searched_as_they_are():
    _, approx, vectors = _pair(1200, 100)
    with approx.lock:  # the build waits for the lock to read the rows: these come after
        approx.nearest(vectors[:1], 1)
        approx.drop(5)
        approx.put(7, "moved", vectors[900])  # a row rewritten in place
    assert approx.built.wait(60) and approx.ann is not None
    assert "m5" not in _ids(approx, vectors[5:6], 20)[0]
    assert _ids(approx, vectors[900:901], 2)[0][:2] in (["m900", "moved"], ["moved", "m900"])
    assert "m7" not in _ids(approx, vectors[7:8], 20)[0]
    row = approx.put(None, "new", vectors[3])  # after: it reuses the free row 5
    assert row == 5 and set(_ids(approx, vectors[3:4], 2)[0]) == {"m3", "new"}
    approx.drop(3)
    assert _ids(approx, vectors[3:4], 1)[0] == ["new"]
    assert len(approx.ann) == 1200 - 1  # 5 dropped, 7 replaced, 5 reused, 3 dropped


def test_a_build_under_way_ends_when_the_block_is_stopped_and_searches_stay_exact():
    """Closing stops a graph's build between two batches of rows (a process exiting while
    usearch runs on a daemon thread is aborted), and none starts after."""
    exact, approx, vectors = _pair(30_000, 100)
    with approx.lock:
        approx.nearest(vectors[:1], 1)  # starts the build, which waits for the lock
        assert approx.changed is not None
    approx.stop()
    assert approx.built.is_set() and approx.ann is None and approx.changed is None
    assert _ids(approx, vectors[:5], 10) == _ids(exact, vectors[:5], 10)  # exact
    assert approx.ann is None and approx.changed is None  # no build started again


def test_a_saved_graph_made_otherwise_is_made_again_and_searches_stay_exact_meanwhile():
    """A block read back from a file keeps its HNSW graph when it was made as this MAGS
    makes them (``read_index.HNSW``); one of an older MAGS (float16, 16 links) is dropped
    and built again in the background, the block answering exactly meanwhile."""
    import pickle

    from usearch.index import Index

    from graph_db import read_index

    exact, approx, vectors = _pair(2000, 500)
    queries = _unit(vectors[:20] + 0.05 * np.random.default_rng(1).standard_normal((20, DIM)))
    with approx.lock:
        approx.nearest(queries, 10)  # starts the build
    assert approx.built.wait(60) and approx.ann is not None
    kept = pickle.loads(pickle.dumps(approx))
    assert kept.ann is not None and read_index._made_as_now(kept.ann)
    old = Index(ndim=DIM, metric="ip", dtype="f16", connectivity=16, expansion_add=128)
    rows = np.flatnonzero(approx.alive[: len(approx.ids)])
    old.add(rows, approx.own[rows], threads=1)
    approx.ann = old
    made_again = pickle.loads(pickle.dumps(approx))
    assert made_again.ann is None
    with made_again.lock:
        assert _ids(made_again, queries, 10) == _ids(exact, queries, 10)  # exact meanwhile
    assert made_again.built.wait(60) and made_again.ann is not None
    assert read_index._made_as_now(made_again.ann)
    assert [hits[0] for hits in _ids(made_again, queries, 10)] == [f"m{i}" for i in range(20)]
