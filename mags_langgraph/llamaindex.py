"""MAGS for LlamaIndex: a retriever (recall as ``NodeWithScore`` with provenance) and a
memory block for ``llama_index.core.memory.Memory``.

    retriever = MAGSRetriever(graph, user_id="maya")
    engine = RetrieverQueryEngine.from_args(retriever, llm=...)
    memory = Memory.from_defaults(memory_blocks=[MAGSMemoryBlock(loop=loop, user_id="maya")])
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    CompletionResponse,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.memory import BaseMemoryBlock
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import Field, field_validator

from graph_db import Blocks, LiquidGraph, Recalled, UnknownNamespaceError
from mags_langgraph import prompts
from mags_langgraph.llm.parse import strip_thinking
from mags_langgraph.loop import ASSISTANT, MemoryLoop, check_user
from mags_langgraph.schemas import Route


def to_node(r: Recalled) -> NodeWithScore:
    """A recalled memory as a LlamaIndex node; metadata says where it came from."""
    p = r.memory.properties
    meta: dict[str, Any] = {
        "ns": r.memory.ns,
        "block": r.memory.block,
        "sources": list(r.sources),
        "anchor": r.anchor,
        "path": [f"{s.edge}:{s.source}->{s.target}:{s.weight:.2f}" for s in r.path],
    }
    meta |= {k: p[k] for k in ("speaker", "ts", "session_id", "subject", "predicate",
                                "object", "confidence", "valid_from") if k in p}  # fmt: skip
    if not r.memory.current:
        meta["superseded"] = "yes: no longer true"
    when = p.get("ts") or p.get("valid_from")
    if when is not None:  # what the model reads: a date, not epoch seconds
        meta["when"] = datetime.fromtimestamp(float(when), UTC).strftime("%Y-%m-%d %H:%M UTC")
    node = TextNode(id_=r.id, text=r.memory.text, metadata=meta)
    node.excluded_embed_metadata_keys = list(meta)
    node.excluded_llm_metadata_keys = [
        k for k in meta if k not in ("speaker", "when", "superseded")
    ]
    return NodeWithScore(node=node, score=r.score)


KEEP = Route(recall=False, write=False)  # stored as said, no facts taken from it


class MAGSRetriever(BaseRetriever):
    """Recall (anchors + walk) over one user's memory."""

    def __init__(
        self, graph: LiquidGraph, user_id: str, k: int = 5, blocks: Blocks = "both", **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.graph, self.user_id, self.k, self.blocks = graph, check_user(user_id), k, blocks

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        try:
            hits = self.graph.recall(self.user_id, query_bundle.query_str, self.k, self.blocks)
        except UnknownNamespaceError:
            return []
        return [to_node(h) for h in hits]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await asyncio.to_thread(self._retrieve, query_bundle)


class MAGSMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory block: ``aget`` recalls for the latest user message; ``aput``
    stores the messages that leave short-term memory (and the facts they state)."""

    name: str = "mags"
    description: str | None = "What MAGS remembers of the user across sessions."
    loop: Any = Field(description="The MemoryLoop (or LiquidGraph) that holds the memory.")
    user_id: str

    @field_validator("user_id")
    @classmethod
    def _user(cls, user_id: str) -> str:
        return check_user(user_id)

    def _loop(self) -> MemoryLoop:
        if isinstance(self.loop, LiquidGraph):
            self.loop = MemoryLoop(self.loop)
        return self.loop

    async def _aget(self, messages: list[ChatMessage] | None = None, **kw: Any) -> str:
        query = next(
            (str(m.content) for m in reversed(messages or []) if m.role == MessageRole.USER), ""
        )
        if not query.strip():
            return ""
        hits = await self._loop().arecall(self.user_id, query)
        return prompts.memory_lines(hits) if hits else ""

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Each user message is a turn (stored, its facts written) whose answer is the
        assistant message after it, if any."""
        loop, turn = self._loop(), None
        for m in messages:
            text = str(m.content or "").strip()
            if not text or m.role not in (MessageRole.USER, MessageRole.ASSISTANT):
                continue
            if m.role == MessageRole.USER:
                if turn is not None:
                    await loop.aafter(turn)
                turn = await loop.abefore(self.user_id, text, recall=False)
            elif turn is not None:
                await loop.aafter(turn, text)
                turn = None
            else:  # its question left short-term memory earlier: the answer alone
                await loop.abefore(self.user_id, text, recall=False, route=KEEP, speaker=ASSISTANT)
        if turn is not None:
            await loop.aafter(turn)


class LangChainLLM(CustomLLM):
    """A LangChain chat model (e.g. the ``ChatOpenAI`` of ``LLMs``) as a LlamaIndex LLM,
    so query engines use the same endpoint and models as the agent."""

    model: Any = Field(description="A LangChain BaseChatModel.")
    context_window: int = 4096
    num_output: int = 256

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.context_window,
            num_output=self.num_output,
            is_chat_model=True,
            model_name=str(getattr(self.model, "model_name", "langchain")),
        )

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
        answer = self.model.invoke(prompt, max_tokens=self.num_output)
        return CompletionResponse(text=strip_thinking(str(answer.text)))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kw: Any):
        text = ""
        for chunk in self.model.stream(prompt, max_tokens=self.num_output):
            text += str(chunk.text)
            yield CompletionResponse(text=text, delta=str(chunk.text))
