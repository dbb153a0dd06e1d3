"""``MAGSMemoryMiddleware``: MAGS memory for ``langchain.agents.create_agent``.

    agent = create_agent(model, tools, middleware=[MAGSMemoryMiddleware(loop)])
    agent.invoke({"messages": [...]}, {"configurable": {"user_id": "maya"}})

Before the agent runs: recall for the user's message (once per invocation, not per model
call), then the message stored (a failing model loses nothing). Around each model call: the
memories appended to the system prompt, numbered for citation. After the agent: the answer
stored, the message's facts written, the memories the answer used reinforced.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.config import get_config

from graph_db import LiquidGraph, MagsError
from graph_db.models import Recalled
from mags_langgraph import prompts
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop, check_user
from mags_langgraph.nodes import last_user_message

log = logging.getLogger(__name__)
MEMORY_HEADER = "What you remember of the user (cite what you use as [n]):"


class MemoryAgentState(AgentState):
    mags_memories: NotRequired[Annotated[list[dict[str, Any]], PrivateStateAttr]]  # Recalled
    mags_turn: NotRequired[Annotated[str | None, PrivateStateAttr]]  # the stored message


def user_id_of(runtime: Any, fixed: str | None = None) -> str:
    """The memory namespace: ``fixed``, else the runtime context's ``user_id``, else the
    config's ``configurable.user_id``."""
    if fixed:
        return check_user(fixed)
    context = getattr(runtime, "context", None)
    found = (
        context.get("user_id") if isinstance(context, dict) else getattr(context, "user_id", None)
    )
    if not found:
        try:
            found = get_config().get("configurable", {}).get("user_id")
        except RuntimeError:  # outside a runnable context
            found = None
    return check_user(found)


class MAGSMemoryMiddleware(AgentMiddleware[MemoryAgentState]):
    """Recall before the model, engram after the agent."""

    state_schema = MemoryAgentState

    def __init__(
        self,
        memory: MemoryLoop | LiquidGraph,
        llms: LLMs | None = None,
        *,
        user_id: str | None = None,
        write: bool = True,
    ) -> None:
        super().__init__()
        self.loop = memory if isinstance(memory, MemoryLoop) else MemoryLoop(memory, llms)
        self.user_id = user_id
        self.write = write

    # before: recall, then the message stored (before any model call), once per invocation
    def before_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        ns = user_id_of(runtime, self.user_id)
        query = last_user_message(state["messages"])
        if not query:
            return {"mags_memories": [], "mags_turn": None}
        try:  # before the message is stored: it is not its own memory
            found = self.loop.recall(ns, query)
        except MagsError as e:
            log.warning("recall failed (%s); the agent runs without memories", e)
            found = []
        turn = self.loop.store_turn(ns, ns, query)[0] if self.write else None
        return {"mags_memories": [r.model_dump(mode="json") for r in found], "mags_turn": turn}

    async def abefore_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.before_agent, state, runtime)

    # around each model call: the memories in the system prompt
    def _with_memories(self, request: ModelRequest) -> ModelRequest:
        memories = _memories(request.state or {})
        if not memories:
            return request
        block = f"{MEMORY_HEADER}\n{prompts.memory_lines(memories)}"
        base = request.system_prompt or ""
        system = f"{base}\n\n{block}" if base else block
        return request.override(system_message=SystemMessage(system))

    def wrap_model_call(self, request, handler):
        return handler(self._with_memories(request))

    async def awrap_model_call(self, request, handler):
        return await handler(self._with_memories(request))

    # after: the answer stored, the message's facts written, the used memories reinforced
    def after_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        turn = state.get("mags_turn")
        if not self.write or not turn:
            return None
        ns = user_id_of(runtime, self.user_id)
        message = last_user_message(state["messages"])
        last = state["messages"][-1] if state["messages"] else None
        answer = str(last.text) if isinstance(last, AIMessage) else None
        if answer:
            self.loop.store_answer(ns, answer)
        try:
            self.loop.write_facts(ns, self.loop.extract(ns, message).facts, turn)
        except MagsError as e:  # the graph refused them: the message is stored already
            log.warning("facts not written (%s)", e)
        if answer:
            self.loop.learn(ns, answer, _memories(state))
        return None

    async def aafter_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.after_agent, state, runtime)


def _memories(state: Any) -> list[Recalled]:
    return [Recalled.model_validate(m) for m in state.get("mags_memories") or []]
