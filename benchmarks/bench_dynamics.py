"""bench_dynamics: recall latency and maintenance time of the liquid graph at scale.

    python benchmarks/bench_dynamics.py --sizes 10000 100000   # default; 1000000 takes hours
    python benchmarks/bench_dynamics.py --sizes 2000           # smoke run (~2 min idle)
    python benchmarks/bench_dynamics.py --sizes 10000 100000 --keep DIR --assoc-edges 1000000
    ... --engine arcadedb|neo4j|both                          # default both, one after the other
    ... --keep DIR --only recall_walk_compare --compare recall_name_free=false   # a trade, timed

For each size N and each engine (the embedded ArcadeDB; Neo4j: MAGS_NEO4J_URI's, or a local
Neo4j Community started for the run, see benchmarks/engines.py) a fresh store (a temporary
MAGS home, or KEEP/<engine>/<N>-seed<seed>) is filled through the write path with
N memories: 80% episodes in sessions of 6-40 turns between the user and a partner, 20% facts
derived from them. People and places are drawn with Zipf popularity, so a few entities are
hubs and most are mentioned once or twice; NEXT, MENTIONS, ABOUT, DERIVED_FROM and the
initial ASSOC edges all come from the write path itself. The fill uses a cheap deterministic
embedder (a text is the weighted sum of its words' vectors: the real model's for the
generator's vocabulary, hashed random ones for other words, plus a per-text jitter), so the
store's own cost is what the fill measures (~150-380 memories/s on 2 cores; a kept store's
fill cut short goes on where it stopped when run again). Then, with the real default embedder:
  - the query embedding alone (p50/p95), the floor of a recall;
  - before the first timed recall, ``--engine-warm-s`` (60) of recalls back to back: the
    engine's JIT compiles its hot paths (its p50/p95 in 5 s blocks, a cold engine's figures);
  - recall latency p50/p95 (ms, query embedding included) of ``recall(ns, q, k=10)`` in
    mode "walk" and "vector" over distinct, uncached queries (fire=True, the default),
    and the ASSOC edges those recalls created; walk with its trace and without (blocks
    of 25), 200 ms apart (idle between, as a chat's turns come), and with the read index
    and without; with ``--compare NAME=VALUE ...``, with those settings against the defaults
    query by query (trace on), and how often the top 10 stays the same;
  - ``maintain(ns)`` wall time and its report: the first, full pass right after the fill
    (every memory and edge), an incremental pass after the recalls (visits what they
    changed), one with the clock moved ``--age-days`` ahead (edges expire, every memory's
    vitals fall due: bounded by ``maintain_batch``; the k-core deferred), and the k-core
    decomposition on its own (due daily by default). ``--assoc-edges 1000000`` first adds
    synthetic liquid edges to the largest store up to 1M: the goal is stated for 1M edges.
Each step also records the seconds spent per named Cypher query (where the time goes).
Prints one table (a column per size and engine) and writes JSON (with the machine and each
engine's version) to benchmarks/results/bench_dynamics.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import engines
import numpy as np
from bench_store import ADJ, NAMES, PLACES, TEMPLATES, TOPICS, git_commit, log_console, machine, pct
from rich.table import Table
from tqdm import tqdm

from graph_db import TUNABLE, GraphSettings, LiquidGraph, index_file
from graph_db.backends import GraphBackend, Tx
from graph_db.embeddings import CachedEmbedder, Embedder, make_embedder

ROOT = Path(__file__).resolve().parent
NS = "bench"
USER = "Sam"
FACT_SHARE = 0.2
#: the measurement's steps, in order (``--only`` picks some)
STEPS = ("maintain_full", "query_embedding", "read_index_build", "hnsw_agreement", "recall_walk",
         "recall_vector", "recall_walk_trace", "recall_walk_paced", "recall_walk_engine",
         "recall_walk_lean", "recall_walk_compare", "maintain", "maintain_aged", "maintain_kcore",
         "maintain_small_beside", "graph_after")  # fmt: skip
WARMUP = 50  # recalls before each step's timing: its own paths warm, its traces written
#: --engine-warm-s: back-to-back recalls before a run's first timed one (``warm_engine``)
ENGINE_WARM_S = 60.0
PAUSE_S = 0.2  # recall_walk_paced: the process idle between recalls, as a chat's turns leave it
#: recall_walk_lean: well under half the ranking work of the defaults (50 candidates a search
#: and label, 10 anchors): how fast recall gets here whatever its settings
LEAN = {"recall_candidates": 20, "recall_anchors": 5}
ZIPF_S = 1.1
GOALS = {
    "recall_p95_ms": {100_000: 20.0, 1_000_000: 50.0},
    "maintain_1m_edges_s": 3.0,
}
SYLLABLES = ["kor", "va", "ni", "mel", "dru", "sa", "ten", "lo", "bri", "ga", "zu", "re",
             "tha", "mon", "el", "qui", "ras", "do", "vik", "an"]  # fmt: skip
PLACE_KINDS = ["Port", "Lake", "Mount", "New", "Old", "Upper", "San", "Fort"]
ANIMALS = ["beagle", "cat", "parrot", "hamster", "terrier", "rabbit"]
PREDICATES = [  # (predicate, object kind, share)
    ("likes", "topic", 0.25),
    ("visited", "place", 0.2),
    ("talked_about", "topic", 0.2),
    ("works_with", "person", 0.15),
    ("lives_in", "place", 0.12),
    ("has_pet", "pet", 0.08),
]
QUERY_TEMPLATES = [
    "What did {n} say about {t}?",
    "When was I in {p} with {n}?",
    "How did {t} go last time?",
    "Who came along for {t} near {p}?",
    "What do I know about {n}?",
    "Where does {n} live now?",
    "Did {n} ever try {t}?",
    "What happened in {p}?",
]
_WORD = re.compile(r"[a-z0-9']+")
STOP = frozenset(  # words that weigh less in the fill embedder
    _WORD.findall(
        "i the a it was with we in to of you is me my for they that has been did about when "
        "what after all"
    )
)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class SynthEmbedder:
    """Cheap deterministic fill embedder in the real model's space (see the module doc)."""

    def __init__(
        self,
        real: Embedder,
        vocab: Iterable[str],
        rows: int = 8192,
        jitter: float = 0.45,
        centre: float = 0.8,
    ) -> None:
        """Defaults give text-text cosines close to MiniLM's on these texts (median ~0.25)."""
        self.name, self.dim, self.jitter = real.name, real.dim, jitter
        known = sorted({w for text in vocab for w in words(text)})
        self.index = {w: i for i, w in enumerate(known)}
        self.rows = rows
        noise = np.random.default_rng(0).standard_normal((rows, self.dim)).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        vocab_vecs = np.asarray(real.embed(known), dtype=np.float32)
        vocab_vecs -= centre * vocab_vecs.mean(axis=0)  # word vectors share a direction
        vocab_vecs /= np.linalg.norm(vocab_vecs, axis=1, keepdims=True)
        self.table = np.vstack([vocab_vecs, noise])
        self.weight = np.ones(len(self.table), dtype=np.float32)
        for w, i in self.index.items():
            if w in STOP:
                self.weight[i] = 0.3

    def _row(self, token: str) -> int:
        i = self.index.get(token)
        return i if i is not None else len(self.index) + zlib.crc32(token.encode()) % self.rows

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        base = len(self.index)
        for i, text in enumerate(texts):
            idx = [self._row(w) for w in words(text)] or [base]
            v = self.weight[idx] @ self.table[idx]
            v += (
                self.jitter
                * float(np.linalg.norm(v))
                * self.table[base + zlib.crc32(text.encode()) % self.rows]
            )
            out[i] = v / np.linalg.norm(v)
        return out


class SynthMemory:
    """Seeded generator of a chat history: sessions, Zipf-popular people and places, facts."""

    def __init__(self, n: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n_facts = round(n * FACT_SHARE)
        self.n_episodes = n - self.n_facts
        n_people = min(max(n // 25, 100), 40_000)
        self.people = self._names(n_people, lambda: f"{self.rng.choice(NAMES)} {self._word()}")
        n_places = min(max(n // 100, 30), 10_000)
        self.places = PLACES + self._names(
            n_places - len(PLACES), lambda: f"{self.rng.choice(PLACE_KINDS)} {self._word()}"
        )
        self.people = [p for p in self.people if p != USER]
        self._p_people = self._zipf_cdf(len(self.people))
        self._p_places = self._zipf_cdf(len(self.places))
        self.pred_cdf = np.cumsum([p[2] for p in PREDICATES])

    def _word(self) -> str:
        return "".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.randint(2, 3))).title()

    def _names(self, count: int, make: Any) -> list[str]:
        out: dict[str, None] = {}
        while len(out) < count:
            out[make()] = None
        return list(out)

    @staticmethod
    def _zipf_cdf(count: int) -> np.ndarray:
        w = 1.0 / np.arange(1, count + 1) ** ZIPF_S
        return np.cumsum(w / w.sum())

    def _pick(self, items: list[str], cdf: np.ndarray) -> str:
        return items[min(int(np.searchsorted(cdf, self.rng.random())), len(items) - 1)]

    def person(self) -> str:
        return self._pick(self.people, self._p_people)

    def place(self) -> str:
        return self._pick(self.places, self._p_places)

    def vocabulary(self) -> list[str]:
        """Texts whose words get real model vectors in the fill embedder."""
        preds = [p[0].replace("_", " ") for p in PREDICATES]
        return [*TEMPLATES, *QUERY_TEMPLATES, *TOPICS, *ADJ, *PLACES, *NAMES, *ANIMALS, *preds,
                *PLACE_KINDS, USER]  # fmt: skip

    def episodes(self, batch: int) -> Iterator[list[dict[str, Any]]]:
        """Turns in batches; sessions alternate the user and a (Zipf) partner, over a year."""
        start = time.time() - 365 * 86400
        n_sessions = max(1, self.n_episodes // 20)
        gap = 365 * 86400 / n_sessions
        out: list[dict[str, Any]] = []
        i, session = 0, 0
        while i < self.n_episodes:
            partner, length = self.person(), self.rng.randint(6, 40)
            t0 = start + session * gap
            for turn in range(min(length, self.n_episodes - i)):
                name, place = self.person(), self.place()
                text = self.rng.choice(TEMPLATES).format(
                    t=self.rng.choice(TOPICS), n=name, p=place, adj=self.rng.choice(ADJ)
                )
                out.append(
                    {
                        "text": text,
                        "speaker": USER if turn % 2 == 0 else partner,
                        "session_id": f"s{session}",
                        "ts": t0 + 30.0 * turn,
                        "entities": [name, place],
                    }
                )
                i += 1
                if len(out) == batch:
                    yield out
                    out = []
            session += 1
        if out:
            yield out

    def facts(self, count: int, sources: list[tuple[str, float]]) -> list[dict[str, Any]]:
        """Facts derived from the given (episode id, ts) pairs."""
        out = []
        for _ in range(count):
            pred, kind, _ = PREDICATES[int(np.searchsorted(self.pred_cdf, self.rng.random()))]
            obj = {
                "topic": lambda: self.rng.choice(TOPICS),
                "place": self.place,
                "person": self.person,
                "pet": lambda: f"a {self.rng.choice(ANIMALS)} named {self.rng.choice(NAMES)}",
            }[kind]()
            src, ts = self.rng.choice(sources)
            out.append(
                {
                    "subject": USER if self.rng.random() < 0.1 else self.person(),
                    "predicate": pred,
                    "object": obj,
                    "confidence": round(self.rng.uniform(0.5, 1.0), 2),
                    "source_episode_id": src,
                    "valid_from": ts,
                }
            )
        return out

    def queries(self, count: int, taken: set[str]) -> list[str]:
        """Distinct questions (none in ``taken``), so none is answered by the query cache."""
        out: list[str] = []
        while len(out) < count:
            q = self.rng.choice(QUERY_TEMPLATES).format(
                n=self.person(), p=self.place(), t=self.rng.choice(TOPICS)
            )
            if q not in taken:
                taken.add(q)
                out.append(q)
        return out


def fill(
    g: LiquidGraph, ns: str, gen: SynthMemory, batch: int, n: int, progress: Path | None = None
) -> dict[str, Any]:
    """Write the synthetic history through the write path; facts follow their episodes.

    With ``progress`` (a kept store's file, rewritten after each batch and its facts), a fill
    cut short (a 1M fill takes hours) goes on where it stopped: the generator is replayed
    (its batches already written are drawn, not written), and a batch whose turns were
    written but not its facts gets its facts (turns have ids by their place in the history).
    """
    done = json.loads(progress.read_text()) if progress and progress.exists() else {}
    eps, facts = done.get("episodes_written", 0), done.get("facts_written", 0)
    merged, spent = done.get("facts_not_created", 0), done.get("fill_seconds", 0.0)
    start, seen = time.perf_counter(), 0
    with tqdm(total=n, initial=eps + facts, desc=f"fill ({n:,})", unit="mem", leave=False) as bar:
        for chunk in gen.episodes(batch):
            for i, e in enumerate(chunk, seen):
                e["id"] = f"{ns}-turn-{i}"
            seen += len(chunk)
            due = round(gen.n_facts * seen / gen.n_episodes) - round(
                gen.n_facts * (seen - len(chunk)) / gen.n_episodes
            )
            sources = [(e["id"], e["ts"]) for e in chunk]
            drawn = gen.facts(due, sources) if due > 0 else []  # drawn either way: replayable
            if seen <= eps:
                continue  # written before the fill was cut short
            first = seen - len(chunk) == done.get("episodes_written", -1)  # of a run going on
            last = [chunk[-1]["id"]]  # only its first batch's turns may be written already
            if not (first and g.backend.read("memory_get", ns=ns, ids=last, fields=["id"])):
                g.add_episodes(ns, chunk)
            written = g.add_facts(ns, drawn) if drawn else []
            eps, facts = seen, facts + len(written)
            merged += sum(w.action != "created" for w in written)
            bar.update(len(chunk) + len(written))
            if progress is not None:
                seconds = spent + time.perf_counter() - start
                progress.write_text(json.dumps({"episodes_written": eps, "facts_written": facts,
                                                "facts_not_created": merged,
                                                "fill_seconds": seconds}))  # fmt: skip
    seconds = spent + time.perf_counter() - start
    return {
        "fill_seconds": seconds,
        "fill_memories_per_s": (eps + facts) / seconds,
        "episodes_written": eps,
        "facts_written": facts,
        "facts_not_created": merged,
    }


def densify(g: LiquidGraph, ns: str, target: int, seed: int) -> dict[str, Any]:
    """Add liquid edges until ``ns`` has ``target`` of them: the scale goal is stated in
    edges, and a store filled through the write path has ~4.5 per memory. More of the same
    graph: one end of each new edge is drawn in proportion to the degree it already has
    (preferential attachment: the hubs grow as the write path made them), the other
    uniformly; weights and last firing as a month of use leaves them; written through
    ``link_assoc`` like restored edges (a pair that exists already is drawn again: a rerun
    after a prune tops the count up in one round)."""
    t0, now = time.perf_counter(), time.time()
    before = have = assoc_count(g, ns)
    ids = [m for r in g.backend.read("memory_cores", ns=ns) if (m := r["id"])]
    with tqdm(total=max(0, target - have), desc="densify", unit="edge", leave=False) as bar:
        while have < target:
            rng = np.random.default_rng([seed, have])  # new pairs on every round and rerun
            degree = dict.fromkeys(ids, 1)
            pairs: set[frozenset[str]] = set()  # drawn again, an existing pair only merges
            for r in g.backend.read("assoc_edges", ns=ns):
                degree[r["a"]] = degree.get(r["a"], 1) + 1
                degree[r["b"]] = degree.get(r["b"], 1) + 1
                pairs.add(frozenset((r["a"], r["b"])))
            cdf = np.cumsum([degree[m] for m in ids], dtype=np.float64)
            for start in range(0, missing := target - have, 5_000):
                n = min(5_000, missing - start)
                a = np.searchsorted(cdf, rng.random(2 * n) * cdf[-1])
                b = rng.integers(0, len(ids), 2 * n)
                fresh = []
                for x, y in zip(a, b, strict=True):
                    pair = frozenset((ids[x], ids[y]))
                    if x != y and pair not in pairs and len(fresh) < n:
                        pairs.add(pair)
                        fresh.append((x, y))
                fired = now - rng.uniform(0, 30 * 86_400, len(fresh))
                weights = rng.beta(2, 5, len(fresh))
                rows = [
                    {
                        "a": ids[x],
                        "b": ids[y],
                        "props": {
                            "w": float(w),
                            "w_at": float(t),
                            "fired_at": float(t),
                            "fired_count": 1,
                            "permanent": False,
                            "born": "bench",
                        },
                    }
                    for (x, y), w, t in zip(fresh, weights, fired, strict=True)
                ]
                done = g.backend.write("link_assoc", ns=ns, rows=rows)
                linked = int(done[0]["linked"] or 0) if done else 0
                bar.update(linked)
                have += linked  # new pairs only: each one is a new edge
    return {"assoc_before": before, "assoc_after": have, "seconds": time.perf_counter() - t0}


def assoc_count(g: LiquidGraph, ns: str) -> int:
    """The liquid edges of the benchmark's namespace (a scan: never inside a timing)."""
    rows = g.backend.read("assoc_count", ns=ns)
    return int(rows[0]["edges"] or 0) if rows else 0


class QueryTimer:
    """Time spent per named Cypher query (all threads) while active: where a step's time goes.
    A read of one query runs outside ``Tx.run`` (auto-commit): it is timed by its name too.
    A statement's time leaves out its commit, so write transactions are also timed whole
    (statements, commit and this process's index write-through), named by their first
    statement that is not the namespace's bookkeeping: on ArcadeDB a pass's commits had
    taken three times its statements, unseen."""

    BOOKKEEPING = frozenset({"namespace_touch", "namespace_version", "namespace_bump"})

    def __init__(self) -> None:
        self.spent: dict[str, list[float]] = {}
        self.whole: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self._names = threading.local()  # the statements of the write transaction running

    def __enter__(self) -> QueryTimer:
        self._orig, self._orig_execute = orig, orig_execute = Tx.run, GraphBackend._execute
        self._orig_read = orig_read = GraphBackend.read
        timer = self

        def read(backend: GraphBackend, name: str, **params: Any) -> Any:
            timer._names.reading = True  # (a retry in a transaction: not timed twice)
            t0 = time.perf_counter()
            try:
                return orig_read(backend, name, **params)
            finally:
                timer._names.reading = False
                timer._add(timer.spent, name, time.perf_counter() - t0)

        def run(tx: Tx, name: str, **params: Any) -> Any:
            if getattr(timer._names, "reading", False):
                return orig(tx, name, **params)
            names = getattr(timer._names, "names", None)
            if names is not None:
                names.append(name)
            t0 = time.perf_counter()
            try:
                return orig(tx, name, **params)
            finally:
                timer._add(timer.spent, name, time.perf_counter() - t0)

        def execute(backend: GraphBackend, write: bool, work: Any, *args: Any) -> Any:
            if not write:
                return orig_execute(backend, write, work, *args)
            timer._names.names = names = []
            t0 = time.perf_counter()
            try:
                return orig_execute(backend, write, work, *args)
            finally:
                timer._names.names = None
                first = [n for n in names if n not in timer.BOOKKEEPING] or names or ["?"]
                timer._add(timer.whole, first[0], time.perf_counter() - t0)

        Tx.run = run  # type: ignore[method-assign]
        GraphBackend._execute = execute  # type: ignore[method-assign]
        GraphBackend.read = read  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Tx.run = self._orig  # type: ignore[method-assign]
        GraphBackend._execute = self._orig_execute  # type: ignore[method-assign]
        GraphBackend.read = self._orig_read  # type: ignore[method-assign]

    def _add(self, table: dict[str, list[float]], name: str, seconds: float) -> None:
        with self._lock:
            entry = table.setdefault(name, [0, 0.0])
            entry[0] += 1
            entry[1] += seconds

    def top(self, n: int = 8, whole: bool = False) -> dict[str, dict[str, float]]:
        """The ``n`` queries (``whole``: write transactions) that took longest: calls and
        seconds."""
        spent = self.whole if whole else self.spent
        ranked = sorted(spent.items(), key=lambda kv: -kv[1][1])[:n]
        return {k: {"calls": int(c), "s": round(t, 4)} for k, (c, t) in ranked}


def graph_counts(g: LiquidGraph, ns: str) -> dict[str, Any]:
    stats = g.stats(ns)
    edges = {t: e["count"] for t, e in stats["edges"].items()}
    return {"nodes": stats["nodes"], "edges": edges, "edges_total": sum(edges.values())}


def degree_profile(g: LiquidGraph, ns: str) -> dict[str, Any]:
    """Entity degrees (memories linked): how heavy the tail is."""
    with g.backend.driver.session(database=g.backend.database) as s:
        rows = s.run("MATCH (e:Entity) WHERE e.ns = $ns RETURN e.degree AS d", ns=ns).data()
    deg = sorted((r["d"] or 0 for r in rows), reverse=True)
    if not deg:
        return {}
    return {
        "entities": len(deg),
        "max": deg[0],
        "top10": deg[:10],
        "median": float(np.median(deg)),
        "share_of_links_top1pct": sum(deg[: max(1, len(deg) // 100)]) / sum(deg),
    }


def time_embedding(real: Embedder, queries: list[str]) -> dict[str, Any]:
    """The query embedding alone (uncached), the floor of any recall's latency."""
    inner = getattr(real, "inner", real)
    inner.embed(queries[:WARMUP])
    lat = []
    for q in queries[WARMUP:]:
        t0 = time.perf_counter()
        inner.embed([q])
        lat.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": pct(lat, 50), "p95_ms": pct(lat, 95)}


def hnsw_ready(g: LiquidGraph, ns: str, query: str) -> None:
    """The read index holds ``ns`` (run with --only, nothing read it yet) and its HNSW
    graphs are built or read back (no-op without a read index)."""
    if g.read_index is not None:
        g.recall(ns, query, k=10, fire=False)
        g.read_index.hnsw(ns, wait=None)


def warm(g: LiquidGraph, ns: str, queries: list[str], mode: str = "walk") -> list[str]:
    """Recall the first ``WARMUP`` of ``queries`` untimed, their traces written, with the
    HNSW graphs in use (``hnsw_ready``); returns the others, to time."""
    hnsw_ready(g, ns, queries[0])
    for q in queries[:WARMUP]:
        g.recall(ns, q, k=10, mode=mode)
    g.flush()
    return queries[WARMUP:]


def warm_engine(
    g: LiquidGraph, ns: str, more: Callable[[int], list[str]], seconds: float, block_s: float = 5.0
) -> dict[str, Any]:
    """Recall back to back (walk, trace on) for ``seconds`` (whole blocks of ``block_s``)
    before a run's first timed recall, ``more(k)`` giving new queries. A just-started
    engine's JVM compiles its hot paths over its first 20-60 s of recalls: at 100k on Neo4j
    its compiler threads took 2-3.4 of every 5 s of CPU on 2 cores meanwhile, and recall's
    p95 fell from 118-143 ms in the first 5 s to 38-52 after 20 s; 50 recalls (``WARMUP``)
    timed that compile, not a live store. Each block's p50 / p95 is kept: the figures of a
    process that meets a just-started engine."""
    hnsw_ready(g, ns, more(1)[0])
    blocks: list[dict[str, Any]] = []
    start = time.perf_counter()
    fmt = "{desc}: {bar} {n:.0f}/{total:.0f} s"
    with tqdm(total=seconds, desc="engine warm-up", bar_format=fmt, leave=False) as bar:
        while (t := time.perf_counter() - start) < seconds:
            lat: list[float] = []
            while time.perf_counter() - start < t + block_s:
                lat.append(recall_ms(g, ns, more(1)[0]))
            blocks.append({"from_s": round(t, 1), **latency(lat)})
            bar.update(min(seconds, time.perf_counter() - start) - bar.n)
    wall = time.perf_counter() - start
    g.flush()
    recalls = sum(b["queries"] for b in blocks)
    return {"seconds": seconds, "block_s": block_s, "wall_s": wall, "recalls": recalls,
            "blocks": blocks}  # fmt: skip


def recall_ms(g: LiquidGraph, ns: str, query: str, **how: Any) -> float:
    """One ``recall(ns, query, k=10, **how)``, timed (ms, query embedding included)."""
    t0 = time.perf_counter()
    g.recall(ns, query, k=10, **how)
    return (time.perf_counter() - t0) * 1000


def alternating(
    queries: list[str], timed: Callable[[bool, str], float], desc: str
) -> dict[bool, list[float]]:
    """``timed(side, q)`` of each query both ways (True, False), the order alternating query
    by query (a run of one after a run of the other measured the graph's and caches' drift
    too); by side, in query order."""
    lat: dict[bool, list[float]] = {True: [], False: []}
    for i, q in enumerate(tqdm(queries, desc=desc, leave=False)):
        for side in (True, False) if i % 2 == 0 else (False, True):
            lat[side].append(timed(side, q))
    return lat


def latency(lat: list[float]) -> dict[str, Any]:
    """How many timed recalls, and their p50 / p95 (ms)."""
    return {"queries": len(lat), "p50_ms": pct(lat, 50), "p95_ms": pct(lat, 95)}


def time_recall(g: LiquidGraph, ns: str, queries: list[str], mode: str) -> dict[str, Any]:
    """Recall latency (query embedding included) and the ASSOC edges recall created, with
    the read index's HNSW graphs in use (run with ``--only`` after a store's index was read
    whole, recall had been 66.6 ms p95 against 39.0: likely the graphs' build beside it)."""
    timed = warm(g, ns, queries, mode)
    before = graph_counts(g, ns)["edges"].get("ASSOC", 0)
    lat, hits = [], []
    with QueryTimer() as timer:
        for q in tqdm(timed, desc=f"recall {mode}", leave=False):
            t0 = time.perf_counter()
            got = g.recall(ns, q, k=10, mode=mode)
            lat.append((time.perf_counter() - t0) * 1000)
            hits.append(len(got))
        t0 = time.perf_counter()
        g.flush()  # fire=True writes its trace in the background: wait for it before counting
        flush_s = time.perf_counter() - t0
    after = graph_counts(g, ns)["edges"].get("ASSOC", 0)
    return {
        "queries": len(timed),
        "p50_ms": pct(lat, 50),
        "p95_ms": pct(lat, 95),
        "mean_ms": float(np.mean(lat)),
        "max_ms": float(np.max(lat)),
        "mean_hits": float(np.mean(hits)),
        "assoc_created": after - before,
        "flush_after_loop_s": flush_s,
        "query_seconds": timer.top(),  # incl. the background writes of fire=True
        "transaction_seconds": timer.top(whole=True),
    }


def time_recall_index_on_off(g: LiquidGraph, ns: str, queries: list[str]) -> dict[str, Any]:
    """Recall (walk) with the read index on and off (``alternating``), the first ``WARMUP``
    queries untimed."""
    kept = g.search_engine.index
    t0 = time.perf_counter()
    g.search_engine.index = None  # a store searched in process has no engine index: made here
    made_s = time.perf_counter() - t0

    def timed(on: bool, q: str) -> float:
        g.search_engine.index = kept if on else None
        return recall_ms(g, ns, q)

    try:
        lat = alternating(queries, timed, "recall walk, index on/off")
        g.flush()
    finally:
        g.search_engine.index = kept
    return {
        "engine_indexes_made_s": made_s,
        "index_on": latency(lat[True][WARMUP:]),
        "index_off": latency(lat[False][WARMUP:]),
    }


def time_recall_trace_on_off(
    g: LiquidGraph,
    ns: str,
    queries: list[str],
    engine_cpu: Callable[[], float | None],
    block: int = 25,
) -> dict[str, Any]:
    """Recall (walk) leaving its trace (``fire=True``, as ``recall_walk``) and without it,
    in alternating blocks of ``block`` queries: how much of the latency is the background
    writes' (they take the engine's and the process's cores beside the recalls). Each traced
    block is flushed before the next (untimed): an untraced block runs with nothing queued.
    And what a recall costs in CPU either way, its trace's writes included (the block's
    flush counted in it): the engine's (``engine_cpu()``, seconds so far; None: a server
    elsewhere) and this process's, all threads (the query embedding, the trace's writer)."""
    timed = warm(g, ns, queries)
    lat: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [0.0, 0.0], False: [0.0, 0.0]}  # engine, process
    seen = engine_cpu() is not None  # the engine's process is on this machine
    blocks = [timed[i : i + block] for i in range(0, len(timed), block)]
    for i, some in enumerate(tqdm(blocks, desc="recall walk, trace on/off", leave=False)):
        fire = i % 2 == 0
        engine0, process0 = engine_cpu(), time.process_time()
        lat[fire] += [recall_ms(g, ns, q, fire=fire) for q in some]
        g.flush()
        engine1 = engine_cpu()
        if engine0 is not None and engine1 is not None:
            cpu[fire][0] += engine1 - engine0
        cpu[fire][1] += time.process_time() - process0

    def side(fire: bool) -> dict[str, Any]:
        n = max(len(lat[fire]), 1)
        engine = cpu[fire][0] * 1000 / n if seen else None
        return {
            **latency(lat[fire]),
            "engine_cpu_ms": engine,
            "process_cpu_ms": cpu[fire][1] * 1000 / n,
        }

    return {"block": block, "trace_on": side(True), "trace_off": side(False)}


def time_recall_paced(
    g: LiquidGraph, ns: str, queries: list[str], pause_s: float = PAUSE_S
) -> dict[str, Any]:
    """Recall (walk, ``fire=True``) with the process idle ``pause_s`` before each, as a
    chat's next turn finds it: the trace is written in the pause, not beside the recall, but
    the caches and the cores are no longer warm from the recall before (back to back, each
    finds the model's weights and the index where the last one left them)."""
    timed = warm(g, ns, queries)
    lat = []
    for q in tqdm(timed, desc=f"recall walk, {pause_s * 1000:.0f} ms apart", leave=False):
        time.sleep(pause_s)
        lat.append(recall_ms(g, ns, q))
    g.flush()
    return {"pause_ms": pause_s * 1000, **latency(lat)}


def time_recall_lean(g: LiquidGraph, ns: str, queries: list[str]) -> dict[str, Any]:
    """Recall (walk, no trace) with the default settings and with ``LEAN``'s, query by
    query, the order alternating: the cost of recall on this machine once most of the
    ranking's work is gone (the query's embedding and the read of the results stay). A
    recall after a lighter one runs warmer, so the defaults here come out faster than in
    ``recall_walk``'s trace-off blocks (10k, ArcadeDB: p50 16 against 19-20 ms)."""
    lean = g.tuned(**LEAN)
    lat = alternating(
        warm(g, ns, queries),
        lambda is_lean, q: recall_ms(lean if is_lean else g, ns, q, fire=False),
        "recall walk, default / lean",
    )
    return {"settings": LEAN, "default": latency(lat[False]), "lean": latency(lat[True])}


def time_recall_compare(
    g: LiquidGraph, ns: str, queries: list[str], changes: dict[str, Any], agree: int = 50
) -> dict[str, Any]:
    """Recall (walk) as ``recall_walk`` takes it, back to back with the trace, with the
    default settings and with ``changes`` (``--compare``: recall's ``TUNABLE``), query by
    query, the order alternating: what a change of settings buys on this machine, both
    sides in the same minutes of the same process. And how much it changes what recall
    finds: of ``agree`` more queries, each recalled both ways without the trace (the graph
    the same for both), the share whose top 10 is the same, in order, and the mean share
    of one's top 10 in the other's."""
    other = g.tuned(**changes)
    lat = alternating(
        warm(g, ns, queries),
        lambda changed, q: recall_ms(other if changed else g, ns, q),
        "recall walk, default / compared",
    )
    g.flush()
    same, shared = [], []
    for q in queries[:agree]:
        a, b = ([h.id for h in view.recall(ns, q, k=10, fire=False)] for view in (g, other))
        same.append(a == b)
        shared.append(len(set(a) & set(b)) / max(len(a), 1))
    return {
        "settings": changes,
        "default": latency(lat[False]),
        "compared": latency(lat[True]),
        "agreement": {
            "queries": len(same),
            "same_top10": float(np.mean(same)),
            "top10_overlap": float(np.mean(shared)),
        },
    }


def time_index_build(g: LiquidGraph, ns: str) -> dict[str, Any]:
    """The read index of ``ns`` built from the store: seconds, then (a second build, traced)
    the memory it holds, its vectors apart."""
    import tracemalloc

    index = g.read_index
    if index is None:
        return {"off": True}
    index.forget(ns)
    t0 = time.perf_counter()
    space = index._build(ns)
    seconds = time.perf_counter() - t0
    index.forget(ns)
    del space
    tracemalloc.start()
    try:
        space = index._build(ns)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    memories = space.size()
    vectors = space.vector_bytes()
    t0 = time.perf_counter()  # a search starts the HNSW builds of labels past exact_below
    index.nearest(g.backend.read, ns, list(space.blocks), np.zeros((1, index.dim)), 1)
    hnsw = index.hnsw(ns, wait=None)
    hnsw_s = time.perf_counter() - t0
    saved: dict[str, Any] = {}
    t0 = time.perf_counter()
    space.saved = None  # (saved after the build already, without the HNSW graph)
    if index.save(ns, space):  # saved, let go, and read back as the next process would
        saved["save_s"] = time.perf_counter() - t0
        saved["file_bytes"] = index_file.path_for(index.directory, ns).stat().st_size
        index.forget(ns)
        loads = index.loads
        t0 = time.perf_counter()
        index._space(g.backend.read, ns)
        saved["load_s"] = time.perf_counter() - t0
        saved["loaded"] = index.loads == loads + 1
        saved["hnsw_loaded"] = sorted(index.hnsw(ns))
    return {
        "seconds": seconds,
        "memories": memories,
        "bytes": held,
        "vector_bytes": vectors,
        "other_bytes_per_memory": (held - vectors) / max(1, memories),
        "exact_below": index.exact_below,
        "hnsw_labels": sorted(hnsw),
        "hnsw_build_s": hnsw_s if hnsw else None,
        "hnsw_bytes": sum(hnsw.values()),
        **saved,
    }


def hnsw_agreement(g: LiquidGraph, ns: str, queries: list[str]) -> dict[str, Any]:
    """Recall's top 10 (walk, and vector alone) through the HNSW graphs against the exact
    scan, query by query on the same graph (fire=False: nothing written between)."""
    if g.read_index is None:
        return {"hnsw": False}
    hnsw_ready(g, ns, queries[0])
    space = g.read_index._spaces.get(ns)
    blocks = [b for b in space.blocks.values() if b.ann is not None] if space else []
    if not blocks:
        return {"hnsw": False}
    agree: dict[str, list[float]] = {"walk": [], "vector": []}
    same: dict[str, int] = {"walk": 0, "vector": 0}
    for q in tqdm(queries, desc="HNSW against the exact scan", leave=False):
        for mode in agree:
            approx = [r.memory.id for r in g.recall(ns, q, k=10, mode=mode, fire=False)]
            held = [b.ann for b in blocks]
            for b in blocks:
                b.ann, b.failed = None, True  # exact, and no new build meanwhile
            try:
                exact = [r.memory.id for r in g.recall(ns, q, k=10, mode=mode, fire=False)]
            finally:
                for b, ann in zip(blocks, held, strict=True):
                    b.ann, b.failed = ann, False
            agree[mode].append(len(set(approx) & set(exact)) / max(1, len(exact)))
            same[mode] += approx == exact
    return {
        "hnsw": True,
        "queries": len(queries),
        **{f"{m}_top10_overlap": float(np.mean(v)) for m, v in agree.items()},
        **{f"{m}_identical": same[m] / len(queries) for m in same},
    }


def time_maintain(g: LiquidGraph, ns: str, now: float | None, **how: Any) -> dict[str, Any]:
    """One ``maintain()`` pass timed; the ASSOC edges it faced are counted outside the time."""
    edges = assoc_count(g, ns)
    with QueryTimer() as timer:
        t0 = time.perf_counter()
        report = g.maintain(ns, now=now, **how)
        wall = time.perf_counter() - t0
    return {
        "wall_s": wall,
        "assoc_edges": edges,
        "report": report.model_dump(),
        "query_seconds": timer.top(),
        "transaction_seconds": timer.top(whole=True),
    }


def time_small_beside(g: LiquidGraph, ns: str, now: float, n: int = 200) -> dict[str, Any]:
    """A namespace of ``n`` memories beside the store's (a small user of a shared store):
    its first pass, then a timed pass at ``now`` (age days on: the big namespace's memories
    are due as well). Forgotten afterwards: a kept store stays as it was."""
    small = f"{ns}-small-beside"
    g.add_episodes(small, [f"Small user's note {i}: the tomatoes need water" for i in range(n)])
    try:
        g.maintain(small, now=time.time())  # full: counts the namespace
        return time_maintain(g, small, now, kcore=False)
    finally:
        g.forget_namespace(small)


def run_size(
    n: int, engine_name: str, args: argparse.Namespace, model: Embedder, log: Any
) -> dict[str, Any]:
    """Fill a fresh store of ``engine_name`` with ``n`` memories (or reuse the one kept in
    KEEP/<engine>/<n>-seed<seed>), then time recall and maintenance."""
    kept = args.keep / engine_name / f"{n}-seed{args.seed}" if args.keep else None
    home = kept or Path(tempfile.mkdtemp(prefix=f"mags-dyn-{n}-{engine_name}-"))
    res: dict[str, Any] = {"memories": n, "engine": engine_name}
    try:
        with engines.running(engine_name, home, args, arcadedb_heap=args.heap) as engine:
            res["engine_info"] = engine.info
            # a server of others (MAGS_NEO4J_URI) holds every size: one namespace each
            ns = f"{NS}-{n}-seed{args.seed}" if engine.external else NS
            real = CachedEmbedder(model, engine.settings.query_cache_size)  # a cache per run
            gen = SynthMemory(n, args.seed)
            fake = SynthEmbedder(real, gen.vocabulary())
            with LiquidGraph(engine.settings, embedder=fake) as g:
                reuse = kept is not None and (kept / "filled").exists()
                if reuse and engine.external and not g.stats(ns)["nodes"].get("Episode"):
                    reuse = False  # the server's copy was cleared since
                if reuse:  # the fill is deterministic: a kept store is the same graph
                    filled = json.loads((home / "filled").read_text())
                    # the engine that runs now stays ``engine_info``; the fill's is kept apart
                    filled["fill_engine_info"] = filled.pop("engine_info", None)
                    res.update(filled, reused_store=str(home))
                    # each run's questions are new to the store: repeated, they would find
                    # their co-firings made by the run before (no new ASSOC edge to write)
                    runs = home / "runs"
                    run = int(runs.read_text()) + 1 if runs.exists() else 1
                    runs.write_text(str(run))
                    res["store_run"] = run
                    gen.rng.seed(f"{args.seed}-run{run}")
                    log(f"[{n:,} {engine_name}] reusing the store filled in {home} (run {run})")
                else:
                    if engine.external:  # (its namespace may have been cleared meanwhile)
                        g.forget_namespace(ns)
                    progress = None if kept is None or engine.external else home / "fill-progress"
                    if progress is not None and progress.exists():
                        log(f"[{n:,} {engine_name}] going on with the fill in {home}")
                    res.update(fill(g, ns, gen, args.batch, n, progress))
                    rate = res["fill_memories_per_s"]
                    log(
                        f"[{n:,} {engine_name}] filled in {res['fill_seconds']:.0f} s "
                        f"({rate:.0f} memories/s)"
                    )
                    if kept is not None:
                        (home / "filled").write_text(json.dumps(res))
                if args.assoc_edges and n == max(args.sizes):
                    res["densify"] = densify(g, ns, args.assoc_edges, args.seed)
                    log(f"[{n:,} {engine_name}] densified: {res['densify']}")
                res["graph"] = graph_counts(g, ns)
                res["entity_degrees"] = degree_profile(g, ns)
                if not args.fill_only:
                    measure(g, ns, n, gen, real, args, res, log, engine.cpu_s)
                if engine.external and kept is None:
                    g.forget_namespace(ns)
    finally:
        if kept is None:
            shutil.rmtree(home, ignore_errors=True)
    return res


def measure(
    g: LiquidGraph,
    ns: str,
    n: int,
    gen: SynthMemory,
    real: Embedder,
    args: argparse.Namespace,
    res: dict[str, Any],
    log: Any,
    engine_cpu: Callable[[], float | None],
) -> None:
    """Time recall and maintenance on the filled store (into ``res``; ``engine_cpu``: the
    engine process's CPU seconds so far, None when it runs elsewhere)."""
    g.embedder = real  # queries are embedded by the real default embedder
    taken: set[str] = set()
    per_mode = (args.queries or (200 if n >= 10_000 else 50)) + WARMUP
    aged = time.time() + args.age_days * 86400
    steps: list[tuple[str, Any]] = [
        ("maintain_full", lambda: time_maintain(g, ns, None, full=True)),
        ("query_embedding", lambda: time_embedding(real, gen.queries(per_mode, taken))),
        ("read_index_build", lambda: time_index_build(g, ns)),
        ("hnsw_agreement", lambda: hnsw_agreement(g, ns, gen.queries(per_mode // 2, taken))),
        *[
            (f"recall_{m}", lambda m=m: time_recall(g, ns, gen.queries(per_mode, taken), m))
            for m in ("walk", "vector")
        ],
        (
            "recall_walk_trace",
            lambda: time_recall_trace_on_off(g, ns, gen.queries(per_mode, taken), engine_cpu),
        ),
        (  # half the timed recalls of the others: each waits PAUSE_S first
            "recall_walk_paced",
            lambda: time_recall_paced(g, ns, gen.queries(WARMUP + (per_mode - WARMUP) // 2, taken)),
        ),
        (
            "recall_walk_engine",
            lambda: time_recall_index_on_off(g, ns, gen.queries(per_mode, taken)),
        ),
        ("recall_walk_lean", lambda: time_recall_lean(g, ns, gen.queries(per_mode, taken))),
        (
            "recall_walk_compare",
            lambda: time_recall_compare(g, ns, gen.queries(per_mode, taken), args.compare),
        ),
        ("maintain", lambda: time_maintain(g, ns, None)),
        ("maintain_aged", lambda: time_maintain(g, ns, aged, kcore=False)),
        ("maintain_kcore", lambda: time_maintain(g, ns, aged, kcore=True)),
        ("maintain_small_beside", lambda: time_small_beside(g, ns, aged)),
        ("graph_after", lambda: graph_counts(g, ns)),
    ]
    assert [key for key, _ in steps] == list(STEPS)
    for key, step in steps:  # a failing step is recorded; the others still run
        asked = not args.only or key in args.only
        if not asked or (key == "recall_walk_compare" and not args.compare):
            continue
        if key.startswith("recall_") and args.engine_warm_s > 0 and "engine_warmup" not in res:
            more = functools.partial(gen.queries, taken=taken)
            res["engine_warmup"] = warm_engine(g, ns, more, args.engine_warm_s)
        try:
            res[key] = step()
        except Exception as e:
            log(f"[{n:,} {res['engine']}] {key} failed: {e!r}")
            res.setdefault("errors", {})[key] = repr(e)


def recall_goal(n: int) -> tuple[int, float | None]:
    """The p95 goal that applies at this size: that of the next goal size up."""
    for size, goal in sorted(GOALS["recall_p95_ms"].items()):
        if n <= size:
            return size, goal
    return n, None


def display(r: dict[str, Any]) -> dict[str, str]:
    """The table's cells for one size (a step that did not run has no cell)."""
    out: dict[str, str] = {}
    g, deg = r.get("graph", {}), r.get("entity_degrees", {})
    out["fill memories/s"] = f"{r['fill_memories_per_s']:,.0f}"
    out["nodes"] = f"{sum(g.get('nodes', {}).values()):,}"
    out["edges (all types)"] = f"{g.get('edges_total', 0):,}"
    out["  of which ASSOC"] = f"{g.get('edges', {}).get('ASSOC', 0):,}"
    if deg:
        out["entity degree max / median"] = f"{deg['max']:,} / {deg['median']:.0f}"
    if emb := r.get("query_embedding"):
        out["query embedding alone p50 / p95 (ms)"] = _ms(emb)
    if (ix := r.get("read_index_build")) and not ix.get("off"):
        out["read index build s"] = f"{ix['seconds']:.2f}"
        out["  read index MB (vectors) / other bytes per memory"] = (
            f"{ix['bytes'] / 1e6:,.1f} ({ix['vector_bytes'] / 1e6:,.1f}) / "
            f"{ix['other_bytes_per_memory']:,.0f}"
        )
    if (ix := r.get("read_index_build")) and ix.get("hnsw_labels"):
        out["  HNSW build s / MB"] = f"{ix['hnsw_build_s']:.1f} / {ix['hnsw_bytes'] / 1e6:,.1f}"
    if (ix := r.get("read_index_build")) and ix.get("load_s") is not None:
        out["  read index saved s / MB / read back s"] = (
            f"{ix['save_s']:.1f} / {ix['file_bytes'] / 1e6:,.0f} / {ix['load_s']:.1f}"
        )
    if (ag := r.get("hnsw_agreement")) and ag.get("hnsw"):
        out["  HNSW vs exact: top-10 overlap walk / vector"] = (
            f"{ag['walk_top10_overlap']:.3f} / {ag['vector_top10_overlap']:.3f}"
        )
    if warmup := r.get("engine_warmup"):
        first, last = warmup["blocks"][0], warmup["blocks"][-1]
        block = f"{warmup.get('block_s', 5.0):.0f} s"  # the JSONs of 5649758 have none
        out[f"engine warm-up, {warmup['seconds']:.0f} s: first / last {block} p95 (ms)"] = (
            f"{first['p95_ms']:.1f} / {last['p95_ms']:.1f}"
        )
    if (made := r.get("recall_walk_engine", {}).get("engine_indexes_made_s")) is not None:
        out["engine's vector / full-text indexes made (s)"] = f"{made:.1f}"
    for key, how, sides in (
        ("recall_walk_engine", "interleaved", ("index_on", "index_off")),
        ("recall_walk_trace", "blocks of {block}", ("trace_on", "trace_off")),
    ):
        if rec := r.get(key):
            for side in sides:
                name = side.replace("_", " ")
                out[f"recall walk, {how.format(**rec)}, {name} p50 / p95 (ms)"] = _ms(rec[side])
    if (rec := r.get("recall_walk_trace")) and "process_cpu_ms" in rec["trace_on"]:
        on, off = rec["trace_on"], rec["trace_off"]  # (the JSONs of earlier runs have none)
        engine = "-" if on["engine_cpu_ms"] is None else (
            f"{on['engine_cpu_ms']:.1f} vs {off['engine_cpu_ms']:.1f}")  # fmt: skip
        out["  CPU a recall, trace on vs off: engine / this process (ms)"] = (
            f"{engine} / {on['process_cpu_ms']:.1f} vs {off['process_cpu_ms']:.1f}"
        )
    if rec := r.get("recall_walk_paced"):
        out[f"recall walk, {rec['pause_ms']:.0f} ms apart, p50 / p95 (ms)"] = _ms(rec)
    if rec := r.get("recall_walk_lean"):
        lean = ", ".join(f"{k.removeprefix('recall_')} {v}" for k, v in rec["settings"].items())
        for side in ("default", "lean"):
            how = "defaults" if side == "default" else lean
            out[f"recall walk, no trace, interleaved, {how} p50 / p95 (ms)"] = _ms(rec[side])
    if rec := r.get("recall_walk_compare"):
        changed = ", ".join(f"{k} {v}" for k, v in rec["settings"].items())
        for side, how in (("default", "defaults"), ("compared", changed)):
            out[f"recall walk, trace on, interleaved, {how} p50 / p95 (ms)"] = _ms(rec[side])
        agreed = rec["agreement"]
        out["  compared: same top 10 / top-10 overlap"] = (
            f"{agreed['same_top10']:.2f} / {agreed['top10_overlap']:.2f}"
        )
    for mode in ("walk", "vector"):
        if rec := r.get(f"recall_{mode}"):
            out[f"recall {mode} p50 / p95 (ms)"] = _ms(rec)
            out[f"  ASSOC created by {mode} recalls"] = f"{rec['assoc_created']:,}"
            out[f"  {mode}: slowest queries (s)"] = _slowest(rec)
    size, goal = recall_goal(r["memories"])
    if goal is not None and "recall_walk" in r:
        met = "met" if r["recall_walk"]["p95_ms"] <= goal else "NOT met"
        out["recall walk p95 goal (ms)"] = f"<= {goal:.0f} at {size:,}: {met}"
    for key, label in MAINTAIN_STEPS:
        if not (m := r.get(key)):
            continue
        rep = m["report"]
        out[f"{label}: wall s"] = f"{m['wall_s']:,.2f}"
        out[f"  {label}: ASSOC edges / memories visited (deferred)"] = (
            f"{m['assoc_edges']:,} / {rep['visited']:,} ({rep.get('deferred', 0):,})"
        )
        out[f"  {label}: edges checked / pruned / born / forgotten"] = (
            f"{rep['edges_checked']:,} / {rep['pruned_edges']:,} / {rep['births']:,} / "
            f"{rep['forgotten']:,}"
        )
        out[f"  {label}: slowest queries (s)"] = _slowest(m)
        out[f"  {label}: slowest write transactions, whole (s)"] = _slowest(m, whole=True)
        if key in ("maintain", "maintain_aged"):
            goal = GOALS["maintain_1m_edges_s"]
            big = m["assoc_edges"] >= 950_000  # a pass prunes a few: ~1M is the scale asked
            met = ("met" if m["wall_s"] <= goal else "NOT met") if big else "not at ~1M edges"
            out[f"  {label}: goal <= {goal:.0f} s at ~1M edges"] = met
    return out


MAINTAIN_STEPS = (  # (step, label): the first pass is full; the others incremental
    ("maintain_full", "maintain full"),
    ("maintain", "maintain after recalls"),
    ("maintain_aged", "maintain, clock + age"),
    ("maintain_kcore", "k-core decomposition"),
    ("maintain_small_beside", "a 200-memory namespace beside it, clock + age"),
)


def _setting(text: str) -> tuple[str, str]:
    """``--compare``'s NAME=VALUE (the value checked by the settings' own types)."""
    name, sep, value = text.partition("=")
    recall = sorted(k for k, group in TUNABLE.items() if group == "recall")
    if not sep or name not in recall:
        raise argparse.ArgumentTypeError(f"want NAME=VALUE, NAME one of {recall}")
    return name, value


def _ms(timed: dict[str, Any]) -> str:
    return f"{timed['p50_ms']:.1f} / {timed['p95_ms']:.1f}"


def _slowest(step: dict[str, Any], n: int = 2, whole: bool = False) -> str:
    spent = list(step.get("transaction_seconds" if whole else "query_seconds", {}).items())[:n]
    return ", ".join(f"{k} {v['s']:.1f}" for k, v in spent) or "-"


def table(results: list[dict[str, Any]]) -> Table:
    t = Table(title="bench_dynamics (default embedder for queries)")
    t.add_column("metric")
    for r in results:
        t.add_column(f"{r['memories']:,} {r['engine']}", justify="right")
    cells = [display(r) for r in results]
    for k in dict.fromkeys(k for c in cells for k in c):
        t.add_row(k, *[c.get(k, "-") for c in cells])
    return t


COMMIT = git_commit()  # at start: the JSON written after each size would mark it dirty


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument(
        "--queries", type=int, help="timed recalls per mode (default 200; 50 under 10k memories)"
    )
    ap.add_argument("--batch", type=int, default=200, help="episodes per write transaction")
    ap.add_argument("--age-days", type=float, default=30.0, help="clock advance, 2nd maintain")
    ap.add_argument("--heap", default="4g", help="JVM heap of the embedded ArcadeDB")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--engine-warm-s",
        type=float,
        default=ENGINE_WARM_S,
        help="recall back to back this long before the first timed recall, so that the "
        "engine's JIT has compiled its hot paths (0: not at all; each step still warms with "
        f"{WARMUP} recalls)",
    )
    ap.add_argument(
        "--assoc-edges",
        type=int,
        help="add synthetic liquid edges to the largest size's store up to this many (1000000)",
    )
    ap.add_argument("--fill-only", action="store_true", help="only fill and count the graph")
    ap.add_argument(
        "--compare",
        nargs="+",
        type=_setting,
        metavar="NAME=VALUE",
        help="also time recall (walk, with the trace) with these settings against the "
        "defaults, query by query (step recall_walk_compare; names: graph_db.TUNABLE's "
        "recall settings), and count how often the top 10 stays the same",
    )
    ap.add_argument(
        "--only",
        nargs="+",
        choices=STEPS,
        help="run only these steps of the measurement (at 1M, maintaining the whole graph and "
        "recalling without the read index take most of an hour)",
    )
    ap.add_argument(
        "--keep",
        type=Path,
        help="keep each filled store in KEEP/<engine>/<size>-seed<seed> and reuse it next time "
        "(for Neo4j, the local server's data folder; recalls and maintenance change a store: "
        "fill again for a first-run measurement; each run on it asks questions of its own)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_dynamics.json")
    engines.add_options(ap)
    args = ap.parse_args()
    args.compare = dict(args.compare or ())
    # SIGTERM (the way a long fill is stopped) unwinds like Ctrl-C: the graph closes and
    # saves its read index, so the fill that goes on loads it instead of reading it whole
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    console = log_console(width=130)
    model = getattr(real := make_embedder(GraphSettings()), "inner", real)
    results: list[dict[str, Any]] = []
    for n in args.sizes:
        for name in engines.selected(args):
            t0 = time.perf_counter()
            results.append(run_size(n, name, args, model, console.log))
            results[-1]["wall_s"] = time.perf_counter() - t0
            console.log({k: v for k, v in results[-1].items() if k != "entity_degrees"})
            write_json(args, real.name, results)  # after each run: a long one keeps what it has
    console.print(table(results))
    console.print(f"wrote {args.out}")


def write_json(args: argparse.Namespace, embedder: str, results: list[dict[str, Any]]) -> None:
    out = {
        "benchmark": "bench_dynamics",
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": COMMIT,
        "machine": machine(),
        "embedder": embedder,
        "engines": {r["engine"]: r["engine_info"] for r in results if "engine_info" in r},
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "goals": {
            "recall_walk_p95_ms": {str(k): v for k, v in GOALS["recall_p95_ms"].items()},
            "maintain_1m_assoc_edges_s": GOALS["maintain_1m_edges_s"],
        },
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(_plain(out), indent=2))


def _plain(o: Any) -> Any:
    """JSON-safe copy: numpy scalars to Python, NaN to null, dict keys to str."""
    if isinstance(o, dict):
        return {str(k): _plain(v) for k, v in o.items()}
    if isinstance(o, list | tuple):
        return [_plain(v) for v in o]
    if isinstance(o, np.generic):
        o = o.item()
    if isinstance(o, float) and not math.isfinite(o):
        return None
    return o if isinstance(o, str | int | float | bool | type(None)) else str(o)


if __name__ == "__main__":
    main()
