"""graph_db: the liquid knowledge graph (storage and memory dynamics, no LLM).

from graph_db import LiquidGraph
with LiquidGraph() as g:                      # embedded ArcadeDB in MAGS_HOME
    g.add_episode("alice", "I moved to Berlin", speaker="alice")
    g.search("alice", "where does alice live?")
"""

from graph_db.errors import (
    EmbeddingMismatchError,
    EngineError,
    GraphUnavailableError,
    HomeLockedError,
    InvalidInputError,
    MagsError,
    NotFoundError,
    SnapshotError,
    UnknownNamespaceError,
)
from graph_db.liquid_graph import LiquidGraph
from graph_db.models import EpisodeIn, FactIn, FactWrite, Hit, Memory
from graph_db.settings import GraphSettings

__all__ = [
    "EmbeddingMismatchError",
    "EngineError",
    "EpisodeIn",
    "FactIn",
    "FactWrite",
    "GraphSettings",
    "GraphUnavailableError",
    "Hit",
    "HomeLockedError",
    "InvalidInputError",
    "LiquidGraph",
    "MagsError",
    "Memory",
    "NotFoundError",
    "SnapshotError",
    "UnknownNamespaceError",
]
