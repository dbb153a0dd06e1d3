"""What goes into the store and what comes back: small typed records."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graph_db.errors import InvalidInputError

Block = Literal["episodic", "semantic"]
Blocks = Literal["episodic", "semantic", "both"]
LABEL_OF_BLOCK: dict[str, str] = {"episodic": "Episode", "semantic": "Fact"}
BLOCK_OF_LABEL: dict[str, Block] = {"Episode": "episodic", "Fact": "semantic"}


def labels_of(blocks: Blocks) -> list[str]:
    """Node labels that hold the given block(s)."""
    if blocks == "both":
        return ["Episode", "Fact"]
    if blocks not in LABEL_OF_BLOCK:
        raise InvalidInputError(f"blocks must be 'episodic', 'semantic' or 'both', not {blocks!r}")
    return [LABEL_OF_BLOCK[blocks]]


def to_epoch(value: datetime | float | int | str | None) -> float | None:
    """Event times are stored as UTC epoch seconds (portable across engines)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidInputError("a time cannot be a bool: give epoch seconds or an ISO date")
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise InvalidInputError(f"a time must be a finite number, not {value!r}")
        return float(value)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInputError(
                f"{value!r} is not a time: give epoch seconds or an ISO date (2026-05-01T09:30)"
            ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def _decode_bytes(value: Any) -> Any:
    """Bytes are accepted if they are UTF-8; otherwise the error says how to fix them."""
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(
                f"not valid UTF-8 (byte {e.start}); decode it first, e.g. "
                "data.decode('utf-8', errors='replace')"
            ) from None
    return value


class EpisodeIn(BaseModel):
    """One turn or event: what happened, who said it, when, in which session."""

    model_config = ConfigDict(extra="forbid")

    text: str
    speaker: str | None = None
    session_id: str = "default"
    ts: datetime | float | None = Field(default=None, description="Event time; default: now.")
    entities: list[str] = Field(default_factory=list, description="Names the turn mentions.")
    salience: float = Field(default=0.5, ge=0, le=1)
    permanent: bool = Field(default=False, description="Never forgotten by maintenance.")
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None

    _decode = field_validator("text", "speaker", "session_id", mode="before")(_decode_bytes)


class FactIn(BaseModel):
    """A subject-predicate-object triplet with the writer's confidence."""

    model_config = ConfigDict(extra="forbid")

    subject: str
    predicate: str
    object: str
    confidence: float = Field(default=0.8, ge=0, le=1)
    source_episode_id: str | None = None
    valid_from: datetime | float | None = None
    salience: float = Field(default=0.5, ge=0, le=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None

    _decode = field_validator("subject", "predicate", "object", mode="before")(_decode_bytes)

    @field_validator("subject", "predicate", "object")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("subject, predicate and object must not be blank")
        return v


EPISODE_FIELDS = ("speaker", "session_id", "ts")
FACT_FIELDS = (
    "subject", "predicate", "object", "confidence", "valid_from", "valid_to", "source_episode_id"
)  # fmt: skip
SHARED_FIELDS = ("importance", "salience", "access_count", "created_at", "last_access", "permanent")
#: the stored properties a ``Memory`` is made of, as the reads of memories ask for them by
#: name (``$fields``): a projection of every property also reads the vectors and terms, which
#: on Neo4j took a recall's read of its 10 results from 9-11 to 6 ms (mean, trace on)
MEMORY_FIELDS = ("id", "ns", "text", "metadata", *EPISODE_FIELDS, *FACT_FIELDS, *SHARED_FIELDS)
MEMORY_FIELDS_AND_EMBEDDING = (*MEMORY_FIELDS, "embedding")


class Memory(BaseModel):
    """A stored memory as callers see it: an episode (who said it, in which session, when)
    or a fact (subject, predicate, object, confidence, and when it held: ``valid_to`` is
    None while current), its metadata as it was given, and no embedding unless asked. The
    store's bookkeeping (index fields, maintenance due times, core numbers) stays inside."""

    id: str
    ns: str
    block: Block
    text: str
    # episodes
    speaker: str | None = None
    session_id: str | None = None
    ts: float | None = None
    # facts
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    confidence: float | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    source_episode_id: str | None = None
    # both
    importance: float | None = None
    salience: float | None = None
    access_count: int | None = None
    created_at: float | None = None
    last_access: float | None = None
    permanent: bool | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    embedding: list[float] | None = None

    @classmethod
    def from_values(
        cls, values: Sequence[Any], label: str, fields: Sequence[str] = MEMORY_FIELDS
    ) -> Memory:
        """The memory a read returned as the values of ``fields`` (in that order)."""
        return cls.from_row(dict(zip(fields, values, strict=True)), label)

    @classmethod
    def from_row(cls, memory: dict[str, Any], label: str) -> Memory:
        block = BLOCK_OF_LABEL[label]
        own = (*(EPISODE_FIELDS if block == "episodic" else FACT_FIELDS), *SHARED_FIELDS)
        meta = memory.get("metadata")
        return cls(
            id=memory["id"],
            ns=memory["ns"],
            block=block,
            text=memory.get("text") or "",
            metadata=json.loads(meta) if isinstance(meta, str) and meta else {},
            embedding=memory.get("embedding"),
            **{k: memory[k] for k in own if memory.get(k) is not None},
        )

    @property
    def current(self) -> bool:
        """Not superseded (an episode always is)."""
        return self.valid_to is None

    @property
    def properties(self) -> dict[str, Any]:
        """The block's fields that are set, as a dict (speaker, ts, ... or subject, ...)."""
        own = EPISODE_FIELDS if self.block == "episodic" else FACT_FIELDS
        fields = {k: getattr(self, k) for k in (*own, *SHARED_FIELDS)}
        fields["metadata"] = self.metadata or None
        return {k: v for k, v in fields.items() if v is not None}


class Hit(BaseModel):
    """A search result: the memory, its fused score and what found it."""

    memory: Memory
    score: float
    similarity: float | None = Field(default=None, description="Cosine to the query, if known.")
    sources: list[str] = Field(default_factory=list, description="'vector', 'fulltext'.")


class FactWrite(BaseModel):
    """What happened to one fact on write: ``created`` (current now, maybe replacing
    ``supersedes``), ``merged`` into a near-duplicate, or ``rejected`` (stored as history,
    the current value stays; ``reason`` says why)."""

    id: str
    action: Literal["created", "merged", "rejected"]
    supersedes: list[str] = Field(default_factory=list)
    reason: str | None = None


class Step(BaseModel):
    """One hop of the walk that brought a memory: from ``source`` over ``edge`` of ``weight``."""

    source: str
    target: str
    edge: str
    weight: float


class Recalled(BaseModel):
    """A recalled memory: its final score, how relevant it is by itself, the activation the
    walk brought it, and the path from an anchor (empty when found directly)."""

    memory: Memory
    score: float
    similarity: float | None = Field(default=None, description="Best cosine to the queries.")
    relevance: float = Field(default=0.0, description="exp(fused z-score - best); 1 = best.")
    activation: float = Field(default=0.0, description="anchor relevance x product of weights.")
    anchor: bool = False
    path: list[Step] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list, description="vector, fulltext, walk.")

    @property
    def block(self) -> Block:
        return self.memory.block

    @property
    def id(self) -> str:
        return self.memory.id
