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
