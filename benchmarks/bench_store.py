"""bench_store: write throughput, vector search latency and disk per node of the store.

    python benchmarks/bench_store.py --sizes 10000 100000 [--backend arcadedb]

For each size N a fresh store is filled with N memories (80% episodes in sessions of
20 turns, 20% facts; synthetic chat-like text from a seeded generator, entities from a
pool), written in batches of 100 with precomputed vectors (write path alone). Then, at
that size, it measures:
  - episodes/s and facts/s including embedding (default embedder) and without it, and
    episodes/s of the pipelined bulk path (``LiquidGraph.ingest``);
  - vector search p50/p95 over the index (query vector given) and including the query
    embedding (``LiquidGraph.search(mode="vector")``);
  - bytes on disk per node (embedded ArcadeDB: the database directory);
  - the embedder alone (texts/s on the same turns), the ceiling of any write with embedding.
Prints a table and writes JSON (with the machine) to benchmarks/results/bench_store.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from graph_db import GraphSettings, LiquidGraph
from graph_db.embeddings import make_embedder

ROOT = Path(__file__).resolve().parent
BATCH = 100
PROBE = 1000  # memories written for the timed write probes
QUERIES = 200

NAMES = [
    f"{a}{b}"
    for a in ("Al", "Be", "Ca", "Da", "El", "Fi", "Gu", "Ha", "Iv", "Jo")
    for b in ("ex", "la", "ro", "mi", "na", "to", "ra", "li", "so", "ke")
]
PLACES = ["Berlin", "Lisbon", "Osaka", "Lima", "Oslo", "Cairo", "Quito", "Perth", "Nice", "Riga"]
TOPICS = [
    "painting",
    "hiking",
    "a new job",
    "the kids",
    "cooking",
    "a concert",
    "the garden",
    "a road trip",
    "learning piano",
    "the marathon",
    "a book club",
    "their dog",
]
TEMPLATES = [
    "I spent the weekend {t} with {n} near {p}, it was {adj}.",
    "Did you ever finish {t}? {n} told me it was {adj}.",
    "We are planning {t} in {p} next month, {n} is coming too.",
    "Honestly {t} has been {adj} lately, I might ask {n} for advice.",
    "{n} sent photos from {p}; they look {adj} after all that {t}.",
    "Remember when we talked about {t}? I finally tried it in {p}.",
]
ADJ = ["amazing", "exhausting", "surprisingly fun", "a bit stressful", "really relaxing", "odd"]


def synth_turns(n: int, rng: random.Random) -> list[dict]:
    out = []
    for i in range(n):
        name, place = rng.choice(NAMES), rng.choice(PLACES)
        text = rng.choice(TEMPLATES).format(
            t=rng.choice(TOPICS), n=name, p=place, adj=rng.choice(ADJ)
        )
        out.append(
            {
                "text": f"{text} ({i})",
                "speaker": ("A", "B")[i % 2],
                "session_id": f"s{i // 20}",
                "ts": float(i),
                "entities": [name, place],
            }
        )
    return out


def synth_facts(n: int, rng: random.Random) -> list[dict]:
    preds = ["likes", "visited", "works_with", "lives_near", "talked_about"]
    return [
        {
            "subject": rng.choice(NAMES),
            "predicate": rng.choice(preds),
            "object": f"{rng.choice(TOPICS)} #{i}",
            "confidence": round(rng.uniform(0.5, 1), 2),
        }
        for i in range(n)
    ]


class Precomputed:
    """Vectors computed ahead, so a write measures the store alone."""

    def __init__(self, inner, texts: list[str]) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.table = dict(zip(texts, inner.embed(texts), strict=True))

    def embed(self, texts):
        missing = [t for t in texts if t not in self.table]
        if missing:
            self.table.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, self.dim))


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q))


def fact_text(f: dict) -> str:
    return f"{f['subject']} {f['predicate'].replace('_', ' ')} {f['object']}"


def run_size(n: int, settings: GraphSettings, embedder, rng: random.Random, log) -> dict:
    n_eps = int(n * 0.8)
    turns = synth_turns(n_eps + 2 * PROBE, rng)
    facts = synth_facts(n - n_eps + 2 * PROBE, rng)
    fill_t, probe_t = turns[:n_eps], turns[n_eps:]
    fill_f, probe_f = facts[: n - n_eps], facts[n - n_eps :]
    log(f"[{n}] embedding {len(turns) + len(facts)} texts ahead ...")
    sample = [t["text"] for t in probe_t[:PROBE]]
    t0 = time.perf_counter()
    (embedder.inner if hasattr(embedder, "inner") else embedder).embed(sample)
    embed_rate = len(sample) / (time.perf_counter() - t0)
    pre = Precomputed(
        embedder,
        [t["text"] for t in fill_t + probe_t[PROBE:]]
        + [fact_text(f) for f in fill_f + probe_f[PROBE:]],
    )
    ns = "bench"
    res: dict = {"memories": n, "embedder_alone_texts_per_s": embed_rate}
    with LiquidGraph(settings, embedder=pre) as g:
        t0 = time.perf_counter()
        for i in tqdm(range(0, len(fill_t), BATCH), desc=f"fill episodes ({n})", leave=False):
            g.add_episodes(ns, fill_t[i : i + BATCH])
        res["fill_episodes_per_s"] = len(fill_t) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        for i in tqdm(range(0, len(fill_f), BATCH), desc=f"fill facts ({n})", leave=False):
            g.add_facts(ns, fill_f[i : i + BATCH])
        res["fill_facts_per_s"] = len(fill_f) / (time.perf_counter() - t0)

        def timed(items, write) -> float:
            t0 = time.perf_counter()
            for i in range(0, len(items), BATCH):
                write(ns, items[i : i + BATCH])
            return len(items) / (time.perf_counter() - t0)

        res["episodes_per_s_without_embedding"] = timed(probe_t[PROBE:], g.add_episodes)
        res["facts_per_s_without_embedding"] = timed(probe_f[PROBE:], g.add_facts)
        g.embedder = embedder  # the real embedder: the same writes, embedding included
        half = PROBE // 2
        res["episodes_per_s_with_embedding"] = timed(probe_t[:half], g.add_episodes)
        t0 = time.perf_counter()  # bulk path: the next batch is embedded while one is written
        g.ingest(ns, probe_t[half:PROBE], batch_size=BATCH)
        res["episodes_per_s_ingest_pipelined"] = (PROBE - half) / (time.perf_counter() - t0)
        res["facts_per_s_with_embedding"] = timed(probe_f[:PROBE], g.add_facts)

        queries = [t["text"].split("(")[0] for t in rng.sample(turns, QUERIES)]
        qvecs = (
            embedder.inner.embed(queries) if hasattr(embedder, "inner") else embedder.embed(queries)
        )
        lat_index, lat_full = [], []
        for v in qvecs:
            t0 = time.perf_counter()
            g.search_engine.nearest(g.backend.read, ns, "Episode", v[None, :], 10)
            lat_index.append((time.perf_counter() - t0) * 1000)
        for q in queries:
            t0 = time.perf_counter()
            g.search(ns, q + " ?", k=10, blocks="episodic", mode="vector")  # uncached text
            lat_full.append((time.perf_counter() - t0) * 1000)
        res["vector_search_ms_p50"], res["vector_search_ms_p95"] = (
            pct(lat_index, 50),
            pct(lat_index, 95),
        )
        res["search_with_embedding_ms_p50"] = pct(lat_full, 50)
        res["search_with_embedding_ms_p95"] = pct(lat_full, 95)
        stats = g.stats(ns)
        nodes = sum(stats["nodes"].values())
        res["nodes"], res["edges"] = nodes, sum(e["count"] for e in stats["edges"].values())
        db_dir = Path(settings.home) / "arcadedb" / "databases" / settings.arcadedb_database
    if db_dir.exists():
        size = sum(p.stat().st_size for p in db_dir.rglob("*") if p.is_file())
        res["disk_bytes_per_node"] = size / nodes
        res["disk_mb"] = size / 2**20
    return res


def git_commit() -> str:
    """The commit the benchmark ran at, "+dirty" if tracked files were changed."""

    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], capture_output=True, text=True, cwd=ROOT).stdout

    dirty = "+dirty" if git("status", "--porcelain", "--untracked-files=no").strip() else ""
    return git("rev-parse", "--short", "HEAD").strip() + dirty


def machine() -> dict:
    import onnxruntime

    return {
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "onnxruntime": onnxruntime.__version__,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_store.json")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    console = Console()
    embedder = make_embedder(GraphSettings())
    results = []
    for n in args.sizes:
        home = Path(tempfile.mkdtemp(prefix=f"mags-bench-{n}-"))
        try:
            settings = GraphSettings(home=home, neo4j_uri=None)
            results.append(run_size(n, settings, embedder, random.Random(args.seed), console.log))
        finally:
            shutil.rmtree(home, ignore_errors=True)
        console.log(results[-1])
    table = Table(title="bench_store (embedded ArcadeDB, default embedder)")
    keys = [k for k in results[0] if k != "memories"]
    table.add_column("metric")
    for r in results:
        table.add_column(f"{r['memories']:,} memories", justify="right")
    for k in keys:
        table.add_row(k, *[f"{r.get(k, float('nan')):,.1f}" for r in results])
    console.print(table)
    targets = {"vector_search_ms_p95 at 100k": "<= 10", "episodes_per_s_with_embedding": ">= 300"}
    commit = git_commit()
    out = {
        "benchmark": "bench_store",
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": commit,
        "machine": machine(),
        "embedder": embedder.name,
        "batch": BATCH,
        "targets": targets,
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
