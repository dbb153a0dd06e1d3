"""The model-free router and the first-person patterns of the tiny-model path."""

from __future__ import annotations

import pytest

from mags_langgraph.rules import facts_from, route


@pytest.mark.parametrize(
    "text, facts",
    [
        ("I just moved to Leeds and I love hiking.", [("lives_in", "Leeds"), ("likes", "hiking")]),
        ("My name is Maya Patel.", [("name", "Maya Patel")]),
        ("my dog is called Biscuit", [("dog_name", "Biscuit")]),
        ("I work at Acme Corp, it is fine.", [("works_at", "Acme Corp")]),
        ("My favourite colour is green.", [("favorite_colour", "green")]),
        ("I live in New York City now", [("lives_in", "New York City")]),
        ("Where do I live?", []),
        ("The weather in Leeds is nice.", []),
    ],
)
def test_first_person_patterns(text, facts):
    got = facts_from(text, "maya")
    assert [(f.predicate, f.object) for f in got] == facts
    assert all(f.subject == "maya" for f in got)


@pytest.mark.parametrize(
    "text, recall, blocks, write",
    [
        ("hi!", False, "both", False),
        ("Thanks", False, "both", False),
        ("Where do I live?", True, "both", False),
        ("What did we talk about last time?", True, "episodic", False),
        ("I adopted a cat.", True, "both", True),
        ("The sky is blue.", True, "both", False),  # no first person: nothing about the user
    ],
)
def test_rules_router(text, recall, blocks, write):
    r = route(text)
    assert (r.recall, r.blocks, r.write) == (recall, blocks, write)
