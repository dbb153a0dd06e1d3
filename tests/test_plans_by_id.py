"""The queries that find one memory by its id must not seek it through the namespace's index
on ArcadeDB. Offered ``$id`` beside the namespace's filter in one pattern, its cost-based
planner sought by the namespace's index (estimating a few thousand rows) and scanned every
memory of the namespace: forgetting one episode took about a second at 100k memories. Such a
query finds the memory alone first; EXPLAIN shows which index each plan seeks by.

Not asserted on Neo4j: its planner chooses by the store's statistics. In the test session's
database (many namespaces of a few memories each) it sought by the namespace in the old forms
and the new alike (memory_delete's, facts_only_from's): there that is the cheaper seek."""

from __future__ import annotations

import json
import re

import pytest

from graph_db import cypher

#: the named queries that take one memory's id ($id)
BY_ID = [name for name in cypher.names() if re.search(r"\$id\b", cypher.query(name, "neo4j"))]
#: a seek by a memory label's namespace index, as ArcadeDB's plan names it
BY_NAMESPACE = re.compile(r"index=(?:Episode|Fact)\[ns\]")


def test_lookups_by_id_never_seek_by_the_namespace_on_arcadedb(graph, ns):
    if graph.backend.dialect.name != "arcadedb":
        pytest.skip("Neo4j's planner chooses by the store's statistics (see the module doc)")
    graph.add_episodes(ns, ["a first turn", "a second turn", "a third turn"])  # stats to plan on
    plans = {}
    with graph.backend.driver.session(database=graph.backend.database) as session:
        for name in BY_ID:
            text = cypher.query(name, graph.backend.dialect.name)
            params = dict.fromkeys(re.findall(r"\$([A-Za-z_]\w*)", text))
            params |= {"ns": ns, "id": "m-none"}
            plans[name] = json.dumps(session.run("EXPLAIN " + text, params).consume().plan)
    assert {"facts_only_from", "next_bridge", "memory_delete"} <= set(BY_ID)
    seeking = {name: BY_NAMESPACE.findall(plan) for name, plan in plans.items()}
    assert not {name: s for name, s in seeking.items() if s}, seeking
