"""bench_game: the evolving-rules game (Paradox Dice Arena), a world whose rules change.

    python benchmarks/bench_game.py [--turns 2000] [--seed 7] [--maintain-every 50]
                                    [--capacity N] [--k 5] [--engram {gold,rules,llm}]
                                    [--adapters DIR] [--out PATH]

A seeded generator (finetune/data/worlds.py, shared with the fine-tuning data) builds a
world of dice, creatures, arenas and players (made-up names, some of them near-twins:
"Vexil die" / "Vexel die") with functional attributes (has_sides, lives_in, has_color, costs,
has_rule ...). Over the turns it announces values, changes them
("Rule change! From now on, the Vexil die has 8 sides"), changes them back (A -> B -> A),
restates them, and mixes in distractors: non-functional facts ("Zorax cheered for ..."),
chit-chat with colours and numbers, similar attributes (has_power / has_score, costs on dice
and on arenas). Each statement is an episode (the announcement) and a fact (subject,
predicate, object, valid_from = turn time, source = the episode). Probes with ground truth
are interleaved, and every key is probed once more at the end.

Per probe, ``LiquidGraph.recall(ns, question, k)`` with blocks="semantic" and blocks="both":
  - recall accuracy: the current fact (subject, predicate, current value, not superseded)
    is the top hit (acc@1) / in the top k (acc@k);
  - update fidelity: no returned fact is superseded (valid_to set, history=False), and no
    superseded value of the key is ranked above (or returned without) the current one.
At the end: ``history(ns, subject, predicate)`` gives the values in the order they were
set (history accuracy), and ``recall(..., as_of=t)`` finds the value valid at t.

The same stream runs twice in two namespaces, without maintenance and with
``maintain(ns, capacity=...)`` every M turns (capacity counts memories: episodes and
facts); node and edge counts are recorded at checkpoints. The second stream writes the same
texts, so it is faster where the embedder's cache answers: compare sizes, not seconds.
Prints a table and writes JSON (machine, commit, arguments, metrics, size series) to
benchmarks/results/bench_game.json. Goals: update fidelity 100%, acc@k >= 95%,
graph size bounded with maintenance. The exit code is 0 when goals are missed (they are
reported), nonzero on a crash.

Where the facts come from (``--engram``): ``gold`` (default) writes each statement's fact
as generated, so no model is involved. ``rules`` and ``llm`` measure extraction end to end:
every turn's text (announcements, mentions and chit-chat alike) goes through the agent's
engram (``MemoryLoop.extract(speaker, text)``: the first-person patterns, or the engram role
on the local llama.cpp server, with the GGUF LoRA ``--adapters DIR/engram.gguf`` switched on
when given), and what it returns is written with the episode as source, valid from the
turn's time, conflicts decided by the graph's rule as in the gold mode. Each distinct text is
read once: both streams write the same facts. The announcer speaks ("Speaker: Announcer"),
but the fact is about the thing the text names: "the Vexil die has 8 sides" ->
(Vexil die, has_sides, 8), as the fine-tuning data teaches (finetune/data/engram_gen.py),
so the gold subject is what the role should produce. An extracted fact matches a gold fact
of its turn when subject and object are equal under ``entity_key`` (case-folded, spaces
collapsed, edge punctuation stripped) and the predicates under ``predicate_key`` (snake
case): the store keys facts and the probes judge them by these forms, so a matched fact is
one a probe finds; "the Vexil die", "sides" or "8 sides" do not match. Precision = matched
extracted facts / all extracted facts (chit-chat has no gold fact: whatever it yields counts
against it); recall = gold facts matched / gold facts (one per statement: an announcement or
a mention, the turns with a gold fact). Both are also given ignoring the subject (predicate
and object only). A restatement's fact counts: the agent passes no current facts, so it is
news to the role. Model calls, answers that parsed and model seconds are the engram role's,
from ``LLMs.usage``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from bench_agent import valid_share
from bench_store import git_commit, machine
from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from finetune.data.worlds import DT, KINDS, T0, Probe, Turn, generate_world
from graph_db import GraphSettings, LiquidGraph
from graph_db.text import entity_key, predicate_key
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import Extraction, MemoryLoop
from mags_langgraph.settings import AgentSettings

ROOT = Path(__file__).resolve().parent
GOAL_FIDELITY = 1.0
GOAL_ACC = 0.95
GOAL_GROWTH = 0.10  # "bounded": nodes grow by at most 10% over the second half

# --- judging ---------------------------------------------------------------------------


def _same_key(props: dict[str, Any], subject: str, predicate: str) -> bool:
    return (
        entity_key(str(props.get("subject", ""))) == entity_key(subject)
        and predicate_key(str(props.get("predicate", ""))) == predicate
    )


def judge(hits: list[Any], probe: Probe, k: int) -> dict[str, Any]:
    """Accuracy and update fidelity of one ranked recall (``Recalled`` or ``Hit`` list)."""
    hits = hits[:k]
    truth, stale = entity_key(probe.truth), {entity_key(v) for v in probe.superseded}
    current_at, stale_at, shown = None, [], []
    for rank, h in enumerate(hits):
        m = h.memory
        if m.block != "semantic":
            continue
        props = m.properties
        superseded = props.get("valid_to") is not None
        if superseded:
            shown.append(m.text)
        if not _same_key(props, probe.subject, probe.predicate):
            continue
        obj = entity_key(str(props.get("object", "")))
        if obj == truth and not superseded and current_at is None:
            current_at = rank
        elif obj in stale:
            stale_at.append(rank)
    if current_at is None:
        fidelity = not shown and not stale_at
    else:
        fidelity = not shown and all(r > current_at for r in stale_at)
    return {
        "hit1": current_at == 0,
        "hitk": current_at is not None,
        "rank": current_at,
        "fidelity": fidelity,
        "stale_returned": bool(stale_at),
        "superseded_shown": bool(shown),
    }


def _fact_key(fact: dict[str, Any]) -> tuple[str, str, str]:
    """(subject, predicate, object) in the store's normal forms."""
    return (
        entity_key(str(fact["subject"])),
        predicate_key(str(fact["predicate"])),
        entity_key(str(fact["object"])),
    )


def judge_extraction(read: list[tuple[Turn, Extraction]]) -> dict[str, Any]:
    """Precision and recall of the engram's facts against each turn's gold facts (see the
    module docstring for the match), facts per statement, failed readings, a few misses."""
    n: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    for turn, ex in read:
        gold = {_fact_key(f) for f in turn.facts}
        got = [_fact_key(f.model_dump()) for f in ex.facts]
        n["statements"] += bool(gold)
        n["facts"] += len(got)
        n["gold"] += len(gold)
        n["chatter_facts" if not gold else "statement_facts"] += len(got)
        n["failed"] += ex.failed
        for suffix, cut in (("", 0), ("_any_subject", 1)):  # cut 1: without the subject
            want = {k[cut:] for k in gold}
            n[f"matched{suffix}"] += sum(k[cut:] in want for k in got)
            n[f"found{suffix}"] += len(want & {k[cut:] for k in got})
        if gold and not gold & set(got) and len(misses) < 8:
            misses.append({"text": turn.episode["text"], "gold": sorted(gold), "got": got})
    out: dict[str, Any] = {
        "turns_read": len(read),
        "statements": n["statements"],
        "facts": n["facts"],
        "facts_per_statement": n["statement_facts"] / n["statements"] if n["statements"] else None,
        "chatter_facts": n["chatter_facts"],
        "failed": n["failed"],
    }
    for suffix in ("", "_any_subject"):
        out[f"precision{suffix}"] = n[f"matched{suffix}"] / n["facts"] if n["facts"] else None
        out[f"recall{suffix}"] = n[f"found{suffix}"] / n["gold"] if n["gold"] else None
    out["misses"] = misses
    return out


def _pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q)) if xs else float("nan")


def _rate(xs: list[bool]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _size(g: LiquidGraph, ns: str, turn: int) -> dict[str, int]:
    g.flush()  # recall's plasticity writes run in the background
    st = g.stats(ns)
    nodes = dict(st["nodes"])
    edges = sum(e["count"] for e in st["edges"].values())
    memories = nodes.get("Episode", 0) + nodes.get("Fact", 0)  # what capacity counts
    return {
        "turn": turn,
        "nodes": sum(nodes.values()),
        "memories": memories,
        "edges": edges,
        **nodes,
    }


# --- the game ---------------------------------------------------------------------------


def run_game(
    g: LiquidGraph,
    ns: str,
    turns: int,
    seed: int,
    maintain_every: int,
    *,
    capacity: int | None = None,
    k: int = 5,
    checkpoint_every: int | None = None,
    as_of_probes: int = 20,
    declare: bool = True,
    progress: bool = False,
    extract: Callable[[str, str], Extraction] | None = None,
) -> dict[str, Any]:
    """Play a seeded world of ``turns`` turns into ``ns`` and measure recall, update
    fidelity, history and graph size; ``maintain_every`` = 0 runs no maintenance.
    ``extract`` (speaker, text) -> the facts to write, judged against the gold ones
    (``MemoryLoop.extract``); None writes the gold facts.

    With ``declare``, the game's attributes are declared single-valued first
    (``set_cardinality``), as the game's designer would; without it the store's built-in
    predicate lists decide (has_power, has_rank ... are then multi-valued).
    """
    world = generate_world(turns, seed)
    if declare:
        for pred in sorted({a.predicate for kind in KINDS for a in kind.attrs}):
            g.set_cardinality(ns, pred, True)
    every = checkpoint_every or max(10, turns // 20)
    modes = ("semantic", "both")
    judged: dict[str, list[tuple[Probe, dict[str, Any]]]] = {m: [] for m in modes}
    latency: list[float] = []
    write_s = 0.0
    actions: Counter[str] = Counter()
    series: list[dict[str, int]] = []
    maint: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    read: list[tuple[Turn, Extraction]] = []
    started = time.perf_counter()
    for turn in tqdm(world.turns, desc=ns, unit="turn", disable=not progress, leave=False):
        facts = turn.facts
        if extract is not None:  # the engram reads the turn (before the timed writes)
            facts = []
            if turn.episode:
                ex = extract(turn.episode["speaker"], turn.episode["text"])
                read.append((turn, ex))
                facts = [{**f.model_dump(), "valid_from": turn.ts} for f in ex.facts]
        t0 = time.perf_counter()
        ep_id = g.add_episodes(ns, [turn.episode])[0] if turn.episode else None
        if facts:
            facts = [{**f, "source_episode_id": ep_id} for f in facts]
            for w in g.add_facts(ns, facts):
                what = "created+supersedes" if getattr(w, "supersedes", None) else w.action
                actions[f"{turn.action}->{what}"] += 1
        write_s += time.perf_counter() - t0
        if turn.probe:
            p = turn.probe
            for mode in modes:
                t0 = time.perf_counter()
                hits = g.recall(ns, p.question, k=k, blocks=mode, fire=mode == "semantic")
                latency.append((time.perf_counter() - t0) * 1000)
                verdict = judge(hits, p, k)
                judged[mode].append((p, verdict))
                if not (verdict["hitk"] and verdict["fidelity"]) and len(failures) < 12:
                    failures.append(
                        {
                            "turn": turn.t,
                            "blocks": mode,
                            "question": p.question,
                            "truth": p.truth,
                            "superseded": list(p.superseded),
                            "got": [
                                {
                                    "text": h.memory.text,
                                    "valid_to": h.memory.properties.get("valid_to"),
                                    "score": round(h.score, 4),
                                }
                                for h in hits[:k]
                            ],
                        }
                    )
        if turn.t < turns and maintain_every and (turn.t + 1) % maintain_every == 0:
            rep = g.maintain(ns, capacity=capacity).model_dump()
            maint.append({"turn": turn.t, **rep})
        if turn.t < turns and ((turn.t + 1) % every == 0 or turn.t + 1 == turns):
            series.append(_size(g, ns, turn.t + 1))

    # history: the values of every key in the order they were set
    hist_ok, hist_fail = [], []
    for key in sorted(world.timeline):
        expected = world.expected_history(key)
        got = g.history(ns, *key)
        objs = [str(m.properties.get("object", "")) for m in got]
        closed = [m.properties.get("valid_to") is not None for m in got]
        in_order = [entity_key(o) for o in objs] == [entity_key(v) for v in expected]
        ok = in_order and closed == [True] * (len(got) - 1) + [False]  # only the last is open
        hist_ok.append(ok)
        if not ok and len(hist_fail) < 8:
            hist_fail.append({"key": list(key), "expected": expected, "got": objs})

    # time travel: the value valid at a past moment of a key that changed since
    rng = random.Random(seed + 1)
    changed = [key for key, tl in world.timeline.items() if len(tl) > 1]
    as_of_ok = []
    for key in rng.sample(changed, min(as_of_probes, len(changed))):
        tl = world.timeline[key]
        i = rng.randrange(len(tl) - 1)
        when = T0 + (tl[i][0] + 0.5) * DT
        hits = g.recall(ns, world.asks[key], k=k, blocks="semantic", as_of=when, fire=False)
        hit = any(
            h.memory.block == "semantic"
            and _same_key(h.memory.properties, *key)
            and entity_key(str(h.memory.properties.get("object", ""))) == entity_key(tl[i][1])
            for h in hits[:k]
        )
        as_of_ok.append(hit)

    def summary(rows: list[tuple[Probe, dict[str, Any]]]) -> dict[str, Any]:
        return {
            "probes": len(rows),
            "acc@1": _rate([v["hit1"] for _, v in rows]),
            f"acc@{k}": _rate([v["hitk"] for _, v in rows]),
            "fidelity": _rate([v["fidelity"] for _, v in rows]),
            "stale_returned": sum(v["stale_returned"] for _, v in rows),
            "superseded_shown": sum(v["superseded_shown"] for _, v in rows),
        }

    recall: dict[str, Any] = {}
    for mode in modes:
        rows = judged[mode]
        recall[mode] = summary(rows)
        recall[mode]["changed_keys"] = summary([r for r in rows if r[0].changed])
        recall[mode]["final_sweep"] = summary([r for r in rows if r[0].final])
    per_pred: dict[str, list[tuple[Probe, dict[str, Any]]]] = defaultdict(list)
    for p, v in judged["semantic"]:
        per_pred[p.predicate].append((p, v))
    nodes = [s["nodes"] for s in series]
    half = series[len(series) // 2 - 1]["nodes"] if len(series) >= 2 else nodes[0]
    kinds = Counter(turn.action for turn in world.turns)
    return {
        "ns": ns,
        "turns": turns,
        "seed": seed,
        "maintain_every": maintain_every,
        "capacity": capacity,
        "k": k,
        "declared_functional": declare,
        "world": {
            "entities": len(world.entities),
            "keys_set": len(world.timeline),
            "keys_changed": len(changed),
            "turn_actions": dict(kinds),
        },
        "write_actions": dict(sorted(actions.items())),
        "recall": recall,
        "per_predicate": {p: summary(rows) for p, rows in sorted(per_pred.items())},
        "history": {
            "keys": len(hist_ok),
            "accuracy": _rate(hist_ok),
            "failures": hist_fail,
        },
        "as_of": {"probes": len(as_of_ok), f"acc@{k}": _rate(as_of_ok)},
        "size": {
            "series": series,
            "max_nodes": max(nodes),
            "final_nodes": nodes[-1],
            "max_memories": max(s["memories"] for s in series),
            "final_memories": series[-1]["memories"],
            "max_edges": max(s["edges"] for s in series),
            "final_edges": series[-1]["edges"],
            "second_half_growth": (nodes[-1] - half) / half if half else None,
        },
        "maintenance": {
            "runs": len(maint),
            "seconds": sum(float(m.get("seconds", 0) or 0) for m in maint),
            "reports": maint,
        },
        "latency_ms": {"recall_p50": _pct(latency, 50), "recall_p95": _pct(latency, 95)},
        "write_seconds": write_s,
        "seconds": time.perf_counter() - started,
        "extraction": judge_extraction(read) if extract is not None else None,
        "probe_failures": failures,
    }


# --- the engram -------------------------------------------------------------------------


def engram_loop(g: LiquidGraph, mode: str, adapters: Path, console: Console) -> MemoryLoop:
    """The agent's memory loop over ``g``, its engram ``mode`` ("rules" or "llm") on the
    local llama.cpp server with the LoRA folder ``adapters`` (``engram.gguf``; without one
    the base model reads). Conflicts go to the graph's rule, as in the gold mode: the engram
    is the only model asked."""
    settings = AgentSettings(
        engram=mode, reconcile="rules", local_adapters=adapters, llm_base_url=None,
        llm_api_key=None,
    )  # fmt: skip
    llms = LLMs(settings, notice=lambda text: console.print(text, style="yellow"))
    return MemoryLoop(g, llms, settings)


def engram_usage(loop: MemoryLoop) -> dict[str, Any]:
    """The engram role's model, adapters, calls, share of answers that parsed, seconds."""
    usage = loop.llms.usage.snapshot().get("engram")
    local = loop.llms.local  # set once a model was asked (the rules start no server)
    return {
        "mode": loop.settings.engram,
        "model": local and local.gguf.name + (" (fallback)" if local.fallback else ""),
        "adapters": {r: str(p) for r, p in local.adapters.items()} if local else {},
        "calls": usage.calls if usage else 0,
        "answers_valid": valid_share(usage),
        "model_seconds": usage.seconds if usage else 0.0,
    }


# --- report -----------------------------------------------------------------------------


def goals(off: dict[str, Any], on: dict[str, Any], k: int) -> dict[str, dict[str, Any]]:
    """Each goal with the value reached and whether it is met."""
    out: dict[str, dict[str, Any]] = {}
    for name, r in (("off", off), ("on", on)):
        fid = min(r["recall"][m]["fidelity"] or 0.0 for m in ("semantic", "both"))
        acc = r["recall"]["semantic"][f"acc@{k}"] or 0.0
        out[f"update fidelity (maintenance {name})"] = {
            "goal": "100%",
            "value": fid,
            "met": fid >= GOAL_FIDELITY,
        }
        out[f"acc@{k} semantic (maintenance {name})"] = {
            "goal": f">= {GOAL_ACC:.0%}",
            "value": acc,
            "met": acc >= GOAL_ACC,
        }
    size = on["size"]
    growth = size["second_half_growth"]
    cap = on["capacity"]
    after = [m.get("nodes_after") for m in on["maintenance"]["reports"]]
    capped = cap is not None and bool(after) and all(a is not None and a <= cap for a in after)
    out["graph size bounded (maintenance on)"] = {
        "goal": f"2nd-half growth <= {GOAL_GROWTH:.0%}"
        + (f" or <= {cap} memories after each maintain" if cap else ""),
        "value": growth,
        "met": capped or (growth is not None and growth <= GOAL_GROWTH),
    }
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.1%}" if 0 <= v <= 1 else f"{v:,.1f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _extraction_rows(off: dict[str, Any], on: dict[str, Any]) -> list[tuple[str, Any, Any, str]]:
    """The engram's reading of the turns (the same facts in both streams)."""
    if off["extraction"] is None or on["extraction"] is None:
        return []

    def pair(x: dict[str, Any], suffix: str) -> str:
        return f"{_fmt(x[f'precision{suffix}'])} / {_fmt(x[f'recall{suffix}'])}"

    def per_statement(x: dict[str, Any]) -> str:
        v = x["facts_per_statement"]
        return "-" if v is None else f"{v:.2f}"

    shows: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        ("engram facts per statement", per_statement),
        ("engram precision / recall", lambda x: pair(x, "")),
        ("  same, any subject", lambda x: pair(x, "_any_subject")),
        ("engram facts from chit-chat", lambda x: x["chatter_facts"]),
        ("engram failed readings", lambda x: x["failed"]),
    ]
    return [(name, show(off["extraction"]), show(on["extraction"]), "") for name, show in shows]


def print_table(
    console: Console, off: dict[str, Any], on: dict[str, Any], k: int, engram: str = "gold"
) -> None:
    table = Table(
        title=f"bench_game: evolving-rules game, {off['turns']} turns, seed {off['seed']}, "
        f"facts: {engram}"
    )
    table.add_column("metric")
    table.add_column("maintenance off", justify="right")
    table.add_column(f"on (every {on['maintain_every']})", justify="right")
    table.add_column("goal", justify="right")
    rows = _extraction_rows(off, on)
    for mode in ("semantic", "both"):
        for key, goal in (("acc@1", ""), (f"acc@{k}", f">= {GOAL_ACC:.0%}"), ("fidelity", "100%")):
            rows.append(
                (f"{key} ({mode})", off["recall"][mode][key], on["recall"][mode][key], goal)
            )
        rows.append(
            (
                f"acc@{k} ({mode}, changed keys)",
                off["recall"][mode]["changed_keys"][f"acc@{k}"],
                on["recall"][mode]["changed_keys"][f"acc@{k}"],
                "",
            )
        )
        rows.append(
            (
                f"stale / superseded returned ({mode})",
                f"{off['recall'][mode]['stale_returned']} / "
                f"{off['recall'][mode]['superseded_shown']}",
                f"{on['recall'][mode]['stale_returned']} / "
                f"{on['recall'][mode]['superseded_shown']}",
                "0 / 0",
            )
        )
    rows += [
        ("probes", off["recall"]["semantic"]["probes"], on["recall"]["semantic"]["probes"], ""),
        ("history in order", off["history"]["accuracy"], on["history"]["accuracy"], "100%"),
        (f"as_of acc@{k}", off["as_of"][f"acc@{k}"], on["as_of"][f"acc@{k}"], ""),
        ("max nodes", off["size"]["max_nodes"], on["size"]["max_nodes"], ""),
        ("final nodes", off["size"]["final_nodes"], on["size"]["final_nodes"], "bounded"),
        (
            "max / final memories",
            f"{off['size']['max_memories']:,} / {off['size']['final_memories']:,}",
            f"{on['size']['max_memories']:,} / {on['size']['final_memories']:,}",
            f"<= {on['capacity']}" if on["capacity"] else "",
        ),
        ("max edges", off["size"]["max_edges"], on["size"]["max_edges"], ""),
        ("final edges", off["size"]["final_edges"], on["size"]["final_edges"], ""),
        (
            "2nd-half node growth",
            off["size"]["second_half_growth"],
            on["size"]["second_half_growth"],
            f"<= {GOAL_GROWTH:.0%}",
        ),
        ("maintenance runs", off["maintenance"]["runs"], on["maintenance"]["runs"], ""),
        ("maintenance seconds", off["maintenance"]["seconds"], on["maintenance"]["seconds"], ""),
        (
            "recall p50 / p95 (ms)",
            f"{off['latency_ms']['recall_p50']:.0f} / {off['latency_ms']['recall_p95']:.0f}",
            f"{on['latency_ms']['recall_p50']:.0f} / {on['latency_ms']['recall_p95']:.0f}",
            "",
        ),
        ("seconds", off["seconds"], on["seconds"], ""),
    ]
    for name, a, b, goal in rows:
        table.add_row(name, _fmt(a), _fmt(b), goal)
    console.print(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--maintain-every", type=int, default=50, help="M: turns between maintain()")
    ap.add_argument("--capacity", type=int, default=None, help="maintain(capacity=...)")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--checkpoint", type=int, default=None, help="turns between size samples")
    ap.add_argument(
        "--no-declare",
        action="store_true",
        help="do not declare the game's attributes single-valued (built-in lists decide)",
    )
    ap.add_argument(
        "--engram",
        choices=("gold", "rules", "llm"),
        default="gold",
        help="where the facts come from: the world's gold facts, or the agent's engram "
        "reading each turn (patterns or the engram role)",
    )
    ap.add_argument("--adapters", type=Path, help="folder with engram.gguf (--engram llm)")
    ap.add_argument("--out", type=Path, help="default results/bench_game[_ENGRAM].json")
    args = ap.parse_args()
    if args.adapters and not (args.engram == "llm" and (args.adapters / "engram.gguf").is_file()):
        ap.error("--adapters needs --engram llm and a folder holding engram.gguf (python -m "
                 "finetune.serve gguf --adapter RUN/adapter --out DIR/engram.gguf)")  # fmt: skip
    suffix = "" if args.engram == "gold" else f"_{args.engram}"
    args.out = args.out or ROOT / "results" / f"bench_game{suffix}.json"
    console = Console()
    home = Path(tempfile.mkdtemp(prefix="mags-bench-game-"))
    try:
        settings = GraphSettings(home=home, neo4j_uri=None)
        with LiquidGraph(settings) as g:
            loop = None
            if args.engram != "gold":
                loop = engram_loop(g, args.engram, args.adapters or home / "no-adapters", console)
            extract = cache(loop.extract) if loop else None  # each text read once
            runs = {}
            for name, every in (("off", 0), ("on", args.maintain_every)):
                console.log(f"stream with maintenance {name} ...")
                runs[name] = run_game(
                    g,
                    f"game-{name}",
                    args.turns,
                    args.seed,
                    every,
                    capacity=args.capacity if every else None,
                    k=args.k,
                    checkpoint_every=args.checkpoint,
                    declare=not args.no_declare,
                    progress=True,
                    extract=extract,
                )
            embedder = g.embedder.name
            engram = engram_usage(loop) if loop else {"mode": "gold"}
    finally:
        shutil.rmtree(home, ignore_errors=True)
    off, on = runs["off"], runs["on"]
    print_table(console, off, on, args.k, args.engram)
    if loop:
        console.print(
            f"  engram {engram['mode']} on {engram['model'] or 'no model'} (adapters: "
            f"{', '.join(engram['adapters']) or 'none'}): {engram['calls']} calls, answers "
            f"valid {_fmt(engram['answers_valid'])}, {engram['model_seconds']:.1f} model "
            "seconds (each distinct text read once)"
        )
    met = goals(off, on, args.k)
    for name, gl in met.items():
        mark = "[green]met[/]" if gl["met"] else "[red]NOT met[/]"
        console.print(f"  {name}: {_fmt(gl['value'])} (goal {gl['goal']}) {mark}")
    commit = git_commit()
    out = {
        "benchmark": "bench_game",
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": commit,
        "machine": machine(),
        "embedder": embedder,
        "engram": engram,
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "goals": met,
        "results": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, default=str))
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
