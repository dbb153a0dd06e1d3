"""graph_db: the liquid knowledge graph (storage and memory dynamics, no LLM).

from graph_db import LiquidGraph
with LiquidGraph() as g:                      # embedded ArcadeDB in MAGS_HOME
    g.add_episode("alice", "I moved to Berlin", speaker="alice")
    g.search("alice", "where does alice live?")
"""

from graph_db.backends.engine import status as engine_status
from graph_db.backends.engine import stop_engine
from graph_db.errors import (
    EmbeddingMismatchError,
    EngineError,
    GraphUnavailableError,
    HomeLockedError,
    InvalidInputError,
    MagsError,
    NamespaceOccupiedError,
    NotFoundError,
    SettingsError,
    SnapshotError,
    StoreBusyError,
    UnknownNamespaceError,
)
from graph_db.liquid_graph import LiquidGraph
from graph_db.maintenance import MaintenancePreview, MaintenanceReport
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
from graph_db.settings import TUNABLE, GraphSettings, MagsSettings
from graph_db.text import (
    NS_SEP,
    check_label,
    check_text,
    is_question,
    namespace_of,
    split_text,
)
from graph_db.view import GraphView, ViewEdge, ViewNode

__all__ = [
    "NS_SEP",
    "TUNABLE",
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
    "GraphView",
    "Hit",
    "HomeLockedError",
    "InvalidInputError",
    "LiquidGraph",
    "MagsError",
    "MagsSettings",
    "MaintenancePreview",
    "MaintenanceReport",
    "Memory",
    "NamespaceOccupiedError",
    "NotFoundError",
    "Recalled",
    "SettingsError",
    "SnapshotError",
    "Step",
    "StoreBusyError",
    "UnknownNamespaceError",
    "Verdict",
    "ViewEdge",
    "ViewNode",
    "check_label",
    "check_text",
    "engine_status",
    "is_question",
    "labels_of",
    "namespace_of",
    "split_text",
    "stop_engine",
]
