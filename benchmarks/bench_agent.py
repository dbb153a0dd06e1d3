"""bench_agent: what one chat turn with memory costs, stage by stage, on the local default.

    python benchmarks/bench_agent.py            # both engram modes, ~2 min with SmolLM2
    python benchmarks/bench_agent.py --modes auto

A scripted user talks to the MAGS graph (``build_mags_graph``) over three sessions (new
threads: only long-term memory carries over): statements, questions about earlier sessions,
a change of address, small talk. Each stage of each turn is timed by the memory loop
itself (the state's ``stages_ms``): route, recall, store turn (the user's message), respond
(the model), learn (Hebbian writes), store answer, extract (the engram model or patterns),
write facts (incl. the reconcile role's calls on a conflict; "graph writes" sums learn, the
two stores and write facts without them).
Model calls, prompt and completion tokens per turn come from the LLMs' accounting.
Modes: ``auto`` (the default settings: with the tiny fallback model, facts come from the
first-person patterns and conflicts from the graph's rule: one call per turn) and ``llm``
(the engram and reconcile roles asked: two calls on a statement) and ``adapter`` (the
engram role on a trained LoRA adapter, ``--adapters DIR`` holding ``engram.gguf``).
Prints a table and writes JSON to benchmarks/results/bench_agent.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench_store import git_commit, machine, pct
from langgraph.checkpoint.memory import InMemorySaver
from rich.console import Console
from rich.table import Table

from graph_db import GraphSettings, LiquidGraph
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.nodes import build_mags_graph
from mags_langgraph.settings import AgentSettings

ROOT = Path(__file__).resolve().parent
SESSIONS = [
    ["Hi! My name is Maya.", "I live in Berlin and I work at Acme Corp as a nurse.",
     "My dog is called Biscuit.", "I love hiking in the mountains.", "Thanks!"],
    ["What is my dog called?", "I moved to Leeds last month.", "Where do I work?",
     "My favourite colour is green."],
    ["Where do I live now?", "What do I like doing at weekends?", "What is my favourite colour?"],
]  # fmt: skip
STAGES = ["route", "recall", "store_turn", "respond", "learn", "store_answer", "extract",
          "write_facts"]  # fmt: skip
GRAPH_WRITES = ("learn", "store_turn", "store_answer", "write_facts")


def run_mode(mode: str, home: Path, console: Console, adapters: Path | None = None) -> dict:
    """One scripted run. ``adapter``: the engram role on the trained adapter in ``adapters``
    (``<role>.gguf``), conflicts by the graph's rule; the other modes serve no adapter."""
    engram, reconcile = ("llm", "auto") if mode == "adapter" else (mode, mode)
    folder = adapters if mode == "adapter" else home / "no-adapters"
    settings = AgentSettings(
        engram=engram, reconcile=reconcile, local_adapters=folder, llm_base_url=None,
        llm_api_key=None,
    )  # fmt: skip
    llms = LLMs(settings, notice=lambda text: console.print(text, style="yellow"))
    with LiquidGraph(GraphSettings(home=home)) as graph:
        user = f"bench-{mode}"
        graph.forget_namespace(user)
        loop = MemoryLoop(graph, llms, settings)
        app = build_mags_graph(loop, checkpointer=InMemorySaver())
        turns = []
        for number, lines in enumerate(SESSIONS, 1):
            config = {"configurable": {"thread_id": f"{user}-{number}", "user_id": user}}
            for line in lines:
                roles_before = llms.usage.snapshot()
                before = llms.usage.sum(roles_before)
                started = time.perf_counter()
                state = app.invoke({"messages": [("user", line)]}, config)
                total_ms = (time.perf_counter() - started) * 1000
                roles_after = llms.usage.snapshot()
                after = llms.usage.sum(roles_after)
                model_ms = {
                    role: (u.seconds - getattr(roles_before.get(role), "seconds", 0.0)) * 1000
                    for role, u in roles_after.items()
                }
                turns.append({
                    "session": number,
                    "text": line,
                    "total_ms": total_ms,
                    "stages_ms": dict(state.get("stages_ms") or {}),
                    "model_ms_by_role": model_ms,
                    "calls": after["calls"] - before["calls"],
                    "prompt_tokens": after["prompt_tokens"] - before["prompt_tokens"],
                    "completion_tokens": after["completion_tokens"] - before["completion_tokens"],
                    "recalled": len(state.get("memories") or []),
                    "facts_written": len(state.get("writes") or []),
                    "engram_failed": bool((state.get("engram") or {}).get("failed")),
                    "answer": state["messages"][-1].content,
                })  # fmt: skip
        return {
            "mode": mode,
            "model": "SmolLM2-135M-Instruct (fallback)" if llms.fallback else settings.local_model,
            "adapters": {r: str(p) for r, p in (llms.local.adapters if llms.local else {}).items()},
            "engram_valid": valid_share(llms.usage.snapshot().get("engram")),
            "turns": turns,
            "usage_by_role": {r: vars(u) for r, u in llms.usage.snapshot().items()},
            "engram_failures": loop.engram_failures,
            "summary": summarise(turns),
        }


def valid_share(usage) -> float | None:
    """Share of the engram role's answers that parsed into the schema (None: not asked)."""
    return 1 - usage.failures / usage.calls if usage and usage.calls else None


def summarise(turns: list[dict]) -> dict:
    out: dict[str, float] = {}
    for stage in [*STAGES, "graph_writes", "total"]:
        if stage == "total":
            xs = [t["total_ms"] for t in turns]
        elif stage == "graph_writes":  # the reconcile role's calls happen inside write_facts
            xs = [
                sum(t["stages_ms"].get(s, 0.0) for s in GRAPH_WRITES)
                - t["model_ms_by_role"].get("reconcile", 0.0)
                for t in turns
            ]
        else:
            xs = [t["stages_ms"].get(stage, 0.0) for t in turns]
        out[f"{stage}_p50_ms"], out[f"{stage}_p95_ms"] = pct(xs, 50), pct(xs, 95)
    n = len(turns)
    out["calls_per_turn"] = sum(t["calls"] for t in turns) / n
    out["max_calls_in_a_turn"] = max(t["calls"] for t in turns)
    out["prompt_tokens_per_turn"] = sum(t["prompt_tokens"] for t in turns) / n
    out["completion_tokens_per_turn"] = sum(t["completion_tokens"] for t in turns) / n
    out["facts_written"] = sum(t["facts_written"] for t in turns)
    return out


def table(results: list[dict]) -> Table:
    t = Table(title="bench_agent: per-turn cost on the local default", title_justify="left")
    t.add_column("")
    for r in results:
        t.add_column(f"engram/reconcile: {r['mode']}", justify="right")
    for stage in [*STAGES, "graph_writes", "total"]:
        t.add_row(f"{stage} p50 / p95 (ms)", *(
            f"{r['summary'][f'{stage}_p50_ms']:,.0f} / {r['summary'][f'{stage}_p95_ms']:,.0f}"
            for r in results
        ))  # fmt: skip
    for key in ("calls_per_turn", "max_calls_in_a_turn", "prompt_tokens_per_turn",
                "completion_tokens_per_turn", "facts_written"):  # fmt: skip
        t.add_row(key.replace("_", " "), *(f"{r['summary'][key]:,.1f}" for r in results))
    t.add_row("engram failures (invalid output)", *(str(r["engram_failures"]) for r in results))
    t.add_row("engram answers valid", *(
        "-" if r["engram_valid"] is None else f"{r['engram_valid']:.0%}" for r in results
    ))  # fmt: skip
    t.add_row("model", *(r["model"] for r in results))
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", nargs="+", default=["auto", "llm"],
                    choices=["auto", "llm", "adapter"])  # fmt: skip
    ap.add_argument("--adapters", type=Path, help="folder with engram.gguf (mode 'adapter')")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_agent.json")
    args = ap.parse_args()
    if "adapter" in args.modes and not (
        args.adapters and (args.adapters / "engram.gguf").is_file()
    ):
        ap.error("mode 'adapter' needs --adapters DIR holding engram.gguf (python -m "
                 "finetune.serve gguf --adapter RUN/adapter --out DIR/engram.gguf)")  # fmt: skip
    console = Console()
    with tempfile.TemporaryDirectory(prefix="mags-bench-agent-") as home:
        results = [run_mode(mode, Path(home), console, args.adapters) for mode in args.modes]
    console.print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"commit": git_commit(), "machine": machine(), "sessions": SESSIONS,
               "results": results}  # fmt: skip
    args.out.write_text(json.dumps(payload, indent=1, default=float))
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
