"""The TextWorld memory benchmark in a small form: one seeded game, replayed into each engine.

The game is a "medium" TextWorld world (6 rooms, 12 objects) played for 40 steps by the
seeded explorer (finetune/data/textworld_world.py); its probes come from the game's true
state. The full run is benchmarks/bench_textworld.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

pytestmark = pytest.mark.slow  # textworld is a dev dependency: no skip without it

LEVEL, SEED, STEPS, PROBE_EVERY = "medium", 1, 40, 10
RECALL_FLOOR = 0.8  # MAGS's R_any@10 on this game (measured 1.0 on both engines)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from finetune.data.textworld_world import play

    games = tmp_path_factory.mktemp("tw-games")
    return play(LEVEL, SEED, PROBE_EVERY, steps=STEPS, workdir=games)


@pytest.fixture(scope="module")
def replayed(run):
    """The run replayed into each engine once: the rankings by engine."""
    return {}


def _replay(graph, ns, run, replayed):
    from bench_textworld import replay

    key = graph.settings.neo4j_uri or "arcadedb"
    if key not in replayed:
        replayed[key] = replay(graph, run, ns)[0]
    return replayed[key]


def test_the_run_is_seeded_and_its_events_are_ordered(run, tmp_path):
    from finetune.data.textworld_world import play

    again = play(LEVEL, SEED, PROBE_EVERY, steps=STEPS, workdir=tmp_path)
    assert [e.id for e in again.episodes] == [e.id for e in run.episodes]
    assert [p.question for p in again.probes] == [p.question for p in run.probes]
    steps = [e.step for e in run.episodes]
    assert steps == sorted(steps)
    assert [e.ts for e in run.episodes] == sorted(e.ts for e in run.episodes)
    assert {e.speaker for e in run.episodes} == {"player", "game"}
    stored: set[str] = set()
    for event in run.events:  # a probe's evidence was stored before it is asked
        stored |= {getattr(event, "id", "")}
        assert set(getattr(event, "evidence", ())) | set(getattr(event, "stale", ())) <= stored
    assert len(run.probes) >= 15
    assert {p.kind for p in run.probes} >= {"where", "exit"}


def test_the_evidence_shows_the_answer(run):
    text = {e.id: e.text.lower() for e in run.episodes}
    speaker = {e.id: e.speaker for e in run.episodes}
    kinds = {
        k: [p for p in run.probes if p.kind == k] for k in ("where", "contents", "exit", "key")
    }
    assert all(kinds.values())  # this game has probes of each kind but the recipe
    assert all(p.evidence for p in run.probes)
    for p in kinds["where"]:  # each evidence episode names the object and its place
        place = re.sub(r"^(in|on) the | \(on the floor\)$", "", p.answer)
        holder = "" if place == "carried by the player" else place.lower()
        assert all(p.subject.lower() in text[i] and holder in text[i] for i in p.evidence)
    for p in kinds["contents"]:  # each names the holder and everything in or on it
        things = [p.subject, *p.answer.split(", ")]
        assert all(x.lower() in text[i] for i in p.evidence for x in things)
    for p in kinds["exit"]:  # went through it (either way): the command and the arrival
        room, direction = p.subject.split(":")
        commands = {text[i] for i in p.evidence if speaker[i] == "player"}
        arrivals = [text[i] for i in p.evidence if speaker[i] == "game"]
        assert commands and commands <= {f"go {direction}", f"go {_back(direction)}"}
        ends = (f"-= {p.answer.lower()} =-", f"-= {room.lower()} =-")  # there, or back
        assert arrivals and all(a.startswith(ends) for a in arrivals)
    for p in kinds["key"]:  # the command that unlocked it with that key
        assert f"unlock {p.subject} with {p.answer}".lower() in {text[i] for i in p.evidence}


def _back(direction: str) -> str:
    return {"north": "south", "south": "north", "east": "west", "west": "east"}[direction]


def test_moved_objects_keep_their_history_apart(run):
    moved = [p for p in run.probes if p.kind == "where" and p.stale]
    assert moved
    order = {e.id: i for i, e in enumerate(run.episodes)}
    for p in moved:  # every earlier place was shown before the current one
        assert max(order[i] for i in p.stale) < max(order[i] for i in p.evidence)
        assert not set(p.stale) & set(p.evidence)


def test_mags_recalls_the_evidence(graph, ns, run, replayed):
    from bench_textworld import score

    rankings = _replay(graph, ns, run, replayed)
    scores = score(run.probes, {"mags": rankings})["mags"]
    assert scores["any@10"] >= RECALL_FLOOR
    assert scores["any@5"] <= scores["any@10"]
    assert scores["all@10"] <= scores["any@10"]
    moved = [(p, r) for p, r in zip(run.probes, rankings, strict=True) if p.stale]
    # the current place of a moved object is among what recall returns
    assert all(set(p.evidence) & set(r) for p, r in moved)


def test_a_moved_objects_latest_place_outranks_every_earlier_one(graph, ns, run, replayed):
    """Asked where a moved object is now, the turn that shows its latest place comes before
    every turn that shows an earlier one (recall_newest_first; without it, an earlier room
    description ranks first here). On this small game only: over five seeds the bench's
    medium and hard levels are at 0.92 and 0.97 (bench_textworld.json)."""
    from bench_textworld import fidelity_ok

    rankings = _replay(graph, ns, run, replayed)
    moved = [(p, r) for p, r in zip(run.probes, rankings, strict=True) if p.stale]
    assert moved
    assert all(fidelity_ok(p, r) for p, r in moved)


def test_without_textworld_the_error_names_the_fix(monkeypatch):
    from finetune.data.textworld_world import play
    from graph_db import MagsError

    monkeypatch.setitem(sys.modules, "textworld", None)
    with pytest.raises(MagsError, match="pip install textworld"):
        play("easy", 1)
