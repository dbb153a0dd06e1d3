"""``LiquidGraph``: the public API of the memory graph (write, read, change, snapshots).

One object per process and store. Every method takes the namespace first and
every query filters on it; a batch write is one transaction, so it is stored
whole or not at all. The write path itself lives in ``graph_db.engram``.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from graph_db.backends import GraphBackend, Tx, open_backend
from graph_db.blas import blas_threads
from graph_db.embeddings import Embedder, make_embedder
from graph_db.engram import MemoryWriter, Prepared, fact_text
from graph_db.errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    NotFoundError,
    SettingsError,
    UnknownNamespaceError,
)
from graph_db.grounding import as_asker, name_free
from graph_db.maintenance import (
    Maintainer,
    MaintenancePreview,
    MaintenanceReport,
    delete_memories,
)
from graph_db.models import (
    MEMORY_FIELDS,
    MEMORY_FIELDS_AND_EMBEDDING,
    Blocks,
    EpisodeIn,
    FactIn,
    FactWrite,
    Hit,
    Memory,
    Recalled,
    labels_of,
    to_epoch,
)
from graph_db.plasticity import Plasticity
from graph_db.read_index import ReadIndex
from graph_db.recall import Moved, Recaller, as_queries
from graph_db.reconcile import LEGACY_META_PREFIX, Adjudicator, PredicateInfo, predicate_node_key
from graph_db.search import Searcher, engine_indexes, rrf
from graph_db.settings import TUNABLE, GraphSettings
from graph_db.snapshots import export_namespace, import_namespace
from graph_db.text import (
    NAME_MAX,
    check_k,
    check_ns,
    check_page,
    check_similarity,
    check_text,
    entity_key,
    is_question,
    predicate_key,
    to_json,
)
from graph_db.vecpack import with_packed
from graph_db.view import VIEW_MAX, GraphView, graph_view, weight_bins

log = logging.getLogger(__name__)
# 2: recall vectors packed in one string (graph_db/vecpack.py); 3: a namespace's predicate
# cardinality in Predicate nodes (was one JSON blob per namespace); 4: the engine's vector
# and full-text indexes only while searches ask the engine (graph_db.search.engine_indexes;
# a store opened at 4 drops those this process does not search with, once)
SCHEMA_VERSION = 4
_EPISODE_UPDATABLE = {"text", "speaker", "salience", "importance", "metadata", "permanent"}
_FACT_UPDATABLE = {
    "subject", "predicate", "object", "confidence", "salience", "importance",
    "metadata", "permanent", "valid_from", "valid_to",
}  # fmt: skip


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
            if stored is not None and stored.get("version", 1) < 2:
                self._pack_vectors()
            if stored is not None and stored.get("version", 1) < 3:
                self._split_cardinality()
            if stored is not None and stored.get("version", 1) < 4:
                searched = engine_indexes(self.settings)
                unused = [f"drop-{p}" for p in ("vectors", "fulltext") if p not in searched]
                self.backend.ensure_schema(self.embedder.dim, unused)
            if stored is None or stored.get("version", 1) < SCHEMA_VERSION or "store" not in stored:
                mine = {**(stored or {}), "version": SCHEMA_VERSION, "dim": self.embedder.dim}
                mine.setdefault("model", self.embedder.name)
                mine.setdefault("store", uuid.uuid4().hex)
                self.backend.write("meta_put", key="schema", value=json.dumps(mine))
                stored = {**mine, **(self._stored_meta() or {})}  # another process may win
            #: the store's own id, made once: what its saved read index is filed under
            self.store_id: str = stored["store"]
            #: recall vectors per namespace in process (graph_db.read_index); None: the engine's
            self.read_index = (
                ReadIndex(
                    self.backend,
                    self.embedder.dim,
                    self.settings.read_index_max_memories,
                    self.settings.read_index_exact_below,
                    self.settings.read_index_hnsw_ef,
                    self._read_index_dir(),
                    self.embedder.name,
                    self.settings.read_index_persist_min,
                    self.settings.read_index_gc_freeze,
                )
                if self.settings.read_index
                else None
            )
            # makes the engine's search indexes its searches ask for (none with the read index)
            self.search_engine = Searcher(
                self.backend.dialect,
                self.settings,
                self.backend.read,
                self.read_index,
                lambda part: self.backend.ensure_schema(self.embedder.dim, (part,)),
            )
        except BaseException:
            self.backend.close()
            raise
        self._known_ns: set[str] = set()
        self._engram = MemoryWriter(
            self.backend, self.embedder, self.search_engine, self.settings, self._after_write
        )
        self._recaller = Recaller(self.backend, self.search_engine, self.settings)
        self._plasticity = Plasticity(self.backend, self.settings)
        self._maintainer = Maintainer(self.backend, self.settings)
        #: decides conflicts on write when add_facts is given none (None: the default rule)
        self.adjudicator: Adjudicator | None = None
        self._owner = True  # False for a tuned() view: closing it leaves the store open

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        """Swap the embedder (same dimension), e.g. to time the store without the model."""
        self._embedder = embedder
        if hasattr(self, "_engram"):
            self._engram.embedder = embedder

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        if not self._owner:
            return
        self._plasticity.close()
        self._recaller.close()
        if self.read_index is not None:
            self.read_index.close()
        self.backend.close()

    def __enter__(self) -> LiquidGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _stored_meta(self) -> dict[str, Any] | None:
        """What the store says about itself (None for a new store). A read that fails
        raises: taking the store for a new one would rewrite its schema meta."""
        rows = self.backend.read("meta_get", key="schema")
        return json.loads(rows[0]["value"]) if rows and rows[0]["value"] else None

    def _pack_vectors(self, page: int = 500) -> None:
        """Schema 1 -> 2: pack each memory's recall vectors into one string (once)."""
        done: set[str] = set()
        while rows := self.backend.read("vecs_missing", limit=page):
            if rows[0]["id"] in done:  # the write did not take: stop rather than spin
                raise RuntimeError(f"could not pack the vectors of memory {rows[0]['id']!r}")
            packed = [{"id": r["id"], "ns": r["ns"], "vecs": with_packed(r)["vecs"]} for r in rows]
            self.backend.write("vecs_set", rows=packed)
            done.update(r["id"] for r in rows)

    def _split_cardinality(self) -> None:
        """Schema 2 -> 3: each namespace's cardinality blob becomes Predicate nodes."""
        for row in self.backend.read("legacy_cardinality"):
            ns = row["key"][len(LEGACY_META_PREFIX) :]
            table = json.loads(row["value"] or "{}")

            def work(tx: Tx, ns: str = ns, table: dict = table, key: str = row["key"]) -> None:
                for name, entry in table.items():
                    info = PredicateInfo.of(entry)
                    lesson = {"key": predicate_node_key(ns, name), "name": name,
                              "replaced": info.replaced, "kept_both": info.kept_both}  # fmt: skip
                    tx.run("predicates_learn", ns=ns, rows=[lesson])
                    if "override" in entry:
                        tx.run("predicate_set", ns=ns, key=lesson["key"], predicate=name,
                               override=bool(entry["override"]))  # fmt: skip
                tx.run("meta_delete", key=key)

            self.backend.write_tx(work)

    def _check_dimension(self, stored: dict[str, Any] | None) -> None:
        """The store remembers its embedding dimension: a different model is refused."""
        if stored is not None and stored.get("dim") != self.embedder.dim:
            raise EmbeddingMismatchError(
                f"This store holds {stored.get('dim')}-dimensional vectors from "
                f"{stored.get('model')!r}; the embedder {self.embedder.name!r} gives "
                f"{self.embedder.dim}. Use the same model (MAGS_EMBEDDING_MODEL), or export the "
                "namespaces and import them into a new home."
            )
        model = str((stored or {}).get("model", self.embedder.name))
        if model.split(":")[0] != self.embedder.name.split(":")[0]:
            log.warning(
                "this store was embedded with %s and is now searched with %s: same dimension, "
                "but rankings will be poor unless the two models share a vector space",
                model,
                self.embedder.name,
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

    # -- write: episodes ---------------------------------------------------------------
    def add_episodes(
        self, ns: str, episodes: Sequence[EpisodeIn | Mapping[str, Any] | str]
    ) -> list[str]:
        """Store turns/events in one transaction; returns their ids in input order."""
        with blas_threads(self.settings.blas_threads):
            return self._engram.write_episodes(self._engram.prepare_episodes(ns, episodes))

    def ingest(
        self,
        ns: str,
        episodes: Iterable[EpisodeIn | Mapping[str, Any] | str],
        batch_size: int = 100,
        progress: bool = False,
    ) -> list[str]:
        """Bulk import: one transaction per batch, the next batch embedded while this one
        is written when a core is left beside the embedder's (the model and the engine each
        keep one busy); else one after the other: on 2 cores the local model takes both,
        and a write beside it slowed both (LoCoMo: 1.10-1.19x the embedder's own time
        overlapped, 1.02-1.14x in turn).

        A failure stops the import: the batches before it are stored, the failing one is not.
        """
        from concurrent.futures import ThreadPoolExecutor

        from tqdm import tqdm

        items = list(episodes)
        batches = [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
        ids: list[str] = []
        busy = getattr(self.embedder, "threads", 0)  # the cores it takes (0: not known)
        beside = not busy or busy < (os.cpu_count() or 1)

        def prepare(pool: ThreadPoolExecutor, *args: Any) -> Callable[[], Prepared]:
            """The batch's embeddings: started now on ``pool``, or made when asked."""
            if beside:
                return pool.submit(self._engram.prepare_episodes, ns, *args).result
            return functools.partial(self._engram.prepare_episodes, ns, *args)

        with (
            ThreadPoolExecutor(max_workers=1) as pool,
            tqdm(total=len(items), disable=not progress, unit="turn", desc=f"ingest {ns}") as bar,
            blas_threads(self.settings.blas_threads),  # for both threads: the limit is global
        ):
            ahead = prepare(pool, batches[0]) if batches else None
            for i in range(len(batches)):
                prepared = ahead()  # type: ignore[misc]
                if i + 1 < len(batches):
                    ahead = prepare(pool, batches[i + 1], prepared.items)
                ids += self._engram.write_episodes(prepared)
                bar.update(len(batches[i]))
        return ids

    def add_episode(self, ns: str, text: str, **fields: Any) -> str:
        """Store one turn; see ``EpisodeIn`` for the fields."""
        return self.add_episodes(ns, [{"text": text, **fields}])[0]

    # -- write: facts --------------------------------------------------------------------
    def add_facts(
        self,
        ns: str,
        facts: Sequence[FactIn | Mapping[str, Any]],
        adjudicator: Adjudicator | None = None,
    ) -> list[FactWrite]:
        """Store triplets in one transaction; duplicates merge, conflicts are reconciled.

        A duplicate is a current fact with the same subject and predicate whose text is
        at least ``dup_threshold`` similar (or whose object is the same): its confidence
        rises (noisy-or), and its access count and importance go up. A new value of a
        functional predicate (see ``graph_db.reconcile``) conflicts with the current one:
        ``adjudicator`` (default: this graph's ``adjudicator``, else time, confidence and
        importance) picks the winner; the loser is kept as history (``valid_to``, a
        SUPERSEDES edge with the reason).
        """
        with blas_threads(self.settings.blas_threads):
            return self._engram.write_facts(ns, facts, adjudicator or self.adjudicator)

    def add_fact(self, ns: str, subject: str, predicate: str, obj: str, **fields: Any) -> str:
        """Store one triplet; returns the id of the new, merged or rejected fact."""
        fact = {"subject": subject, "predicate": predicate, "object": obj, **fields}
        return self.add_facts(ns, [fact])[0].id

    def history(self, ns: str, subject: str, predicate: str) -> list[Memory]:
        """Every value ``subject``'s ``predicate`` has had, oldest first (``valid_from``,
        ``valid_to``: when each held; the current one has no ``valid_to``)."""
        ns = self._require_ns(ns)
        limit = self.settings.max_text_chars
        key = entity_key(check_text(subject, "subject", limit))
        rows = self.backend.read(
            "fact_history",
            ns=ns,
            subject_key=key,
            predicate=predicate_key(predicate),
            fields=MEMORY_FIELDS,
        )
        return [Memory.from_values(r["values"], r["label"]) for r in rows]

    def set_cardinality(self, ns: str, predicate: str, functional: bool | None) -> None:
        """Declare a predicate single-valued (True) or multi-valued (False) in ``ns``;
        None returns it to the built-in lists and what the namespace learned."""
        self._engram.cardinality.set(check_ns(ns), predicate_key(predicate), functional)

    def _after_write(self, ns: str, **created: int) -> None:
        """Note a committed write: the namespace exists; nodes per label were added."""
        self._known_ns.add(ns)
        for label, n in created.items():
            self.search_engine.counts.add(ns, label, n)

    def _namespace_changed(self, ns: str, exists: bool) -> None:
        """Drop what is cached about ``ns`` after deletes or a restore."""
        if exists:
            self._known_ns.add(ns)
        else:
            self._known_ns.discard(ns)
        self.search_engine.counts.invalidate(ns)

    # -- read ----------------------------------------------------------------------------
    def search(
        self,
        ns: str,
        query: str,
        k: int = 10,
        blocks: Blocks = "both",
        mode: str = "hybrid",
        *,
        min_similarity: float | None = None,
    ) -> list[Hit]:
        """Memories matching ``query``: vector, full-text, or both fused by reciprocal rank
        (``score``: 1/(60 + rank) summed, for order only). ``min_similarity``: only hits at
        least this similar (cosine, ``Hit.similarity``) to the query; full-text-only hits,
        without one, are left out then."""
        if mode not in ("hybrid", "vector", "fulltext"):
            raise InvalidInputError(f"mode must be hybrid, vector or fulltext, not {mode!r}")
        labels = labels_of(blocks)
        query = check_text(query, "query", self.settings.max_text_chars)
        k = check_k(k)
        floor = check_similarity(min_similarity)
        ns = self._require_ns(ns)
        if k == 0:
            return []
        run = self.backend.read
        rankings: list[list[str]] = []
        sims: dict[str, float] = {}
        sources: dict[str, list[str]] = {}
        if mode in ("hybrid", "vector"):
            vec = self._engram.embed([query])
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
        if floor is not None:
            fused = {i: f for i, f in fused.items() if sims.get(i, -2.0) >= floor}
        order = sorted(fused, key=lambda i: (-fused[i], -sims.get(i, -2.0)))[:k]
        memories = {m.id: m for m in self.get_many(ns, order)}
        return [
            Hit(memory=memories[i], score=fused[i], similarity=sims.get(i), sources=sources[i])
            for i in order
            if i in memories  # deleted between the two reads
        ]

    def _read_index_dir(self) -> Path | None:
        """Where this store's read index files go: the home's ``read-index/``, one folder a
        store, named by the id the store holds (not by its address: a Neo4j server reached
        at another URI, or started on another port, is still the same store)."""
        if not self.settings.read_index_persist_min:
            return None
        name = hashlib.sha256(self.store_id.encode()).hexdigest()[:16]  # a name, whatever it holds
        return self.settings.home / "read-index" / name

    def recall(
        self,
        ns: str,
        query: str | Sequence[str],
        k: int = 10,
        blocks: Blocks = "both",
        as_of: datetime | float | str | None = None,
        *,
        mode: Literal["walk", "vector"] = "walk",
        history: bool = False,
        fire: bool = True,
        asker: str | None = None,
        min_similarity: float | None = None,
    ) -> list[Recalled]:
        """The memories that answer ``query`` (one text, or several sub-queries).

        ``mode="walk"``: candidates from vector and full-text search, anchors that cover
        them, a walk out from the anchors (see ``graph_db.recall``); ``"vector"``: the
        single-shot nearest neighbours, for comparison. Superseded facts are hidden unless
        ``history`` is set; ``as_of`` shows the graph as it stood then. With ``fire``, the
        recall leaves its trace: returned memories are touched and the top anchors linked
        (in the background; ``flush()`` waits for it). ``asker``: who asks (a speaker's
        name, the user id of a chat): "I", "me", "my" in the query mean them, and what they
        said or what is known of them ranks first (``graph_db.grounding``).

        Scores order one recall's results and do not compare across recalls: ``relevance``
        is relative (1 = this recall's best match, however poor), ``score`` adds the walk's
        activation and small boosts (speaker named, importance, recency; up to ~0.4).
        ``similarity`` is absolute (cosine to the query; with all-MiniLM-L6-v2, unrelated
        text ~0.0-0.2, the same topic ~0.4, a paraphrase ~0.7): ``min_similarity`` keeps the
        memories at least that similar, and those the walk reached from one that is.
        """
        if mode not in ("walk", "vector"):
            raise InvalidInputError(f"mode must be 'walk' or 'vector', not {mode!r}")
        labels = labels_of(blocks)
        queries = [check_text(q, "query", self.settings.max_text_chars) for q in as_queries(query)]
        if not queries:
            raise InvalidInputError("recall needs at least one query")
        k = check_k(k)
        floor = check_similarity(min_similarity)
        when = to_epoch(as_of)
        ns = self._require_ns(ns)
        if k == 0:
            return []
        if asker is not None:
            asker = check_text(asker, "asker", NAME_MAX)
            queries += [v for v in dict.fromkeys(as_asker(q, asker) for q in queries) if v]
        derived: list[str] = []  # the queries without their names (grounding.name_free)
        if mode == "walk" and self.settings.recall_name_free:
            derived = [v for v in dict.fromkeys(map(name_free, queries)) if v and v not in queries]
        texts, lexical = [*queries, *derived], mode == "walk"
        begin = functools.partial(
            self._recaller.begin, ns, texts, labels, lexical, derived=len(derived)
        )
        begun = begin()  # started now, to run beside the embedding
        qv = self._engram.embed(texts)
        asked = (texts, qv, k, labels, when, history, mode, len(derived), asker)
        with blas_threads(self.settings.blas_threads):
            try:
                results, anchors = self._recaller.recall(ns, *asked, floor, begun)
            except Moved:  # another process wrote meanwhile: again, the version read first
                results, anchors = self._recaller.recall(ns, *asked, floor, begin(ahead=False))
        if fire and when is None:
            self._plasticity.after_recall(ns, anchors, [r.id for r in results])
        return results

    def reinforce(
        self,
        ns: str,
        used: Sequence[Recalled | str],
        usefulness: float | Sequence[float] = 1.0,
    ) -> int:
        """Hebbian learning from an answer: strengthen the paths of the memories it used
        (``usefulness`` in [0, 1], one value or one per memory) and link them together;
        returns the number of edges changed."""
        ns = self._require_ns(ns)
        return self._plasticity.reinforce(ns, used, usefulness)

    def flush(self) -> None:
        """Wait until the background plasticity writes of earlier recalls are stored (for a
        test or a measurement that reads them; correctness never needs it)."""
        self._plasticity.flush()

    def maintain(
        self,
        ns: str,
        *,
        now: float | None = None,
        capacity: int | None = None,
        full: bool | None = None,
        kcore: bool | None = None,
    ) -> MaintenanceReport:
        """Prune, consolidate and forget in ``ns`` (see ``graph_db.maintenance``).

        Incremental: a pass visits what is due (at most ``maintain_batch`` memories per
        step); the first pass of a namespace, or ``full=True``, visits everything. The
        k-core decomposition (a pass over every edge) runs when ``kcore_every_days`` have
        passed since the last one, or as ``kcore`` says. Batched; safe to run in the
        background next to reads and writes. ``capacity`` overrides the ``capacity``
        setting for this pass.
        """
        ns = self._require_ns(ns)
        self.flush()
        report = self._maintainer.run(ns, now=now, capacity=capacity, full=full, kcore=kcore)
        if report.forgotten or report.capacity_dropped:
            self._namespace_changed(ns, exists=True)
        return report

    def preview_maintenance(
        self,
        ns: str,
        *,
        now: float | None = None,
        capacity: int | None = None,
        full: bool | None = None,
    ) -> MaintenancePreview:
        """What ``maintain`` would do now (with this graph's settings: see ``tuned``),
        rehearsed in one transaction that is rolled back: nothing changes. Reads every
        memory id and liquid edge of ``ns``: a preview for a person, not a hot path."""
        ns = self._require_ns(ns)
        self.flush()
        return self._maintainer.rehearse(ns, now=now, capacity=capacity, full=full)

    def tuned(self, **changes: Any) -> LiquidGraph:
        """This store seen with other recall and maintenance settings (a what-if: the UI's
        knobs, a tuning trial), e.g. ``g.tuned(walk_depth=3).recall(...)``. It shares the
        engine, the embedder and the background writes (which keep the store's settings);
        closing it leaves the store open. Only the settings in ``graph_db.settings.TUNABLE``
        may change."""
        unknown = sorted(set(changes) - set(TUNABLE))
        if unknown:
            raise InvalidInputError(
                f"cannot tune {unknown} per call; tunable settings: {sorted(TUNABLE)}"
            )
        try:
            # every field given: the environment (read by MagsSettings.__init__) overrides none
            settings = type(self.settings).model_validate({**self.settings.model_dump(), **changes})
        except SettingsError as e:  # pydantic's error is its cause
            first = e.__cause__.errors()[0]  # type: ignore[union-attr]
            raise InvalidInputError(
                f"setting {first['loc'][0]}: {first['msg']} (got {first.get('input')!r})"
            ) from None
        view = copy.copy(self)
        view.settings = settings
        view._recaller = self._recaller.with_settings(settings)
        view._maintainer = Maintainer(self.backend, settings)
        view._owner = False
        return view

    def view(self, ns: str, limit: int = 2_000) -> GraphView:
        """The graph of ``ns`` as a person looks at it (``graph_db.view``): the ``limit``
        memories that matter most, the entities they name and the edges among them, each
        liquid edge with its weight now."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= VIEW_MAX:
            raise InvalidInputError(f"limit must be an int from 1 to {VIEW_MAX}, not {limit!r}")
        return graph_view(self.backend, self.settings, self._require_ns(ns), limit)

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
        fields = MEMORY_FIELDS_AND_EMBEDDING if with_embedding else MEMORY_FIELDS
        rows = self.backend.read("memory_get", ns=ns, ids=list(ids), fields=fields)
        got = [Memory.from_values(r["values"], r["label"], fields) for r in rows]
        by_id = {m.id: m for m in got}
        return [by_id[i] for i in ids if i in by_id]

    def edges(self, ns: str, memory_id: str, limit: int = 100) -> list[dict[str, Any]]:
        """The edges around one memory (``NotFoundError`` if there is none): ``type``,
        ``direction`` ("out" or "in"), ``other`` (the other end's id), ``label``,
        ``other_text`` (its text or name) and ``props`` (the edge's properties), at most
        ``limit``, by type."""
        limit, _ = check_page(limit, 0)
        self.get(ns, memory_id)
        rows = self.backend.read("memory_edges", ns=ns, id=memory_id, limit=limit)
        return [dict(r) for r in rows]

    def list(
        self,
        ns: str,
        blocks: Blocks = "both",
        limit: int = 100,
        offset: int = 0,
        *,
        speaker: str | None = None,
        since: datetime | float | str | None = None,
        until: datetime | float | str | None = None,
    ) -> list[Memory]:
        """Memories of a namespace, newest first; only episodes ``speaker`` said, and only
        memories said (an episode) or holding (a fact) from ``since`` and before ``until``,
        when given."""
        limit, offset = check_page(limit, offset)
        ns = self._require_ns(ns)
        if speaker is not None:
            speaker = check_text(speaker, "speaker", NAME_MAX)
        rows = self.backend.read(
            "memory_list", ns=ns, labels=labels_of(blocks), limit=limit, offset=offset,
            speaker=speaker, since=to_epoch(since), until=to_epoch(until), fields=MEMORY_FIELDS,
        )  # fmt: skip
        return [Memory.from_values(r["values"], r["label"]) for r in rows]

    def namespaces(self, prefix: str = "", limit: int = 1000, offset: int = 0) -> list[str]:
        """Namespaces that hold memories, by name."""
        limit, offset = check_page(limit, offset)
        rows = self.backend.read("namespace_list", prefix=prefix, limit=limit, offset=offset)
        return [r["ns"] for r in rows]

    def stats(self, ns: str, *, weights: bool = False) -> dict[str, Any]:
        """Counts of nodes per label and edges per type (with mean weight) in ``ns``; with
        ``weights``, also its liquid edges by weight now (ten bins of 0.1: it reads every
        liquid edge, so only who draws the distribution asks for it). The traces of the
        recalls that returned before it are counted (written first, not left to the linger).
        """
        ns = self._require_ns(ns)
        self._plasticity.flush()
        nodes = {"Episode": 0, "Fact": 0, "Entity": 0}  # engines differ on empty counts
        nodes |= {r["label"]: r["count"] for r in self.backend.read("stats_nodes", ns=ns)}
        edges = {
            r["type"]: {"count": r["count"], "mean_w": r["mean_w"]}
            for r in self.backend.read("stats_edges", ns=ns)
        }
        out = {"ns": ns, "nodes": nodes, "edges": edges, "backend": self.backend.describe}
        if weights:
            out["weights"] = weight_bins(self.backend, self.settings, ns)
        return out

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
            props["metadata"] = to_json(props["metadata"], "metadata")
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
        if "text" in props or (current.block == "episodic" and "speaker" in props):
            text = check_text(props.get("text", current.text), "text", limit)
            speaker = props.get("speaker", current.properties.get("speaker"))
            props["text"] = text
            props |= self._engram.reindex(text, speaker if current.block == "episodic" else None)
            if current.block == "episodic":
                props["asks"] = is_question(text)
        rows = self.backend.write(
            "memory_update", ns=ns, id=memory_id, props=props, fields=MEMORY_FIELDS
        )
        if not rows:
            raise NotFoundError(f"no memory {memory_id!r} in namespace {ns!r}")
        return Memory.from_values(rows[0]["values"], rows[0]["label"])

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
            rows = tx.run("memory_get", ns=ns, ids=[memory_id], fields=["id"])
            if not rows:
                raise NotFoundError(f"no memory {memory_id!r} in namespace {ns!r}")
            victims = [memory_id]
            if cascade and rows[0]["label"] == "Episode":
                victims += [r["id"] for r in tx.run("facts_only_from", ns=ns, id=memory_id)]
            delete_memories(tx, ns, victims)
            return victims

        deleted = self.backend.write_tx(work)
        self._namespace_changed(ns, exists=True)
        return deleted

    def forget_namespace(self, ns: str) -> int:
        """Delete everything a namespace holds; returns the number of nodes deleted."""
        ns = check_ns(ns)

        def work(tx: Tx) -> int:
            tx.run("predicates_drop", ns=ns)
            rows = tx.run("namespace_delete", ns=ns)
            return int(rows[0]["deleted"]) if rows else 0

        deleted = self.backend.write_tx(work)
        self._namespace_changed(ns, exists=False)
        return deleted

    # -- snapshots -----------------------------------------------------------------------
    def export(self, ns: str, path: str | Path) -> Path:
        """Write namespace ``ns`` to a versioned snapshot file (see ``graph_db.snapshots``)."""
        return export_namespace(self.backend, self.embedder, self._require_ns(ns), Path(path))

    def restore(
        self, path: str | Path, ns: str | None = None, *, replace: bool = False
    ) -> dict[str, int]:
        """A namespace as the snapshot holds it, exactly (a rollback): ``ns`` (default: the
        snapshot's own) must be new or empty unless ``replace`` is given."""
        target, counts = import_namespace(self.backend, self.embedder, Path(path), ns, replace)
        self._namespace_changed(target, exists=True)
        return counts


__all__ = ["LiquidGraph"]
