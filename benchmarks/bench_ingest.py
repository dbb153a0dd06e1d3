"""bench_ingest: LoCoMo ingest against the embedder's own time on the same texts.

    python benchmarks/bench_ingest.py ../shared/data/locomo [--conversations conv-26 ...]
        [--engine arcadedb|neo4j|both] [--repeats 3]

Issue 19's ingest goal: 300 turns a second, or, where the embedder alone is slower than
that, within 10% of the embedder's own throughput on the same texts. Each conversation's
turns are ingested as bench_locomo stores them (``LiquidGraph.ingest``, batches of 50) into
a fresh namespace of one store per engine. Every call that reaches the model is recorded
(its texts, in order); then the model alone embeds the same calls again. The ratio of the
two times is the goal's measure. The two alternate in order from one repeat to the next
(ingest first, then the model first), as the machine's speed drifts from minute to minute;
the first conversation's first turns are ingested once before, untimed (the engine's JIT).
"Outside the model": the ingest's time not spent in the model, over the time in it, from the
same run (what the write path and the rest of the ingest add; the drift does not move it).

Prints one table (a row per conversation and engine, and the totals) and writes
benchmarks/results/bench_ingest.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import engines
import numpy as np
from bench_locomo import conversation_paths, episodes_of
from bench_store import git_commit, log_console, machine
from rich.table import Table

from finetune.data.locomo import load
from graph_db import GraphSettings, LiquidGraph
from graph_db.embeddings import CachedEmbedder, Embedder, make_embedder

ROOT = Path(__file__).resolve().parent
GOAL_TURNS_PER_S = 300.0
GOAL_RATIO = 1.10
BATCH = 50  # as bench_locomo ingests
WARM_UP = 150  # turns ingested first, untimed
#: the table's seconds: of one run (the totals: of one run of every conversation)
SECONDS = ("ingest_s", "model_alone_s", "model_within_ingest_s")


class Recorded:
    """The model, recording each call's texts (what the store asked it to embed)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.threads: int = getattr(inner, "threads", 0)
        self.calls: list[list[str]] = []
        self.seconds = 0.0  # in the model, since the calls were last cleared

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        t0 = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t0


def model_alone(model: Embedder, calls: list[list[str]]) -> float:
    """Seconds the model takes for ``calls`` by itself, call for call."""
    t0 = time.perf_counter()
    for texts in calls:
        model.embed(texts)
    return time.perf_counter() - t0


def ingest_timed(
    graph: LiquidGraph, recorded: Recorded, ns: str, episodes: list
) -> tuple[float, list[list[str]]]:
    """Ingest ``episodes`` into a fresh ``ns`` with an empty query cache (as a new process
    would): the seconds it took, and the model's calls meanwhile."""
    graph.forget_namespace(ns)
    recorded.calls, recorded.seconds = [], 0.0
    graph.embedder = CachedEmbedder(recorded, graph.settings.query_cache_size)
    t0 = time.perf_counter()
    graph.ingest(ns, episodes, batch_size=BATCH)
    return time.perf_counter() - t0, recorded.calls


def run_conversation(
    graph: LiquidGraph, recorded: Recorded, name: str, turns: list[dict], repeats: int
) -> dict[str, Any]:
    """Ingest one conversation ``repeats`` times, each beside the model alone on the texts
    it embedded (after it, then before the next); their times and ratio (``_rates``)."""
    episodes = episodes_of(turns, f"{name}:")
    ns = f"ingest-{name}"
    ingest_s: list[float] = []
    within_s: list[float] = []  # in the model during the ingest
    alone_s: list[float] = []
    texts: list[int] = []
    calls: list[list[str]] = []
    for r in range(repeats):
        model_first = r % 2 == 1  # on the texts the ingest before recorded (the same)
        if model_first:
            alone_s.append(model_alone(recorded.inner, calls))
        seconds, calls = ingest_timed(graph, recorded, ns, episodes)
        if not model_first:
            alone_s.append(model_alone(recorded.inner, calls))
        ingest_s.append(seconds)
        within_s.append(recorded.seconds)
        texts.append(sum(map(len, calls)))
    graph.forget_namespace(ns)
    return {"turns": len(turns), "texts_embedded": texts, "texts_per_turn": texts[-1] / len(turns),
            "ingest_s": ingest_s, "model_alone_s": alone_s, "model_within_ingest_s": within_s,
            **_rates(len(turns) * repeats, ingest_s, alone_s, within_s)}  # fmt: skip


def _rates(
    turns: int, ingest_s: list[float], alone_s: list[float], within_s: list[float]
) -> dict[str, float]:
    """Over every ingest and its model-alone twin (sums: each pair ran minutes apart at
    most, a median of either alone would pair runs far apart): the ratio to the goal, and
    the part of the ingest outside the model (the write path), measured in the same run."""
    ingest, alone, within = sum(ingest_s), sum(alone_s), sum(within_s)
    return {
        "ratio": ingest / alone,
        "outside_model": (ingest - within) / within,
        "turns_per_s": turns / ingest,
        "model_alone_turns_per_s": turns / alone,
    }


def run_engine(engine: engines.Engine, paths: list[Path], repeats: int) -> dict[str, Any]:
    settings: GraphSettings = engine.settings
    default = make_embedder(settings)  # the store's own, in its query cache
    recorded = Recorded(default.inner if isinstance(default, CachedEmbedder) else default)
    with LiquidGraph(settings, embedder=CachedEmbedder(recorded)) as graph:
        # a live store's engine has compiled its write path (JIT): the first ingest into a
        # fresh one wrote at half speed (LoCoMo conv-30: 1.65 s of writes, then 0.81-0.84)
        turns, _ = load(paths[0])
        ingest_timed(graph, recorded, "ingest-warm-up", episodes_of(turns[:WARM_UP], "warm:"))
        graph.forget_namespace("ingest-warm-up")
        return {p.stem: run_conversation(graph, recorded, p.stem, load(p)[0], repeats)
                for p in paths}  # fmt: skip


def totals(convs: dict[str, dict[str, Any]], repeats: int) -> dict[str, float]:
    """Every conversation's ingests and model-alone runs together (see ``_rates``)."""
    every = {key: [t for c in convs.values() for t in c[key]]
             for key in ("ingest_s", "model_alone_s", "model_within_ingest_s")}  # fmt: skip
    turns = sum(c["turns"] for c in convs.values())
    return {"turns": turns, **every, **_rates(turns * repeats, *every.values())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("data", type=Path, help="folder with LoCoMo conv-*.json files")
    ap.add_argument("--conversations", nargs="*", help="e.g. conv-26 (default: all)")
    ap.add_argument("--repeats", type=int, default=3, help="ingests of each conversation")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_ingest.json")
    engines.add_options(ap)
    args = ap.parse_args()
    paths = conversation_paths(args.data, args.conversations)
    console = log_console()
    runs: dict[str, dict[str, Any]] = {}
    info: dict[str, Any] = {}
    for name in engines.selected(args):
        with (
            tempfile.TemporaryDirectory(prefix=f"mags-ingest-{name}-") as home,
            engines.running(name, Path(home), args) as engine,
        ):
            runs[name] = run_engine(engine, paths, args.repeats)
            info[name] = engine.info
        console.log(f"{name}: done")
    table = Table(title=f"LoCoMo ingest against the model alone ({args.repeats} runs each)")
    for col in ("engine", "conversation", "turns", "texts a turn", "ingest s a run",
                "model alone s", "in the model s", "ratio", "outside the model", "turns/s",
                "model alone turns/s"):  # fmt: skip
        table.add_column(col, justify="left" if col in ("engine", "conversation") else "right")
    for name, convs in runs.items():
        for conv, c in [*convs.items(), ("all", totals(convs, args.repeats))]:
            table.add_row(
                name,
                conv,
                str(c["turns"]),
                f"{c['texts_per_turn']:.2f}" if "texts_per_turn" in c else "",
                *[f"{sum(c[key]) / args.repeats:.1f}" for key in SECONDS],
                f"{c['ratio']:.3f}",
                f"{c['outside_model']:.1%}",
                f"{c['turns_per_s']:.1f}",
                f"{c['model_alone_turns_per_s']:.1f}",
            )
    console.print(table)
    for name, convs in runs.items():
        every = totals(convs, args.repeats)
        goal = "turns/s" if every["model_alone_turns_per_s"] >= GOAL_TURNS_PER_S else "ratio"
        console.print(
            f"{name}: the model alone runs at {every['model_alone_turns_per_s']:.1f} turns/s, "
            f"so the goal is the {goal}: {every['ratio']:.3f} (goal <= {GOAL_RATIO})"
            if goal == "ratio"
            else f"{name}: {every['turns_per_s']:.1f} turns/s (goal >= {GOAL_TURNS_PER_S})"
        )
    result = {
        "machine": machine(),
        "commit": git_commit(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "data": str(args.data),
        "repeats": args.repeats,
        "batch": BATCH,
        "engines": info,
        "totals": {name: totals(convs, args.repeats) for name, convs in runs.items()},
        "conversations": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
