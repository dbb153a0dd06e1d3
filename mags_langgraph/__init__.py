"""mags_langgraph: the agent side of MAGS.

MemoryLoop        the memory turn, written once: before / respond / after (async: a-prefixed)
build_mags_graph  the turn as a LangGraph (recall, respond, engram)
MAGSStore         a LangGraph BaseStore whose search is recall
MAGSMemoryMiddleware, memory_tools   memory for langchain's create_agent
MAGSRetriever, MAGSMemoryBlock       LlamaIndex (import from mags_langgraph.llamaindex)
LLMs, AgentSettings                  the one LLM path (ChatOpenAI per role)
"""

from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop, TurnContext, TurnReport, TurnResult
from mags_langgraph.middleware import MAGSMemoryMiddleware
from mags_langgraph.nodes import MemoryState, build_mags_graph
from mags_langgraph.settings import AgentSettings
from mags_langgraph.store import MAGSStore
from mags_langgraph.tools import memory_tools

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
