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
from graph_db.models import (
    Blocks,
    EpisodeIn,
    FactIn,
    FactWrite,
    Hit,
    Memory,
    Recalled,
    Step,
    labels_of,
)
from graph_db.reconcile import Adjudicator, Conflict, FactView, Verdict
from graph_db.settings import GraphSettings

__all__ = [
    "Adjudicator",
    "Blocks",
    "Conflict",
    "EmbeddingMismatchError",
    "EngineError",
    "EpisodeIn",
    "FactIn",
    "FactView",
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
    "Recalled",
    "SnapshotError",
    "Step",
    "UnknownNamespaceError",
    "Verdict",
    "labels_of",
]
