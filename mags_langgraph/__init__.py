"""mags_langgraph: the agent side of MAGS.

build_mags_graph  the memory loop as a LangGraph (router, recall, respond, engram, reconcile)
MAGSStore         a LangGraph BaseStore whose search is recall
MAGSMemoryMiddleware, memory_tools   memory for langchain's create_agent
MAGSRetriever, MAGSMemoryBlock       LlamaIndex (import from mags_langgraph.llamaindex)
LLMs, AgentSettings                  the one LLM path (ChatOpenAI per role)
"""

from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop
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
    "build_mags_graph",
    "memory_tools",
]
