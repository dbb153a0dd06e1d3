"""bench_textworld: memory of a text adventure, MAGS recall against BM25 and dense.

    python benchmarks/bench_textworld.py [--levels easy medium hard hardest cooking]
        [--seeds 1] [--probe-every 10] [--maintain-every 20] [--capacity N]
        [--engine arcadedb|neo4j|both] [--ablations] [--misses PATH] [--games DIR]
    python benchmarks/bench_textworld.py --agent [--agent-steps 20] [--base-url URL
        --model NAME --api-key KEY]    # a model plays, with MAGS memory and without

Microsoft TextWorld generates each game offline for a named level and a seed (LEVELS in
finetune/data/textworld_world.py: easy 3 rooms / 5 objects / quest 2 ... hardest 20 rooms /
40 objects / quest 10, and the tw-cooking challenge); a seeded scripted explorer plays it
(every exit, containers opened, objects taken, put and dropped elsewhere, then the game's
walkthrough). Each command (speaker "player") and each answer of the game (speaker "game",
the text as printed, with the room in front as the status bar shows it) is stored as an
episode, in order, in a namespace per game. Every ``--probe-every`` steps, questions built
from the game's true state at that moment are asked (where is object X now, what is in
container Y / on supporter S, what lies east of room Z, which key opens door D, what the
recipe needs), phrased in several ways; a probe's evidence is the episodes that show the
current answer (see the module). Scores per level, per system:

  - evidence recall R_any@k / R_all@k (k = 1, 5, 10): one / every evidence episode in the
    top k of ``recall(ns, question, k=10, blocks="episodic", fire=False)``;
  - update fidelity: for "where" probes of an object that has moved, the best-ranked episode
    showing its current place ranks above every episode that showed an earlier place (one
    of the current ones must be in the top 10; earlier ones may be absent);
  - graph size (nodes, edges) at the end of each game, without maintenance and with
    ``maintain(ns, capacity=...)`` every ``--maintain-every`` steps (a second namespace fed
    the same turns; its recall is scored too, as "mags+maintain").

With ``--ablations``, to see where MAGS's ranking comes from: "mags-vector" (the
single-shot vector recall, ``mode="vector"``) and "mags without walk" (``walk_depth`` 0), on
the namespace without maintenance (~1 minute more per engine).

Baselines on the same turns at the same moments, as the same text ("speaker: text"): BM25
(bm25s, English stop words) and flat dense retrieval with the store's embedder. Each game is
played once; its events are replayed into each engine asked for (``--engine``, default
both, one after the other, each in a fresh store, see benchmarks/engines.py). Prints a table
per engine and writes benchmarks/results/bench_textworld.json (machine, commit, engines,
arguments, per level scores, sizes, timings; with ``--misses``, every probe MAGS missed at
10 with what it ranked first). Goals: R_any@10 >= 0.95 on easy, >= 0.85 on the hardest
level, fidelity 100%, MAGS ahead of BM25 and dense at every level (checked as "not behind":
at 1.000 nobody is ahead); missed goals are reported, the exit code stays 0.
Runtime at the defaults (5 games, ~630 turns, ~165 probes): about 11 minutes for both
engines on 2 cores shared with a training job (13 with ``--ablations``), most of it
embedding the turns; the games compile once per run (~1 minute; ``--games DIR`` keeps them).

``--agent``: a model behind an OpenAI-compatible endpoint (default: the local llama.cpp
server that mags_langgraph starts, i.e. the tiny fallback model on this machine) plays
``--agent-steps`` moves of each game twice, with MAGS memory (the top episodes for "what
do I know that helps now?" recalled before each move, each step stored after it) and
without (only the last observation); scored by the game (score / max score, moves). With a
tiny model the numbers are a smoke test, not a measurement.
"""

from __future__ import annotations

import argparse
import json
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
from rich.console import Console
from rich.table import Table

from finetune.data.textworld_world import LEVELS, Episode, Probe, TextWorldRun, play
from graph_db import GraphSettings, LiquidGraph

ROOT = Path(__file__).resolve().parent

KS = (1, 5, 10)
DEFAULT_LEVELS = ("easy", "medium", "hard", "hardest", "cooking")
KINDS = ("where", "contents", "exit", "key", "recipe")
Ranker = Callable[[str], list[str]]


def texts_of(episodes: list[Episode]) -> list[str]:
    return [f"{e.speaker}: {e.text}" for e in episodes]


def bm25_rank(episodes: list[Episode], questions: list[str]) -> list[list[str]]:
    """BM25 over the episodes stored so far (as bench_locomo.py: bm25s, English stop words)."""
    import bm25s

    index = bm25s.BM25()
    index.index(
        bm25s.tokenize(texts_of(episodes), stopwords="en", show_progress=False),
        show_progress=False,
    )
    k = min(max(KS), len(episodes))
    out = []
    for q in questions:
        tokens = bm25s.tokenize([q], stopwords="en", show_progress=False)
        if not tokens.vocab:  # nothing of the question is in the vocabulary
            out.append([])
            continue
        docs, _ = index.retrieve(tokens, k=k, show_progress=False)
        out.append([episodes[int(i)].id for i in docs[0]])
    return out


def dense_rank(episodes: list[Episode], emb: np.ndarray, qemb: np.ndarray) -> list[list[str]]:
    """Flat dense retrieval (the store's embedder) over the episodes stored so far."""
    out = []
    for q in qemb:
        sims = emb[: len(episodes)] @ q
        out.append([episodes[int(i)].id for i in np.argsort(-sims)[: max(KS)]])
    return out


def baselines(run: TextWorldRun, graph: LiquidGraph) -> dict[str, list[list[str]]]:
    """BM25 and dense rankings of every probe of ``run``, each over the turns before it."""
    episodes = run.episodes
    emb = graph.embedder.embed(texts_of(episodes))
    probes = run.probes
    qemb = graph.embedder.embed([p.question for p in probes]) if probes else np.zeros((0, 1))
    out: dict[str, list[list[str]]] = {"bm25": [], "dense": []}
    seen: list[Episode] = []
    i = 0
    for eps, ps in run.segments():
        seen += eps
        if ps:
            out["bm25"] += bm25_rank(seen, [p.question for p in ps])
            out["dense"] += dense_rank(seen, emb, qemb[i : i + len(ps)])
            i += len(ps)
    return out


def _size(graph: LiquidGraph, ns: str) -> dict:
    st = graph.stats(ns)
    edges = st["edges"]
    return {
        "nodes": sum(st["nodes"].values()),
        "episodes": st["nodes"].get("Episode", 0),
        "edges": sum(e["count"] for e in edges.values()),
    }


def replay(
    graph: LiquidGraph,
    run: TextWorldRun,
    ns: str,
    maintain_every: int = 0,
    capacity: int | None = None,
    ablations: dict[str, list[list[str]]] | None = None,
) -> tuple[list[list[str]], dict]:
    """Store ``run``'s episodes in ``ns`` in order and ask each probe when it comes; with
    ``maintain_every``, ``maintain(ns, capacity=...)`` every that many steps. Returns the
    rankings (the run's episode ids) and sizes, timings, maintenance reports. Given
    ``ablations``, also the single-shot vector recall and the recall without the walk
    (``walk_depth`` 0) of each probe, by name, there (not timed)."""
    prefix = f"{ns}:"
    graph.forget_namespace(ns)
    rankings: list[list[str]] = []
    ingest_s = recall_s = maintain_s = 0.0
    reports = []
    last_maintain = 0
    for eps, probes in run.segments():
        if eps:
            t0 = time.perf_counter()
            graph.ingest(
                ns,
                [
                    {
                        "id": prefix + e.id,
                        "text": e.text,
                        "speaker": e.speaker,
                        "session_id": e.session_id,
                        "ts": e.ts,
                    }
                    for e in eps
                ],
                batch_size=50,
            )
            ingest_s += time.perf_counter() - t0
            step = eps[-1].step
            if maintain_every and step - last_maintain >= maintain_every:
                t0 = time.perf_counter()
                reports.append(graph.maintain(ns, capacity=capacity).model_dump(mode="json"))
                maintain_s += time.perf_counter() - t0
                last_maintain = step
        for p in probes:
            t0 = time.perf_counter()
            hits = graph.recall(ns, p.question, k=max(KS), blocks="episodic", fire=False)
            recall_s += time.perf_counter() - t0
            rankings.append([h.id.removeprefix(prefix) for h in hits])
            if ablations is not None:  # the same recall single-shot, and without the walk
                hits = graph.recall(ns, p.question, k=max(KS), blocks="episodic", fire=False,
                                    mode="vector")  # fmt: skip
                ablations.setdefault("mags-vector", []).append(
                    [h.id.removeprefix(prefix) for h in hits]
                )
                depth = graph.settings.walk_depth
                graph.settings.walk_depth = 0
                try:
                    hits = graph.recall(ns, p.question, k=max(KS), blocks="episodic", fire=False)
                finally:
                    graph.settings.walk_depth = depth
                ablations.setdefault("mags without walk", []).append(
                    [h.id.removeprefix(prefix) for h in hits]
                )
    n = max(1, len(run.probes))
    meta = {
        "size": _size(graph, ns),
        "ingest_s": ingest_s,
        "ms_per_recall": recall_s * 1000 / n,
        "maintain_s": maintain_s,
        "maintain_passes": len(reports),
        "dropped": sum(r.get("capacity_dropped", 0) or 0 for r in reports),
        "forgotten": sum(r.get("forgotten", 0) or 0 for r in reports),
    }
    return rankings, meta


def _json_rank(x: float) -> int | None:
    return None if x == float("inf") else int(x)


def _rank(ranked: list[str], ids: tuple[str, ...]) -> float:
    pos = [ranked.index(i) for i in ids if i in ranked]
    return min(pos) if pos else float("inf")


def fidelity_ok(p: Probe, ranked: list[str]) -> bool:
    """The current place's best episode is in the ranking and above every earlier one."""
    best = _rank(ranked, p.evidence)
    return best != float("inf") and best < _rank(ranked, p.stale)


def score(probes: list[Probe], rankings: dict[str, list[list[str]]]) -> dict:
    """R_any@k, R_all@k, per kind R_any@10 and update fidelity, per system."""
    out: dict = {}
    moved = [i for i, p in enumerate(probes) if p.kind == "where" and p.stale]
    for name, ranked in rankings.items():
        rows: dict[str, Any] = {"probes": len(probes)}
        for k in KS:
            hit_any = [
                bool(set(p.evidence) & set(r[:k])) for p, r in zip(probes, ranked, strict=True)
            ]
            hit_all = [set(p.evidence) <= set(r[:k]) for p, r in zip(probes, ranked, strict=True)]
            rows[f"any@{k}"] = float(np.mean(hit_any)) if probes else float("nan")
            rows[f"all@{k}"] = float(np.mean(hit_all)) if probes else float("nan")
            if k == max(KS):
                for kind in KINDS:
                    idx = [i for i, p in enumerate(probes) if p.kind == kind]
                    if idx:
                        rows[f"{kind}:any@{k}"] = float(np.mean([hit_any[i] for i in idx]))
                        rows[f"{kind}:n"] = len(idx)
        rows["moved"] = len(moved)
        ok = [fidelity_ok(probes[i], ranked[i]) for i in moved]
        rows["fidelity"] = float(np.mean(ok)) if ok else float("nan")
        out[name] = rows
    return out


def misses(run: TextWorldRun, ranked: list[list[str]], engine: str) -> list[dict]:
    """The probes MAGS missed at 10 (or ranked an earlier place first), with what it ranked
    first and where the evidence was."""
    text = {e.id: e.text for e in run.episodes}
    out = []
    for p, r in zip(run.probes, ranked, strict=True):
        miss = not set(p.evidence) & set(r)
        unfaithful = p.kind == "where" and p.stale and not fidelity_ok(p, r)
        if miss or unfaithful:
            out.append({
                "engine": engine, "level": run.level, "seed": run.seed, "step": p.step,
                "kind": p.kind, "question": p.question, "answer": p.answer,
                "evidence": list(p.evidence), "stale": list(p.stale),
                "best_evidence_rank": _json_rank(_rank(r, p.evidence)),
                "best_stale_rank": _json_rank(_rank(r, p.stale)),
                "top3": [f"{i}: {text.get(i, '?')[:160]}" for i in r[:3]],
                "why": "missed" if miss else "earlier place ranked above",
            })  # fmt: skip
    return out


def run_engine(engine: Engine, runs: list[TextWorldRun], args: argparse.Namespace,
               base: dict[tuple[str, int], dict]) -> dict:  # fmt: skip
    """Every game on one engine, in one store: rankings, sizes, timings per game."""
    per_game: dict[str, dict] = {}
    missed: list[dict] = []
    with LiquidGraph(engine.settings) as graph:
        for run in runs:
            key = (run.level, run.seed)
            if key not in base:
                base[key] = baselines(run, graph)
            ns = f"tw-{run.level}-{run.seed}"
            ablations: dict[str, list[list[str]]] | None = {} if args.ablations else None
            off, meta_off = replay(graph, run, ns, ablations=ablations)
            on, meta_on = replay(graph, run, f"{ns}-maint", args.maintain_every, args.capacity)
            rankings = {"mags": off, "mags+maintain": on, **base[key], **(ablations or {})}
            missed += misses(run, off, engine.name)
            per_game[f"{run.level}/{run.seed}"] = {
                "rankings": rankings,
                "maintenance_off": meta_off,
                "maintenance_on": meta_on,
            }
            if engine.external:  # a server of others: leave nothing behind
                graph.forget_namespace(ns)
                graph.forget_namespace(f"{ns}-maint")
        settings = graph.settings.model_dump(mode="json", exclude={"home", "neo4j_password"})
    return {"games": per_game, "settings": settings, "misses": missed}


def level_scores(runs: list[TextWorldRun], games: dict[str, dict]) -> dict[str, dict]:
    """Scores per level over its seeds, with the sizes summed over them."""
    out = {}
    systems = list(next(iter(games.values()))["rankings"]) if games else []
    for level in dict.fromkeys(r.level for r in runs):
        mine = [r for r in runs if r.level == level]
        probes = [p for r in mine for p in r.probes]
        rankings: dict[str, list[list[str]]] = {s: [] for s in systems}
        size = {"off": {"nodes": 0, "edges": 0, "episodes": 0},
                "on": {"nodes": 0, "edges": 0, "episodes": 0}}  # fmt: skip
        for r in mine:
            g = games[f"{r.level}/{r.seed}"]
            for s in systems:
                rankings[s] += g["rankings"][s]
            for side, key in (("off", "maintenance_off"), ("on", "maintenance_on")):
                for m in size[side]:
                    size[side][m] += g[key]["size"][m]
        out[level] = {"scores": score(probes, rankings), "size": size,
                      "episodes": sum(len(r.episodes) for r in mine),
                      "steps": sum(r.info["steps"] for r in mine)}  # fmt: skip
    return out


def goals(levels: dict[str, dict], order: list[str]) -> dict[str, Any]:
    """The issue's goals on these levels: easy, the hardest one run (by world size), all."""
    plain = [lv for lv in order if not LEVELS[lv].cooking] or order
    hardest = max(plain, key=lambda lv: (LEVELS[lv].rooms, LEVELS[lv].objects))
    out: dict[str, Any] = {}
    if "easy" in levels:
        out["easy any@10 >= 0.95"] = levels["easy"]["scores"]["mags"]["any@10"]
    out[f"{hardest} any@10 >= 0.85"] = levels[hardest]["scores"]["mags"]["any@10"]
    fid = [levels[lv]["scores"]["mags"]["fidelity"] for lv in order]
    out["fidelity 100%"] = min((f for f in fid if f == f), default=float("nan"))
    out["not behind bm25 and dense at any level (any@10, a tie counts)"] = all(
        levels[lv]["scores"]["mags"]["any@10"]
        >= max(levels[lv]["scores"][b]["any@10"] for b in ("bm25", "dense"))
        for lv in order
    )
    out["levels where mags is behind (any@10)"] = [
        lv
        for lv in order
        if levels[lv]["scores"]["mags"]["any@10"]
        < max(levels[lv]["scores"][b]["any@10"] for b in ("bm25", "dense"))
    ]
    return out


def _f(x: float) -> str:
    return "-" if x != x else f"{x:.3f}"


def print_tables(console: Console, name: str, levels: dict[str, dict], wall_s: float) -> None:
    t = Table(title=f"TextWorld evidence recall, {name} ({wall_s:.0f} s)")
    for col in ("level", "probes", "system", *[f"{m}@{k}" for k in KS for m in ("any", "all")],
                "fidelity (moved)", "nodes / edges"):  # fmt: skip
        t.add_column(col, justify="left" if col in ("level", "system") else "right")
    for level, row in levels.items():
        for s in row["scores"]:
            sc = row["scores"][s]
            size = ""
            if s == "mags":
                size = f"{row['size']['off']['nodes']} / {row['size']['off']['edges']}"
            elif s == "mags+maintain":
                size = f"{row['size']['on']['nodes']} / {row['size']['on']['edges']}"
            t.add_row(
                level if s == "mags" else "",
                str(sc["probes"]) if s == "mags" else "",
                s,
                *[_f(sc[f"{m}@{k}"]) for k in KS for m in ("any", "all")],
                f"{_f(sc['fidelity'])} ({sc['moved']})",
                size,
            )
        t.add_section()
    console.print(t)
    k = Table(title=f"per probe kind, any@10 (n), {name}")
    k.add_column("level")
    k.add_column("system")
    for kind in KINDS:
        k.add_column(kind, justify="right")
    for level, row in levels.items():
        for s in row["scores"]:
            sc = row["scores"][s]
            k.add_row(level if s == "mags" else "", s, *[
                f"{_f(sc[f'{kind}:any@10'])} ({sc[f'{kind}:n']})" if f"{kind}:n" in sc else "-"
                for kind in KINDS
            ])  # fmt: skip
        k.add_section()
    console.print(k)


# -- --agent: a model plays --------------------------------------------------------------------
AGENT_PROMPT = (
    "You are playing a text adventure. Reply with exactly one command the game understands "
    "(for example: go north, open box, take key from table, unlock door with key), nothing "
    "else."
)


def agent_play(run_level: str, seed: int, steps: int, llms: Any, graph: LiquidGraph | None,
               ns: str, workdir: Path) -> dict:  # fmt: skip
    """One game, ``steps`` moves by the model, with MAGS memory (``graph``) or without."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from finetune.data.textworld_world import (
        DT,
        T0,
        build_game,
        env_infos,
        observation_text,
        require_textworld,
    )

    tw = require_textworld()
    path = build_game(run_level, seed, workdir)
    env = tw.start(str(path), request_infos=env_infos())
    state = env.reset()
    obs = observation_text(state.feedback, None)
    if graph is not None:
        graph.forget_namespace(ns)
        graph.add_episodes(ns, [{"text": obs, "speaker": "game", "ts": T0}])
    score, moves, done, failed = 0, 0, False, 0
    try:
        for step in range(1, steps + 1):
            memory = ""
            if graph is not None:
                hits = graph.recall(ns, f"What do I know that helps now? {obs[:300]}", k=5,
                                    blocks="episodic")  # fmt: skip
                memory = "\n".join(f"- {h.memory.text[:300]}" for h in hits)
            prompt = (f"Objective: {state.get('objective') or ''}\n"
                      + (f"What you remember:\n{memory}\n" if memory else "")
                      + f"Now:\n{obs[:1500]}\nYour command:")  # fmt: skip
            try:
                reply = llms.complete("respond", [SystemMessage(AGENT_PROMPT),
                                                  HumanMessage(prompt)])  # fmt: skip
            except Exception:  # an endpoint that fails: the move is "look"
                reply, failed = "look", failed + 1
            command = (reply.strip().splitlines() or ["look"])[0].strip(" .>\"'`").lower()[:80]
            state, score, done = env.step(command or "look")
            moves = step
            obs = observation_text(state.feedback, None)
            if graph is not None:
                ts = T0 + step * DT
                graph.add_episodes(ns, [
                    {"text": command or "look", "speaker": "player", "ts": ts},
                    {"text": obs, "speaker": "game", "ts": ts + 1},
                ])  # fmt: skip
            if done:
                break
    finally:
        env.close()
    return {"score": score, "max_score": state.get("max_score"), "moves": moves,
            "won": bool(state.get("won")), "failed_calls": failed}  # fmt: skip


def run_agent(args: argparse.Namespace, console: Console) -> dict:
    from mags_langgraph.llm import LLMs
    from mags_langgraph.settings import AgentSettings

    kw: dict[str, Any] = {"llm_base_url": args.base_url, "llm_api_key": args.api_key}
    if args.model:
        kw["llm_model"] = args.model
    llms = LLMs(AgentSettings(**kw), notice=lambda t: console.print(t, style="yellow"))
    out: dict[str, Any] = {"endpoint": args.base_url or "local llama.cpp (mags_langgraph)",
                           "model": args.model, "steps": args.agent_steps, "games": {}}  # fmt: skip
    with (
        tempfile.TemporaryDirectory(prefix="mags-tw-agent-") as home,
        LiquidGraph(GraphSettings(home=Path(home), neo4j_uri=None)) as graph,
    ):
        for level in args.levels:
            for seed in args.seeds:
                key = f"{level}/{seed}"
                t0 = time.perf_counter()
                with_mem = agent_play(level, seed, args.agent_steps, llms, graph,
                                      f"tw-agent-{level}-{seed}", Path(home))  # fmt: skip
                without = agent_play(level, seed, args.agent_steps, llms, None, "", Path(home))
                out["games"][key] = {"with_mags": with_mem, "without": without,
                                     "wall_s": time.perf_counter() - t0}  # fmt: skip
                console.log(f"agent {key}: with MAGS {with_mem}, without {without}")
    if llms.local is not None:
        out["model"] = llms.local.gguf.name
        out["fallback_model"] = llms.local.fallback
    out["note"] = (
        "a smoke run of the agent mode: with a tiny local model the scores say nothing about "
        "MAGS; run it against a capable model (--base-url, --model, --api-key) to measure"
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--levels", nargs="+", default=list(DEFAULT_LEVELS), choices=list(LEVELS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[1])
    ap.add_argument("--probe-every", type=int, default=10, help="steps between probe points")
    ap.add_argument("--maintain-every", type=int, default=20, help="steps between maintain()")
    ap.add_argument("--capacity", type=int, default=None, help="maintain(capacity=...)")
    ap.add_argument("--games", type=Path, help="keep the compiled games here (default: a temp dir)")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_textworld.json")
    ap.add_argument("--misses", type=Path, help="write MAGS's misses at 10 here (JSON)")
    ap.add_argument(
        "--ablations",
        action="store_true",
        help="also rank each probe single-shot (mode=vector) and without the walk",
    )
    ap.add_argument("--agent", action="store_true", help="a model plays, with MAGS and without")
    ap.add_argument("--agent-steps", type=int, default=20)
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint (default: local llama.cpp)")
    ap.add_argument("--model", help="the endpoint's model name")
    ap.add_argument("--api-key", help="the endpoint's key")
    engines.add_options(ap)
    args = ap.parse_args()
    console = log_console(width=180)
    result: dict[str, Any] = {
        "machine": machine(),
        "commit": git_commit(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "args": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in vars(args).items()
            if k != "api_key"
        },
    }
    if args.agent:
        result["agent"] = run_agent(args, console)
        out = args.out.with_name(args.out.stem + "_agent.json") if args.out.name == (
            "bench_textworld.json") else args.out  # fmt: skip
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1))
        console.print(f"wrote {out} (a smoke run: with a tiny model the scores mean nothing)")
        return
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mags-tw-games-") as tmp:
        games_dir = args.games or Path(tmp)
        runs = []
        for level in args.levels:
            for seed in args.seeds:
                t1 = time.perf_counter()
                runs.append(play(level, seed, args.probe_every, workdir=games_dir))
                runs[-1].info["play_s"] = time.perf_counter() - t1
    play_s = time.perf_counter() - t0
    console.log(f"played {len(runs)} games in {play_s:.0f} s: "
                + ", ".join(f"{r.level}/{r.seed} {len(r.episodes)} turns {len(r.probes)} probes"
                            for r in runs))  # fmt: skip
    base: dict[tuple[str, int], dict] = {}
    per_engine: dict[str, dict] = {}
    for name in engines.selected(args):
        t0 = time.perf_counter()
        with (
            tempfile.TemporaryDirectory(prefix=f"mags-tw-{name}-") as home,
            engines.running(name, Path(home), args) as engine,
        ):
            res = run_engine(engine, runs, args, base)
            res["info"] = engine.info
        res["wall_s"] = time.perf_counter() - t0
        res["levels"] = level_scores(runs, res["games"])
        res["goals"] = goals(res["levels"], list(args.levels))
        per_engine[name] = res
        print_tables(console, name, res["levels"], res["wall_s"])
        for goal, value in res["goals"].items():
            shown = _f(value) if isinstance(value, float) else value
            console.print(f"{name}: goal {goal}: {shown}")
    result |= {
        "play_s": play_s,
        "games": {
            f"{r.level}/{r.seed}": {**r.info, "episodes": len(r.episodes), "probes": len(r.probes)}
            for r in runs
        },
        "engines": {e: r["info"] for e, r in per_engine.items()},
        "wall_s": {e: r["wall_s"] for e, r in per_engine.items()},
        "levels": {e: r["levels"] for e, r in per_engine.items()},
        "goals": {e: r["goals"] for e, r in per_engine.items()},
        "timings": {
            e: {
                g: {
                    side: {k: v for k, v in m[side].items() if k != "size"}
                    for side in ("maintenance_off", "maintenance_on")
                }
                for g, m in r["games"].items()
            }
            for e, r in per_engine.items()
        },
        "misses_at_10": {e: len(r["misses"]) for e, r in per_engine.items()},
        "settings": {e: r["settings"] for e, r in per_engine.items()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    console.print(f"wrote {args.out}")
    if args.misses:
        args.misses.write_text(json.dumps({e: r["misses"] for e, r in per_engine.items()},
                                          indent=1))  # fmt: skip
        console.print(f"wrote {args.misses}")


if __name__ == "__main__":
    main()
