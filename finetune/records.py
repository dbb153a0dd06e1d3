"""One training example per JSONL line, per role: what the model sees and the gold answer.

The gold answers use the agent layer's own output schemas (``Engram``, ``RecallPlan``), so a
trained adapter answers exactly what ``mags_langgraph`` validates at run time.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mags_langgraph.schemas import Engram, RecallPlan


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class KnownFact(_Strict):
    """A current fact the turn may touch (a change or a correction of it)."""

    subject: str = Field(min_length=1, max_length=80)
    predicate: str = Field(min_length=1, max_length=60)
    object: str = Field(min_length=1, max_length=120)


class Turn(_Strict):
    """One earlier line of the thread."""

    speaker: str = Field(min_length=1, max_length=80)
    text: str = Field(min_length=1, max_length=2000)


class Memory(_Strict):
    """A memory in the small fixture graph a recall example is scored on."""

    kind: Literal["episode", "fact"]
    text: str = Field(min_length=1, max_length=2000)
    speaker: str | None = None
    date: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")


class EngramInput(_Strict):
    user: str = Field(min_length=1, max_length=80, description="whose memory this is")
    speaker: str = Field(min_length=1, max_length=80, description="who says the turn")
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    turn: str = Field(min_length=1, max_length=2000)
    facts: list[KnownFact] = Field(default_factory=list, max_length=8)


class RecallInput(_Strict):
    user: str = Field(min_length=1, max_length=80)
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    message: str = Field(min_length=1, max_length=2000)
    history: list[Turn] = Field(default_factory=list, max_length=6)


class _Example(_Strict):
    id: str = Field(min_length=1, max_length=120)
    source: str = Field(description="'seed' (hand-written, reviewed) or 'gen:<template>'")
    domain: str = Field(min_length=1, max_length=40)
    group: str | None = Field(
        default=None,
        max_length=160,
        description="near-twin family (template frame, world seed, seed cluster): a split "
        "holds whole groups, so no twin of a test example is trained on",
    )


class EngramExample(_Example):
    role: Literal["engram"] = "engram"
    input: EngramInput
    output: Engram


class RecallExample(_Example):
    role: Literal["recall"] = "recall"
    input: RecallInput
    output: RecallPlan
    memories: list[Memory] = Field(
        default_factory=list, description="the fixture graph: gold memories and distractors"
    )
    gold: list[int] = Field(default_factory=list, description="indexes into memories")
