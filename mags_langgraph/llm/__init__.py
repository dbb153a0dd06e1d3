"""The one LLM path: ``ChatOpenAI`` per role against an OpenAI-compatible endpoint."""

from mags_langgraph.llm.models import LLMs, StructuredError
from mags_langgraph.llm.parse import parse_json

__all__ = ["LLMs", "StructuredError", "parse_json"]
