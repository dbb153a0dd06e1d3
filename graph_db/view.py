"""A namespace as a person looks at it: the nodes and edges of a graph view, and the liquid
edges' weights in bins (the UI's picture and its charts; read-only)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from graph_db import clock
from graph_db.backends import GraphBackend
from graph_db.dynamics import DecayParams, effective_weight
from graph_db.settings import GraphSettings

VIEW_MAX = 20_000  # the most memories one view holds
WEIGHT_BINS = 10  # [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0]
_KIND = {"Episode": "episode", "Fact": "fact", "Entity": "entity"}


class ViewNode(BaseModel):
    """A node of the view: a memory (episode or fact) or an entity they name."""

    id: str
    kind: Literal["episode", "fact", "entity"]
    text: str
    speaker: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    importance: float | None = None
    permanent: bool = False
    current: bool = Field(default=True, description="False: a fact since superseded.")
    core: int | None = Field(default=None, description="k-core number (last decomposition).")
    time: float | None = Field(default=None, description="Said at, or held from (epoch s).")


class ViewEdge(BaseModel):
    """An edge between two nodes of the view; ``w`` is a liquid edge's weight now."""

    source: str
    target: str
    type: str
    w: float | None = None
    permanent: bool = False


class GraphView(BaseModel):
    """The ``limit`` memories that matter most (permanent, then by importance, then newest),
    the entities they name and the edges among them."""

    ns: str
    nodes: list[ViewNode]
    edges: list[ViewEdge]
    truncated: bool = Field(description="The namespace holds more memories than shown.")


def graph_view(
    backend: GraphBackend, settings: GraphSettings, ns: str, limit: int, now: float | None = None
) -> GraphView:
    now = clock.now() if now is None else now
    decay = DecayParams.of(settings)
    rows = backend.read("view_nodes", ns=ns, limit=limit + 1)
    truncated = len(rows) > limit
    nodes = [_memory_node(r["memory"], r["label"]) for r in rows[:limit]]
    shown = {n.id for n in nodes}
    entities: dict[str, ViewNode] = {}
    edges: list[ViewEdge] = []
    for r in backend.read("view_edges", ns=ns, ids=sorted(shown)):
        if r["label"] == "Entity":
            entities.setdefault(
                r["target"], ViewNode(id=r["target"], kind="entity", text=r["name"] or "")
            )
        elif r["target"] not in shown:
            continue
        w = r["w"]
        if r["type"] == "ASSOC" and w is not None:
            w = effective_weight(w, r["w_at"], r["fired_at"], now, decay, bool(r["permanent"]))
        edges.append(
            ViewEdge(source=r["source"], target=r["target"], type=r["type"], w=w,
                     permanent=bool(r["permanent"]))
        )  # fmt: skip
    return GraphView(ns=ns, nodes=[*nodes, *entities.values()], edges=edges, truncated=truncated)


def weight_bins(
    backend: GraphBackend, settings: GraphSettings, ns: str, now: float | None = None
) -> list[int]:
    """How many liquid edges of ``ns`` weigh [0, 0.1), [0.1, 0.2), ... [0.9, 1.0] now."""
    now = clock.now() if now is None else now
    decay = DecayParams.of(settings)
    bins = [0] * WEIGHT_BINS
    for r in backend.read("weights_assoc", ns=ns):
        w = effective_weight(
            r["w"] or 0.0, r["w_at"], r["fired_at"], now, decay, bool(r["permanent"])
        )
        bins[min(WEIGHT_BINS - 1, max(0, int(w * WEIGHT_BINS)))] += 1
    return bins


def _memory_node(m: dict, label: str) -> ViewNode:
    return ViewNode(
        id=m["id"], kind=_KIND[label], text=m.get("text") or "", speaker=m.get("speaker"),
        subject=m.get("subject"), predicate=m.get("predicate"), object=m.get("object"),
        importance=m.get("importance"), permanent=bool(m.get("permanent")),
        current=m.get("valid_to") is None, core=m.get("core"),
        time=m.get("ts") or m.get("valid_from") or m.get("created_at"),
    )  # fmt: skip
