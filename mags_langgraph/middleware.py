"""``MAGSMemoryMiddleware``: MAGS memory for ``langchain.agents.create_agent``.

    agent = create_agent(model, tools, middleware=[MAGSMemoryMiddleware(loop)])
    agent.invoke({"messages": [...]}, {"configurable": {"user_id": "maya"}})

Before the agent runs: recall for the user's message (once per invocation, not per model
call). Around each model call: the memories appended to the system prompt, numbered for
citation. After the agent: the turn stored (episodes first, then its facts) and the
memories the final answer used reinforced.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.config import get_config

from graph_db import InvalidInputError, LiquidGraph
from graph_db.models import Recalled
from mags_langgraph import prompts
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.nodes import last_user_message

MEMORY_HEADER = "What you remember of the user (cite what you use as [n]):"


class MemoryAgentState(AgentState):
    mags_memories: NotRequired[Annotated[list[dict[str, Any]], PrivateStateAttr]]  # Recalled


def user_id_of(runtime: Any, fixed: str | None = None) -> str:
    """The memory namespace: ``fixed``, else the runtime context's ``user_id``, else the
    config's ``configurable.user_id``."""
    if fixed:
        return fixed
    context = getattr(runtime, "context", None)
    found = (
        context.get("user_id") if isinstance(context, dict) else getattr(context, "user_id", None)
    )
    if not found:
        try:
            found = get_config().get("configurable", {}).get("user_id")
        except RuntimeError:  # outside a runnable context
            found = None
    if not found:
        raise InvalidInputError(
            "MAGS memory needs a user: pass user_id= to the middleware, a context with "
            "user_id, or config {'configurable': {'user_id': ...}}"
        )
    return str(found)


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

    # before: recall once per invocation
    def before_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        ns = user_id_of(runtime, self.user_id)
        query = last_user_message(state["messages"])
        found = self.loop.recall(ns, query) if query else []
        return {"mags_memories": [r.model_dump(mode="json") for r in found]}

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

    # after: store the turn, its facts, and learn from the answer
    def after_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        if not self.write:
            return None
        ns = user_id_of(runtime, self.user_id)
        message = last_user_message(state["messages"])
        last = state["messages"][-1] if state["messages"] else None
        answer = str(last.text) if isinstance(last, AIMessage) else None
        if not message:
            return None
        ids = self.loop.store_turn(ns, ns, message, answer)
        extraction = self.loop.extract(ns, message)
        self.loop.write_facts(ns, extraction.facts, ids[0])
        if answer:
            self.loop.learn(ns, answer, _memories(state))
        return None

    async def aafter_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.after_agent, state, runtime)


def _memories(state: Any) -> list[Recalled]:
    return [Recalled.model_validate(m) for m in state.get("mags_memories") or []]
