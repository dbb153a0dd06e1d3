"""mags_langgraph: the agent side of MAGS.

MemoryLoop        the memory turn, written once: before / respond / after (async: a-prefixed)
build_mags_graph  the turn as a LangGraph (recall, respond, engram)
MAGSStore         a LangGraph BaseStore whose search is recall
MAGSMemoryMiddleware, memory_tools   memory for langchain's create_agent
MAGSRetriever, MAGSMemoryBlock       LlamaIndex (import from mags_langgraph.llamaindex)
LLMs, AgentSettings                  the one LLM path (ChatOpenAI per role)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# imported on first use: a CLI command that only reads the store does not load the LLM
# stack (openai, langchain, langgraph: ~1.5 s of imports)
_WHERE = {
    "AgentSettings": "settings",
    "LLMs": "llm",
    "MAGSMemoryMiddleware": "middleware",
    "MAGSStore": "store",
    "MemoryLoop": "loop",
    "MemoryState": "nodes",
    "TurnContext": "loop",
    "TurnReport": "loop",
    "TurnResult": "loop",
    "build_mags_graph": "nodes",
    "memory_tools": "tools",
}

if TYPE_CHECKING:
    from mags_langgraph.llm import LLMs
    from mags_langgraph.loop import MemoryLoop, TurnContext, TurnReport, TurnResult
    from mags_langgraph.middleware import MAGSMemoryMiddleware
    from mags_langgraph.nodes import MemoryState, build_mags_graph
    from mags_langgraph.settings import AgentSettings
    from mags_langgraph.store import MAGSStore
    from mags_langgraph.tools import memory_tools


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"mags_langgraph.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'mags_langgraph' has no attribute {name!r}")


__all__ = [
    "AgentSettings",
    "LLMs",
    "MAGSMemoryMiddleware",
    "MAGSStore",
    "MemoryLoop",
    "MemoryState",
    "TurnContext",
    "TurnReport",
    "TurnResult",
    "build_mags_graph",
    "memory_tools",
]
