"""LangGraph nodes of the memory loop and ``build_mags_graph``, which compiles them.

    graph = build_mags_graph(memory, llms, checkpointer=InMemorySaver())
    graph.invoke({"messages": [("user", "I moved to Leeds")]},
                 {"configurable": {"thread_id": "t1", "user_id": "maya"}})

START -> router -> [recall] -> respond -> engram -> [reconcile] -> END. Respond stores the
user's message before it calls the model (a failure loses nothing; recall, before it, does
not find the message itself); engram stores the answer. The router and recall degrade on
failure (rules, no memories) instead of stopping the turn. Each node works sync
(``invoke``) and async (``ainvoke``); the user (the memory namespace) comes from the
state's ``user`` or the config's ``user_id``.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.graph import END, START, MessagesState, StateGraph

from graph_db import FactWrite, LiquidGraph, MagsError
from graph_db.models import Recalled
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import ASSISTANT, MemoryLoop, Said, check_user
from mags_langgraph.schemas import Route, Triplet
from mags_langgraph.settings import AgentSettings

log = logging.getLogger(__name__)
HISTORY_MESSAGES = 8  # the conversation the respond role sees besides the memories
# what a turn starts from: a thread's state is kept between turns, the last turn's
# memories must not be answered from (or reinforced) again
FRESH_TURN: dict = {"memories": [], "used": [], "episode_ids": [], "facts": [], "writes": [],
                    "engram": {}}  # fmt: skip


class MemoryState(MessagesState, total=False):
    """The conversation plus what memory did this turn, as plain data (any checkpointer
    serialises it; ``route_of``, ``memories_of``, ``facts_of``, ``writes_of`` read it)."""

    user: str
    session: str
    route: dict[str, Any]  # a Route
    memories: list[dict[str, Any]]  # Recalled
    used: list[str]
    episode_ids: list[str]
    facts: list[dict[str, Any]]  # Triplet
    engram: dict[str, Any]  # source, failed, dropped
    writes: list[dict[str, Any]]  # FactWrite


def route_of(state: MemoryState) -> Route | None:
    raw = state.get("route")
    return Route.model_validate(raw) if raw else None


def memories_of(state: MemoryState) -> list[Recalled]:
    return [Recalled.model_validate(m) for m in state.get("memories") or []]


def facts_of(state: MemoryState) -> list[Triplet]:
    return [Triplet.model_validate(f) for f in state.get("facts") or []]


def writes_of(state: MemoryState) -> list[FactWrite]:
    return [FactWrite.model_validate(w) for w in state.get("writes") or []]


def _dump(items) -> list[dict[str, Any]]:
    return [i.model_dump(mode="json") for i in items]


def user_of(state: MemoryState, config: RunnableConfig | None) -> str:
    """The namespace of this conversation: state ``user``, else config ``user_id``."""
    configurable = (config or {}).get("configurable", {})
    return check_user(state.get("user") or configurable.get("user_id"))


def _session(state: MemoryState, config: RunnableConfig | None) -> str:
    configurable = (config or {}).get("configurable", {})
    return state.get("session") or configurable.get("thread_id") or "default"


def last_user_message(messages: list[BaseMessage]) -> str:
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            return str(m.text)
    return ""


def _answer(messages: list[BaseMessage]) -> str | None:
    last = messages[-1] if messages else None
    if isinstance(last, AIMessage) and not last.additional_kwargs.get("mags_error"):
        return str(last.text)
    return None


class MemoryNodes:
    """The five nodes over one ``MemoryLoop`` (each a sync function and an async twin)."""

    def __init__(self, loop: MemoryLoop) -> None:
        self.loop = loop

    # router (a model failure falls back to the rules)
    def router(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, message = user_of(state, config), last_user_message(state["messages"])
        return {**FRESH_TURN, "route": self.loop.route(ns, message).model_dump()}

    async def arouter(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, message = user_of(state, config), last_user_message(state["messages"])
        route = await self.loop.aroute(ns, message)
        return {**FRESH_TURN, "route": route.model_dump()}

    # recall (before the message is stored: it is not its own memory)
    def recall(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, message = user_of(state, config), last_user_message(state["messages"])
        try:
            queries = self.loop.queries(ns, message, _said(ns, state["messages"]))
            found = self.loop.recall(ns, queries, route_of(state))
        except MagsError as e:  # answer without memories rather than not at all
            log.warning("recall failed (%s); answering without memories", e)
            found = []
        return {"memories": _dump(found)}

    async def arecall(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, message = user_of(state, config), last_user_message(state["messages"])
        try:
            queries = await self.loop.aqueries(ns, message, _said(ns, state["messages"]))
            found = await self.loop.arecall(ns, queries, route_of(state))
        except MagsError as e:
            log.warning("recall failed (%s); answering without memories", e)
            found = []
        return {"memories": _dump(found)}

    # respond: the user's message is stored first, before the model is called
    def respond(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, memories = user_of(state, config), memories_of(state)
        message = last_user_message(state["messages"])
        ids = self.loop.store_turn(ns, ns, message, None, _session(state, config))
        try:
            answer = self.loop.respond(ns, memories, _history(state["messages"]))
        except Exception as e:  # the model is down or refused: the message is stored
            return {**_no_answer(e), "episode_ids": ids}
        used = self.loop.learn(ns, answer, memories)
        return {"messages": [AIMessage(answer)], "used": used, "episode_ids": ids}

    async def arespond(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, memories = user_of(state, config), memories_of(state)
        message = last_user_message(state["messages"])
        ids = await self.loop.astore_turn(ns, ns, message, None, _session(state, config))
        try:
            answer = await self.loop.arespond(ns, memories, _history(state["messages"]))
        except Exception as e:
            return {**_no_answer(e), "episode_ids": ids}
        used = await self.loop.alearn(ns, answer, memories)
        return {"messages": [AIMessage(answer)], "used": used, "episode_ids": ids}

    # engram: the answer stored, then the facts the message states
    def engram(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, message = user_of(state, config), last_user_message(state["messages"])
        ids = list(state["episode_ids"])
        if answer := _answer(state["messages"]):
            ids.append(self.loop.store_answer(ns, answer, _session(state, config)))
        route = route_of(state)
        extraction = self.loop.extract(ns, message) if route is None or route.write else None
        return _engram_update(ids, extraction)

    async def aengram(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, message = user_of(state, config), last_user_message(state["messages"])
        ids = list(state["episode_ids"])
        if answer := _answer(state["messages"]):
            ids.append(await self.loop.astore_answer(ns, answer, _session(state, config)))
        route = route_of(state)
        write = route is None or route.write
        extraction = await self.loop.aextract(ns, message) if write else None
        return _engram_update(ids, extraction)

    # reconcile: write the facts; conflicts are adjudicated by the reconcile role
    def reconcile(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, source = user_of(state, config), state["episode_ids"][0]
        try:
            return {"writes": _dump(self.loop.write_facts(ns, facts_of(state), source))}
        except MagsError as e:
            return _not_written(state, e)

    async def areconcile(self, state: MemoryState, config: RunnableConfig) -> dict:
        ns, source = user_of(state, config), state["episode_ids"][0]
        try:
            return {"writes": _dump(await self.loop.awrite_facts(ns, facts_of(state), source))}
        except MagsError as e:
            return _not_written(state, e)


def _history(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The thread's last messages for the respond role, without failure notices."""
    kept = [m for m in messages if not m.additional_kwargs.get("mags_error")]
    return kept[-HISTORY_MESSAGES:]


def _said(user: str, messages: list[BaseMessage]) -> list[Said]:
    """The thread's turns before the last user message, as (speaker, text), for the
    recall role to resolve pronouns from (the loop keeps the last few)."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=0)
    return [
        (user if isinstance(m, HumanMessage) else ASSISTANT, str(m.text))
        for m in messages[:last]
        if isinstance(m, HumanMessage | AIMessage)
        and not m.additional_kwargs.get("mags_error")
        and str(m.text).strip()
    ]


def _no_answer(error: Exception) -> dict:
    log.warning("respond failed (%s: %s); the turn is stored without an answer",
                type(error).__name__, error)  # fmt: skip
    text = f"(No answer: the language model failed: {type(error).__name__}: {error})"
    return {"messages": [AIMessage(text, additional_kwargs={"mags_error": True})], "used": []}


def _not_written(state: MemoryState, error: Exception) -> dict:
    """The facts could not be written (the graph refused them): the turn is kept as is."""
    log.warning("facts not written (%s); the turn stays an episode only", error)
    return {"writes": [], "engram": {**(state.get("engram") or {}), "write_failed": str(error)}}


def _engram_update(ids: list[str], extraction) -> dict:
    if extraction is None:
        return {"episode_ids": ids, "facts": [], "engram": {"source": "none"}}
    info = {"source": extraction.source, "failed": extraction.failed, "dropped": extraction.dropped}
    return {"episode_ids": ids, "facts": _dump(extraction.facts), "engram": info}


def _after_router(state: MemoryState) -> str:
    route = state.get("route")
    return "recall" if route is None or route["recall"] else "respond"


def _after_engram(state: MemoryState) -> str:
    return "reconcile" if state.get("facts") else END


def build_mags_graph(
    memory: LiquidGraph | MemoryLoop,
    llms: LLMs | None = None,
    settings: AgentSettings | None = None,
    *,
    checkpointer: Any = None,
    store: Any = None,
):
    """The memory loop as a compiled LangGraph (``invoke``/``ainvoke``/``stream``).

    ``memory``: the ``LiquidGraph`` (or a ready ``MemoryLoop``); ``llms``: the models
    (default: from ``AgentSettings``: an endpoint, or the local llama.cpp server);
    ``checkpointer`` keeps each thread's messages; ``store`` is handed to LangGraph
    (e.g. ``MAGSStore`` over the same graph, for other nodes of a larger agent).
    """
    loop = memory if isinstance(memory, MemoryLoop) else MemoryLoop(memory, llms, settings)
    nodes = MemoryNodes(loop)
    builder = StateGraph(MemoryState)
    for name in ("router", "recall", "respond", "engram", "reconcile"):
        func, afunc = getattr(nodes, name), getattr(nodes, f"a{name}")
        builder.add_node(name, RunnableLambda(func, afunc=afunc, name=name))
    builder.add_edge(START, "router")
    builder.add_conditional_edges("router", _after_router, ["recall", "respond"])
    builder.add_edge("recall", "respond")
    builder.add_edge("respond", "engram")
    builder.add_conditional_edges("engram", _after_engram, ["reconcile", END])
    builder.add_edge("reconcile", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="mags")
