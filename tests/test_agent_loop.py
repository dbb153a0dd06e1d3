"""The memory loop as a LangGraph, on the real store and embedder, with scripted chat
models (LangChain's fakes): flow, call counts, and what bad model output may not do."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from mags_langgraph.llm import LLMs
from mags_langgraph.nodes import build_mags_graph
from mags_langgraph.settings import AgentSettings


def fake(*answers: str) -> FakeMessagesListChatModel:
    return FakeMessagesListChatModel(responses=[AIMessage(a) for a in answers])


def facts_json(*triples: tuple[str, str, str]) -> str:
    return json.dumps(
        {
            "facts": [
                {"subject": s, "predicate": p, "object": o, "confidence": 0.9}
                for s, p, o in triples
            ]
        }
    )


def agent(
    graph,
    engram=("{}",),
    respond=("OK.",),
    reconcile=None,
    recall=None,
    engram_mode="llm",
    **settings,
):
    s = AgentSettings(
        engram=engram_mode,
        reconcile="llm" if reconcile else "rules",
        recall_queries="llm" if recall else "message",
        **settings,
    )
    models = {"engram": fake(*engram), "respond": fake(*respond)}
    if reconcile:
        models["reconcile"] = fake(*reconcile)
    if recall:
        models["recall"] = fake(*recall)
    llms = LLMs(s, models=models)
    return build_mags_graph(graph, llms, s, checkpointer=InMemorySaver()), llms


def turn(app, ns, text, thread="t1"):
    config = {"configurable": {"thread_id": f"{ns}-{thread}", "user_id": ns}}
    return app.invoke({"messages": [("user", text)]}, config)


def calls(llms) -> dict[str, int]:
    return {role: u.calls for role, u in llms.usage.snapshot().items()}


def test_a_turn_is_two_calls_and_its_fact_is_recalled_in_the_next_session(graph, ns):
    app, llms = agent(
        graph,
        engram=[facts_json(("I", "lives_in", "Leeds"))],
        respond=["Leeds is lovely.", "You live in Leeds [1]."],
    )
    first = turn(app, ns, "I moved to Leeds last week.", thread="s1")
    assert calls(llms) == {"respond": 1, "engram": 1}  # the rules router: no call
    assert len(first["episode_ids"]) == 2  # the user's turn and the answer
    assert [w["action"] for w in first["writes"]] == ["created"]
    fact = graph.get(ns, first["writes"][0]["id"])
    assert (fact.properties["subject"], fact.properties["object"]) == (ns, "Leeds")  # "I" -> user
    second = turn(app, ns, "Where do I live now?", thread="s2")  # a new session
    assert calls(llms) == {"respond": 2, "engram": 1}  # a question: nothing to extract
    texts = [m["memory"]["text"] for m in second["memories"]]
    assert any("Leeds" in t for t in texts)
    assert second["messages"][-1].content == "You live in Leeds [1]."
    assert second["used"] and second["used"][0] == second["memories"][0]["memory"]["id"]


def test_invalid_engram_output_stores_the_turn_only_and_counts_the_failure(graph, ns):
    app, llms = agent(graph, engram=["Maya habite à Leeds.", '<think>hm</think>{"facts": "x"}'])
    state = turn(app, ns, "My name is Maya and I live in Leeds.")
    assert state["engram"] == {"source": "llm", "failed": True, "dropped": 0}
    assert calls(llms)["engram"] == 2 and llms.usage.snapshot()["engram"].failures == 2
    stats = graph.stats(ns)["nodes"]
    assert (stats["Episode"], stats["Fact"]) == (2, 0)  # the raw turn kept, nothing invented
    assert graph.get(ns, state["episode_ids"][0]).text == "My name is Maya and I live in Leeds."


def test_engram_retries_once_with_the_reason(graph, ns):
    bad_types = (
        '{"facts": [{"subject": "I", "predicate": "likes", "object": "tea", "confidence": "high"}]}'
    )
    app, llms = agent(graph, engram=[bad_types, facts_json(("I", "likes", "tea"))])
    state = turn(app, ns, "I like tea.")
    assert state["engram"]["failed"] is False
    assert [w["action"] for w in state["writes"]] == ["created"]
    assert calls(llms)["engram"] == 2


def test_implausible_triplets_are_dropped_not_written(graph, ns):
    junk = facts_json(
        ("I moved to Leeds last week and my dog is called Biscuit", "Biscuit", "Biscuit"),
        ("I", "has_dog", "Biscuit"),
    )
    app, _ = agent(graph, engram=[junk])
    state = turn(app, ns, "I moved to Leeds last week and my dog is called Biscuit.")
    assert state["engram"]["dropped"] == 1
    assert [(f["predicate"], f["object"]) for f in state["facts"]] == [("has_dog", "Biscuit")]


@pytest.mark.parametrize("winner, current", [("old", "Berlin"), ("new", "Leeds")])
def test_the_reconcile_role_decides_a_conflict_and_history_is_kept(graph, ns, winner, current):
    graph.add_fact(ns, ns, "lives_in", "Berlin", confidence=0.9)
    verdict = json.dumps({"winner": winner, "reason": "as the model sees it"})
    app, llms = agent(graph, engram=[facts_json((ns, "lives_in", "Leeds"))], reconcile=[verdict])
    turn(app, ns, "I live in Leeds now.")
    assert calls(llms)["reconcile"] == 1
    chain = graph.history(ns, ns, "lives_in")
    assert sorted(m.properties["object"] for m in chain) == ["Berlin", "Leeds"]
    now = [m.properties["object"] for m in chain if m.properties.get("valid_to") is None]
    assert now == [current]


def test_async_graph_runs_the_same_loop(graph, ns):
    app, llms = agent(graph, engram=[facts_json(("I", "works_at", "Acme"))], respond=["Noted."])
    config = {"configurable": {"thread_id": ns, "user_id": ns}}
    state = asyncio.run(app.ainvoke({"messages": [("user", "I work at Acme.")]}, config))
    assert [w["action"] for w in state["writes"]] == ["created"]
    assert state["messages"][-1].content == "Noted."
    assert calls(llms) == {"respond": 1, "engram": 1}


def test_small_talk_skips_recall_and_extraction(graph, ns):
    app, llms = agent(graph, respond=["Noted.", "Hi!"])
    turn(app, ns, "I like tea.")  # recalls nothing yet, but the next turn must not reuse it
    graph.add_episode(ns, "I like green tea best", speaker=ns)
    assert turn(app, ns, "Do I like tea?")["memories"]  # recalled in this turn
    calls_before = calls(llms)["respond"]
    state = turn(app, ns, "hi!")
    assert state["route"]["recall"] is False and state["memories"] == []
    assert calls(llms)["respond"] == calls_before + 1 and state["used"] == []
    assert graph.stats(ns)["nodes"]["Episode"] == 7  # 3 turns x 2, and the one added


def test_one_user_never_recalls_another_users_memories(graph, ns):
    other = f"{ns}-other"
    graph.add_episode(other, "I live in a small flat near the river.", speaker=other)
    app, _ = agent(
        graph, engram=[facts_json(("I", "lives_in", "Leeds")), "{}"], respond=["ok", "ok"]
    )
    turn(app, ns, "I live in Leeds.")
    state = turn(app, other, "Where do I live? Is it Leeds?")
    assert state["memories"]  # the other user's own memory is found ...
    assert all(m["memory"]["ns"] == other for m in state["memories"])
    assert not any("Leeds" in m["memory"]["text"] for m in state["memories"])  # ... not ns's


class Down(FakeMessagesListChatModel):
    """A model server that is not there."""

    def _generate(self, *args, **kwargs):
        raise ConnectionError("connection refused")


@pytest.mark.parametrize("router", ["rules", "llm"])
def test_a_failing_model_loses_no_turn(graph, ns, router):
    s = AgentSettings(engram="llm", reconcile="rules", router=router, recall_queries="llm")
    llms = LLMs(s, models={"default": Down(responses=[AIMessage("x")])})
    app = build_mags_graph(graph, llms, s, checkpointer=InMemorySaver())
    state = turn(app, ns, "I live in Leeds.")
    assert "language model failed" in state["messages"][-1].content
    assert state["engram"]["failed"] is True
    [episode] = graph.list(ns)  # the user's turn, and no failure text stored as an answer
    assert episode.text == "I live in Leeds." and graph.stats(ns)["nodes"]["Fact"] == 0


def test_the_recall_role_adds_queries_and_invalid_output_falls_back(graph, ns):
    graph.add_episode(ns, "Biscuit chewed the sofa again, naughty beagle.", speaker=ns)
    rewrites = [
        '{"recall": true, "queries": ["Biscuit the beagle"]}',
        "not json",
        "still not json",
    ]
    app, llms = agent(graph, recall=rewrites, respond=["ok"])
    found = turn(app, ns, "What did my dog do?", thread="a")["memories"]
    assert "Biscuit" in found[0]["memory"]["text"]
    assert calls(llms)["recall"] == 1
    again = turn(app, ns, "What did my dog do?", thread="b")  # invalid twice: the message
    assert again["memories"] and llms.usage.snapshot()["recall"].failures == 2


class Recording(FakeMessagesListChatModel):
    """A scripted model that keeps the last user message of every prompt it is sent."""

    seen: list[str]

    def _generate(self, messages, *args, **kwargs):
        self.seen.append(str(messages[-1].content))
        return super()._generate(messages, *args, **kwargs)


def test_the_engram_role_sees_current_facts_and_the_recall_role_the_thread(graph, ns):
    """What the adapters were trained on: the facts a turn may change, the turns before."""
    s = AgentSettings(engram="llm", reconcile="rules", recall_queries="llm")
    engram = Recording(
        responses=[AIMessage(facts_json(("I", "lives_in", "Leeds"))), AIMessage('{"facts": []}')],
        seen=[],
    )
    plan = json.dumps({"recall": True, "blocks": "semantic", "queries": [f"where {ns} lives"]})
    recall = Recording(responses=[AIMessage(plan), AIMessage(plan)], seen=[])
    models = {"engram": engram, "recall": recall, "respond": fake("Leeds, nice.", "Noted.")}
    llms = LLMs(s, models=models)
    app = build_mags_graph(graph, llms, s, checkpointer=InMemorySaver())
    turn(app, ns, "I moved to Leeds last week.")
    turn(app, ns, "I just moved to York.")
    assert "Current facts" not in engram.seen[0]  # a new user: nothing known
    assert f"Current facts: {ns} | lives_in | Leeds" in engram.seen[1]
    assert "Earlier turns" not in recall.seen[0]
    assert (
        f"Earlier turns:\n{ns}: I moved to Leeds last week.\nassistant: Leeds, nice."
        in (recall.seen[1])
    )


class CutOffOnce(FakeMessagesListChatModel):
    """An endpoint that stops the first answer at the token limit (openai raises for it)."""

    cut: bool = False

    def _generate(self, *args, **kwargs):
        if not self.cut:
            self.cut = True
            from openai import LengthFinishReasonError
            from openai.types.chat import ChatCompletion

            completion = ChatCompletion.model_validate({
                "id": "x", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "length", "message": {
                    "role": "assistant", "content": '{"facts": [{"subject": "I", "pred'}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 384, "total_tokens": 434},
            })  # fmt: skip
            raise LengthFinishReasonError(completion=completion)
        return super()._generate(*args, **kwargs)


def test_an_answer_cut_at_the_token_limit_is_invalid_output_and_retried(graph, ns):
    s = AgentSettings(engram="llm", reconcile="rules")
    engram = CutOffOnce(responses=[AIMessage(facts_json(("I", "likes", "tea")))])
    llms = LLMs(s, models={"engram": engram, "respond": fake("ok")})
    app = build_mags_graph(graph, llms, s, checkpointer=InMemorySaver())
    state = turn(app, ns, "I like tea.")
    assert [w["action"] for w in state["writes"]] == ["created"]
    usage = llms.usage.snapshot()["engram"]
    assert (usage.calls, usage.failures, usage.completion_tokens) == (2, 1, 384)


def test_blank_model_fields_are_invalid_not_a_crash(graph, ns):
    blank = json.dumps({"facts": [{"subject": " ", "predicate": "likes", "object": "tea"}]})
    app, llms = agent(
        graph,
        engram=[blank, facts_json(("I", "likes", "  "))],
        recall=['{"recall": true, "queries": ["   "]}'],
        respond=["ok"],
    )
    state = turn(app, ns, "I like tea.")
    assert state["engram"]["failed"] is True and state["writes"] == []
    assert llms.usage.snapshot()["recall"].failures == 2  # blank queries: invalid, retried
    assert graph.stats(ns)["nodes"]["Fact"] == 0
    assert graph.list(ns, blocks="episodic", limit=5)[-1].text == "I like tea."


def test_a_user_is_required_and_may_not_contain_the_namespace_separator(graph):
    from graph_db import InvalidInputError

    app, _ = agent(graph)
    with pytest.raises(InvalidInputError, match="needs a user"):
        app.invoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}})
    with pytest.raises(InvalidInputError, match="may not contain"):
        turn(app, "alice/x", "hi")


def test_a_superseded_fact_is_marked_in_the_respond_prompt(graph, ns):
    from mags_langgraph import prompts

    graph.add_fact(ns, ns, "lives_in", "Lisbon", valid_from="2026-01-01")
    graph.add_fact(ns, ns, "lives_in", "Porto", valid_from="2026-03-01")
    hits = graph.recall(ns, "where do I live?", k=5, blocks="semantic", history=True)
    lines = {h.memory.object: prompts.memory_line(1, h) for h in hits}
    assert "no longer true since 2026-03-01" in lines["Lisbon"]
    assert "no longer" not in lines["Porto"]


def test_both_keeps_the_patterns_facts_and_adds_what_only_the_model_found(graph, ns):
    """engram="both": "moved to" gives the patterns' lives_in (which supersedes the old
    city); the model's moved_to of the same city is left out, its sister fact kept."""
    app, llms = agent(
        graph,
        engram=[
            facts_json(("I", "lives_in", "Lisbon")),
            facts_json(
                ("I", "moved_to", "Porto"), ("I", "lives_in", "Braga"), ("I", "has_sister", "Ana")
            ),
        ],
        respond=["Nice.", "Welcome to Porto."],
        engram_mode="both",
    )
    turn(app, ns, "I live in Lisbon.")
    state = turn(app, ns, "I moved to Porto last week and my sister Ana visited.")
    assert state["engram"]["source"] == "both" and state["engram"]["dropped"] == 2
    current = {
        (m.properties["predicate"], m.properties["object"])
        for m in graph.list(ns, blocks="semantic", limit=50)
        if m.current
    }
    assert current == {("lives_in", "Porto"), ("has_sister", "Ana")}
    assert calls(llms)["engram"] == 2
