"""bench_locomo: turn-level evidence recall on LoCoMo, MAGS recall against BM25 and dense.

    python benchmarks/bench_locomo.py ../shared/data/locomo [--conversations conv-26 ...]
        [--engine arcadedb|neo4j|both]

Every turn of each conversation is stored as an episode (speaker, the session's date as
event time, image captions appended as "[shares a photo: ...]"); each question of
categories 1-4 is asked and scored by its evidence turns: R_any@k (at least one evidence
turn in the top k) and R_all@k (all of them), k = 5, 10, 25. Baselines on the same turns,
as the same text ("Speaker: text [shares a photo: ...]"): BM25 (bm25s, English stop words)
and flat dense retrieval with all-MiniLM-L6-v2 (the store's embedder). Ablations: the
single-shot vector recall, recall without the walk, after a replay of the questions
(co-firing only: no answer or evidence is used), and after ``maintain()`` (k-core pruning);
and MAGS recall again with its read index read back from the store, as after a restart (the
questions it ranks as written through are counted: all of them, or a restart changes answers).
Nothing is tuned on the questions here; defaults live in GraphSettings.
The same work runs on each engine asked for (default both, one after the other: the embedded
ArcadeDB, and Neo4j, MAGS_NEO4J_URI's or a local Neo4j Community started for the run, see
benchmarks/engines.py), each in a fresh store. Prints one table with a column per engine and
how often the engines' rankings differ; writes benchmarks/results/bench_locomo.json (each
engine's scores, timings and version).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import engines
import numpy as np
from bench_store import git_commit, log_console, machine
from engines import Engine
from rich.table import Table
from tqdm import tqdm

from finetune.data.locomo import CATEGORIES, load
from graph_db import LiquidGraph, index_file

ROOT = Path(__file__).resolve().parent
KS = (5, 10, 25)
Ranker = Callable[[str], list[str]]


def bm25_ranker(turns: list[dict]) -> Ranker:
    import bm25s

    texts = [f"{t['speaker']}: {t['text']}" for t in turns]
    index = bm25s.BM25()
    index.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)

    def rank(q: str) -> list[str]:
        tokens = bm25s.tokenize([q], stopwords="en", show_progress=False)
        k = min(max(KS), len(texts))
        docs, _ = index.retrieve(tokens, k=k, show_progress=False)
        return [turns[int(i)]["id"] for i in docs[0]]

    return rank


def dense_ranker(turns: list[dict], graph: LiquidGraph) -> Ranker:
    texts = [f"{t['speaker']}: {t['text']}" for t in turns]
    emb = graph.embedder.embed(texts)

    def rank(q: str) -> list[str]:
        sims = emb @ graph.embedder.embed([q])[0]
        return [turns[int(i)]["id"] for i in np.argsort(-sims)[: max(KS)]]

    return rank


def mags_ranker(graph: LiquidGraph, ns: str, prefix: str, **kw: object) -> Ranker:
    def rank(q: str) -> list[str]:
        hits = graph.recall(ns, q, k=max(KS), blocks="episodic", fire=False, **kw)
        return [h.id.removeprefix(prefix) for h in hits]

    return rank


def score(rankings: dict[str, list[list[str]]], qa: list[dict]) -> dict:
    """R_any@k and R_all@k per system, overall and per category."""
    out: dict = {}
    for name, ranked in rankings.items():
        rows = {}
        for k in KS:
            hit_any = [
                bool(set(q["evidence"]) & set(r[:k])) for q, r in zip(qa, ranked, strict=True)
            ]
            hit_all = [set(q["evidence"]) <= set(r[:k]) for q, r in zip(qa, ranked, strict=True)]
            rows[f"any@{k}"] = float(np.mean(hit_any))
            rows[f"all@{k}"] = float(np.mean(hit_all))
            for cat, label in CATEGORIES.items():
                idx = [i for i, q in enumerate(qa) if q["category"] == cat]
                if idx:
                    rows[f"{label}:any@{k}"] = float(np.mean([hit_any[i] for i in idx]))
                    rows[f"{label}:all@{k}"] = float(np.mean([hit_all[i] for i in idx]))
        out[name] = rows
    return out


def conversation_paths(data: Path, wanted: list[str] | None) -> list[Path]:
    """LoCoMo's conversation files in ``data`` (``wanted``: only these, e.g. conv-26), or
    exit saying none were found."""
    paths = sorted(data.glob("conv-*.json"))
    if wanted:
        paths = [p for p in paths if p.stem in set(wanted)]
    if not paths:
        sys.exit(f"no LoCoMo conversations found in {data}")
    return paths


def episodes_of(turns: list[dict], prefix: str) -> list[dict[str, Any]]:
    """The turns as episodes: ids under ``prefix``, the session's date as event time."""
    return [
        {
            "id": prefix + t["id"],
            "text": t["text"],
            "speaker": t["speaker"],
            "session_id": f"session_{t['session']}",
            "ts": t["ts"],
        }
        for t in turns
    ]


def run_conversation(graph: LiquidGraph, path: Path) -> tuple[list[dict], dict, dict]:
    conv = path.stem
    turns, qa = load(path)
    ns, prefix = f"locomo-{conv}", f"{conv}:"
    graph.forget_namespace(ns)
    t0 = time.perf_counter()
    graph.ingest(ns, episodes_of(turns, prefix), batch_size=50, progress=True)
    ingest_s = time.perf_counter() - t0
    questions = [q["question"] for q in qa]
    systems: dict[str, Ranker] = {
        "bm25": bm25_ranker(turns),
        "dense": dense_ranker(turns, graph),
        "mags": mags_ranker(graph, ns, prefix),
        "mags-vector (single-shot)": mags_ranker(graph, ns, prefix, mode="vector"),
    }
    rankings: dict[str, list[list[str]]] = {}
    timings: dict[str, float] = {}
    for name, rank in systems.items():
        t0 = time.perf_counter()
        rankings[name] = [rank(q) for q in tqdm(questions, desc=f"{conv} {name}", leave=False)]
        timings[name] = (time.perf_counter() - t0) / max(1, len(questions))
    depth = graph.settings.walk_depth
    graph.settings.walk_depth = 0
    rankings["mags without walk"] = [systems["mags"](q) for q in questions]
    graph.settings.walk_depth = depth
    rankings["mags, index read back"] = read_back(graph, ns, systems["mags"], questions)
    size = {"before": _size(graph, ns)}
    for q in tqdm(questions, desc=f"{conv} replay", leave=False):
        graph.recall(ns, q, k=10, blocks="episodic")  # co-firing only
        # each recall finds the traces of those before it written, as a chat's next turn
        # does: left to the background writer, whether it had written the last one yet
        # moved one question in three runs (the replay's scores were not repeatable)
        graph.flush()
    rankings["mags after replay"] = [systems["mags"](q) for q in questions]
    size["after replay"] = _size(graph, ns)
    t0 = time.perf_counter()
    report = graph.maintain(ns)
    size["maintain_s"] = time.perf_counter() - t0
    size["maintain"] = report.model_dump()
    rankings["mags after maintain"] = [systems["mags"](q) for q in questions]
    size["after maintain"] = _size(graph, ns)
    meta = {"turns": len(turns), "questions": len(qa), "ingest_s": ingest_s, "size": size}
    meta["read_back_identical"] = sum(
        a == b for a, b in zip(rankings["mags"], rankings["mags, index read back"], strict=True)
    )
    meta["ms_per_query"] = {k: v * 1000 for k, v in timings.items()}
    return qa, rankings, meta


def read_back(graph: LiquidGraph, ns: str, rank: Ranker, questions: list[str]) -> list[list[str]]:
    """``rank`` over ``questions`` once ``ns``'s read index is let go (its saved file too)
    and read back from the store, as after a restart: a restart must not change an answer,
    so these are the rankings written through."""
    index = graph.read_index
    if index is not None:
        if index.directory is not None:
            index_file.remove(index.directory, ns)
        index.forget(ns)
    return [rank(q) for q in tqdm(questions, desc=f"{ns} read back", leave=False)]


def _size(graph: LiquidGraph, ns: str) -> dict:
    st = graph.stats(ns)
    return {"nodes": sum(st["nodes"].values()), "edges": st["edges"]}


def run_engine(engine: Engine, paths: list[Path]) -> dict:
    """Every conversation on one engine, in one store: questions, rankings, timings."""
    all_qa: list[dict] = []
    all_rankings: dict[str, list[list[str]]] = {}
    per_conv = {}
    with LiquidGraph(engine.settings) as graph:
        for path in paths:
            qa, rankings, meta = run_conversation(graph, path)
            all_qa += qa
            for name, r in rankings.items():
                all_rankings.setdefault(name, []).extend(r)
            meta["scores"] = score(rankings, qa)
            per_conv[path.stem] = meta
            if engine.external:  # a server of others: leave nothing behind
                graph.forget_namespace(f"locomo-{path.stem}")
        settings = graph.settings.model_dump(mode="json", exclude={"home", "neo4j_password"})
    return {"qa": all_qa, "rankings": all_rankings, "conversations": per_conv,
            "settings": settings}  # fmt: skip


def agreement(a: dict[str, list[list[str]]], b: dict[str, list[list[str]]]) -> dict:
    """How many questions two engines rank alike, per system: the same top k in the same
    order, and the same top k as a set."""
    out = {}
    for name in a:
        if name not in b:
            continue
        pairs = list(zip(a[name], b[name], strict=True))
        out[name] = {
            "questions": len(pairs),
            **{f"same_order@{k}": sum(x[:k] == y[:k] for x, y in pairs) for k in KS},
            **{f"same_set@{k}": sum(set(x[:k]) == set(y[:k]) for x, y in pairs) for k in KS},
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("data", type=Path, help="folder with LoCoMo conv-*.json files")
    ap.add_argument("--conversations", nargs="*", help="e.g. conv-26 (default: all)")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_locomo.json")
    ap.add_argument(
        "--rankings", type=Path, help="also write every system's ranking per question (JSON)"
    )
    engines.add_options(ap)
    args = ap.parse_args()
    paths = conversation_paths(args.data, args.conversations)
    console = log_console()
    runs: dict[str, dict] = {}
    for name in engines.selected(args):
        t0 = time.perf_counter()
        with (
            tempfile.TemporaryDirectory(prefix=f"mags-locomo-{name}-") as home,
            engines.running(name, Path(home), args) as engine,
        ):
            runs[name] = run_engine(engine, paths)
            runs[name]["info"] = engine.info
        runs[name]["wall_s"] = time.perf_counter() - t0
        runs[name]["scores"] = score(runs[name]["rankings"], runs[name]["qa"])
        console.log(f"{name}: {runs[name]['wall_s']:.0f} s")
    names = list(runs)
    first = runs[names[0]]
    systems = list(first["scores"])
    n_qa = len(first["qa"])
    table = Table(title=f"LoCoMo evidence recall ({n_qa} questions, {len(paths)} convs)")
    table.add_column("system")
    for name in names:
        for k in KS:
            for m in ("any", "all"):
                table.add_column(f"{m}@{k}\n{name}", justify="right")
    for system in systems:
        table.add_row(
            system,
            *[
                f"{runs[e]['scores'][system][f'{m}@{k}']:.3f}"
                for e in names
                for k in KS
                for m in ("any", "all")
            ],
        )
    console.print(table)
    cats = Table(title="per category, @10 (any / all)")
    cats.add_column("system")
    cats.add_column("engine")
    for label in CATEGORIES.values():
        cats.add_column(label, justify="right")
    for system in systems:
        for e in names:
            rows = runs[e]["scores"][system]
            cats.add_row(
                system,
                e,
                *[
                    f"{rows.get(f'{c}:any@10', 0):.3f} / {rows.get(f'{c}:all@10', 0):.3f}"
                    for c in CATEGORIES.values()
                ],
            )
    console.print(cats)
    for e in names:
        goal = runs[e]["scores"]["mags"]
        console.print(
            f"{e}: goal R_any@10 >= 0.85: {goal['any@10']:.3f}   "
            f"R_all@10 >= 0.75: {goal['all@10']:.3f}   ({runs[e]['wall_s']:.0f} s)"
        )
    same = {}
    if len(names) == 2:
        same = agreement(runs[names[0]]["rankings"], runs[names[1]]["rankings"])
        agree = Table(title=f"questions ranked alike by {names[0]} and {names[1]} (of {n_qa})")
        agree.add_column("system")
        for k in KS:
            agree.add_column(f"same top {k}", justify="right")
            agree.add_column(f"same set {k}", justify="right")
        for system, row in same.items():
            agree.add_row(
                system, *[str(row[f"same_{w}@{k}"]) for k in KS for w in ("order", "set")]
            )
        console.print(agree)
    result = {
        "machine": machine(),
        "commit": git_commit(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "data": str(args.data),
        "questions": n_qa,
        "engines": {e: runs[e]["info"] for e in names},
        "wall_s": {e: runs[e]["wall_s"] for e in names},
        "scores": {e: runs[e]["scores"] for e in names},
        "agreement": same,
        "conversations": {e: runs[e]["conversations"] for e in names},
        "settings": {e: runs[e]["settings"] for e in names},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    console.print(f"wrote {args.out}")
    if args.rankings:
        ranked = {
            "questions": [
                {k: q[k] for k in ("question", "evidence", "category")} for q in first["qa"]
            ],
            "rankings": {e: runs[e]["rankings"] for e in names},
        }
        args.rankings.write_text(json.dumps(ranked))
        console.print(f"wrote {args.rankings}")


if __name__ == "__main__":
    main()
