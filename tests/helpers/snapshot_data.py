"""A small namespace to snapshot, and its exact state (every node and edge)."""

from __future__ import annotations

import json

from graph_db.snapshots import STORE_STATE


def state(graph, ns):
    """Every node and edge of ns with all properties (what 'exact' means)."""
    nodes = sorted(
        (r["label"], json.dumps(unscheduled(r["props"]), sort_keys=True))
        for r in graph.backend.read("export_nodes", ns=ns)
    )
    edges = sorted(
        (r["type"], r["a"], r["b"], json.dumps(r["props"], sort_keys=True))
        for r in graph.backend.read("export_edges", ns=ns)
    )
    return nodes, edges


def unscheduled(props):
    return {k: v for k, v in props.items() if k not in STORE_STATE}


def populate(graph, ns):
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
