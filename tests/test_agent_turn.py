"""One turn, every front end: the LangGraph nodes, the create_agent middleware, the loop's
own turn (each sync and async), the LlamaIndex block, the classic memory and the remember
tool store the same graph for the same exchange, and fail the same way (a model down,
invalid engram output, an engine that refuses the facts), on the real store and embedder
with scripted chat models."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage

from graph_db import GraphUnavailableError
from mags_langgraph import MAGSMemoryMiddleware, MemoryLoop, build_mags_graph, memory_tools
from mags_langgraph.llm import LLMs
from mags_langgraph.settings import AgentSettings

SAID, ANSWER = "I moved to Leeds last week.", "Leeds is lovely."
FACTS = json.dumps({"facts": [{"subject": "I", "predicate": "lives_in", "object": "Leeds"}]})


class Scripted(FakeMessagesListChatModel):
    """Answers from a script and 'binds' tools by ignoring them (create_agent asks)."""

    def bind_tools(self, tools, **kwargs):
        return self


class Down(Scripted):
    """A model whose server is down."""

    def _generate(self, *args, **kwargs):
        raise ConnectionError("the model server is down")

    async def _agenerate(self, *args, **kwargs):
        raise ConnectionError("the model server is down")


def loop_for(graph, engram: str = FACTS, respond: Scripted | None = None) -> MemoryLoop:
    settings = AgentSettings(engram="llm", reconcile="rules", engram_retries=0)
    respond = respond or Scripted(responses=[AIMessage(ANSWER)])
    models = {"engram": Scripted(responses=[AIMessage(engram)]), "respond": respond}
    return MemoryLoop(graph, LLMs(settings, models=models), settings)


def config(ns: str) -> dict:
    return {"configurable": {"user_id": ns, "thread_id": ns}}


# -- the front ends: one exchange each (the user says SAID; ANSWER where they answer) -----
def nodes(loop, ns, sync=True):
    app, state = build_mags_graph(loop), {"messages": [("user", SAID)]}
    return app.invoke(state, config(ns)) if sync else asyncio.run(app.ainvoke(state, config(ns)))


def middleware(loop, ns, sync=True, model=None):
    from langchain.agents import create_agent

    model = model or Scripted(responses=[AIMessage(ANSWER)])
    agent = create_agent(model, [], middleware=[MAGSMemoryMiddleware(loop)])
    state = {"messages": [("user", SAID)]}
    return (
        agent.invoke(state, config(ns)) if sync else asyncio.run(agent.ainvoke(state, config(ns)))
    )


def turn(loop, ns, sync=True):
    return loop.turn(ns, SAID) if sync else asyncio.run(loop.aturn(ns, SAID))


def llamaindex(loop, ns, sync=False):
    from llama_index.core.base.llms.types import ChatMessage

    from mags_langgraph.llamaindex import MAGSMemoryBlock

    block = MAGSMemoryBlock(loop=loop, user_id=ns)
    said = [ChatMessage(role="user", content=SAID), ChatMessage(role="assistant", content=ANSWER)]
    asyncio.run(block.aput(said))


def classic(loop, ns, sync=True):
    pytest.importorskip("langchain_classic")
    from mags_langgraph.classic import MAGSClassicMemory

    MAGSClassicMemory(loop=loop, user_id=ns).save_context({"input": SAID}, {"output": ANSWER})


def tool(loop, ns, sync=True):
    """The remember tool, called by an agent: the text is stored, no answer of its own."""
    from langchain.agents import create_agent

    call = {"name": "remember", "args": {"text": SAID}, "id": "1"}
    script = [AIMessage("", tool_calls=[call]), AIMessage("Saved.")]
    agent = create_agent(Scripted(responses=script), memory_tools(loop))
    out = agent.invoke({"messages": [("user", "remember this")]}, config(ns))
    return next(m.content for m in out["messages"] if isinstance(m, ToolMessage))


ANSWERING = {
    "nodes": nodes,
    "nodes-async": lambda loop, ns: nodes(loop, ns, sync=False),
    "middleware": middleware,
    "middleware-async": lambda loop, ns: middleware(loop, ns, sync=False),
    "turn": turn,
    "turn-async": lambda loop, ns: turn(loop, ns, sync=False),
    "llamaindex-async": llamaindex,
    "classic": classic,
}


def stored(graph, ns) -> tuple[list, list]:
    """What the graph holds for ``ns``: the turns (speaker, text) and the facts."""
    episodes = graph.list(ns, blocks="episodic", limit=100)
    facts = [m.properties for m in graph.list(ns, blocks="semantic", limit=100)]
    return (
        sorted((m.properties["speaker"], m.text) for m in episodes),
        sorted((p["subject"], p["predicate"], p["object"]) for p in facts),
    )


@pytest.mark.parametrize("front", ANSWERING)
def test_every_front_end_stores_the_same_turn(graph, ns, front):
    ANSWERING[front](loop_for(graph), ns)
    assert stored(graph, ns) == ([("assistant", ANSWER), (ns, SAID)], [(ns, "lives_in", "Leeds")])


def test_the_remember_tool_stores_the_same_turn_without_an_answer(graph, ns):
    assert tool(loop_for(graph), ns).startswith("Saved (id: ")
    assert stored(graph, ns) == ([(ns, SAID)], [(ns, "lives_in", "Leeds")])


@pytest.mark.parametrize("front", [*ANSWERING, "tool"])
def test_invalid_engram_output_keeps_the_turn_and_writes_no_fact(graph, ns, front):
    loop = loop_for(graph, engram="Maya habite à Leeds.")
    (ANSWERING.get(front) or tool)(loop, ns)
    episodes, facts = stored(graph, ns)
    assert (ns, SAID) in episodes and facts == []
    assert loop.engram_failures == 1


def refuse(*args, **kwargs):
    raise GraphUnavailableError("the engine is restarting")


@pytest.mark.parametrize("front", [*ANSWERING, "tool"])
def test_an_engine_that_refuses_the_facts_keeps_the_turn(graph, ns, front, monkeypatch):
    monkeypatch.setattr(graph, "add_facts", refuse)
    (ANSWERING.get(front) or tool)(loop_for(graph), ns)
    episodes, facts = stored(graph, ns)
    assert (ns, SAID) in episodes and facts == []


REPORTED = {  # where each front end says the facts were not written
    "nodes": lambda out: out["engram"]["write_failed"],
    "turn": lambda out: out.report.write_error,
    "tool": lambda out: out,
}


@pytest.mark.parametrize("front", REPORTED)
def test_the_refused_facts_are_reported(graph, ns, front, monkeypatch):
    monkeypatch.setattr(graph, "add_facts", refuse)
    out = {"nodes": nodes, "turn": turn, "tool": tool}[front](loop_for(graph), ns)
    assert "the engine is restarting" in REPORTED[front](out)


@pytest.mark.parametrize("sync", [True, False])
def test_a_model_that_is_down_loses_no_turn_in_the_graph(graph, ns, sync):
    out = nodes(loop_for(graph, respond=Down(responses=[])), ns, sync=sync)
    notice = out["messages"][-1]
    assert notice.additional_kwargs["mags_error"] and "model server is down" in notice.text
    assert stored(graph, ns) == ([(ns, SAID)], [(ns, "lives_in", "Leeds")])


@pytest.mark.parametrize("sync", [True, False])
def test_a_model_that_is_down_loses_no_turn_in_the_loop(graph, ns, sync):
    out = turn(loop_for(graph, respond=Down(responses=[])), ns, sync=sync)
    assert out.answer is None and "model server is down" in out.error
    assert stored(graph, ns) == ([(ns, SAID)], [(ns, "lives_in", "Leeds")])


@pytest.mark.parametrize("sync", [True, False])
def test_the_agents_model_down_leaves_the_message_stored(graph, ns, sync):
    """create_agent: the caller's model fails, the agent raises; the message was stored
    before it was called."""
    with pytest.raises(ConnectionError):
        middleware(loop_for(graph), ns, sync=sync, model=Down(responses=[]))
    assert stored(graph, ns) == ([(ns, SAID)], [])
