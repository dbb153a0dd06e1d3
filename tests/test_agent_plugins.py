"""Memory for create_agent (middleware, tools) and LlamaIndex (retriever, memory block),
on the real store and embedder with scripted chat models."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage
from pydantic import Field

from mags_langgraph import MAGSMemoryMiddleware, MemoryLoop, memory_tools
from mags_langgraph.llm import LLMs
from mags_langgraph.settings import AgentSettings


class Recording(FakeMessagesListChatModel):
    """Answers from a script, keeps every prompt it saw, 'binds' tools by ignoring them."""

    seen: list = Field(default_factory=list)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        return super()._generate(messages, stop, run_manager, **kwargs)

    def bind_tools(self, tools, **kwargs):
        return self


def loop_for(graph, *engram: str) -> MemoryLoop:
    settings = AgentSettings(engram="llm", reconcile="rules")
    engram_model = FakeMessagesListChatModel(responses=[AIMessage(a) for a in engram or ["{}"]])
    return MemoryLoop(graph, LLMs(settings, models={"engram": engram_model}), settings)


def test_middleware_recalls_before_the_model_and_stores_after_the_agent(graph, ns):
    from langchain.agents import create_agent

    facts = {"facts": [{"subject": "I", "predicate": "allergic_to", "object": "peanuts"}]}
    loop = loop_for(graph, json.dumps(facts), "{}")
    model = Recording(responses=[AIMessage("Noted!"), AIMessage("Try apple slices [1].")])
    agent = create_agent(model, [], middleware=[MAGSMemoryMiddleware(loop)])
    agent.invoke(
        {"messages": [("user", "I'm allergic to peanuts.")]}, {"configurable": {"user_id": ns}}
    )
    assert graph.stats(ns)["nodes"]["Fact"] == 1  # engram ran after the agent
    agent.invoke(
        {"messages": [("user", "Any snack ideas for me?")]}, {"configurable": {"user_id": ns}}
    )
    system = model.seen[-1][0]
    assert system.type == "system" and "allergic to peanuts" in system.content
    assert "[1]" in system.content  # numbered for citation


def test_a_message_longer_than_a_memory_loses_neither_it_nor_the_answer(graph, ns):
    """45,000 characters (over MAGS_MAX_TEXT_CHARS) used to raise after the model answered."""
    from langchain.agents import create_agent

    limit = graph.settings.max_text_chars
    message = " ".join(f"line {i} of a pasted log." for i in range(2000))[:45_000]
    answer = " ".join(f"Point {i} of a long answer." for i in range(limit // 20))
    model = Recording(responses=[AIMessage(answer)])
    agent = create_agent(model, [], middleware=[MAGSMemoryMiddleware(loop_for(graph))])
    out = agent.invoke({"messages": [("user", message)]}, {"configurable": {"user_id": ns}})
    assert out["messages"][-1].content == answer
    turns = graph.list(ns, "episodic", limit=10)
    said = sorted((m for m in turns if m.speaker == ns), key=lambda m: message.index(m.text))
    answered = sorted(
        (m for m in turns if m.speaker == "assistant"), key=lambda m: answer.index(m.text)
    )
    assert len(said) == 2 and len(answered) == 2  # each stored in two parts
    assert all(len(m.text) <= limit for m in turns)
    assert "".join(m.text for m in said) == message
    assert "".join(m.text for m in answered) == answer


def test_middleware_without_a_user_is_a_clear_error(graph):
    from langchain.agents import create_agent

    from graph_db import InvalidInputError

    agent = create_agent(
        Recording(responses=[AIMessage("hi")]),
        [],
        middleware=[MAGSMemoryMiddleware(loop_for(graph))],
    )
    with pytest.raises(InvalidInputError, match="needs a user"):
        agent.invoke({"messages": [("user", "hello")]})


def test_memory_tools_remember_recall_and_forget(graph, ns):
    from langchain.agents import create_agent

    loop = loop_for(graph, "{}")
    script = [
        AIMessage(
            "",
            tool_calls=[
                {
                    "name": "remember",
                    "args": {"text": "I have a cat named Miso.\nShe is grey."},
                    "id": "1",
                }
            ],
        ),
        AIMessage(
            "", tool_calls=[{"name": "recall_memories", "args": {"query": "my cat"}, "id": "2"}]
        ),
        AIMessage("Your cat is Miso."),
    ]
    agent = create_agent(Recording(responses=script), memory_tools(loop))
    out = agent.invoke(
        {"messages": [("user", "remember my cat")]}, {"configurable": {"user_id": ns}}
    )
    results = [m.content for m in out["messages"] if isinstance(m, ToolMessage)]
    assert results[0].startswith("Saved (id: ")
    assert "I have a cat named Miso" in results[1]
    memory_id = results[1].split("(id: ")[1].split(")")[0]
    [forget] = [t for t in memory_tools(loop) if t.name == "forget_memory"]
    forget_agent = create_agent(
        Recording(
            responses=[
                AIMessage(
                    "",
                    tool_calls=[
                        {"name": "forget_memory", "args": {"memory_id": memory_id}, "id": "3"}
                    ],
                ),
                AIMessage("Done."),
            ]
        ),
        [forget],
    )
    done = forget_agent.invoke(
        {"messages": [("user", "forget it")]}, {"configurable": {"user_id": ns}}
    )
    assert "Forgot 1 memory" in done["messages"][-2].content
    assert all("Miso" not in m.text for m in graph.list(ns))


def test_llamaindex_retriever_returns_nodes_with_provenance(graph, ns):
    from mags_langgraph.llamaindex import MAGSRetriever

    graph.add_episodes(
        ns,
        [
            {
                "text": "We adopted a beagle puppy called Biscuit today!",
                "speaker": "Sam",
                "ts": "2026-05-01T09:30",
            },
            {"text": "I'm training for the Leeds half marathon.", "speaker": "Sam"},
        ],
    )
    nodes = MAGSRetriever(graph, user_id=ns, k=2).retrieve("What is Sam's dog called?")
    assert "Biscuit" in nodes[0].node.get_content()
    meta = nodes[0].node.metadata
    assert (meta["ns"], meta["block"], meta["speaker"]) == (ns, "episodic", "Sam")
    assert nodes[0].score == max(n.score for n in nodes)
    from llama_index.core.schema import MetadataMode

    seen = nodes[0].node.get_content(MetadataMode.LLM)  # what a query engine's model reads
    assert "when: 2026-05-01 09:30 UTC" in seen and "1777" not in seen and "ts:" not in seen
    assert MAGSRetriever(graph, user_id=f"{ns}-nobody").retrieve("dog") == []


def test_llamaindex_memory_block_puts_and_gets(graph, ns):
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.memory import Memory

    from mags_langgraph.llamaindex import MAGSMemoryBlock

    block = MAGSMemoryBlock(loop=loop_for(graph, "{}"), user_id=ns)

    async def run():
        await block.aput(
            [
                ChatMessage(role="user", content="I live in Porto with my cat Miso."),
                ChatMessage(role="assistant", content="Porto is lovely!"),
            ]
        )
        direct = await block.aget([ChatMessage(role="user", content="Where do I live?")])
        memory = Memory.from_defaults(session_id=ns, memory_blocks=[block], token_limit=4000)
        await memory.aput(ChatMessage(role="user", content="What is my cat called?"))
        return direct, await memory.aget()

    direct, messages = asyncio.run(run())
    assert "Porto" in direct
    assert "Miso" in messages[0].content  # the block, in the system message Memory builds


def test_classic_memory_adapter(graph, ns):
    pytest.importorskip("langchain_classic")
    from mags_langgraph.classic import MAGSClassicMemory

    memory = MAGSClassicMemory(loop=loop_for(graph, "{}"), user_id=ns)
    assert memory.load_memory_variables({"input": "Where do I live?"}) == {"history": ""}
    memory.save_context({"input": "I live in Porto."}, {"output": "Lovely city!"})
    history = memory.load_memory_variables({"input": "Where do I live?"})["history"]
    assert history.startswith("[1]") and "I live in Porto." in history
    assert "Lovely city!" not in history  # the assistant's words are not the user's memory
    memory.clear()
    assert memory.load_memory_variables({"input": "Where do I live?"}) == {"history": ""}
