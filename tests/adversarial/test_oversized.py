"""Oversized work: batches over a Bolt message, long fields, a big snapshot.

ArcadeDB's Bolt refuses messages over 16 MiB; batches of long turns, thousands of facts or
entities used to fail after minutes with an opaque driver error, and a 10 MB speaker hung
the caller. The store sends a batch in parts of one transaction and bounds every field.
The small form (the default) lowers the part size so that modest batches take the same
path; MAGS_ADVERSARIAL=full runs the sizes of the report.
"""

from __future__ import annotations

import os

import pytest

from graph_db import InvalidInputError
from graph_db.backends import bolt

pytestmark = pytest.mark.adversarial
FULL = os.environ.get("MAGS_ADVERSARIAL") == "full"
AREA = "oversized work"


@pytest.fixture
def small_parts(monkeypatch):
    """Parts of 64 KiB in the small form: a few hundred rows already need many parts."""
    if not FULL:
        monkeypatch.setattr(bolt, "MESSAGE_BUDGET", 64 * 1024)


def _long_turns(n: int) -> list[dict]:
    if FULL:  # the report's 300 turns of 30,000 characters of distinct words
        return [
            {"text": " ".join(f"w{i}x{j}" for j in range(4300))[:30_000], "session_id": "big"}
            for i in range(n)
        ]
    # 30,000 four-byte characters a turn: 160 turns are 18 MiB of UTF-8, over the engine's
    # real 16 MiB limit, without the minutes of indexing thousands of distinct words
    return [{"text": f"turn {i} " + "\U0001f642" * 29_990, "session_id": "big"} for i in range(n)]


def test_a_batch_over_a_bolt_message_is_stored_whole(graph, ns, tally):
    turns = _long_turns(300 if FULL else 160)
    ids = tally.stored(
        AREA, lambda: graph.add_episodes(ns, turns), lambda ids: len(ids) == len(turns)
    )
    assert graph.stats(ns)["nodes"]["Episode"] == len(turns)
    assert graph.get(ns, ids[-1]).text == turns[-1]["text"]
    assert graph.get(ns, ids[0]).text == turns[0]["text"]


def test_thousands_of_facts_in_one_batch_are_stored_whole(graph, ns, small_parts, tally):
    n = 4000 if FULL else 400
    facts = [
        {"subject": f"user {i}", "predicate": "likes", "object": f"thing {i} " + "z" * 200}
        for i in range(n)
    ]
    tally.stored(AREA, lambda: graph.add_facts(ns, facts), lambda ids: len(ids) == n)
    assert graph.stats(ns)["nodes"]["Fact"] == n
    (last,) = graph.history(ns, f"user {n - 1}", "likes")
    assert last.object == facts[-1]["object"]


def test_thousands_of_entities_in_one_turn_are_stored_whole(graph, ns, small_parts, tally):
    n = 10_000 if FULL else 1000
    names = [f"entity {i} " + "e" * 200 for i in range(n)]
    tally.stored(
        AREA,
        lambda: graph.add_episode(ns, "one turn naming many things", entities=names),
        lambda memory_id: bool(memory_id),
    )
    assert graph.stats(ns)["nodes"]["Entity"] == n


def test_a_batch_failing_in_its_last_part_stores_none_of_it(graph, ns, small_parts, tally):
    """The parts are one transaction: a duplicate id in the last row undoes the others."""
    (first,) = graph.add_episodes(ns, ["already here"])
    turns = [{"text": f"turn {i} " + "x" * 2000} for i in range(300)]
    turns[-1]["id"] = first
    tally.refused(AREA, lambda: graph.add_episodes(ns, turns), "ids must be unique")
    assert [m.id for m in graph.list(ns)] == [first]


@pytest.mark.parametrize(
    "field",
    ["speaker", "entity", "text", "subject", "object"],
)
def test_an_oversized_field_is_refused_at_once(graph, ns, field, tally):
    huge = "y" * (10_000_000 if FULL else 1_000_000)
    calls = {
        "speaker": lambda: graph.add_episode(ns, "hi", speaker=huge),
        "entity": lambda: graph.add_episode(ns, "hi", entities=[huge]),
        "text": lambda: graph.add_episode(ns, huge),
        "subject": lambda: graph.add_fact(ns, huge, "likes", "tea"),
        "object": lambda: graph.add_fact(ns, "Maya", "likes", huge),
    }
    tally.refused(AREA, calls[field], "limit")
    assert ns not in graph.namespaces(prefix=ns)


def test_a_big_namespace_exports_and_restores(graph, ns, tmp_path, small_parts, tally):
    n = 600 if FULL else 60
    turns = _long_turns(n) if FULL else [{"text": f"turn {i} " + "q" * 5000} for i in range(n)]
    graph.add_episodes(ns, turns)
    path = graph.export(ns, tmp_path / "big.jsonl.gz")
    graph.forget_namespace(ns)
    counts = tally.stored(AREA, lambda: graph.restore(path), lambda counts: counts["nodes"] >= n)
    assert counts["nodes"] >= n
    assert sorted(m.text for m in graph.list(ns, limit=n)) == sorted(t["text"] for t in turns)


def test_a_refused_oversized_batch_names_the_limit(graph, ns, tally):
    too_long = [{"text": "fine"}, {"text": "z" * (graph.settings.max_text_chars + 1)}]
    err = tally.refused(AREA, lambda: graph.add_episodes(ns, too_long), "MAGS_MAX_TEXT_CHARS")
    assert isinstance(err, InvalidInputError)
    assert ns not in graph.namespaces(prefix=ns)
