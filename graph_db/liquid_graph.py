"""``LiquidGraph``: the write and read API of the memory graph.

One object per process and store. Every method takes the namespace first and
every query filters on it; a batch write is one transaction, so it is stored
whole or not at all. Embedding happens before the transaction opens, so a slow
model never holds locks.
"""

from __future__ import annotations

import itertools
import json
import logging
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graph_db.backends import GraphBackend, Tx, open_backend
from graph_db.embeddings import Embedder, check_vectors, make_embedder
from graph_db.errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    NotFoundError,
    UnknownNamespaceError,
)
from graph_db.linking import attention_weights, chain_diff
from graph_db.models import (
    BLOCK_OF_LABEL,
    Blocks,
    EpisodeIn,
    FactIn,
    FactWrite,
    Hit,
    Memory,
    labels_of,
    to_epoch,
)
from graph_db.search import Searcher, rrf
from graph_db.settings import GraphSettings
from graph_db.text import check_ns, check_text, entity_key, predicate_key

log = logging.getLogger(__name__)
_seq = itertools.count()
SCHEMA_VERSION = 1
_EPISODE_UPDATABLE = {"text", "speaker", "ts", "salience", "importance", "metadata", "permanent"}
_FACT_UPDATABLE = {
    "subject", "predicate", "object", "confidence", "salience", "importance",
    "metadata", "permanent", "valid_from", "valid_to",
}  # fmt: skip


def _new_id() -> str:
    return str(uuid.uuid4())


def _seq_value() -> int:
    """Insertion order tie-break for episodes with the same event time."""
    return time.time_ns() + next(_seq)


def fact_text(subject: str, predicate: str, obj: str) -> str:
    """How a triplet reads as text (what is embedded and full-text indexed)."""
    return f"{subject} {predicate.replace('_', ' ')} {obj}"


class LiquidGraph:
    """The liquid knowledge graph: episodes, facts and entities per namespace."""

    def __init__(
        self,
        settings: GraphSettings | None = None,
        *,
        backend: GraphBackend | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings or GraphSettings()
        self.embedder = embedder or make_embedder(self.settings)
        self.backend = backend or open_backend(self.settings)
        try:
            stored = self._stored_meta()
            self._check_dimension(stored)
            self.backend.ensure_schema(self.embedder.dim)
            if stored is None:
                mine = {"version": SCHEMA_VERSION, "dim": self.embedder.dim}
                mine["model"] = self.embedder.name
                self.backend.write("meta_put", key="schema", value=json.dumps(mine))
        except BaseException:
            self.backend.close()
            raise
        self.search_engine = Searcher(self.backend.dialect, self.settings)
        self._known_ns: set[str] = set()

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> LiquidGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _stored_meta(self) -> dict[str, Any] | None:
        """What the store says about itself (None for a new store)."""
        from neo4j.exceptions import Neo4jError

        try:
            rows = self.backend.read("meta_get", key="schema")
        except Neo4jError:  # a new ArcadeDB store has no MagsMeta type yet
            return None
        return json.loads(rows[0]["value"]) if rows and rows[0]["value"] else None

    def _check_dimension(self, stored: dict[str, Any] | None) -> None:
        """The store remembers its embedding dimension: a different model is refused."""
        if stored is not None and stored.get("dim") != self.embedder.dim:
            raise EmbeddingMismatchError(
                f"This store holds {stored.get('dim')}-dimensional vectors from "
                f"{stored.get('model')!r}; the embedder {self.embedder.name!r} gives "
                f"{self.embedder.dim}. Use the same model (MAGS_EMBEDDING_MODEL), or export the "
                "namespaces and import them into a new home."
            )

    # -- helpers ---------------------------------------------------------------------
    def _require_ns(self, ns: str) -> str:
        ns = check_ns(ns)
        if ns in self._known_ns:
            return ns
        if not self.backend.read("namespace_exists", ns=ns):
            raise UnknownNamespaceError(
                f"No memories under namespace {ns!r}. Check the name (see namespaces()), "
                "or write to it first."
            )
        self._known_ns.add(ns)
        return ns

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        return check_vectors(self.embedder.embed(texts), self.embedder.dim, len(texts))

    def _neighbour_rows(
        self,
        tx: Tx,
        ns: str,
        ids: Sequence[str],
        vectors: np.ndarray,
        now: float,
    ) -> list[dict[str, Any]]:
        """Initial ASSOC edges, GAT-style: attention over the m most similar memories.

        Candidates are the namespace's existing episodes and facts plus the earlier
        items of the same batch; w_j = w0 * softmax(sim_j / tau) over the kept ones.
        """
        m = self.settings.assoc_neighbours
        if m == 0 or len(ids) == 0:
            return []
        existing: list[list[tuple[str, float]]] = [[] for _ in ids]
        for label in ("Episode", "Fact"):
            found = self.search_engine.nearest(tx.run, ns, label, vectors, m)
            for i, hits in enumerate(found):
                existing[i].extend((h.id, h.score) for h in hits)
        batch_sims = vectors @ vectors.T
        rows = []
        for i, node_id in enumerate(ids):
            cands = dict(existing[i])
            cands.update((ids[j], float(batch_sims[i, j])) for j in range(i))
            cands.pop(node_id, None)
            top = sorted(cands.items(), key=lambda kv: kv[1], reverse=True)[:m]
            weights = attention_weights(
                [s for _, s in top],
                self.settings.assoc_w0,
                self.settings.assoc_temperature,
                self.settings.assoc_min_similarity,
            )
            for (other, _), w in zip(top, weights, strict=True):
                if w <= 0:
                    continue
                a, b = sorted((node_id, other))
                props = {"w": w, "w_at": now, "fired_at": now, "fired_count": 0}
                props["permanent"] = False
                rows.append({"a": a, "b": b, "props": {**props, "created_at": now}})
        return rows

    def _resolve_entities(
        self, tx: Tx, ns: str, names: Iterable[str], now: float
    ) -> dict[str, str]:
        """Entity ids for surface names: exact normalised match, then embedding match.

        New entities and new aliases are written in the caller's transaction.
        """
        names = list(names)
        by_key: dict[str, str] = {}
        for name in names:
            key = entity_key(name)
            if key and key not in by_key:
                by_key[key] = name.strip()
        if not by_key:
            return {}
        keys = list(by_key)
        ids = {r["name"]: r["id"] for r in tx.run("entities_by_name", ns=ns, names=keys)}
        unknown = [k for k in keys if k not in ids]
        if unknown:
            vecs = self._embed([by_key[k] for k in unknown])
            near = self.search_engine.nearest(tx.run, ns, "Entity", vecs, 1)
            new_rows, aliases = [], []
            for key, vec, hits in zip(unknown, vecs, near, strict=True):
                if hits and hits[0].score >= self.settings.entity_threshold:
                    ids[key] = hits[0].id
                    aliases.append({"id": ids[key], "alias": key})
                    continue
                ids[key] = _new_id()
                new_rows.append(
                    {
                        "id": ids[key],
                        "name": key,
                        "display": by_key[key],
                        "aliases": [],
                        "embedding": vec.tolist(),
                        "created_at": now,
                        "last_access": now,
                        "access_count": 0,
                        "importance": 0.5,
                        "permanent": False,
                    }
                )
            if new_rows:
                tx.run("entities_create", ns=ns, rows=new_rows)
            if aliases:
                tx.run("entity_alias_add", ns=ns, rows=aliases, now=now)
        return {name: ids[entity_key(name)] for name in names if entity_key(name) in ids}

    # -- write: episodes ---------------------------------------------------------------
    def add_episodes(
        self, ns: str, episodes: Sequence[EpisodeIn | Mapping[str, Any] | str]
    ) -> list[str]:
        """Store turns/events in one transaction; returns their ids in input order."""
        return self._write_episodes(*self._prepare_episodes(ns, episodes))

    def ingest(
        self,
        ns: str,
        episodes: Iterable[EpisodeIn | Mapping[str, Any] | str],
        batch_size: int = 100,
        progress: bool = False,
    ) -> list[str]:
        """Bulk import: one transaction per batch, the next batch embedded while this one
        is written (the model and the engine each keep a core busy).

        A failure stops the import: the batches before it are stored, the failing one is not.
        """
        from concurrent.futures import ThreadPoolExecutor

        from tqdm import tqdm

        items = list(episodes)
        batches = [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
        ids: list[str] = []
        with (
            ThreadPoolExecutor(max_workers=1) as pool,
            tqdm(total=len(items), disable=not progress, unit="turn", desc=f"ingest {ns}") as bar,
        ):
            ahead = pool.submit(self._prepare_episodes, ns, batches[0]) if batches else None
            for i in range(len(batches)):
                prepared = ahead.result()
                if i + 1 < len(batches):
                    ahead = pool.submit(self._prepare_episodes, ns, batches[i + 1])
                ids += self._write_episodes(*prepared)
                bar.update(len(batches[i]))
        return ids

    def _prepare_episodes(
        self, ns: str, episodes: Sequence[EpisodeIn | Mapping[str, Any] | str]
    ) -> tuple[str, list[EpisodeIn], list[str], np.ndarray]:
        """Validate and embed (no store access: may run ahead in another thread)."""
        ns = check_ns(ns)
        items = [self._coerce(EpisodeIn, e) for e in episodes]
        limit = self.settings.max_text_chars
        texts = [check_text(e.text, "episode text", limit) for e in items]
        return ns, items, texts, self._embed(texts) if texts else np.zeros((0, 0))

    def _write_episodes(
        self, ns: str, items: list[EpisodeIn], texts: list[str], vectors: np.ndarray
    ) -> list[str]:
        if not items:
            return []
        now = time.time()
        rows, mentions = [], []
        for e, text, vec in zip(items, texts, vectors, strict=True):
            meta = json.dumps(e.metadata, ensure_ascii=False) if e.metadata else None
            ts = to_epoch(e.ts) if e.ts is not None else now
            rows.append(
                {
                    "id": e.id or _new_id(),
                    "text": text,
                    "speaker": e.speaker,
                    "session_id": check_text(e.session_id, "session_id", 512),
                    "ts": ts,
                    "seq": _seq_value(),
                    "embedding": vec.tolist(),
                    "created_at": now,
                    "last_access": now,
                    "access_count": 0,
                    "importance": e.salience,
                    "salience": e.salience,
                    "permanent": False,
                    "metadata": meta,
                }
            )
            names = [*e.entities, *([e.speaker] if e.speaker else [])]
            mentions.append([(n, "speaker" if n == e.speaker else "mention") for n in names])
        ids = [r["id"] for r in rows]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("episode ids in one batch must be unique")

        def work(tx: Tx) -> None:
            tx.run("namespace_touch", ns=ns, now=now)
            sessions = sorted({r["session_id"] for r in rows})
            timeline = tx.run("session_timeline", ns=ns, sessions=sessions)
            tx.run("episodes_create", ns=ns, rows=rows)
            for sid in sessions:
                old = [
                    (t["id"], t["ts"], t["seq"] or 0) for t in timeline if t["session_id"] == sid
                ]
                new = [(r["id"], r["ts"], r["seq"]) for r in rows if r["session_id"] == sid]
                unlink, link = chain_diff(old, new)
                if unlink:
                    tx.run("unlink_next", ns=ns, rows=[{"a": a, "b": b} for a, b in unlink])
                if link:
                    tx.run(
                        "link_next",
                        ns=ns,
                        rows=[{"a": a, "b": b, "props": {"created_at": now}} for a, b in link],
                    )
            entity_ids = self._resolve_entities(tx, ns, (n for ms in mentions for n, _ in ms), now)
            mention_rows = [
                {"a": ep_id, "b": entity_ids[name], "props": {"role": role, "created_at": now}}
                for ep_id, ms in zip(ids, mentions, strict=True)
                for name, role in ms
                if name in entity_ids
            ]
            if mention_rows:
                tx.run("link_mentions", ns=ns, rows=mention_rows)
            assoc = self._neighbour_rows(tx, ns, ids, vectors, now)
            if assoc:
                tx.run("link_assoc", ns=ns, rows=assoc)

        self.backend.write_tx(work)
        self._after_write(ns, Episode=len(rows))
        return ids

    def add_episode(self, ns: str, text: str, **fields: Any) -> str:
        """Store one turn; see ``EpisodeIn`` for the fields."""
        return self.add_episodes(ns, [EpisodeIn(text=text, **fields)])[0]

    # -- write: facts --------------------------------------------------------------------
    def add_facts(self, ns: str, facts: Sequence[FactIn | Mapping[str, Any]]) -> list[FactWrite]:
        """Store triplets in one transaction; a near-duplicate of a current fact is merged.

        A duplicate is a current fact with the same subject and predicate whose text is
        at least ``dup_threshold`` similar (or whose object is the same): its confidence
        rises (noisy-or), and its access count and importance go up.
        """
        ns = check_ns(ns)
        items = [self._coerce(FactIn, f) for f in facts]
        if not items:
            return []
        limit = self.settings.max_text_chars
        now = time.time()
        prepared = []
        for f in items:
            subject = check_text(f.subject, "fact subject", limit).strip()
            obj = check_text(f.object, "fact object", limit).strip()
            predicate = predicate_key(check_text(f.predicate, "fact predicate", limit))
            if not predicate:
                raise InvalidInputError(
                    f"predicate {f.predicate!r} has no words; use e.g. 'lives_in'"
                )
            prepared.append((f, subject, predicate, obj, fact_text(subject, predicate, obj)))
        vectors = self._embed([p[4] for p in prepared])
        sources = sorted({f.source_episode_id for f in items if f.source_episode_id})

        def work(tx: Tx) -> list[FactWrite]:
            tx.run("namespace_touch", ns=ns, now=now)
            if sources:
                found = {r["memory"]["id"] for r in tx.run(
                    "memory_get", ns=ns, ids=sources, with_embedding=False
                ) if r["label"] == "Episode"}  # fmt: skip
                missing = [s for s in sources if s not in found]
                if missing:
                    raise NotFoundError(
                        f"source episode(s) {missing} not found in namespace {ns!r}; "
                        "write the episode first and pass its id"
                    )
            keys = [
                {"i": i, "subject_key": entity_key(p[1]), "predicate": p[2]}
                for i, p in enumerate(prepared)
            ]
            current: dict[int, list[dict[str, Any]]] = {}
            for r in tx.run("facts_current_by_key", ns=ns, keys=keys):
                current.setdefault(r["i"], []).append(r)
            results: list[FactWrite] = []
            create, reinforce, derived, about = [], [], [], []
            created_keys: dict[tuple[str, str], list[tuple[str, np.ndarray, str]]] = {}
            for i, ((f, subject, predicate, obj, text), vec) in enumerate(
                zip(prepared, vectors, strict=True)
            ):
                key = (entity_key(subject), predicate)
                dup = self._duplicate_of(vec, obj, current.get(i, []), created_keys.get(key, []))
                if dup is not None:
                    reinforce.append({"id": dup, "confidence": f.confidence})
                    results.append(FactWrite(id=dup, action="merged"))
                    if f.source_episode_id:
                        derived.append({"a": dup, "b": f.source_episode_id})
                    continue
                fid = f.id or _new_id()
                created_keys.setdefault(key, []).append((fid, vec, obj))
                create.append(
                    {
                        "id": fid,
                        "subject": subject,
                        "subject_key": key[0],
                        "predicate": predicate,
                        "object": obj,
                        "text": text,
                        "embedding": vec.tolist(),
                        "confidence": f.confidence,
                        "valid_from": to_epoch(f.valid_from) if f.valid_from else now,
                        "created_at": now,
                        "last_access": now,
                        "access_count": 0,
                        "importance": f.salience,
                        "salience": f.salience,
                        "permanent": False,
                        "source_episode_id": f.source_episode_id,
                        "metadata": json.dumps(f.metadata, ensure_ascii=False)
                        if f.metadata
                        else None,
                    }
                )
                results.append(FactWrite(id=fid, action="created"))
                if f.source_episode_id:
                    derived.append({"a": fid, "b": f.source_episode_id})
                about.append((fid, subject, "subject"))
                about.append((fid, obj, "object"))
            if create:
                tx.run("facts_create", ns=ns, rows=create)
            if reinforce:
                tx.run("fact_reinforce", ns=ns, rows=reinforce, now=now, boost=0.1)
            if derived:
                for d in derived:
                    d["props"] = {"created_at": now}
                tx.run("link_derived_from", ns=ns, rows=derived)
            entity_ids = self._resolve_entities(tx, ns, (name for _, name, _ in about), now)
            about_rows = [
                {"a": fid, "b": entity_ids[name], "props": {"role": role, "created_at": now}}
                for fid, name, role in about
                if name in entity_ids
            ]
            if about_rows:
                tx.run("link_about", ns=ns, rows=about_rows)
            if create:
                new_ids = [c["id"] for c in create]
                new_vecs = np.asarray([c["embedding"] for c in create], dtype=np.float32)
                assoc = self._neighbour_rows(tx, ns, new_ids, new_vecs, now)
                if assoc:
                    tx.run("link_assoc", ns=ns, rows=assoc)
            return results

        results = self.backend.write_tx(work)
        self._after_write(ns, Fact=sum(r.action == "created" for r in results))
        return results

    def add_fact(self, ns: str, subject: str, predicate: str, obj: str, **fields: Any) -> str:
        """Store one triplet; returns the id of the new or merged fact."""
        fact = FactIn(subject=subject, predicate=predicate, object=obj, **fields)
        return self.add_facts(ns, [fact])[0].id

    def _duplicate_of(
        self,
        vec: np.ndarray,
        obj: str,
        stored: list[dict[str, Any]],
        batch: list[tuple[str, np.ndarray, str]],
    ) -> str | None:
        okey = entity_key(obj)
        best, best_sim = None, self.settings.dup_threshold
        for r in stored:
            sim = float(np.dot(vec, np.asarray(r["embedding"], dtype=np.float32)))
            if entity_key(r["object"] or "") == okey:
                return r["id"]
            if sim >= best_sim:
                best, best_sim = r["id"], sim
        for fid, other, other_obj in batch:
            if entity_key(other_obj) == okey or float(np.dot(vec, other)) >= best_sim:
                return fid
        return best

    def _after_write(self, ns: str, **created: int) -> None:
        """Note a committed write: the namespace exists; nodes per label were added."""
        self._known_ns.add(ns)
        for label, n in created.items():
            self.search_engine.counts.add(ns, label, n)

    @staticmethod
    def _coerce(model: type, value: Any) -> Any:
        if isinstance(value, model):
            return value
        if isinstance(value, str) and model is EpisodeIn:
            return EpisodeIn(text=value)
        if isinstance(value, Mapping):
            try:
                return model(**value)
            except Exception as e:  # pydantic's message names the field
                raise InvalidInputError(f"invalid {model.__name__}: {e}") from e
        raise InvalidInputError(f"expected {model.__name__} or a mapping, got {type(value)}")

    # -- read ----------------------------------------------------------------------------
    def search(
        self,
        ns: str,
        query: str,
        k: int = 10,
        blocks: Blocks = "both",
        mode: str = "hybrid",
    ) -> list[Hit]:
        """Memories matching ``query``: vector, full-text, or both fused by reciprocal rank."""
        ns = self._require_ns(ns)
        if mode not in ("hybrid", "vector", "fulltext"):
            raise InvalidInputError(f"mode must be hybrid, vector or fulltext, not {mode!r}")
        query = check_text(query, "query", self.settings.max_text_chars)
        if k <= 0:
            return []
        labels = labels_of(blocks)
        run = self.backend.read
        rankings: list[list[str]] = []
        sims: dict[str, float] = {}
        sources: dict[str, list[str]] = {}
        if mode in ("hybrid", "vector"):
            vec = self._embed([query])
            for label in labels:
                hits = self.search_engine.nearest(run, ns, label, vec, k)[0]
                rankings.append([h.id for h in hits])
                for h in hits:
                    sims[h.id] = h.score
                    sources.setdefault(h.id, []).append("vector")
        if mode in ("hybrid", "fulltext"):
            for label in labels:
                hits = self.search_engine.fulltext(run, ns, label, query, k)
                rankings.append([h.id for h in hits])
                for h in hits:
                    sources.setdefault(h.id, []).append("fulltext")
        fused = rrf(rankings)
        order = sorted(fused, key=lambda i: (-fused[i], -sims.get(i, -2.0)))[:k]
        memories = {m.id: m for m in self.get_many(ns, order)}
        return [
            Hit(memory=memories[i], score=fused[i], similarity=sims.get(i), sources=sources[i])
            for i in order
            if i in memories  # deleted between the two reads
        ]

    def get(self, ns: str, memory_id: str, *, with_embedding: bool = False) -> Memory:
        """One memory by id, or ``NotFoundError``."""
        got = self.get_many(ns, [memory_id], with_embedding=with_embedding)
        if not got:
            raise NotFoundError(f"no memory {memory_id!r} in namespace {ns!r}")
        return got[0]

    def get_many(
        self, ns: str, ids: Sequence[str], *, with_embedding: bool = False
    ) -> list[Memory]:
        """Memories by id (missing ids are skipped), in the order asked."""
        ns = self._require_ns(ns)
        rows = self.backend.read("memory_get", ns=ns, ids=list(ids), with_embedding=with_embedding)
        by_id = {r["memory"]["id"]: Memory.from_row(r["memory"], r["label"]) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def list(
        self, ns: str, blocks: Blocks = "both", limit: int = 100, offset: int = 0
    ) -> list[Memory]:
        """Memories of a namespace, newest first."""
        ns = self._require_ns(ns)
        if limit < 0 or offset < 0:
            raise InvalidInputError("limit and offset must be >= 0")
        rows = self.backend.read(
            "memory_list", ns=ns, labels=labels_of(blocks), limit=limit, offset=offset
        )
        return [Memory.from_row(r["memory"], r["label"]) for r in rows]

    def namespaces(self, prefix: str = "", limit: int = 1000, offset: int = 0) -> list[str]:
        """Namespaces that hold memories, by name."""
        rows = self.backend.read("namespace_list", prefix=prefix, limit=limit, offset=offset)
        return [r["ns"] for r in rows]

    def stats(self, ns: str) -> dict[str, Any]:
        """Counts of nodes per label and edges per type (with mean weight) in ``ns``."""
        ns = self._require_ns(ns)
        nodes = {"Episode": 0, "Fact": 0, "Entity": 0}  # engines differ on empty counts
        nodes |= {r["label"]: r["count"] for r in self.backend.read("stats_nodes", ns=ns)}
        edges = {
            r["type"]: {"count": r["count"], "mean_w": r["mean_w"]}
            for r in self.backend.read("stats_edges", ns=ns)
        }
        return {"ns": ns, "nodes": nodes, "edges": edges, "backend": self.backend.describe}

    # -- change / delete -----------------------------------------------------------------
    def update(self, ns: str, memory_id: str, /, **changes: Any) -> Memory:
        """Change fields of one memory; new text (or s/p/o of a fact) is re-embedded."""
        current = self.get(ns, memory_id)
        allowed = _EPISODE_UPDATABLE if current.block == "episodic" else _FACT_UPDATABLE
        unknown = set(changes) - allowed
        if unknown:
            raise InvalidInputError(
                f"cannot update {sorted(unknown)} of a {current.block} memory; "
                f"updatable: {sorted(allowed)}"
            )
        props: dict[str, Any] = dict(changes)
        limit = self.settings.max_text_chars
        if "metadata" in props and props["metadata"] is not None:
            props["metadata"] = json.dumps(props["metadata"], ensure_ascii=False)
        for key in ("ts", "valid_from", "valid_to"):
            if props.get(key) is not None:
                props[key] = to_epoch(props[key])
        if current.block == "semantic" and {"subject", "predicate", "object"} & set(props):
            p = current.properties
            subject = check_text(props.get("subject", p["subject"]), "fact subject", limit)
            predicate = predicate_key(props.get("predicate", p["predicate"]))
            obj = check_text(props.get("object", p["object"]), "fact object", limit)
            props.update(subject=subject, predicate=predicate, object=obj)
            props["subject_key"] = entity_key(subject)
            props["text"] = fact_text(subject, predicate, obj)
        if "text" in props:
            props["text"] = check_text(props["text"], "text", limit)
            props["embedding"] = self._embed([props["text"]])[0].tolist()
        rows = self.backend.write("memory_update", ns=ns, id=memory_id, props=props)
        if not rows:
            raise NotFoundError(f"no memory {memory_id!r} in namespace {ns!r}")
        return Memory.from_row(rows[0]["memory"], rows[0]["label"])

    def delete(self, ns: str, memory_id: str) -> None:
        """Delete one memory, its edges, and entities only it referred to."""
        self.forget(ns, memory_id, cascade=False)

    def forget(self, ns: str, memory_id: str, *, cascade: bool = True) -> list[str]:
        """Delete a memory; with ``cascade``, also facts learned only from this episode.

        The session's NEXT chain is bridged over a deleted episode, and entities left
        without any memory are deleted too. Returns the ids deleted.
        """
        ns = self._require_ns(ns)

        def work(tx: Tx) -> list[str]:
            rows = tx.run("memory_get", ns=ns, ids=[memory_id], with_embedding=False)
            if not rows:
                raise NotFoundError(f"no memory {memory_id!r} in namespace {ns!r}")
            victims = [memory_id]
            if cascade and rows[0]["label"] == "Episode":
                victims += [r["id"] for r in tx.run("facts_only_from", ns=ns, id=memory_id)]
            entities: set[str] = set()
            for vid in victims:
                tx.run("next_bridge", ns=ns, id=vid)
                for r in tx.run("memory_delete", ns=ns, id=vid):
                    entities.update(r["entities"])
            if entities:
                tx.run("entities_drop_orphans", ns=ns, ids=sorted(entities))
            return victims

        deleted = self.backend.write_tx(work)
        self.search_engine.counts.invalidate(ns)
        return deleted

    def forget_namespace(self, ns: str) -> int:
        """Delete everything a namespace holds; returns the number of nodes deleted."""
        ns = check_ns(ns)
        rows = self.backend.write("namespace_delete", ns=ns)
        self._known_ns.discard(ns)
        self.search_engine.counts.invalidate(ns)
        return int(rows[0]["deleted"]) if rows else 0

    # -- snapshots -----------------------------------------------------------------------
    def export(self, ns: str, path: str | Path) -> Path:
        """Write namespace ``ns`` to a versioned snapshot file (see ``graph_db.snapshots``)."""
        from graph_db.snapshots import export_namespace

        return export_namespace(self, self._require_ns(ns), Path(path))

    def restore(self, path: str | Path, ns: str | None = None) -> dict[str, int]:
        """Replace a namespace with a snapshot's content, exactly (rollback)."""
        from graph_db.snapshots import import_namespace

        counts = import_namespace(self, Path(path), ns)
        return counts


__all__ = ["BLOCK_OF_LABEL", "LiquidGraph", "fact_text"]
