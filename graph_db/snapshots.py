"""Snapshots: one namespace to a versioned file and back, exactly.

Format (``mags-snapshot``, version 1): gzip'd JSON lines. The first line is a
header (format, version, namespace, embedding model and dimension, counts);
then one line per node ``{"kind": "node", "label", "props"}`` and one per edge
``{"kind": "edge", "type", "a", "b", "props"}`` (edges by the ids of their
ends). The format is our own so it moves between Neo4j and ArcadeDB.
Restoring replaces the namespace in one transaction: all of it, or nothing.
Exactly, save the state of the store kept on memories (``STORE_STATE``: the maintenance
schedule and the read index's version stamp): it is not exported, a restore makes every
memory due at the next maintenance pass (its writes mark them), and a restored namespace is
a new one to every read index (a new epoch).
"""

from __future__ import annotations

import gzip
import json
import math
import time
import uuid
from pathlib import Path
from typing import Any

from graph_db.backends import GraphBackend, Tx
from graph_db.embeddings import Embedder
from graph_db.errors import InvalidInputError, NamespaceOccupiedError, SnapshotError
from graph_db.text import check_ns
from graph_db.vecpack import unpack, with_packed

FORMAT = "mags-snapshot"
VERSION = 1
_CREATE = {"Episode": "episodes_create", "Fact": "facts_create", "Entity": "entities_create"}
_LINK = {
    "NEXT": "link_next",
    "ASSOC": "link_assoc",
    "DERIVED_FROM": "link_derived_from",
    "MENTIONS": "link_mentions",
    "ABOUT": "link_about",
    "SUPERSEDES": "link_supersedes",
}
_BATCH = 500
#: when maintenance next looks at a memory (graph_db.maintenance): state of the store, not of
#: the memory
SCHEDULE = ("vitals_due", "expire_at", "edges_at")
#: what a memory carries of the store's state, not its own: the schedule above, and the
#: namespace version that last wrote it (stores written before the read index's change log
#: stamped memories with it)
STORE_STATE = (*SCHEDULE, "ver")


def export_namespace(backend: GraphBackend, embedder: Embedder, ns: str, path: Path) -> Path:
    """Write every node and edge of ``ns`` to ``path`` (a consistent read)."""

    def read(tx: Tx) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return tx.run("export_nodes", ns=ns), tx.run("export_edges", ns=ns)

    nodes, edges = backend.read_tx(read)
    header = {
        "kind": "header",
        "format": FORMAT,
        "version": VERSION,
        "ns": ns,
        "created_at": time.time(),
        "embedding_model": embedder.name,
        "embedding_dim": embedder.dim,
        "nodes": len(nodes),
        "edges": len(edges),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for n in nodes:
            props = {k: v for k, v in n["props"].items() if k not in STORE_STATE}
            f.write(json.dumps({"kind": "node", "label": n["label"], "props": props}) + "\n")
        for e in edges:
            line = {"kind": "edge", "type": e["type"], "a": e["a"], "b": e["b"]}
            f.write(json.dumps({**line, "props": e["props"]}) + "\n")
    tmp.replace(path)  # a crash mid-export never leaves a truncated snapshot
    return path


def read_snapshot(path: Path) -> tuple[dict[str, Any], list[dict], list[dict]]:
    """Header, nodes and edges of a snapshot file, checked."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise SnapshotError(f"{path} is not a readable MAGS snapshot: {e}") from e
    if not lines or not isinstance(lines[0], dict) or lines[0].get("format") != FORMAT:
        raise SnapshotError(f"{path} is not a MAGS snapshot (no {FORMAT} header)")
    header = lines[0]
    if header.get("version") != VERSION:
        raise SnapshotError(
            f"{path} is snapshot version {header.get('version')}; this MAGS reads {VERSION}"
        )
    if not all(isinstance(x, dict) for x in lines) or not all(
        isinstance(header.get(k), t)
        for k, t in (("ns", str), ("nodes", int), ("edges", int), ("embedding_dim", int))
    ):
        raise SnapshotError(f"{path} has a malformed header or record")
    nodes = [x for x in lines[1:] if x.get("kind") == "node"]
    edges = [x for x in lines[1:] if x.get("kind") == "edge"]
    if len(nodes) != header["nodes"] or len(edges) != header["edges"]:
        raise SnapshotError(f"{path} is truncated: counts differ from its header")
    bad = [str(n.get("label")) for n in nodes if str(n.get("label")) not in _CREATE]
    bad += [str(e.get("type")) for e in edges if str(e.get("type")) not in _LINK]
    if bad:
        raise SnapshotError(f"{path} has unknown labels or edge types: {sorted(set(bad))}")
    return header, nodes, edges


def import_namespace(
    backend: GraphBackend,
    embedder: Embedder,
    path: Path,
    ns: str | None = None,
    replace: bool = False,
) -> tuple[str, dict[str, int]]:
    """Write the snapshot into namespace ``ns`` (default: the snapshot's); one that holds
    memories is replaced only with ``replace`` (the file names its namespace: a crafted
    or mistaken one must not silently overwrite someone's memories). Returns the
    namespace written and the counts."""
    header, nodes, edges = read_snapshot(path)
    _check_records(path, nodes, edges, embedder.dim)
    if header["embedding_dim"] != embedder.dim:
        raise SnapshotError(
            f"{path} holds {header['embedding_dim']}-dimensional vectors; this store uses "
            f"{embedder.dim}. Open the store with the snapshot's model "
            f"({header['embedding_model']})."
        )
    target = check_ns(ns or header["ns"])
    fresh = target != header["ns"]
    if fresh:  # a copy: fresh ids
        nodes, edges = _with_new_ids(nodes, edges)
    now = time.time()

    def work(tx: Tx) -> None:
        if not replace and tx.run("namespace_exists", ns=target):
            raise NamespaceOccupiedError(
                f"namespace {target!r} already holds memories; restoring {path.name} would "
                f"replace them with its {len(nodes)} nodes. Pass replace=True (mags restore "
                "--replace) to do that, or restore into another namespace (ns=...).",
                target,
            )
        tx.run("namespace_delete", ns=target)
        tx.run("namespace_touch", ns=target, now=now)
        for label, query in _CREATE.items():
            # an entity's degree is counted again as its links are made; the memories of
            # schema-1 snapshots get their recall vectors packed
            pack = (lambda p: p) if label == "Entity" else with_packed
            rows = [
                {k: v for k, v in pack(n["props"]).items() if k != "degree"} | {"ns": target}
                for n in nodes
                if n["label"] == label
            ]
            if label != "Entity":  # a memory's properties beyond the write path's
                rows = [{**row, "more": row} for row in rows]
            for i in range(0, len(rows), _BATCH):
                tx.run(query, ns=target, rows=rows[i : i + _BATCH])
        for etype, query in _LINK.items():
            # one row a pair (the last): link_assoc makes an edge for each pair it finds
            # without one, and a file may name a pair twice (one liquid edge a pair, any way)
            pairs = {
                _pair(etype, e["a"], e["b"]): {"a": e["a"], "b": e["b"], "props": e["props"]}
                for e in edges
                if e["type"] == etype
            }
            rows = list(pairs.values())
            for i in range(0, len(rows), _BATCH):
                tx.run(query, ns=target, rows=rows[i : i + _BATCH])

    try:
        backend.write_tx(work)
    except InvalidInputError:
        # its ids are taken: the header names another namespace than the one its memories
        # came from (an edited or crafted file). Fresh ids: never someone else's records
        if fresh:
            raise
        nodes, edges = _with_new_ids(nodes, edges)
        backend.write_tx(work)
    return target, {"nodes": len(nodes), "edges": len(edges)}


# what a memory needs to be read back (the write path's checks: text, names, vectors)
_TEXT_FIELDS = {"Episode": ("text",), "Fact": ("text", "subject", "predicate", "object"),
                "Entity": ("name",)}  # fmt: skip
_MAX_CHARS = 32_000 * 4  # generous: the write path's limit, with the stemmed index terms


def _check_records(path: Path, nodes: list[dict], edges: list[dict], dim: int) -> None:
    """Every record as the write path would have made it, before any transaction: a
    hand-edited node (an int for a text, no id, garbage vectors) would break every read."""

    def bad(what: str) -> SnapshotError:
        return SnapshotError(f"{path} is not a valid MAGS snapshot: {what}")

    ids: set[str] = set()
    for i, n in enumerate(nodes):
        props = n.get("props")
        if not isinstance(props, dict) or not isinstance(props.get("id"), str) or not props["id"]:
            raise bad(f"node {i} has no id")
        for field in _TEXT_FIELDS[n["label"]]:
            value = props.get(field)
            if not isinstance(value, str) or not value or len(value) > _MAX_CHARS:
                raise bad(f"node {props['id']!r}: {field} must be a non-empty text")
        emb = props.get("embedding")
        if emb is not None and (
            not isinstance(emb, list)
            or len(emb) != dim
            or not all(isinstance(x, int | float) and math.isfinite(x) for x in emb)
        ):
            raise bad(f"node {props['id']!r}: embedding must be {dim} finite numbers")
        if props.get("vecs") is not None:
            try:
                unpack(props["vecs"], dim)
            except (ValueError, TypeError, AttributeError) as e:
                raise bad(f"node {props['id']!r}: packed vectors: {e}") from None
        ids.add(props["id"])
    for e in edges:
        if e.get("a") not in ids or e.get("b") not in ids or not isinstance(e.get("props"), dict):
            raise bad(f"a {e.get('type')} edge joins ids the snapshot does not hold")


def _with_new_ids(nodes: list[dict], edges: list[dict]) -> tuple[list[dict], list[dict]]:
    """A copy into another namespace gets fresh ids (ids are unique store-wide)."""
    new = {n["props"]["id"]: str(uuid.uuid4()) for n in nodes}
    nodes = [{**n, "props": _remap(n["props"], new)} for n in nodes]
    edges = [{**e, "a": new.get(e["a"], e["a"]), "b": new.get(e["b"], e["b"])} for e in edges]
    return nodes, edges


def _remap(props: dict[str, Any], new: dict[str, str]) -> dict[str, Any]:
    out = {**props, "id": new[props["id"]]}
    if props.get("source_episode_id") in new:
        out["source_episode_id"] = new[props["source_episode_id"]]
    return out


def _pair(etype: str, a: str, b: str) -> tuple[str, str]:
    """The pair an edge of ``etype`` joins: a liquid edge is one a pair either way."""
    return (min(a, b), max(a, b)) if etype == "ASSOC" else (a, b)
