"""Typed output records shared by the front ends over LiquidGraph (the MCP server, the
REST API): a found memory, a fact written, a remembered text, a fact's history."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from graph_db import Hit, Memory, Recalled

if TYPE_CHECKING:
    from mags_langgraph.loop import TurnResult

MAX_K = 50  # the most memories one search or recall returns (a prompt's worth)


class Forgotten(BaseModel):
    ids: list[str] = Field(description="What was deleted: the memory, and facts only it held.")


class Found(BaseModel):
    """One memory that recall or search found."""

    id: str = Field(description="Its id (forget takes it).")
    block: Literal["episodic", "semantic"] = Field(description="episodic: said; semantic: a fact.")
    text: str
    speaker: str | None = Field(default=None, description="Who said it (episodes).")
    time: str | None = Field(
        default=None, description="When it was said, or since when the fact held (ISO 8601)."
    )
    current: bool = Field(description="False: a fact since superseded (kept as history).")
    score: float = Field(description="Orders this result list only.")
    similarity: float | None = Field(default=None, description="Cosine to the query.")
    found_by: list[str] = Field(default_factory=list, description="vector, fulltext, walk.")


class FactWritten(BaseModel):
    """A fact the remembered text stated, and what the graph did with it."""

    id: str
    subject: str
    predicate: str
    object: str
    action: Literal["created", "merged", "rejected"] = Field(
        description="created (current now), merged into the same fact, or rejected (history)."
    )
    supersedes: list[str] = Field(default_factory=list, description="Ids it replaced.")


class Remembered(BaseModel):
    id: str = Field(description="The stored text's id.")
    facts: list[FactWritten] = Field(default_factory=list)
    facts_error: str | None = Field(
        default=None, description="Why no facts were written; the text is stored all the same."
    )


class Value(BaseModel):
    id: str
    value: str
    since: str | None = Field(default=None, description="ISO 8601.")
    until: str | None = Field(default=None, description="ISO 8601; None while current.")
    current: bool
    confidence: float | None = None


class History(BaseModel):
    subject: str
    predicate: str
    values: list[Value] = Field(description="Oldest first; the last current one holds now.")


def iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat("T", "seconds")


def memory_time(m: Memory) -> float | None:
    """When it was said (an episode), or since when it held (a fact)."""
    return m.ts if m.block == "episodic" else m.valid_from


def found(hit: Hit | Recalled) -> Found:
    m = hit.memory
    return Found(
        id=m.id, block=m.block, text=m.text, speaker=m.speaker, time=iso(memory_time(m)),
        current=m.current, score=round(hit.score, 4), similarity=None if hit.similarity is None
        else round(hit.similarity, 4), found_by=hit.sources,
    )  # fmt: skip


def value(m: Memory) -> Value:
    return Value(
        id=m.id, value=m.object or m.text, since=iso(m.valid_from), until=iso(m.valid_to),
        current=m.current, confidence=m.confidence,
    )  # fmt: skip


def remembered(done: TurnResult) -> Remembered:
    """What ``MemoryLoop.remember`` stored: the text's id, and each fact it stated with what
    the graph did with it (one write per fact, in order; none when the graph refused them)."""
    report = done.report
    facts = [
        FactWritten(id=w.id, subject=f.subject, predicate=f.predicate, object=f.object,
                    action=w.action, supersedes=w.supersedes)
        for f, w in zip(report.extraction.facts, report.writes, strict=False)
    ]  # fmt: skip
    failed = "no facts: the model's output was invalid" if report.extraction.failed else None
    return Remembered(
        id=str(done.context.episode_id), facts=facts, facts_error=report.write_error or failed
    )
