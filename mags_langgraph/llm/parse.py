"""Reading model output that should be JSON, whatever the model wrapped it in.

Small and reasoning models add ``<think>`` blocks, code fences, a sentence before the
object, or trailing commas; a schema-constrained server does not, but a remote endpoint
may ignore the schema. Anything that still does not validate is an error the caller
counts and retries, never a write.
"""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class ParseError(ValueError):
    """The text holds no JSON object matching the schema (the message says why)."""


def strip_thinking(text: str) -> str:
    """The text without ``<think>...</think>`` blocks (an unclosed one runs to the end)."""
    return _THINK.sub("", text or "").strip()


def json_candidates(text: str):
    """Where JSON may be in a reply, most likely first: all of it, each fenced block, each
    top-level balanced {...} (shared with the fine-tuning rewards, which charge for the rest)."""
    yield text
    for block in _FENCE.findall(text):
        yield block.strip()
    start = text.find("{")
    while start != -1:  # each top-level balanced {...} (never one nested in another)
        depth, in_str, esc, end = 0, False, False, start
        for i in range(start, len(text)):
            c = text[i]
            if in_str:
                esc = c == "\\" and not esc
                if c == '"' and not esc:
                    in_str = False
                continue
            if c == '"':
                in_str = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    yield text[start : i + 1]
                    end = i
                    break
        if end == start:
            return  # unbalanced (cut off): what is nested inside is not the answer
        start = text.find("{", end + 1)


def parse_json(text: str, schema: type[T]) -> T:
    """The first JSON object in ``text`` that validates against ``schema``."""
    cleaned = strip_thinking(text)
    if not cleaned:
        raise ParseError("empty output")
    last: Exception | None = None
    for candidate in json_candidates(cleaned):
        for variant in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                data = json.loads(variant)
            except json.JSONDecodeError as e:
                last = e
                continue
            if not isinstance(data, dict):
                last = ParseError(f"expected a JSON object, got {type(data).__name__}")
                continue
            try:
                return schema.model_validate(data)
            except ValidationError as e:
                last = e
    if isinstance(last, ValidationError):
        raise ParseError(f"JSON does not match {schema.__name__}: {_short(last)}") from last
    raise ParseError(f"no JSON object in the output ({last})") from last


def _short(e: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(map(str, err['loc'])) or '(root)'}: {err['msg']}" for err in e.errors()[:4]
    )
