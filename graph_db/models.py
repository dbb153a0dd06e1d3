"""What goes into the store and what comes back: small typed records."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Block = Literal["episodic", "semantic"]
Blocks = Literal["episodic", "semantic", "both"]
LABEL_OF_BLOCK: dict[str, str] = {"episodic": "Episode", "semantic": "Fact"}
BLOCK_OF_LABEL: dict[str, Block] = {"Episode": "episodic", "Fact": "semantic"}


def labels_of(blocks: Blocks) -> list[str]:
    """Node labels that hold the given block(s)."""
    if blocks == "both":
        return ["Episode", "Fact"]
    if blocks not in LABEL_OF_BLOCK:
        raise ValueError(f"blocks must be 'episodic', 'semantic' or 'both', not {blocks!r}")
    return [LABEL_OF_BLOCK[blocks]]


def to_epoch(value: datetime | float | int | str | None) -> float | None:
    """Event times are stored as UTC epoch seconds (portable across engines)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("a time cannot be a bool")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
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


class Memory(BaseModel):
    """A stored memory as callers see it (no embedding unless asked)."""

    id: str
    ns: str
    block: Block
    text: str
    properties: dict[str, Any] = Field(default_factory=dict)
    embedding: list[float] | None = None

    @classmethod
    def from_row(cls, memory: dict[str, Any], label: str) -> Memory:
        props = {k: v for k, v in memory.items() if v is not None}
        emb = props.pop("embedding", None)
        return cls(
            id=props.pop("id"),
            ns=props.pop("ns"),
            block=BLOCK_OF_LABEL[label],
            text=props.pop("text", ""),
            properties=props,
            embedding=emb,
        )


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
