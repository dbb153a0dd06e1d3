"""The evaluation's metrics on hand-made answers: gold, broken, invented, silent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from finetune.evaluate import score
from finetune.prompting import gold_answer
from finetune.records import EngramExample, RecallExample
from finetune.reward_config import load_reward_config

SEED = Path(__file__).resolve().parents[1] / "finetune" / "data" / "seed"


def _load(name, record, n):
    lines = (SEED / name).read_text().splitlines()
    return [record.model_validate_json(ln) for ln in lines[:n]]


@pytest.fixture(scope="module")
def rc():
    return load_reward_config()


def test_gold_engram_answers_score_perfectly_and_broken_ones_do_not_count(rc):
    examples = _load("engram.jsonl", EngramExample, 30)
    gold = score("engram", examples, [gold_answer(e) for e in examples], rc)
    assert gold["format_valid"] == 1.0
    assert gold["precision"] == gold["recall"] == gold["f1"] == 1.0
    assert gold["invented_share"] == 0.0
    broken = score("engram", examples, ["Sure! Maya lives in Berlin."] * len(examples), rc)
    assert broken["format_valid"] == 0.0 and broken["f1"] == 0.0 and broken["triplets"] == 0


def test_an_invented_object_and_a_first_person_subject_are_counted(rc):
    ex = next(e for e in _load("engram.jsonl", EngramExample, 60) if len(e.output.facts) >= 2)
    facts = [f.model_dump() for f in ex.output.facts]
    facts[0]["object"] = "Atlantis"
    facts[1]["subject"] = "I"
    out = score("engram", [ex], [json.dumps({"facts": facts})], rc)
    assert out["format_valid"] == 1.0
    assert out["invented_share"] == 2 / len(facts)
    assert out["precision"] < 1.0 and out["recall"] < 1.0


def test_silence_on_a_no_fact_turn_is_credited(rc):
    examples = [e for e in _load("engram.jsonl", EngramExample, 80) if not e.output.facts][:3]
    out = score("engram", examples, ['{"facts": []}'] * 3, rc)
    assert out["no_fact_turns_left_empty"] == 1.0
    loud = score("engram", examples, ['{"facts": [{"subject": "x", "predicate": "y", '
                                      '"object": "z"}]}'] * 3, rc)  # fmt: skip
    assert loud["no_fact_turns_left_empty"] == 0.0 and loud["precision"] == 0.0


def test_recall_decisions_and_usefulness_of_gold_and_of_refusing_plans(rc):
    examples = _load("recall.jsonl", RecallExample, 12)
    gold = score("recall", examples, [gold_answer(e) for e in examples], rc)
    assert gold["format_valid"] == 1.0 and gold["decision_accuracy"] == 1.0
    assert gold["usefulness"] > 0.5
    never = score("recall", examples, ['{"recall": false, "queries": []}'] * 12, rc)
    share_no_recall = sum(not e.output.recall for e in examples) / 12
    assert never["decision_accuracy"] == pytest.approx(share_no_recall)
    assert never["usefulness"] == pytest.approx(share_no_recall)
