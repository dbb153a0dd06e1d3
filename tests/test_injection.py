"""Text that looks like Cypher is data: stored verbatim, never executed."""

from __future__ import annotations

import pytest

from graph_db import InvalidInputError

NASTY = [
    "'}) MATCH (n) DETACH DELETE n //",
    "$ns",
    '"; DROP INDEX episode_text; //',
    "\\u0027 OR 1=1 -- ` {x}",
    "héllo 🌍 \u200b zero-width, tab\tnewline\n end",
]


@pytest.mark.parametrize("text", NASTY)
def test_cypher_like_text_is_stored_verbatim(graph, ns, text):
    (eid,) = graph.add_episodes(
        ns, [{"text": text, "speaker": text, "session_id": text, "entities": [text]}]
    )
    got = graph.get(ns, eid)
    assert got.text == text
    assert got.properties["speaker"] == text and got.properties["session_id"] == text
    fid = graph.add_fact(ns, text, "says", text)
    assert graph.get(ns, fid).properties["subject"] == text
    assert any(h.memory.id == eid for h in graph.search(ns, text, k=5))
    assert graph.stats(ns)["nodes"]["Episode"] == 1


def test_a_namespace_that_looks_like_cypher_is_just_a_name(graph):
    with pytest.raises(InvalidInputError, match="empty label"):  # "//": the namespace rule
        graph.add_episodes("x'}) MATCH (n) DETACH DELETE n //", ["refused"])
    ns = "x'}) MATCH (n) DETACH DELETE n RETURN count(*) --"
    other = graph.namespaces()
    graph.add_episodes(ns, ["still here"])
    assert graph.list(ns)[0].text == "still here"
    assert set(other) <= set(graph.namespaces())
    graph.forget_namespace(ns)
    assert set(graph.namespaces()) == set(other)
