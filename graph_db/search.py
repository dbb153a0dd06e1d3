"""Namespace-aware vector and full-text search over global per-label indexes.

Vector and full-text indexes are global per label, not per namespace. A small
tenant next to a big one would get an empty top-k if we only asked the index
for k hits and filtered. So: a namespace that is a small share of the index is
searched exactly (a scan of its own nodes); otherwise the index is asked for
enough hits to expect k of this namespace, and asked again, wider, until k
are found or the index is exhausted.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graph_db.backends.dialects import Dialect
from graph_db.read_index import LABELS, SEARCHED, ReadIndex
from graph_db.settings import GraphSettings
from graph_db.text import fulltext_query

Run = Callable[..., list[dict[str, Any]]]
EXACT_QUERY = {
    "Episode": "vector_exact_episode",
    "Fact": "vector_exact_fact",
    "Entity": "vector_exact_entity",
}
RRF_K = 60
log = logging.getLogger(__name__)
ZERO_TTL_S = 2.0


@dataclass
class Found:
    """One raw hit: a node's id and label, its cosine (vector) or score (full-text), and
    what recall needs to rank it when the search brought it along (``recall_rows``)."""

    id: str
    label: str
    score: float
    row: dict[str, Any] | None = None


class Counts:
    """Per-label node counts, globally and per namespace, cached.

    They only steer how widely the index is asked. This process's own writes adjust
    them (``add``); other processes' writes show after ``ttl_s``, or ``ZERO_TTL_S`` for a
    label the namespace had none of (a first write elsewhere shows quickly). Counting is a
    scan (seconds at 100k memories), so given ``read``, an expired count is served while a
    background thread counts again; only a first count, or a zero, waits.
    """

    def __init__(self, ttl_s: float = 30.0, read: Run | None = None) -> None:
        self.ttl_s = ttl_s
        self.read = read
        self._totals: tuple[float, dict[str, int]] | None = None
        self._ns: dict[str, tuple[float, dict[str, int]]] = {}
        self._lock = threading.Lock()
        self._counting: set[str | None] = set()  # namespaces (None: totals) being recounted

    def invalidate(self, ns: str | None = None) -> None:
        self._totals = None
        if ns is None:
            self._ns.clear()
        else:
            self._ns.pop(ns, None)

    def add(self, ns: str, label: str, delta: int) -> None:
        """Count ``delta`` new (or, negative, deleted) nodes of ``label`` in ``ns``."""
        for counts in (self._totals, self._ns.get(ns)):
            if counts is not None:
                counts[1][label] = max(0, counts[1].get(label, 0) + delta)

    def get(self, run: Run, ns: str, label: str) -> tuple[int, int]:
        """(total nodes of ``label``, nodes of ``label`` in ``ns``)."""
        now = time.monotonic()
        cached = self._ns.get(ns)
        ttl = self.ttl_s if cached is not None and cached[1].get(label) else ZERO_TTL_S
        if cached is None or now - cached[0] > ttl:
            self._count(run, ns, wait=cached is None or not cached[1].get(label))
        if self._totals is None or now - self._totals[0] > self.ttl_s:
            self._count(run, None, wait=self._totals is None)
        have = self._ns[ns][1].get(label, 0)
        return max(self._totals[1].get(label, 0), have, 1), have  # type: ignore[index]

    def _count(self, run: Run, ns: str | None, wait: bool) -> None:
        """Count the nodes of ``ns`` (None: of every namespace), now or in the background."""

        def count(run: Run) -> None:
            if ns is None:
                rows = run("label_totals")
                self._totals = (time.monotonic(), {r["label"]: int(r["total"]) for r in rows})
            else:
                rows = run("stats_nodes", ns=ns)
                self._ns[ns] = (time.monotonic(), {r["label"]: int(r["count"]) for r in rows})

        if wait or self.read is None:
            count(run)
            return
        with self._lock:
            if ns in self._counting:
                return
            self._counting.add(ns)

        def background(read: Run) -> None:
            try:
                count(read)
            except Exception:  # the stale count stays; the next expiry tries again
                log.debug("recounting %s failed", ns, exc_info=True)
            finally:
                with self._lock:
                    self._counting.discard(ns)

        threading.Thread(target=background, args=(self.read,), daemon=True).start()


class Searcher:
    """Nearest-neighbour and full-text search for one store."""

    def __init__(
        self,
        dialect: Dialect,
        settings: GraphSettings,
        read: Run | None = None,
        index: ReadIndex | None = None,
        make_indexes: Callable[[str], None] | None = None,
    ) -> None:
        self.dialect = dialect
        self.counts = Counts(read=read)
        #: makes the engine's search indexes of a schema part ("vectors", "fulltext"): a
        #: store searched through the read index has none (``engine_indexes``)
        self.make_indexes = make_indexes
        self._made: set[str] = set()
        self._settings = settings
        self.index = index

    @property
    def index(self) -> ReadIndex | None:
        """The in-process read index (graph_db.read_index): episodes' and facts' nearest
        neighbours (and full-text hits, with ``read_index_fulltext``) come from it when set;
        set to None, the engine answers (its indexes made first)."""
        return self._index

    @index.setter
    def index(self, index: ReadIndex | None) -> None:
        self._index = index
        self._make_asked()

    @property
    def settings(self) -> GraphSettings:
        return self._settings

    @settings.setter
    def settings(self, settings: GraphSettings) -> None:
        self._settings = settings
        self._make_asked()

    @property
    def fulltext_index(self) -> ReadIndex | None:
        """The read index when full-text search runs in it (``read_index_fulltext``)."""
        return self.index if self.settings.read_index_fulltext else None

    def _make_asked(self) -> None:
        """Make the engine's search indexes that searches now ask for, here and not at the
        first search: that may run inside a write transaction, which Neo4j's index would
        wait for."""
        now = self.settings.model_copy(update={"read_index": self._index is not None})
        for part in engine_indexes(now):
            if part not in self._made and self.make_indexes is not None:
                self.make_indexes(part)
                self._made.add(part)

    def nearest(
        self, run: Run, ns: str, label: str, vectors: np.ndarray, k: int, rows: bool = False
    ) -> list[list[Found]]:
        """The ``k`` nearest nodes of ``label`` in ``ns`` for each vector, best first; with
        ``rows``, each hit brings what recall ranks it by (``Found.row``)."""
        n = len(vectors)
        if n == 0 or k <= 0:
            return [[] for _ in range(n)]
        if self.index is not None and label in SEARCHED:
            found = self.index.nearest(run, ns, [label], vectors, k)[label]
            return [[Found(mid, label, cos) for mid, cos in hits] for hits in found]
        total, have = self.counts.get(run, ns, label)
        if have == 0:
            return [[] for _ in range(n)]
        want = min(k, have)
        vecs = [v.tolist() for v in np.asarray(vectors, dtype=np.float32)]
        small_share = have * self.settings.search_overfetch < total
        if small_share and have <= self.settings.exact_search_max:
            return self._exact(run, ns, label, vecs, k)
        results: list[list[Found]] = [[] for _ in range(n)]
        todo = list(range(n))
        # enough hits to expect k of this namespace; a miss widens it below
        fetch = min(total, max(k, math.ceil(1.5 * k * total / have)))
        while todo:
            found = run(
                "vector_search",
                ns=ns,
                index=self.dialect.vector_index_name(label),
                vectors=[vecs[i] for i in todo],
                fetch=fetch,
                with_rows=rows,
                vecs=True,
            )
            got: dict[int, list[Found]] = {}
            for r in found:  # ordered by i, score desc
                hits = got.setdefault(todo[r["i"]], [])
                if len(hits) < k:
                    cos = self.dialect.to_cosine(r["score"], exact=False)
                    hits.append(Found(r["id"], label, cos, r["row"]))
            for i in todo:
                results[i] = got.get(i, [])
            short = [i for i in todo if len(results[i]) < want]
            if not short:
                break
            if fetch >= total:
                # the index is exhausted but missed some (approximate search): scan exactly
                if have <= self.settings.exact_search_max:
                    exact = self._exact(run, ns, label, [vecs[i] for i in short], k)
                    for i, hits in zip(short, exact, strict=True):
                        results[i] = hits
                break
            todo, fetch = short, min(total, fetch * 4)
        return results

    def _exact(
        self, run: Run, ns: str, label: str, vecs: list[list[float]], k: int
    ) -> list[list[Found]]:
        rows = run(EXACT_QUERY[label], ns=ns, vectors=vecs, k=k)
        out: list[list[Found]] = [[] for _ in vecs]
        for r in rows:
            cos = self.dialect.to_cosine(r["score"], exact=True)
            out[r["i"]].append(Found(r["id"], label, cos))
        return out

    def fulltext(
        self, run: Run, ns: str, label: str, text: str, k: int, rows: bool = False
    ) -> list[Found]:
        """The ``k`` best full-text hits of ``label`` in ``ns``; the query is reduced to
        plain words. From the read index when it holds them (no rows: the caller reads
        them); else the engine's index is asked for enough hits to expect k of this
        namespace (as for vectors), then wider while it gave as many as asked and too few
        were ours."""
        query = fulltext_query(text, self.settings.stem_language)
        if self.fulltext_index is not None and label in LABELS:
            hits = self.fulltext_index.fulltext(run, ns, [label], [query.split()], k)[label][0]
            return [Found(mid, label, score) for mid, score in hits]
        total, have = self.counts.get(run, ns, label)
        if not query or k <= 0 or have == 0:
            return []
        fetch = min(total, max(k, math.ceil(1.5 * k * total / have)))
        index = self.dialect.fulltext_index_name(label)
        while True:
            got = run(
                "fulltext_search",
                ns=ns,
                index=index,
                query=query,
                fetch=fetch,
                with_rows=rows,
                vecs=self.index is None,  # else recall takes them from the index
            )
            r = got[0] if got else {"ids": [], "scores": [], "rows": [], "seen": 0}  # no hit
            mine = [
                Found(mid, label, float(score), row)
                for mid, score, row in zip(
                    r["ids"], r["scores"], r["rows"] or [None] * len(r["ids"]), strict=True
                )
            ]
            if len(mine) >= min(k, have) or r["seen"] < fetch or fetch >= total:
                return sorted(mine, key=lambda f: -f.score)[:k]
            fetch = min(total, fetch * 4)


def engine_indexes(settings: GraphSettings) -> tuple[str, ...]:
    """The engine's search indexes (schema parts) that searches ask under ``settings``: its
    vectors without the read index, its full-text without the read index's BM25."""
    vectors = not settings.read_index
    fulltext = vectors or not settings.read_index_fulltext
    return ("vectors",) * vectors + ("fulltext",) * fulltext


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Reciprocal rank fusion: sum of 1 / (k + rank) over the rankings an id appears in."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores
