"""Snapshots: export a namespace, change it, restore it: exactly what was there."""

from __future__ import annotations

import gzip
import json

import pytest

from graph_db import SnapshotError
from graph_db.snapshots import SCHEDULE


def _state(graph, ns):
    """Every node and edge of ns with all properties (what 'exact' means)."""
    nodes = sorted(
        (r["label"], json.dumps(_unscheduled(r["props"]), sort_keys=True))
        for r in graph.backend.read("export_nodes", ns=ns)
    )
    edges = sorted(
        (r["type"], r["a"], r["b"], json.dumps(r["props"], sort_keys=True))
        for r in graph.backend.read("export_edges", ns=ns)
    )
    return nodes, edges


def _unscheduled(props):
    return {k: v for k, v in props.items() if k not in SCHEDULE}


def _populate(graph, ns):
    ids = graph.add_episodes(
        ns,
        [
            {
                "text": "I moved to Lisbon",
                "speaker": "Ana",
                "session_id": "s1",
                "ts": 1,
                "entities": ["Lisbon"],
                "metadata": {"mood": "happy"},
            },
            {"text": "Lisbon is sunny", "speaker": "Bo", "session_id": "s1", "ts": 2},
            {"text": "I started surfing", "speaker": "Ana", "session_id": "s2", "ts": 3},
        ],
    )
    graph.add_facts(
        ns,
        [
            {
                "subject": "Ana",
                "predicate": "lives_in",
                "object": "Lisbon",
                "source_episode_id": ids[0],
                "confidence": 0.7,
            }
        ],
    )
    return ids


def test_restore_brings_back_exactly_what_was_exported(graph, ns, tmp_path):
    ids = _populate(graph, ns)
    before = _state(graph, ns)
    path = graph.export(ns, tmp_path / "snap.jsonl.gz")
    graph.add_episodes(ns, ["a later memory"])
    graph.delete(ns, ids[1])
    graph.update(ns, ids[2], text="I stopped surfing")
    assert _state(graph, ns) != before
    counts = graph.restore(path)
    assert _state(graph, ns) == before
    assert counts == {"nodes": len(before[0]), "edges": len(before[1])}
    assert graph.search(ns, "surfing", k=1)[0].memory.text == "I started surfing"
    restored = graph.backend.read("export_nodes", ns=ns)
    due = [r["props"].get("vitals_due") for r in restored if r["label"] in ("Episode", "Fact")]
    assert len(due) > len(ids) and set(due) == {0.0}  # all due at the next maintenance pass


def test_a_snapshot_restores_into_another_namespace(graph, ns, tmp_path):
    _populate(graph, ns)
    path = graph.export(ns, tmp_path / "snap.jsonl.gz")
    copy = ns + "-copy"
    graph.restore(path, ns=copy)
    assert _by_text(graph, copy) == _by_text(graph, ns)
    assert not {m.id for m in graph.list(copy)} & {m.id for m in graph.list(ns)}
    graph.forget_namespace(copy)


def _by_text(graph, ns):
    """The namespace with ids replaced by texts/names (a copy gets fresh ids)."""
    nodes, edges = _state(graph, ns)
    name = {}
    for _label, props in nodes:
        p = json.loads(props)
        name[p["id"]] = p.get("text") or p.get("name")
    plain = sorted(
        (
            label,
            json.dumps(
                {
                    k: v
                    for k, v in json.loads(props).items()
                    if k not in ("id", "ns", "source_episode_id")
                },
                sort_keys=True,
            ),
        )
        for label, props in nodes
    )
    # ASSOC is stored from the smaller id to the larger: fresh ids may flip it
    ends = {
        (t, a, b): tuple(sorted((name[a], name[b]))) if t == "ASSOC" else (name[a], name[b])
        for t, a, b, _ in edges
    }
    return plain, sorted((t, *ends[(t, a, b)], props) for t, a, b, props in edges)


def test_broken_snapshots_are_refused_and_change_nothing(graph, ns, tmp_path):
    _populate(graph, ns)
    before = _state(graph, ns)
    good = graph.export(ns, tmp_path / "snap.jsonl.gz")
    with gzip.open(good, "rt") as f:
        lines = f.read().splitlines()
    truncated = tmp_path / "truncated.gz"
    with gzip.open(truncated, "wt") as f:
        f.write("\n".join(lines[:-2]) + "\n")
    other = tmp_path / "other.gz"
    other.write_bytes(b"not a snapshot")
    for bad, match in ((truncated, "truncated"), (other, "not a readable")):
        with pytest.raises(SnapshotError, match=match):
            graph.restore(bad)
    assert _state(graph, ns) == before
