"""Memory tools for an agent (recall / remember / forget), user-scoped by ``ToolRuntime``.

tools = memory_tools(loop)
agent = create_agent(model, tools, ...)
agent.invoke(..., {"configurable": {"user_id": "maya"}})
"""

from __future__ import annotations

from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, tool

from graph_db import LiquidGraph, MagsError
from mags_langgraph import prompts
from mags_langgraph.loop import MemoryLoop, check_user
from mags_langgraph.middleware import user_id_of


def memory_tools(memory: MemoryLoop | LiquidGraph, *, user_id: str | None = None) -> list[BaseTool]:
    """``recall_memories``, ``remember`` and ``forget_memory`` over one memory."""
    loop = memory if isinstance(memory, MemoryLoop) else MemoryLoop(memory)
    user_id = None if user_id is None else check_user(user_id)

    @tool
    def recall_memories(query: str, runtime: ToolRuntime) -> str:
        """Look up what you remember about the user for a question or topic.
        Returns numbered memories, each with its id."""
        hits = loop.recall(user_id_of(runtime, user_id), query)
        if not hits:
            return "No memories found."
        return "\n".join(f"{prompts.memory_line(i, h)} (id: {h.id})" for i, h in enumerate(hits, 1))

    @tool
    def remember(text: str, runtime: ToolRuntime) -> str:
        """Save something about the user worth remembering (a sentence in their words)."""
        ns = user_id_of(runtime, user_id)
        try:
            done = loop.remember(ns, text)
        except MagsError as e:
            return f"Not saved: {e}"
        saved, report = done.context.episode_id, done.report
        if report.write_error:
            return f"Saved the text (id: {saved}), not its facts: {report.write_error}"
        return f"Saved (id: {saved}; {len(report.writes)} fact(s))."

    @tool
    def forget_memory(memory_id: str, runtime: ToolRuntime) -> str:
        """Forget one memory by its id (from recall_memories)."""
        ns = user_id_of(runtime, user_id)
        try:
            gone = loop.graph.forget(ns, memory_id)
        except MagsError as e:
            return f"Not forgotten: {e}"
        return f"Forgot {len(gone)} memor{'y' if len(gone) == 1 else 'ies'}."

    return [recall_memories, remember, forget_memory]
