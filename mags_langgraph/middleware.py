"""``MAGSMemoryMiddleware``: MAGS memory for ``langchain.agents.create_agent``.

    agent = create_agent(model, tools, middleware=[MAGSMemoryMiddleware(loop)])
    agent.invoke({"messages": [...]}, {"configurable": {"user_id": "maya"}})

Before the agent runs: ``MemoryLoop.before`` (route, recall, the message stored; once per
invocation, not per model call). Around each model call: the memories appended to the
system prompt, numbered for citation. After the agent: ``MemoryLoop.after`` (the answer
stored, the memories it used reinforced, the message's facts written). The middleware only
translates: the turn's memory logic and its error handling live in the loop.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import SystemMessage
from langgraph.config import get_config

from graph_db import LiquidGraph
from mags_langgraph import prompts
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop, TurnContext, check_user
from mags_langgraph.nodes import answer_of, last_user_message, thread_of

MEMORY_HEADER = "What you remember of the user (cite what you use as [n]):"


class MemoryAgentState(AgentState):
    mags_turn: NotRequired[Annotated[dict[str, Any] | None, PrivateStateAttr]]  # TurnContext


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
        self.user_id = None if user_id is None else check_user(user_id)
        self.write = write

    def _ask(self, state: MemoryAgentState, runtime: Any) -> tuple[str, str, dict]:
        user = user_id_of(runtime, self.user_id)
        messages = state["messages"]
        return user, last_user_message(messages), {
            "thread": thread_of(user, messages), "store": self.write}  # fmt: skip

    # before the agent: route, recall, the message stored (before any model call)
    def before_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        user, message, kw = self._ask(state, runtime)
        return {"mags_turn": self.loop.before(user, message, **kw).model_dump(mode="json")}

    async def abefore_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        user, message, kw = self._ask(state, runtime)
        turn = await self.loop.abefore(user, message, **kw)
        return {"mags_turn": turn.model_dump(mode="json")}

    # around each model call: the memories in the system prompt
    def _with_memories(self, request: ModelRequest) -> ModelRequest:
        turn = _turn(request.state or {})
        if turn is None or not turn.memories:
            return request
        block = f"{MEMORY_HEADER}\n{prompts.memory_lines(turn.memories)}"
        base = request.system_prompt or ""
        system = f"{base}\n\n{block}" if base else block
        return request.override(system_message=SystemMessage(system))

    def wrap_model_call(self, request, handler):
        return handler(self._with_memories(request))

    async def awrap_model_call(self, request, handler):
        return await handler(self._with_memories(request))

    # after the agent: the answer stored, what it used reinforced, the facts written
    def after_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        if (turn := _turn(state)) is not None:
            self.loop.after(turn, answer_of(state["messages"]))
        return None

    async def aafter_agent(self, state: MemoryAgentState, runtime: Any) -> dict[str, Any] | None:
        if (turn := _turn(state)) is not None:
            await self.loop.aafter(turn, answer_of(state["messages"]))
        return None


def _turn(state: Any) -> TurnContext | None:
    raw = state.get("mags_turn")
    return TurnContext.model_validate(raw) if raw else None
