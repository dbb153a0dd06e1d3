"""bench_store: write throughput, vector search latency and disk per node of the store.

    python benchmarks/bench_store.py --sizes 10000 100000 [--engine arcadedb|neo4j|both]

For each size N and each engine (default both, one after the other: the embedded ArcadeDB,
and Neo4j, MAGS_NEO4J_URI's or a local Neo4j Community started for the run, see
benchmarks/engines.py) a fresh store is filled with N memories (80% episodes in sessions of
20 turns, 20% facts; synthetic chat-like text from a seeded generator, entities from a
pool), written in batches of 100 with precomputed vectors (write path alone). The engines
get the same memories, vectors and queries. Then, at that size, it measures:
  - episodes/s and facts/s including embedding (default embedder) and without it, and
    episodes/s of the pipelined bulk path (``LiquidGraph.ingest``);
  - vector search p50/p95 over the index (query vector given) and including the query
    embedding (``LiquidGraph.search(mode="vector")``);
  - bytes on disk per node: the store's files once the engine has stopped (ArcadeDB: the
    database directory; Neo4j: data/databases/neo4j, its transaction logs counted apart;
    a server at MAGS_NEO4J_URI is not measured);
  - the embedder alone (texts/s on the same turns), the ceiling of any write with embedding.
Prints one table (a column per size and engine) and writes JSON (with the machine and each
engine's version) to benchmarks/results/bench_store.json.
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

import engines
import numpy as np
from engines import Engine
from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from graph_db import GraphSettings, LiquidGraph
from graph_db.embeddings import CachedEmbedder, make_embedder

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
    """Vectors computed ahead, so a write measures the store alone; what the write path
    embeds on the way (a turn as "Speaker: text", its views, entity names) is embedded
    when asked and its time counted (``seconds``), for the caller to leave out."""

    def __init__(self, inner, texts: list[str]) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.table = dict(zip(texts, inner.embed(texts), strict=True))
        self.seconds = 0.0

    def embed(self, texts):
        missing = [t for t in texts if t not in self.table]
        if missing:
            t0 = time.perf_counter()
            self.table.update(zip(missing, self.inner.embed(missing), strict=True))
            self.seconds += time.perf_counter() - t0
        return np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, self.dim))

    def fork(self) -> Precomputed:
        """A copy with the vectors computed ahead only: what one engine's writes embed on
        the way (entity names, episode views) is not handed to the next engine."""
        other = object.__new__(Precomputed)
        other.inner, other.name, other.dim = self.inner, self.name, self.dim
        other.table = dict(self.table)
        other.seconds = 0.0
        return other


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q))


def fact_text(f: dict) -> str:
    return f"{f['subject']} {f['predicate'].replace('_', ' ')} {f['object']}"


def prepare(n: int, model, rng: random.Random, log) -> dict:
    """The memories, vectors and queries of size ``n``: the same for every engine
    (``model``: the embedder without its cache)."""
    n_eps = int(n * 0.8)
    turns = synth_turns(n_eps + 2 * PROBE, rng)
    facts = synth_facts(n - n_eps + 2 * PROBE, rng)
    fill_t, probe_t = turns[:n_eps], turns[n_eps:]
    fill_f, probe_f = facts[: n - n_eps], facts[n - n_eps :]
    log(f"[{n}] embedding {len(turns) + len(facts)} texts ahead ...")
    sample = [t["text"] for t in probe_t[:PROBE]]
    t0 = time.perf_counter()
    model.embed(sample)
    embed_rate = len(sample) / (time.perf_counter() - t0)
    pre = Precomputed(
        model,
        [t["text"] for t in fill_t + probe_t[PROBE:]]
        + [fact_text(f) for f in fill_f + probe_f[PROBE:]],
    )
    queries = [t["text"].split("(")[0] for t in rng.sample(turns, QUERIES)]
    return {
        "n": n,
        "fill_t": fill_t,
        "probe_t": probe_t,
        "fill_f": fill_f,
        "probe_f": probe_f,
        "pre": pre,
        "embed_rate": embed_rate,
        "queries": queries,
        "qvecs": model.embed(queries),
    }


def run_size(data: dict, engine: Engine, model, log) -> dict:
    """Fill ``engine``'s fresh store with ``data`` and time writes and searches; the real
    embedder is ``model`` with a query cache of its own (no engine gets another's hits)."""
    embedder = CachedEmbedder(model, engine.settings.query_cache_size)
    n, fill_t, probe_t = data["n"], data["fill_t"], data["probe_t"]
    fill_f, probe_f = data["fill_f"], data["probe_f"]
    # a server of others (MAGS_NEO4J_URI) has other data: this run keeps to its namespace
    ns = f"bench-store-{n}" if engine.external else "bench"
    res: dict = {"memories": n, "engine": engine.name}
    res["embedder_alone_texts_per_s"] = data["embed_rate"]
    pre = data["pre"].fork()
    with LiquidGraph(engine.settings, embedder=pre) as g:
        if engine.external:
            g.forget_namespace(ns)
        t0 = time.perf_counter()
        for i in tqdm(range(0, len(fill_t), BATCH), desc=f"fill episodes ({n})", leave=False):
            g.add_episodes(ns, fill_t[i : i + BATCH])
        res["fill_episodes_per_s"] = len(fill_t) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        for i in tqdm(range(0, len(fill_f), BATCH), desc=f"fill facts ({n})", leave=False):
            g.add_facts(ns, fill_f[i : i + BATCH])
        res["fill_facts_per_s"] = len(fill_f) / (time.perf_counter() - t0)

        def timed(items, write, store_alone: bool = False) -> float:
            """Items a second; ``store_alone``: the model's time on the way left out."""
            t0, model = time.perf_counter(), pre.seconds
            for i in range(0, len(items), BATCH):
                write(ns, items[i : i + BATCH])
            left_out = pre.seconds - model if store_alone else 0.0
            return len(items) / (time.perf_counter() - t0 - left_out)

        res["episodes_per_s_without_embedding"] = timed(probe_t[PROBE:], g.add_episodes, True)
        res["facts_per_s_without_embedding"] = timed(probe_f[PROBE:], g.add_facts, True)
        g.embedder = embedder  # the real embedder: the same writes, embedding included
        half = PROBE // 2
        res["episodes_per_s_with_embedding"] = timed(probe_t[:half], g.add_episodes)
        t0 = time.perf_counter()  # bulk path: the next batch is embedded while one is written
        g.ingest(ns, probe_t[half:PROBE], batch_size=BATCH)
        res["episodes_per_s_ingest_pipelined"] = (PROBE - half) / (time.perf_counter() - t0)
        res["facts_per_s_with_embedding"] = timed(probe_f[:PROBE], g.add_facts)

        lat_index, lat_full = [], []
        for v in data["qvecs"]:
            t0 = time.perf_counter()
            g.search_engine.nearest(g.backend.read, ns, "Episode", v[None, :], 10)
            lat_index.append((time.perf_counter() - t0) * 1000)
        for q in data["queries"]:
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
        res["nodes"] = sum(stats["nodes"].values())
        res["edges"] = sum(e["count"] for e in stats["edges"].values())
        if engine.external:
            g.forget_namespace(ns)
    return res


def add_disk(res: dict, disk: dict[str, int] | None) -> None:
    """Bytes per node of the stopped engine's store (and Neo4j's transaction logs)."""
    if disk:
        res["disk_bytes_per_node"] = disk["store"] / res["nodes"]
        res["disk_mb"] = disk["store"] / 2**20
        if "tx_logs" in disk:
            res["tx_logs_mb"] = disk["tx_logs"] / 2**20


def git_commit() -> str:
    """The commit the benchmark ran at, "+dirty" if tracked files were changed."""

    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], capture_output=True, text=True, cwd=ROOT).stdout

    dirty = "+dirty" if git("status", "--porcelain", "--untracked-files=no").strip() else ""
    return git("rev-parse", "--short", "HEAD").strip() + dirty


def log_console(width: int = 160) -> Console:
    """Rich's console; into a log file, ``width`` wide (a table's rows stay on one line)."""
    console = Console()
    return console if console.is_terminal else Console(width=width)


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
    engines.add_options(ap)
    args = ap.parse_args()
    console = Console()
    embedder = make_embedder(GraphSettings())
    model = getattr(embedder, "inner", embedder)
    results, infos, wall = [], {}, {}
    for n in args.sizes:
        data = prepare(n, model, random.Random(args.seed), console.log)
        for name in engines.selected(args):
            home = Path(tempfile.mkdtemp(prefix=f"mags-bench-{n}-{name}-"))
            t0 = time.perf_counter()
            try:
                with engines.running(name, home, args) as engine:
                    infos[name] = engine.info
                    res = run_size(data, engine, model, console.log)
                add_disk(res, engine.disk_bytes())
            finally:
                shutil.rmtree(home, ignore_errors=True)
            wall[f"{n} {name}"] = time.perf_counter() - t0
            results.append(res)
            console.log(results[-1])
    table = Table(title=f"bench_store (default embedder; {', '.join(infos)})")
    keys = list(dict.fromkeys(k for r in results for k in r if k not in ("memories", "engine")))
    table.add_column("metric")
    for r in results:
        table.add_column(f"{r['memories']:,} {r['engine']}", justify="right")
    for k in keys:
        table.add_row(k, *[f"{r[k]:,.1f}" if k in r else "-" for r in results])
    console.print(table)
    targets = {
        "vector_search_ms_p95 at 100k": "<= 10",
        "episodes_per_s_with_embedding": ">= 300, or the ingest within 10% of the model alone "
        "(bench_ingest)",
    }
    commit = git_commit()
    out = {
        "benchmark": "bench_store",
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": commit,
        "machine": machine(),
        "engines": infos,
        "wall_s": wall,
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
