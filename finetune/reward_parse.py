"""Reading a completion for the rewards: its text, its JSON, and what surrounds the JSON.

The agent's parser (``mags_langgraph.llm.parse``) forgives a fence, a sentence or trailing
commas, because at run time an answer is worth saving. A reward must also see what was
forgiven, to charge for it: so this finds the same candidates and keeps the rest.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from mags_langgraph.llm.parse import json_candidates, strip_thinking
from mags_langgraph.schemas import Engram, RecallPlan, Triplet

Role = Literal["engram", "recall"]
SCHEMAS: dict[str, type[BaseModel]] = {"engram": Engram, "recall": RecallPlan}
_TOP_KEYS = {"engram": {"facts"}, "recall": set(RecallPlan.model_fields)}
_REQUIRED = {"engram": {"facts"}, "recall": {"recall"}}
_FACT_KEYS = set(Triplet.model_fields)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_FENCE_MARK = re.compile(r"```[a-zA-Z]*")
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def completion_text(completion: object) -> str:
    """The text of a completion: a string, or (conversational datasets) a list of chat
    messages, whose assistant contents are joined; a content may be a list of text parts."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, list | tuple):
        parts: list[str] = []
        for message in completion:
            if not isinstance(message, dict) or message.get("role", "assistant") != "assistant":
                continue
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts += [p.get("text", "") for p in content if isinstance(p, dict)]
        return "\n".join(parts)
    raise TypeError(
        f"a completion is a string or a list of chat messages, not {type(completion).__name__}"
    )


@dataclass
class Parsed:
    """What a completion holds: the validated answer (None if none), the JSON object it came
    from, and the faults a format reward charges for."""

    answer: BaseModel | None = None
    data: dict[str, Any] | None = None
    json_found: bool = False
    outside: str = ""
    repaired: bool = False
    extra_keys: list[str] = field(default_factory=list)

    @property
    def fenced_only(self) -> bool:
        """Only a code fence surrounds the JSON."""
        return bool(self.outside) and not _FENCE_MARK.sub("", self.outside).strip()


def parse_completion(text: str, role: Role) -> Parsed:
    """The first JSON object in ``text`` that is a valid answer of ``role`` (with its
    required keys written out), and what is outside it."""
    schema = SCHEMAS[role]
    whole = (text or "").strip()
    found: dict[str, Any] | None = None
    for candidate in json_candidates(strip_thinking(whole)):
        for variant in dict.fromkeys((candidate, _TRAILING_COMMA.sub(r"\1", candidate))):
            try:
                data = json.loads(variant)
            except json.JSONDecodeError:
                continue
            if not isinstance(data, dict):
                continue
            found = found if found is not None else data
            if not _REQUIRED[role] <= data.keys():
                continue
            try:
                answer = schema.model_validate(data)
            except ValidationError:
                continue
            outside = whole.replace(candidate, "", 1).strip()
            return Parsed(
                answer, data, True, outside, variant != candidate, _extra_keys(data, role)
            )
    return Parsed(None, found, found is not None, whole)


def _extra_keys(data: dict[str, Any], role: Role) -> list[str]:
    extra = sorted(data.keys() - _TOP_KEYS[role])
    if role == "engram":
        for i, fact in enumerate(data.get("facts") or []):
            if isinstance(fact, dict):
                extra += [f"facts[{i}].{k}" for k in sorted(fact.keys() - _FACT_KEYS)]
    return extra


def string_values(data: object) -> list[str]:
    """Every string value in a JSON value (keys excluded)."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in string_values(v)]
    if isinstance(data, list):
        return [s for v in data for s in string_values(v)]
    return []


def non_latin_share(texts: list[str]) -> float:
    """Share of the letters that are not Latin script (ASCII, accents and all): 0 for
    English, whatever names of other languages it spells in Latin letters."""
    letters = [c for t in texts for c in t if c.isalpha()]
    if not letters:
        return 0.0
    other = sum(1 for c in letters if not unicodedata.name(c, "").startswith("LATIN"))
    return other / len(letters)
