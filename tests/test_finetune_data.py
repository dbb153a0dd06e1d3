"""The fine-tuning data pipeline: validator, generator, near-duplicates, splits, CLI.

Pure Python (no graph engine, no model): hand-made good and broken examples for every rule,
and a small real build (twice, to prove it is byte-identical).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import random
import sys
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from finetune.data import worlds
from finetune.data.cli import main
from finetune.data.dedup import NearDupIndex, input_text, jaccard, shingles
from finetune.data.engram_gen import frame_example, frames_by_id, world_example, world_states
from finetune.data.generate import SEED_DIR, engram_recipes, load_seed, recall_recipes
from finetune.data.report import load_dir
from finetune.data.splits import SPLITS
from finetune.data.validate import validate_example, validate_file, validate_lines

ROOT = Path(__file__).resolve().parent.parent

GOOD_ENGRAM: dict[str, Any] = {
    "id": "t-engram-1",
    "source": "seed",
    "domain": "personal",
    "role": "engram",
    "input": {
        "user": "Maya",
        "speaker": "Maya",
        "date": "2024-05-01",
        "turn": "I moved to Leeds last month. My sister Ana works at Arup.",
        "facts": [
            {"subject": "Maya", "predicate": "lives_in", "object": "Berlin"},
            {"subject": "Maya", "predicate": "likes", "object": "ramen"},
        ],
    },
    "output": {
        "facts": [
            {"subject": "Maya", "predicate": "lives_in", "object": "Leeds", "confidence": 0.95},
            {"subject": "Maya", "predicate": "has_sister", "object": "Ana", "confidence": 0.95},
            {"subject": "Ana", "predicate": "works_at", "object": "Arup", "confidence": 0.95},
        ]
    },
}
GOOD_RECALL: dict[str, Any] = {
    "id": "t-recall-1",
    "source": "seed",
    "domain": "family",
    "role": "recall",
    "input": {
        "user": "Maya",
        "date": "2024-06-01",
        "message": "Where does she live now?",
        "history": [{"speaker": "Maya", "text": "My sister Ana called today."}],
    },
    "output": {"recall": True, "blocks": "semantic", "queries": ["Ana lives in", "Ana city"]},
    "memories": [
        {"kind": "fact", "text": "Ana lives in Porto."},
        {
            "kind": "episode",
            "text": "Ana moved to Lyon for work.",
            "speaker": "Maya",
            "date": "2023-01-10",
        },
        {"kind": "fact", "text": "Maya lives in Leeds."},
    ],
    "gold": [0],
}


def _fact(s: str, p: str, o: str, c: float = 0.95) -> dict[str, Any]:
    return {"subject": s, "predicate": p, "object": o, "confidence": c}


def _set(ex: dict[str, Any], path: str, value: Any) -> None:
    *head, last = path.split(".")
    node: Any = ex
    for key in head:
        node = node[int(key)] if key.isdigit() else node[key]
    if last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value


ENGRAM_BREAKS: list[tuple[str, dict[str, Any], str]] = [
    ("a date that is not YYYY-MM-DD", {"input.date": "May 1"}, "schema"),
    ("an unknown role", {"role": "writer"}, "schema.role"),
    ("a source that is neither seed nor gen:", {"source": "handmade"}, "schema.source"),
    ("an unknown key in a fact", {"output.facts.0.note": "x"}, "schema.extra"),
    ("I as the subject", {"output.facts.0.subject": "I"}, "engram.first_person"),
    ("you as the object", {"output.facts.1.object": "you"}, "engram.second_person"),
    ("a place the turn never names", {"output.facts.0.object": "Manchester"}, "engram.grounding"),
    ("a predicate not in normal form", {"output.facts.0.predicate": "Lives in"},
     "engram.predicate_normalised"),
    ("a double underscore", {"output.facts.1.predicate": "has__sister"},
     "engram.predicate_snake_case"),
    ("a synonym of a built-in predicate", {"output.facts.0.predicate": "live_in"},
     "engram.predicate_vocabulary"),
    ("an object of 13 words", {"output.facts.0.object": " ".join(["Leeds"] * 13)},
     "engram.object_too_long"),
    ("subject and object the same", {"output.facts.1.object": "Maya"}, "engram.self_loop"),
    ("the same fact twice", {"output.facts.3": _fact("Ana", "works_at", "Arup")},
     "engram.duplicate_fact"),
    ("a current fact restated", {"input.facts.1": {"subject": "Maya", "predicate": "has_sister",
                                                   "object": "Ana"}}, "engram.restated"),
    ("two values of a single-valued predicate", {"output.facts.3": _fact("Maya", "lives_in",
                                                                         "Arup")},
     "engram.functional_one_value"),
    ("a confidence under 0.5", {"output.facts.1.confidence": 0.3}, "engram.confidence_range"),
    ("a hedged statement at 0.95",
     {"input.turn": "I moved to Leeds last month. I think my sister Ana works at Arup."},
     "engram.hedged_confidence"),
    ("0.6 with no hedge in the turn", {"output.facts.0.confidence": 0.6},
     "engram.unhedged_confidence"),
]  # fmt: skip
RECALL_BREAKS: list[tuple[str, dict[str, Any], str]] = [
    ("no recall but queries", {"output.recall": False, "gold": []}, "recall.false_has_queries"),
    ("no recall but gold", {"output.recall": False, "output.queries": []},
     "recall.false_has_gold"),
    ("recall without a query", {"output.queries": []}, "recall.no_queries"),
    ("recall without gold", {"gold": []}, "recall.no_gold"),
    ("the same query twice", {"output.queries": ["Ana lives in", "ana  lives in"]},
     "recall.duplicate_query"),
    ("a pronoun left in a query", {"output.queries.1": "her city"}, "recall.query_pronoun"),
    ("a query of 14 words", {"output.queries.1": "Ana city " + " ".join(["Porto"] * 12)},
     "recall.query_too_long"),
    ("a query with filler", {"output.queries.1": "search for Ana city"}, "recall.query_filler"),
    ("a query of function words", {"output.queries.1": "the of and"}, "recall.query_empty"),
    ("two memories only", {"memories.2": None}, "recall.memories_count"),
    ("an episode with no date", {"memories.1.date": None}, "recall.episode_fields"),
    ("a gold index twice", {"gold": [0, 0]}, "recall.gold_duplicate"),
    ("a gold index out of range", {"gold": [0, 7]}, "recall.gold_range"),
    ("gold that no query can reach", {"output.queries": ["Maya home"]},
     "recall.gold_unreachable"),
]  # fmt: skip


def _broken(good: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    ex = copy.deepcopy(good)
    for path, value in changes.items():
        if path == "memories.2" and value is None:
            ex["memories"].pop(2)
            continue
        if path.startswith("output.facts.") and path.count(".") == 2:
            ex["output"]["facts"].append(value)
            continue
        if path == "input.facts.1":
            ex["input"]["facts"][1] = value
            continue
        _set(ex, path, value)
    return ex


def test_the_hand_made_good_examples_are_valid():
    assert validate_example(GOOD_ENGRAM) == []
    assert validate_example(GOOD_RECALL) == []


@pytest.mark.parametrize(
    ("why", "changes", "rule"), ENGRAM_BREAKS, ids=[b[0] for b in ENGRAM_BREAKS]
)
def test_each_engram_rule_breaks_alone(why, changes, rule):
    problems = validate_example(_broken(GOOD_ENGRAM, changes))
    assert {p.rule for p in problems} == {rule}, why
    assert all(p.fix and p.id in (None, "t-engram-1") for p in problems)


@pytest.mark.parametrize(
    ("why", "changes", "rule"), RECALL_BREAKS, ids=[b[0] for b in RECALL_BREAKS]
)
def test_each_recall_rule_breaks_alone(why, changes, rule):
    problems = validate_example(_broken(GOOD_RECALL, changes))
    assert {p.rule for p in problems} == {rule}, why


def test_a_file_reports_line_numbers_duplicate_ids_and_bad_json():
    bad = _broken(GOOD_ENGRAM, {"output.facts.0.subject": "me"})
    lines = [json.dumps(GOOD_ENGRAM), "", "{not json", json.dumps(bad), json.dumps(GOOD_RECALL)]
    problems = validate_lines(lines)
    assert [(p.line, p.rule) for p in problems] == [
        (3, "json"),
        (4, "engram.first_person"),
        (4, "file.duplicate_id"),
    ]
    assert "line 1" in next(p.fix for p in problems if p.rule == "file.duplicate_id")


def test_the_cli_exits_1_on_a_broken_file_and_0_on_a_good_one(tmp_path, capsys):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(json.dumps(GOOD_ENGRAM) + "\n" + json.dumps(GOOD_RECALL) + "\n")
    broken = _broken(GOOD_RECALL, {"output.queries.1": "her city"})
    bad.write_text(json.dumps(GOOD_ENGRAM) + "\n" + json.dumps(broken) + "\n")
    assert main(["validate", str(good)]) == 0
    assert main(["validate", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert "line 2" in out and "recall.query_pronoun" in out
    assert main(["validate", str(tmp_path / "missing.jsonl")]) == 1


# --- generated examples ----------------------------------------------------------------


def test_every_recipe_of_every_split_makes_valid_examples():
    for recipes in (engram_recipes(3), recall_recipes(3)):
        for split, k in product(SPLITS, range(2)):
            for r in recipes[split]:
                ex = r.make(random.Random(f"{r.id}:{k}"), f"t-{k}")  # fails loudly if invalid
                assert validate_example(ex) == []
                assert ex.domain == r.domain and ex.group == r.group


def test_a_change_gives_only_the_new_value_and_a_restatement_nothing():
    frames = frames_by_id()
    for k in range(20):
        ex = frame_example(frames["personal.moved"], random.Random(k), f"m{k}", "g")
        (fact,) = ex.output.facts
        old = [f for f in ex.input.facts if f.predicate == "lives_in"]
        assert fact.predicate == "lives_in" and fact.subject == ex.input.speaker
        assert len(old) == 1 and old[0].object != fact.object
        still = frame_example(frames["personal.still_lives"], random.Random(k), f"s{k}", "g")
        assert still.output.facts == []
        assert any(f.predicate == "lives_in" for f in still.input.facts)


def test_world_announcements_follow_the_world_state():
    world = worlds.generate_world(240, 11)
    states = world_states(world)
    seen = set()
    for k in range(120):
        ex = world_example(world, states, random.Random(k), f"w{k}")
        action = ex.source.removeprefix("gen:world.")
        seen.add(action)
        if action in ("restate", "chatter"):
            assert ex.output.facts == []
        if action in ("change", "revert"):
            (new,) = ex.output.facts
            current = [f for f in ex.input.facts if (f.subject, f.predicate) ==
                       (new.subject, new.predicate)]  # fmt: skip
            assert len(current) == 1 and current[0].object != new.object
    assert {"set", "change", "restate", "chatter"} <= seen


def test_near_duplicates_are_dropped_and_distinct_texts_kept():
    index = NearDupIndex()
    assert index.add("I just moved to Leeds with my partner and our two cats last week")
    assert not index.add("i just moved to leeds with my partner and our two cats last week!")
    assert not index.add("I just moved to Leeds with my partner and our two cats last month")
    assert index.add("My sister Ana works at a bakery in Porto and loves it")
    assert index.add("hi") and not index.add("Hi!")
    assert len(index) == 3


# --- a real build ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    a, b = tmp_path_factory.mktemp("build-a"), tmp_path_factory.mktemp("build-b")
    for out in (a, b):
        assert main(["build", "--out", str(out), "--seed", "5",
                     "--n-engram", "150", "--n-recall", "120"]) == 0  # fmt: skip
    return a, b


def test_the_same_seed_builds_byte_identical_files(built):
    a, b = built
    names = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file())
    assert {"manifest.json", "report.json", "engram/test.jsonl", "recall/train.jsonl"} <= set(names)
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    manifest = json.loads((a / "manifest.json").read_text())
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((a / rel).read_bytes()).hexdigest() == digest
    assert manifest["version"] and manifest["seed"] == 5


def test_every_built_example_is_valid_and_ids_are_unique(built):
    a, _ = built
    ids: set[str] = set()
    for path in sorted(a.rglob("*.jsonl")):
        assert validate_file(path) == [], path
        for line in path.read_text().splitlines():
            ident = json.loads(line)["id"]
            assert ident not in ids
            ids.add(ident)
    manifest = json.loads((a / "manifest.json").read_text())
    for role in ("engram", "recall"):
        generated = sum(manifest["counts"][role].values()) - sum(
            manifest["seed_counts"][role].values()
        )
        assert generated == manifest["requested"][role]


def test_splits_share_no_group_and_no_near_duplicate(built):
    splits = load_dir(built[0])
    for rows in splits.values():
        groups = {s: {ex.group for ex in rows[s]} for s in SPLITS}
        assert all(None not in g for g in groups.values())
        for x, y in (("train", "dev"), ("train", "test"), ("dev", "test")):
            assert not groups[x] & groups[y], (x, y, groups[x] & groups[y])
            sx = [shingles(input_text(ex)) for ex in rows[x]]
            sy = [shingles(input_text(ex)) for ex in rows[y]]
            assert max(jaccard(p, q) for p in sx for q in sy) < 0.7


def test_the_test_split_holds_hand_written_seed_examples(built):
    manifest = json.loads((built[0] / "manifest.json").read_text())
    report = json.loads((built[0] / "report.json").read_text())
    for role in ("engram", "recall"):
        seeds = manifest["seed_counts"][role]
        assert seeds["test"] >= 0.15 * sum(seeds.values()) > 0
        assert len(report[role]["test"]["domains"]) >= 12
        assert report[role]["train"]["distinct_3gram_ratio"] > 0.2


def test_the_report_command_reads_a_build(built, capsys):
    assert main(["report", str(built[0])]) == 0
    assert "diversity" in capsys.readouterr().out


# --- the seed files and the shared world -----------------------------------------------


@pytest.mark.parametrize("role", ["engram", "recall"])
def test_the_hand_written_seed_files_are_valid(role):
    path = SEED_DIR / f"{role}.jsonl"
    assert validate_file(path) == []
    seeds = load_seed(path, role)
    assert len(seeds) >= 150
    assert len({ex.domain for ex in seeds}) >= 12
    assert all(ex.source == "seed" for ex in seeds)


def test_bench_game_plays_the_world_of_finetune_data():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_game

    assert bench_game.generate_world is worlds.generate_world
    assert bench_game.Probe is worlds.Probe
    world = worlds.generate_world(2000, 7)
    turns = json.dumps([dataclasses.asdict(t) for t in world.turns], sort_keys=True, default=str)
    # recorded from benchmarks/bench_game.py before its world moved to finetune/data/worlds.py
    assert len(world.turns) == 2096
    assert hashlib.sha256(turns.encode()).hexdigest() == (
        "df3481f6408c3101be848918285b305845bad70eb6fa0db40e8b155f7a358133"
    )
