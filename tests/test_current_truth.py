"""Recall serves the current truth (issue 16): after "I moved to Porto", a question about
where the user lives gets the Porto fact and the move first, not the Lisbon turn, the user's
earlier questions or the assistant's earlier answers. On both engines, with the patterns as
the engram (no model): the chat loop's turns are driven with scripted answers."""

from __future__ import annotations

import pytest

from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.settings import AgentSettings

SESSIONS = [
    [("I live in Lisbon and I work as a nurse.", "That's nice! Tell me more."),
     ("Where do I live?", "You live in Lisbon."),
     ("What is a good restaurant in Lisbon?", "Lisbon has great food."),
     ("Do you remember where I live?", "You live in Lisbon, of course.")],
    [("I moved to Porto last week.", "Good luck with the move!"),
     ("Can you help me find a gym?", "Sure, I can help with that.")],
]  # fmt: skip


def chat(graph, user: str) -> MemoryLoop:
    """Two sessions of the user's chat, through the loop (rules engram, scripted answers)."""
    settings = AgentSettings(engram="rules", reconcile="rules", llm_base_url=None)
    loop = MemoryLoop(graph, LLMs(settings), settings)
    for number, session in enumerate(SESSIONS, 1):
        for message, answer in session:
            loop.after(loop.before(user, message, session=f"s{number}"), answer)
    return loop


def mentions(texts: list[str]) -> list[str]:
    return [city for t in texts for city in ("Porto", "Lisbon") if city in t]


@pytest.mark.parametrize(
    "question", ["Where do I live now?", "Which city am I in these days?", "Where is my home?"]
)
def test_after_a_move_the_answer_gets_the_new_city_first(graph, ns, question):
    loop = chat(graph, ns)
    context = loop.before(ns, question, session="s3")
    texts = [m.memory.text for m in context.memories]
    assert f"{ns} lives in Porto" in texts  # the current fact
    assert "I moved to Porto last week." in texts  # the turn that changed it
    assert mentions(texts)[0] == "Porto"  # before anything that says Lisbon
    # neither the user's questions nor the assistant's answers take a place
    assert not [t for t in texts if t.endswith("?")]
    assert [m.memory.speaker for m in context.memories if m.memory.block == "episodic"] == [
        ns
    ] * sum(m.memory.block == "episodic" for m in context.memories)


def test_the_graph_ranks_a_stale_turn_under_the_change_for_the_asker(graph, ns):
    """Without the loop: the asker's first person finds the fact about them, and the turn
    whose fact was superseded counts less, unless history is asked for."""
    lisbon = graph.add_episode(ns, "I live in Lisbon and I work as a nurse.", speaker="pat")
    graph.add_fact(ns, "pat", "lives_in", "Lisbon", source_episode_id=lisbon)
    graph.add_episode(ns, "Where do I live?", speaker="pat")
    porto = graph.add_episode(ns, "I moved to Porto last week.", speaker="pat")
    graph.add_fact(ns, "pat", "lives_in", "Porto", source_episode_id=porto)
    ranked = [h.memory.text for h in graph.recall(ns, "Where do I live now?", k=5, asker="pat")]
    assert ranked.index("pat lives in Porto") < ranked.index(
        "I live in Lisbon and I work as a nurse."
    )
    assert ranked.index("I moved to Porto last week.") < ranked.index(
        "I live in Lisbon and I work as a nurse."
    )
    # the whole history: nothing is stale in it, the superseded fact is back
    past = graph.recall(ns, "Where do I live now?", k=6, asker="pat", history=True, fire=False)
    assert "pat lives in Lisbon" in [h.memory.text for h in past]


FILLER = ["I had pasta for dinner.", "My sister visits in May.", "The train was late again.",
          "I started reading a novel about whales.", "We watched a film on Sunday.",
          "My knee hurts after running.", "I bought a new lamp for the study.",
          "The neighbours are painting their fence.", "I should call my dentist.",
          "Work was busy this week."]  # fmt: skip


def test_a_question_asked_again_ranks_under_the_statement_that_answers_it(graph, ns):
    graph.add_episodes(ns, [
        *({"text": t, "speaker": "pat"} for t in FILLER),  # a namespace of some size
        {"text": "What is my favourite colour?", "speaker": "pat"},
        {"text": "My favourite colour is green.", "speaker": "pat"},
        {"text": "Which is my favourite colour again?", "speaker": "pat"},
    ])  # fmt: skip
    ranked = [h.memory.text for h in graph.recall(ns, "What is my favourite colour?", k=3)]
    assert ranked[0] == "My favourite colour is green."  # not the same question, asked before


def test_an_asker_too_long_is_refused_by_name(graph, ns):
    from graph_db import InvalidInputError

    graph.add_episode(ns, "hello", speaker="pat")
    with pytest.raises(InvalidInputError, match="asker"):
        graph.recall(ns, "Where do I live?", asker="x" * 300)


def test_an_echo_of_the_old_value_comes_after_what_holds_now(graph, ns):
    """The assistant repeating the old city before the move is stale too, though no fact was
    drawn from it: it echoes the question and ranks first on its own, yet the change is shown
    before it (a run of the chat with SmolLM2 once listed such an answer first)."""
    lisbon = graph.add_episode(ns, "I live in Lisbon.", speaker="pat")
    graph.add_fact(ns, "pat", "lives_in", "Lisbon", source_episode_id=lisbon)
    graph.add_episode(ns, "Where do I live?", speaker="pat")
    echo = "Where do you live now? You live in Lisbon."
    graph.add_episode(ns, echo, speaker="assistant")
    graph.add_episode(ns, "I had pasta for dinner.", speaker="pat")
    porto = graph.add_episode(ns, "I moved to Porto last week.", speaker="pat")
    graph.add_fact(ns, "pat", "lives_in", "Porto", source_episode_id=porto)
    graph.add_episode(ns, "Porto is lovely, and so is Lisbon!", speaker="assistant")  # after
    ranked = [h.memory.text for h in graph.recall(ns, "Where do I live now?", k=5, asker="pat")]
    assert ranked.index("pat lives in Porto") < ranked.index(echo)
    assert ranked.index("I moved to Porto last week.") < ranked.index(echo)


def test_the_old_value_said_of_someone_else_is_no_echo(graph, ns):
    """Talorra's die stays amber after Zorondo's changed from amber to jade: the turn about
    Talorra's die repeats no stale value, and Zorondo's change takes no place before it."""
    said = graph.add_episode(ns, "Zorondo's die is amber.", speaker="narrator")
    graph.add_fact(ns, "Zorondo", "die_color", "amber", source_episode_id=said)
    said = graph.add_episode(ns, "Talorra's die is amber as well.", speaker="narrator")
    graph.add_fact(ns, "Talorra", "die_color", "amber", source_episode_id=said)
    said = graph.add_episode(ns, "Zorondo's die turns jade.", speaker="narrator")
    graph.add_fact(ns, "Zorondo", "die_color", "jade", source_episode_id=said)
    ranked = [h.memory.text for h in graph.recall(ns, "What color is Talorra's die?", k=5)]
    assert ranked[:2] == ["Talorra die color amber", "Talorra's die is amber as well."]
    # Zorondo's old statement is stale: its change comes just before it
    assert ranked[2:] == [
        "Zorondo die color jade",
        "Zorondo's die turns jade.",
        "Zorondo's die is amber.",
    ]
