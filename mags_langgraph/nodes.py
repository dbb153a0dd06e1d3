"""LangGraph nodes of the memory turn and ``build_mags_graph``, which compiles them.

    graph = build_mags_graph(memory, llms, checkpointer=InMemorySaver())
    graph.invoke({"messages": [("user", "I moved to Leeds")]},
                 {"configurable": {"thread_id": "t1", "user_id": "maya"}})

START -> recall -> respond -> engram -> END: ``MemoryLoop.before`` (route, recall, the
message stored), the respond role, ``MemoryLoop.after`` (the answer stored, what it used
reinforced, the message's facts written). The nodes only translate between the graph's
state and the loop; each works sync (``invoke``) and async (``ainvoke``). The user (the
memory namespace) comes from the state's ``user`` or the config's ``user_id``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.graph import END, START, MessagesState, StateGraph

from graph_db import FactWrite, LiquidGraph, Recalled
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import ASSISTANT, MemoryLoop, Said, TurnContext, TurnReport, check_user
from mags_langgraph.schemas import Route, Triplet
from mags_langgraph.settings import AgentSettings

log = logging.getLogger(__name__)
HISTORY_MESSAGES = 8  # the conversation the respond role sees besides the memories


class MemoryState(MessagesState, total=False):
    """The conversation plus what memory did this turn, as plain data (any checkpointer
    serialises it; ``route_of``, ``memories_of``, ``facts_of``, ``writes_of`` read it)."""

    user: str
    session: str
    turn: dict[str, Any]  # the TurnContext of this turn
    route: dict[str, Any]  # a Route
    memories: list[dict[str, Any]]  # Recalled
    used: list[str]
    episode_ids: list[str]
    facts: list[dict[str, Any]]  # Triplet
    engram: dict[str, Any]  # source, failed, dropped (write_failed)
    writes: list[dict[str, Any]]  # FactWrite
    stages_ms: dict[str, float]  # wall time of each memory stage and of the answer


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


def answer_of(messages: list[BaseMessage]) -> str | None:
    """The model's answer ending the thread (not a failure notice), if any."""
    last = messages[-1] if messages else None
    if isinstance(last, AIMessage) and not last.additional_kwargs.get("mags_error"):
        return str(last.text)
    return None


class MemoryNodes:
    """The three nodes over one ``MemoryLoop`` (each a sync function and an async twin,
    both translating state to the loop's calls and back)."""

    def __init__(self, loop: MemoryLoop) -> None:
        self.loop = loop

    def _ask(self, state: MemoryState, config: RunnableConfig) -> tuple[str, str, dict]:
        user = user_of(state, config)
        message = last_user_message(state["messages"])
        return user, message, {"thread": thread_of(user, state["messages"]),
                               "session": _session(state, config)}  # fmt: skip

    # before: route, recall, the message stored
    def recall(self, state: MemoryState, config: RunnableConfig) -> dict:
        user, message, kw = self._ask(state, config)
        return _before_update(self.loop.before(user, message, **kw))

    async def arecall(self, state: MemoryState, config: RunnableConfig) -> dict:
        user, message, kw = self._ask(state, config)
        return _before_update(await self.loop.abefore(user, message, **kw))

    # respond: a failing model loses nothing (the message is stored)
    def respond(self, state: MemoryState, config: RunnableConfig) -> dict:
        started = time.perf_counter()
        try:
            answer = self.loop.respond(turn_of(state), _history(state["messages"]))
        except Exception as e:
            return _no_answer(e)
        return _answered(state, answer, started)

    async def arespond(self, state: MemoryState, config: RunnableConfig) -> dict:
        started = time.perf_counter()
        try:
            answer = await self.loop.arespond(turn_of(state), _history(state["messages"]))
        except Exception as e:
            return _no_answer(e)
        return _answered(state, answer, started)

    # after: the answer stored, the used memories reinforced, the facts written
    def engram(self, state: MemoryState, config: RunnableConfig) -> dict:
        return _after_update(state, self.loop.after(turn_of(state), answer_of(state["messages"])))

    async def aengram(self, state: MemoryState, config: RunnableConfig) -> dict:
        report = await self.loop.aafter(turn_of(state), answer_of(state["messages"]))
        return _after_update(state, report)


def turn_of(state: MemoryState) -> TurnContext:
    return TurnContext.model_validate(state["turn"])


def _before_update(turn: TurnContext) -> dict:
    """The state of a new turn (a thread's state is kept between turns: the last turn's
    facts and writes must not show as this one's)."""
    return {
        "turn": turn.model_dump(mode="json"),
        "route": turn.route.model_dump(),
        "memories": _dump(turn.memories),
        "episode_ids": [turn.episode_id] if turn.episode_id else [],
        "used": [], "facts": [], "writes": [], "engram": {},
        "stages_ms": dict(turn.stages_ms),
    }  # fmt: skip


def _answered(state: MemoryState, answer: str, started: float) -> dict:
    stages = {**(state.get("stages_ms") or {}), "respond": (time.perf_counter() - started) * 1e3}
    return {"messages": [AIMessage(answer)], "stages_ms": stages}


def _after_update(state: MemoryState, report: TurnReport) -> dict:
    x = report.extraction
    engram: dict[str, Any] = {"source": x.source, "failed": x.failed, "dropped": x.dropped}
    if report.write_error:
        engram["write_failed"] = report.write_error
    ids = list(state.get("episode_ids") or [])
    return {
        "episode_ids": [*ids, report.answer_id] if report.answer_id else ids,
        "used": report.used,
        "facts": _dump(x.facts),
        "writes": _dump(report.writes),
        "engram": engram,
        "stages_ms": {**(state.get("stages_ms") or {}), **report.stages_ms},
    }


def _history(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The thread's last messages for the respond role, without failure notices."""
    kept = [m for m in messages if not m.additional_kwargs.get("mags_error")]
    return kept[-HISTORY_MESSAGES:]


def thread_of(user: str, messages: list[BaseMessage]) -> list[Said]:
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
    for name in ("recall", "respond", "engram"):
        func, afunc = getattr(nodes, name), getattr(nodes, f"a{name}")
        builder.add_node(name, RunnableLambda(func, afunc=afunc, name=name))
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "respond")
    builder.add_edge("respond", "engram")
    builder.add_edge("engram", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="mags")
