"""A legacy ``langchain_classic`` ``BaseMemory`` over MAGS, for chains that still take
``memory=`` (``pip install 'mags[classic]'``; new code: the middleware or the store).

    memory = MAGSClassicMemory(loop=loop, user_id="maya")
    memory.load_memory_variables({"input": "Where do I live?"})  # {"history": "[1] ..."}
    memory.save_context({"input": "I moved to Leeds"}, {"output": "Nice!"})
"""

from __future__ import annotations

from typing import Any

from langchain_classic.base_memory import BaseMemory

from mags_langgraph import prompts
from mags_langgraph.loop import MemoryLoop


class MAGSClassicMemory(BaseMemory):
    """``history``: the memories recalled for the chain's input; each saved exchange is
    stored as a turn (and the facts it states)."""

    loop: Any  # a MemoryLoop
    user_id: str
    memory_key: str = "history"
    input_key: str = "input"
    output_key: str = "output"

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        loop: MemoryLoop = self.loop
        query = str(inputs.get(self.input_key) or "")
        hits = loop.recall(self.user_id, query) if query.strip() else []
        return {self.memory_key: prompts.memory_lines(hits) if hits else ""}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, str]) -> None:
        loop: MemoryLoop = self.loop
        message = str(inputs.get(self.input_key) or "")
        turn = loop.before(self.user_id, message, recall=False)  # recalled on load already
        loop.after(turn, str(outputs.get(self.output_key) or "") or None)

    def clear(self) -> None:
        """Forget everything this user's memory holds."""
        self.loop.graph.forget_namespace(self.user_id)
