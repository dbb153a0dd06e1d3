"""Typed settings for the graph layer (env prefix ``MAGS_``).

Every threshold the memory uses is named here with its meaning, so a user can
tune it from the environment (``MAGS_DUP_THRESHOLD=0.9``) or a ``.env`` file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_home() -> Path:
    """The user's data dir for MAGS (e.g. ``~/.local/share/mags``)."""
    return platformdirs.user_data_path("mags", appauthor=False)


class GraphSettings(BaseSettings):
    """Storage, embedding and write-path settings of the liquid graph."""

    model_config = SettingsConfigDict(
        env_prefix="MAGS_", env_file=".env", extra="ignore", validate_default=True
    )

    # --- where the graph lives -------------------------------------------------
    home: Path = Field(
        default_factory=default_home,
        description="MAGS home: embedded database, password file, logs, snapshots.",
    )
    neo4j_uri: str | None = Field(
        default=None,
        description="bolt://, neo4j:// or neo4j+s:// URI. Unset: the embedded ArcadeDB.",
    )
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    arcadedb_database: str = Field(default="mags", description="Database name inside home.")
    arcadedb_heap: str = Field(default="2g", description="Max JVM heap of the embedded engine.")
    connect_timeout_s: float = Field(default=10.0, gt=0, description="Bolt connection timeout.")
    tx_retry_s: float = Field(default=15.0, ge=0, description="Max time to retry a transaction.")

    # --- embeddings --------------------------------------------------------------
    embedder: Literal["auto", "onnx", "sentence-transformers"] = Field(
        default="auto",
        description="'auto' takes the int8 ONNX MiniLM when installed (same ranking, faster), "
        "else sentence-transformers.",
    )
    embedding_model: str = Field(
        default="sentence-transformers/all-MiniLM-L6-v2",
        description="Hub id or local path of a sentence-transformers model.",
    )
    embedding_batch_size: int = Field(default=64, ge=1)
    query_cache_size: int = Field(default=2048, ge=0, description="LRU size for query vectors.")

    # --- write path --------------------------------------------------------------
    max_text_chars: int = Field(
        default=32_000, ge=1, description="Longest memory text accepted; split longer input."
    )
    dup_threshold: float = Field(
        default=0.95,
        ge=0,
        le=1,
        description="tau_dup: a new fact this similar (cosine) to a current fact with the same "
        "subject and predicate is merged into it instead of stored again.",
    )
    entity_threshold: float = Field(
        default=0.92,
        ge=0,
        le=1,
        description="tau_ent: an entity name this similar to a known entity is the same entity "
        "(after exact match on the normalised name failed).",
    )
    assoc_neighbours: int = Field(
        default=5, ge=0, description="m: initial ASSOC edges a new memory gets (GAT-style)."
    )
    assoc_w0: float = Field(
        default=0.6, gt=0, le=1, description="w0: total initial weight spread over m edges."
    )
    assoc_temperature: float = Field(
        default=0.1, gt=0, description="tau of the softmax over neighbour similarities."
    )
    assoc_min_similarity: float = Field(
        default=0.35, ge=-1, le=1, description="Neighbours less similar than this get no edge."
    )

    # --- search ------------------------------------------------------------------
    search_overfetch: int = Field(
        default=4,
        ge=1,
        description="A namespace holding less than 1/overfetch of a label's index is searched "
        "exactly (up to exact_search_max nodes); a larger one through the index, asked for "
        "enough hits to expect k of its own, and widened until k are found.",
    )
    exact_search_max: int = Field(
        default=20_000,
        ge=0,
        description="A namespace with at most this many memories of a label that is a small "
        "share of the index is searched exactly (no tenant starves another's top-k).",
    )
