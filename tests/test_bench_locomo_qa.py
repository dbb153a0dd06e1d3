"""benchmarks/bench_locomo_qa.py: its metrics and judge parsing on hand-made cases, and one
small run through the agent's real turn path on the local model (marked slow)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from graph_db import Memory, Recalled
from mags_langgraph import prompts

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_locomo_qa import (  # noqa: E402
    ReadOnlyRecall,
    bleu1,
    normalize,
    parse_label,
    run_conversation,
    scores,
    token_f1,
    within_budget,
)


# -- F1 and BLEU-1 --------------------------------------------------------------------------
def test_answers_are_normalised_as_locomo_scores_them():
    assert normalize("The Cat, and a DOG!") == ["cat", "dog"]
    assert normalize(2022) == ["2022"]  # gold answers may be numbers
    assert normalize("") == []


@pytest.mark.parametrize(
    ("prediction", "gold", "f1"),
    [
        ("7 May 2023", "7 May 2023", 1.0),
        ("The cat sat.", "cat sat", 1.0),  # articles and punctuation do not count
        ("Paris, France", "Paris", 2 / 3),  # precision 1/2, recall 1
        ("dog dog dog", "dog", 0.5),  # a multiset: one match, precision 1/3
        ("in June", "7 May 2023", 0.0),
        ("", "7 May 2023", 0.0),
        ("the", "the", 0.0),  # nothing left after normalising
    ],
)
def test_token_f1(prediction, gold, f1):
    assert token_f1(prediction, gold) == pytest.approx(f1)


@pytest.mark.parametrize(
    ("prediction", "gold", "score"),
    [
        ("7 May 2023", "7 May 2023", 1.0),
        ("she went on 7 May 2023", "7 May 2023", 3 / 6),  # longer: no penalty
        ("May", "7 May 2023", math.exp(1 - 3 / 1)),  # shorter: precision 1, penalty e^-2
        ("dog dog dog", "dog cat", 1 / 3),  # clipped: "dog" counts once
        ("", "7 May 2023", 0.0),
        ("7 May", "", 0.0),
    ],
)
def test_bleu1(prediction, gold, score):
    assert bleu1(prediction, gold) == pytest.approx(score)


# -- the judge's label --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ('{"label": "CORRECT"}', "CORRECT"),
        ('{"reasoning": "another date", "label": "WRONG"}', "WRONG"),
        ('Both name May 7. {"reasoning": "same day", "label": "CORRECT"} That is all.', "CORRECT"),
        ('```json\n{"label": "correct"}\n```', "CORRECT"),  # fenced, lowercase
        ('<think>is it the same?</think>{"label": " Wrong. "}', "WRONG"),
        ('{"label": "CORRECT",}', "CORRECT"),  # a trailing comma
    ],
)
def test_readable_judge_replies_give_their_label(reply, label):
    assert parse_label(reply) == (label, True)


@pytest.mark.parametrize(
    "reply",
    [
        "CORRECT",  # no JSON: the protocol asks for it
        "The answer is correct.",
        '{"label": "MAYBE"}',
        '{"label": "CORRECT or WRONG"}',
        '{"verdict": "CORRECT"}',
        '{"label": ["CORRECT"]}',
        '{"label": "CORRECT"',  # cut off
        "[1, 2, 3]",
        "",
        "\x00\ufffd garbage }{",
    ],
)
def test_unreadable_judge_replies_count_as_wrong_and_are_flagged(reply):
    assert parse_label(reply) == ("WRONG", False)


# -- budget, read-only recall, scores ------------------------------------------------------
def _recalled(i: int, words: int) -> Recalled:
    text = " ".join(f"w{i}x{j}" for j in range(words))
    memory = Memory(id=f"m{i}", ns="t", block="episodic", text=text, speaker="Ann", ts=1.7e9)
    return Recalled(memory=memory, score=1.0 - i / 100)


def test_the_budget_keeps_the_best_ranked_memories_that_fit():
    def words(text: str) -> int:
        return len(text.split())

    memories = [_recalled(i, 10) for i in range(6)]  # each line: "[n] (date, Ann) " + 10 words
    per_line = words(prompts.memory_lines(memories[:1]))
    kept, used = within_budget(memories, 3 * per_line + 1, words)
    assert [m.id for m in kept] == ["m0", "m1", "m2"]  # a prefix, in rank order
    assert used == words(prompts.memory_lines(kept)) == 3 * per_line
    assert within_budget(memories, per_line - 1, words) == ([], 0)
    assert within_budget([*memories[:1], _recalled(9, 2000), *memories[1:]], 1000, words)[0] == [
        memories[0]
    ]  # a memory that does not fit ends the prompt's memories: the rank order is kept


def test_the_loops_recall_leaves_no_trace():
    class Graph:
        settings = "the graph's settings"

        def __init__(self):
            self.calls = []

        def recall(self, *args, **kwargs):
            self.calls.append((args, kwargs))
            return []

    graph = Graph()
    view = ReadOnlyRecall(graph)
    view.recall("ns", ["q"], k=5, blocks="both")
    view.recall("ns", "q", fire=True)  # even when asked to fire
    assert [kw["fire"] for _, kw in graph.calls] == [False, False]
    assert graph.calls[0] == (("ns", ["q"]), {"k": 5, "blocks": "both", "fire": False})
    assert view.settings == "the graph's settings"  # the rest is the graph's own


def test_scores_per_category_and_overall():
    def rec(category: int, name: str, label: str, f1: float, flagged: bool = False) -> dict:
        return {"category": category, "category_name": name, "label": label, "f1": f1,
                "bleu1": f1 / 2, "judge_flagged": flagged}  # fmt: skip

    got = scores([
        rec(2, "temporal", "CORRECT", 1.0),
        rec(2, "temporal", "WRONG", 0.0, flagged=True),
        rec(4, "single-hop", "CORRECT", 0.5),
    ])  # fmt: skip
    assert got["temporal"] == {"n": 2, "J": 0.5, "F1": 0.5, "BLEU1": 0.25, "judge_flagged": 1}
    assert got["single-hop"]["J"] == 1.0
    assert got["overall"] == {
        "n": 3, "J": pytest.approx(2 / 3), "F1": 0.5, "BLEU1": 0.25, "judge_flagged": 1,
    }  # fmt: skip
    assert set(got) == {"temporal", "single-hop", "overall"}  # no empty categories


# -- end to end on the local model ----------------------------------------------------------
@pytest.fixture(scope="module")
def two_sessions(tmp_path_factory) -> Path:
    """A small conversation in LoCoMo's format (16 turns, 5 questions of categories 1-4):
    the LoCoMo data is beside the repo only on some machines, and this stores in seconds."""
    from tests.helpers.locomo_like import write_conversation

    return write_conversation(tmp_path_factory.mktemp("locomo") / "conv-t1.json")


@pytest.mark.slow
@pytest.mark.parametrize("graph", ["arcadedb"], indirect=True)  # the model is the cost
def test_questions_are_answered_and_judged_through_the_real_path(graph, ns, llms, two_sessions):
    from mags_langgraph.llm import LLMs

    judge = LLMs(llms.settings.model_copy(update={"llm_temperature": 0.0}), notice=lambda _: None)
    records, meta = run_conversation(
        graph, two_sessions, llms, judge, ns=ns, limit=2, budget=2000, recall_k=6
    )
    assert len(records) == 2
    assert meta["turns"] == 16 and graph.stats(ns)["nodes"]["Episode"] == 16
    for r in records:
        assert r["answer"].strip() and r["answer_error"] is None
        assert r["label"] in {"CORRECT", "WRONG"}
        assert r["memories"] and 0 < r["memory_tokens"] <= 2000  # the question found memories
        assert all(m.startswith("conv-t1:D") for m in r["memories"])  # the stored turns
        assert r["answer_usage"]["calls"] == 1 and r["judge_usage"]["calls"] == 1
        for usage in (r["answer_usage"], r["judge_usage"]):
            assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
        assert 0.0 <= r["f1"] <= 1.0 and 0.0 <= r["bleu1"] <= 1.0
    # answering stored nothing and fired nothing: the namespace is as it was stored
    assert meta["size_after"] == meta["size_before"]
    assert meta["unchanged"]
    assert sum(meta["size_after"]["nodes"].values()) >= 16
