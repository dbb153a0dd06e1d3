"""The quality benchmarks in a small form (CI runs these; the full runs are in benchmarks/)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "conv-26.json"

pytestmark = pytest.mark.slow


def test_evolving_rules_game_keeps_every_update(graph, ns):
    from bench_game import run_game

    result = run_game(graph, ns, turns=60, seed=3, maintain_every=20)
    semantic = result["recall"]["semantic"]
    assert semantic["probes"] > 10
    assert semantic["fidelity"] == 1.0  # the current value above every superseded one
    assert semantic["stale_returned"] == 0
    assert semantic["acc@5"] >= 0.9
    assert result["history"]["accuracy"] >= 0.9
    assert result["extraction"] is None  # the gold facts: nothing read


def test_evolving_rules_game_with_the_agents_engram_reads_every_turn(graph, ns, tmp_path):
    from bench_game import engram_loop, engram_usage, run_game
    from rich.console import Console

    loop = engram_loop(graph, "rules", tmp_path / "no-adapters", Console())
    result = run_game(graph, ns, turns=30, seed=3, maintain_every=10, extract=loop.extract)
    read = result["extraction"]
    assert read["statements"] == 23  # set, change, revert, mention turns of this world
    assert read["turns_read"] == 26  # and the chit-chat
    # the first-person patterns find nothing in third-person announcements: no fact is
    # written, so no probe finds its answer and no history is there to keep
    assert (read["facts"], read["precision"], read["recall"]) == (0, None, 0.0)
    assert result["recall"]["semantic"]["acc@5"] == 0.0
    assert result["history"]["accuracy"] == 0.0
    usage = engram_usage(loop)
    assert (usage["mode"], usage["calls"], usage["model"]) == ("rules", 0, None)


def test_game_engram_facts_match_the_gold_fact_on_the_stores_keys():
    from bench_game import judge_extraction

    from finetune.data.worlds import Turn
    from mags_langgraph.loop import Extraction
    from mags_langgraph.schemas import Triplet

    said = "Rule change! From now on, the Vexil die has 8 sides."
    gold = {"subject": "Vexil die", "predicate": "has_sides", "object": "8"}
    statement = Turn(1, 0.0, "change", {"text": said}, [gold])
    chatter = Turn(2, 60.0, "chatter", {"text": "Zorax: my lucky socks are jade today."})
    read = [
        (statement, Extraction(facts=[
            Triplet(subject="VEXIL  die", predicate="Has sides", object="8."),  # matches
            Triplet(subject="the Vexil die", predicate="has_sides", object="8"),  # subject off
            Triplet(subject="Vexil die", predicate="sides", object="8"),  # predicate off
        ])),
        (chatter, Extraction(facts=[
            Triplet(subject="Zorax", predicate="socks_are", object="jade"),
        ])),
    ]  # fmt: skip
    got = judge_extraction(read)
    assert (got["precision"], got["recall"]) == (1 / 4, 1.0)
    assert (got["precision_any_subject"], got["recall_any_subject"]) == (2 / 4, 1.0)
    assert (got["facts_per_statement"], got["chatter_facts"], got["misses"]) == (3.0, 1, [])


def test_chat_memory_hands_the_answer_every_changed_fact_current_first(graph):
    """bench_chat on 3 users (the patterns as the engram): every fact that changed reaches
    the respond role with its current value named before any earlier one."""
    from bench_chat import agent_settings, chat_scores, make_users, summarise

    summary = summarise(chat_scores(graph, agent_settings("rules"), make_users(3, seed=7)))
    assert summary["questions"] == 15  # five facts asked of each user
    assert summary["update_fidelity"] == 1.0
    assert summary["kept_current"] >= 0.8


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data not beside the repo (../shared)")
def test_locomo_recall_beats_both_baselines_on_the_first_sessions(graph, ns):
    from bench_locomo import bm25_ranker, dense_ranker, load, mags_ranker, score

    turns, qa = load(LOCOMO)
    turns = [t for t in turns if t["session"] <= 4]
    ids = {t["id"] for t in turns}
    qa = [q for q in qa if set(q["evidence"]) <= ids]
    assert len(qa) >= 15
    episodes = [
        {
            "id": f"{ns}:{t['id']}",
            "text": t["text"],
            "speaker": t["speaker"],
            "session_id": f"session_{t['session']}",
            "ts": t["ts"],
        }
        for t in turns
    ]
    graph.ingest(ns, episodes, batch_size=50)
    systems = {
        "bm25": bm25_ranker(turns),
        "dense": dense_ranker(turns, graph),
        "mags": mags_ranker(graph, ns, f"{ns}:"),
    }
    rankings = {name: [rank(q["question"]) for q in qa] for name, rank in systems.items()}
    scores = score(rankings, qa)
    for k in (5, 10):
        assert scores["mags"][f"any@{k}"] > max(
            scores["bm25"][f"any@{k}"], scores["dense"][f"any@{k}"]
        )


def test_a_dynamics_fill_cut_short_goes_on_to_the_same_graph(graph, ns, tmp_path, monkeypatch):
    """bench_dynamics' kept fill (1M memories take hours) stopped after a batch's turns were
    written and before its facts, then run again with its progress file, makes the graph
    one uninterrupted fill makes."""
    from bench_dynamics import SynthEmbedder, SynthMemory, fill, graph_counts

    n, batch, real = 600, 100, graph.embedder
    graph.embedder = SynthEmbedder(real, SynthMemory(n, 3).vocabulary())
    try:
        whole = fill(graph, f"{ns}-whole", SynthMemory(n, 3), batch, n)
        progress, facts_calls = tmp_path / "fill-progress", []
        add_facts = graph.add_facts

        def cut_at_the_third(*args, **kwargs):
            facts_calls.append(1)
            if len(facts_calls) == 3:
                raise KeyboardInterrupt
            return add_facts(*args, **kwargs)

        monkeypatch.setattr(graph, "add_facts", cut_at_the_third)
        with pytest.raises(KeyboardInterrupt):
            fill(graph, f"{ns}-cut", SynthMemory(n, 3), batch, n, progress)
        monkeypatch.setattr(graph, "add_facts", add_facts)
        assert graph.stats(f"{ns}-cut")["nodes"]["Episode"] == 3 * batch  # 3rd batch's turns
        resumed = fill(graph, f"{ns}-cut", SynthMemory(n, 3), batch, n, progress)
    finally:
        graph.embedder = real
    keys = ("episodes_written", "facts_written", "facts_not_created")
    assert [resumed[k] for k in keys] == [whole[k] for k in keys]
    assert graph_counts(graph, f"{ns}-cut") == graph_counts(graph, f"{ns}-whole")
    for name in (f"{ns}-whole", f"{ns}-cut"):
        graph.forget_namespace(name)


def test_the_engine_warm_up_recalls_new_queries_in_blocks_for_its_time(graph, ns):
    """bench_dynamics' warm-up before the first timed recall: back to back for at least its
    seconds, in whole blocks, each query new (a cached embedding would not warm the path)."""
    from bench_dynamics import SynthMemory, warm_engine

    graph.add_episodes(ns, [f"Sam walked the dog to the park on day {i}" for i in range(30)])
    gen, taken, asked = SynthMemory(600, 3), set(), []

    def more(k: int) -> list[str]:
        asked.extend(got := gen.queries(k, taken))
        return got

    out = warm_engine(graph, ns, more, seconds=0.6, block_s=0.2)
    blocks = out["blocks"]
    assert len(blocks) >= 2
    assert out["wall_s"] >= 0.6 and all(b["from_s"] <= 0.6 for b in blocks)  # (to 0.1 s)
    assert all(b["queries"] > 0 and b["p95_ms"] >= b["p50_ms"] > 0 for b in blocks)
    assert out["recalls"] == sum(b["queries"] for b in blocks) == len(asked) - 1  # 1: ready
    assert len(set(asked)) == len(asked)


def test_the_trace_blocks_count_what_a_recall_costs_the_engine_and_the_process(graph, ns):
    """bench_dynamics' trace on / off blocks: each side's recalls, and the CPU a recall
    costs its engine's process (the trace's writes run there) and this one."""
    import engines
    from bench_dynamics import WARMUP, SynthMemory, time_recall_trace_on_off
    from conftest import _NEO4J

    if graph.settings.neo4j_uri is None:
        pid = engines.embedded_pid(Path(graph.settings.home))
    elif _NEO4J.server is None:
        pytest.skip("Neo4j runs elsewhere (MAGS_NEO4J_URI): its CPU is not visible here")
    else:
        pid = _NEO4J.server.pid
    engine = engines.Engine("under test", graph.settings, pid=lambda: pid)
    graph.add_episodes(ns, [f"Sam walked the dog to the park on day {i}" for i in range(30)])
    queries = SynthMemory(600, 3).queries(WARMUP + 20, set())
    out = time_recall_trace_on_off(graph, ns, queries, engine.cpu_s, block=5)
    on, off = out["trace_on"], out["trace_off"]
    assert on["queries"] == off["queries"] == 10
    assert on["engine_cpu_ms"] > 0  # its writes: at least a transaction a block
    assert off["engine_cpu_ms"] >= 0 and off["process_cpu_ms"] > 0 and on["process_cpu_ms"] > 0


def test_a_compared_setting_is_timed_beside_the_defaults_and_its_agreement_counted(graph, ns):
    """bench_dynamics' ``--compare``: recall with the settings given and with the defaults,
    query by query, as many timed either way; the share of top 10s left the same is 1 for
    a change that changes nothing here, under 1 for one that does."""
    from bench_dynamics import WARMUP, SynthMemory, time_recall_compare

    graph.add_episodes(ns, [f"Sam walked the dog to the park on day {i}" for i in range(30)])
    graph.add_episodes(ns, [f"Kai cooked {dish} for Sam" for dish in ("rice", "soup", "pie")])
    gen = SynthMemory(600, 3)
    queries = [*gen.queries(WARMUP + 6, set()), "What did Kai cook?", "Where did Sam walk?"]
    noop = time_recall_compare(graph, ns, queries, {"walk_max_fanout": 100_000}, agree=70)
    assert noop["default"]["queries"] == noop["compared"]["queries"] == len(queries) - WARMUP
    assert noop["agreement"] == {"queries": len(queries), "same_top10": 1.0, "top10_overlap": 1.0}
    fewer = time_recall_compare(graph, ns, queries, {"recall_candidates": 1, "recall_anchors": 1})
    assert fewer["settings"] == {"recall_candidates": 1, "recall_anchors": 1}
    assert fewer["agreement"]["same_top10"] < 1.0


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data not beside the repo (../shared)")
def test_ingest_benchmark_replays_what_the_model_embedded(graph):
    """bench_ingest on the first sessions of conv-26, twice: each ingest starts with an
    empty query cache (the second embeds what the first did, not nothing), every turn
    reaches the model as it is embedded ("Speaker: text"), and each ingest has its
    model-alone twin."""
    from bench_ingest import Recorded, run_conversation

    from finetune.data.locomo import load

    turns = [t for t in load(LOCOMO)[0] if t["session"] <= 2]
    recorded = Recorded(graph.embedder.inner)
    got = run_conversation(graph, recorded, "small", turns, repeats=2)
    first, second = got["texts_embedded"]
    assert first == second > len(turns)  # the turn and its views
    sent = {t for call in recorded.calls for t in call}
    assert {f"{t['speaker']}: {t['text']}" for t in turns} <= sent
    assert len(got["ingest_s"]) == len(got["model_alone_s"]) == 2
    assert got["turns"] == len(turns) and got["model_within_ingest_s"][1] > 0


def test_a_kept_dynamics_store_reports_the_engine_that_measures_it(tmp_path):
    """Measured on a store it filled earlier, bench_dynamics names the engine as it runs
    now (``engine_info``) and the fill's apart (``fill_engine_info``): a 1M fill and its
    measurement may run days and heaps apart. Each run stops the engine it started."""
    import json
    import subprocess

    from graph_db.backends.engine import running

    def run(heap: str) -> dict:
        out = tmp_path / f"{heap}.json"
        cmd = [sys.executable, str(ROOT / "benchmarks" / "bench_dynamics.py"), "--sizes", "300",
               "--engine", "arcadedb", "--keep", str(tmp_path / "keep"), "--fill-only",
               "--heap", heap, "--out", str(out)]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        # stopped at the end of its block, not idling beside the next run for minutes
        assert running(tmp_path / "keep" / "arcadedb" / "300-seed7") is None
        return json.loads(out.read_text())["results"][0]

    first, again = run("1g"), run("1536m")
    assert first["engine_info"]["heap"] == "1g" and "reused_store" not in first
    assert again["engine_info"]["heap"] == "1536m" and again["reused_store"]
    assert again["fill_engine_info"] == first["engine_info"]
    assert again["graph"] == first["graph"]
