"""What the roles must answer: JSON schemas sent to the server and validated on return.

Bounds are part of the contract: a subject of 300 characters, a blank object or a confidence
of 2018 is invalid output, retried, and never written (whitespace is stripped first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Route(BaseModel):
    """The router's decision for one user message."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    recall: bool = Field(description="Look up memories before answering.")
    blocks: Literal["episodic", "semantic", "both"] = Field(
        default="both", description="episodic: what happened; semantic: facts; both."
    )
    write: bool = Field(description="The message states something worth remembering.")
    query: str | None = Field(
        default=None, max_length=300, description="Search text, if not the message itself."
    )


class RecallPlan(BaseModel):
    """The recall role's plan for a message: whether to look, where, and with which queries."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    recall: bool = Field(description="Look up memories before answering.")
    blocks: Literal["episodic", "semantic", "both"] = Field(
        default="both", description="episodic: what happened; semantic: facts; both."
    )
    queries: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=3, description="1-3 search queries; none if no recall."
    )


class Triplet(BaseModel):
    """One fact: subject - predicate - object, with the writer's confidence."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    subject: str = Field(min_length=1, max_length=80)
    predicate: str = Field(min_length=1, max_length=60, description="snake_case verb phrase")
    object: str = Field(min_length=1, max_length=120)
    confidence: float = Field(default=0.8, ge=0, le=1)


class Engram(BaseModel):
    """The facts a turn states (none is a valid answer)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    facts: list[Triplet] = Field(default_factory=list, max_length=12)


_WORD = re.compile(r"\w(?:[\w'’:.\-/&+]*\w)?")
_POSSESSIVE = re.compile(r"['’]s$")
MAX_PHRASE_WORDS = 8
FIRST_PERSON = ("i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves")
PERSONAL = frozenset([*FIRST_PERSON, "you", "your", "yours", "yourself", "yourselves"])
"""First and second person: words that name nobody (an engram answer names the speaker)."""


def turn_phrases(turn: str, max_words: int = MAX_PHRASE_WORDS) -> list[str]:
    """Every run of up to ``max_words`` words of ``turn`` as written (a possessive also
    without its 's), but a lone pronoun: what a grounded subject or object may be (the
    speaker is named, never "I")."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(turn)]
    phrases: dict[str, None] = {}
    for i, (start, _) in enumerate(words):
        for _, end in words[i : i + max_words]:
            phrase = turn[start:end]
            phrases[phrase] = None
            phrases[_POSSESSIVE.sub("", phrase)] = None
    return [p for p in phrases if p and p.lower() not in PERSONAL]


def grounded_engram_schema(turn: str, names: Iterable[str]) -> dict[str, Any]:
    """The engram JSON schema with every subject and object one of the turn's phrases or
    of ``names`` (the speaker, the date, the current facts' entities): a schema-honouring
    server then cannot invent an entity. Small models do, often (measured in issue 13)."""
    allowed = list(
        dict.fromkeys([*(n.strip() for n in names if n and n.strip()), *turn_phrases(turn)])
    )
    schema = Engram.model_json_schema()
    triplet = schema["$defs"]["Triplet"]["properties"]
    for key in ("subject", "object"):
        triplet[key] = {"enum": allowed, "type": "string"}
    return schema


class Adjudication(BaseModel):
    """Which of two conflicting values holds now."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    winner: Literal["new", "old", "both"]
    reason: str = Field(default="", max_length=200)
