"""An in-process read index derived from the graph: per namespace, the memories' recall
vectors in one matrix and their full-text terms in a BM25 lexicon (``graph_db.lexicon``), so
that nearest-neighbour and full-text search cost a matrix product and a few array sums
instead of Bolt round trips, and a namespace's full-text term weights are its own (the
engine's index is global: other tenants' turns moved them).

The graph stays the source of truth; the index never holds what the graph does not:

- built lazily, per namespace, from one read transaction that also reads the namespace's
  (epoch, version) (``namespace_version``);
- every write transaction that changes what the index holds bumps that version inside it
  (``graph_db.backends.bolt.VERSIONED_WRITES``), so a rollback never moves it, reads back
  the memories it changed as they are at its end (``index_records``), and adds an entry to
  the namespace's change log: the ids it changed and deleted (``namespace_bump``, the
  last ``CHANGES_KEPT`` versions kept);
- after this process commits such a write, the index applies it (write-through: the
  vectors and deletions from the writes, terms and rows from the records) when it was at
  the version just before; otherwise (another process wrote in between) the next search
  catches up;
- a search checks the version once (one small query, or, for a recall of a namespace held,
  read with its results: ``held``, ``still``): if another process moved it, the index
  reads the log's entries since its version, by key, and the memories they name (no scan
  of the namespace), or the namespace whole when that cannot be told (deleted and made
  again, or further behind than the log keeps). A restart or ``kill -9`` loses nothing: a
  large namespace's index is saved to a file (``graph_db.index_file``) after a build and
  at close, and read back only for the store's epoch at that version or later, then caught
  up like any index behind; else it is built from the store again.

Namespaces are held least recently searched first out: past ``max_memories`` over all of
them (``MAGS_READ_INDEX_MAX_MEMORIES``), the oldest are let go and read again when next
searched, so a server of many tenants holds what it uses.

Held per memory: the recall vectors (``graph_db.vecpack``: own, sentence views, in-context)
as stored, float16, decoded once, its stored terms, what recall ranks it by
(``graph_db.row_table``) and the edges the walk steps over (``graph_db.adjacency``).
Held per entity: its vector, which entity linking searches for a name it does not know.
Searched: the own vectors and the entities' (cosine of unit vectors; exactly in a small
namespace, through an HNSW graph in a large one: ``_Block``), and the terms by BM25;
walked: the edges, as ``walk_edges`` and ``walk_entities`` would. So a recall asks the
engine only for the memories it returns and the version, and a write asks it for no
nearest neighbours.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import logging
import os
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graph_db import adjacency, index_file
from graph_db.adjacency import Adjacency, Step
from graph_db.backends import GraphBackend
from graph_db.backends.bolt import CHANGES_KEPT, LINKS, Commit, change_key
from graph_db.columns import Columns, pick
from graph_db.lexicon import Lexicon, best, order_of, top_k
from graph_db.progress import progress
from graph_db.row_table import RowTable
from graph_db.vecpack import as_dict, unpack_rows

log = logging.getLogger(__name__)
LABELS = ("Episode", "Fact")
#: whose vectors it holds besides the memories': entity linking's nearest entity of a name
ENTITY = "Entity"
#: the labels whose nearest neighbours it answers
SEARCHED = (*LABELS, ENTITY)
_CREATES = {"episodes_create": "Episode", "facts_create": "Fact"}
Stamp = tuple[str | None, int | None]
#: a label of at least this many memories is searched on the index's own thread, beside the
#: other label and the full-text search (below it the hand-over costs what it saves)
SIDE_SEARCH_MIN = 5_000
#: a label's own vectors are searched exactly up to this many, through HNSW past it (the
#: default of ``MAGS_READ_INDEX_EXACT_BELOW``, handed down to the blocks)
EXACT_BELOW = 10_000
#: memories read whole or loaded since the last freeze past which what the process holds is
#: moved out of the cyclic collector's way (``ReadIndex.settle``)
FREEZE_MIN = 10_000
#: a write batch's vectors (hundreds) are searched on every core: the engine waits meanwhile,
#: and each query's hits are the same on one thread or several (a recall's one or two: one)
BATCH_SEARCH_MIN = 32
BATCH_THREADS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
# the HNSW graphs: int8 copies of the unit vectors (usearch scales them by 127), 32 links a
# node. Against float16 and 16 links, in recalls on the kept stores (the store's graph and
# one built beside it alternating, 600 and 400 recalls): top 10s closer to the exact scan's
# (walk 0.978 -> 0.992 at 100k, 0.961 -> 0.967 at 1M; vector 0.953 -> 0.957, 0.876 -> 0.911),
# the searches faster (find p50 6.3 -> 5.0 ms, 20.5 -> 17.9), the turns' graph 152 -> 119 MB
# and 1,337 -> 800 MB; the rows found are scored exactly either way
HNSW = {"dtype": "i8", "connectivity": 32, "expansion_add": 128}
Hits = list[tuple[str, float]]  # (memory id, cosine or BM25 score), best first


class _Block:
    """The own vectors of one label's memories, one float32 row each in a growing matrix.
    Searched exactly (one matrix product) while the block is small; past ``exact_below``
    live rows, through an HNSW graph (usearch, ``HNSW``) built once on a background thread
    (searches stay exact until it is ready) and kept up to date with every put and drop
    after that. Either way the rows found are scored exactly from the matrix, so the two
    differ only in which rows an approximate search misses. A deleted memory's row is
    masked until reused."""

    def __init__(
        self, dim: int, lock: threading.Lock, exact_below: int = EXACT_BELOW, ef: int = 256
    ) -> None:
        self.ids: list[str | None] = []
        self.own = np.zeros((0, dim), np.float32)
        self.alive = np.zeros(0, bool)
        #: per row: its memory's write order, which orders ties (``lexicon.best``)
        self.seq = np.zeros(0, np.int64)
        self.free: list[int] = []
        self.lock = lock  # the namespace's: the graph's build takes it to read the rows
        self.exact_below, self.ef = exact_below, ef
        self.ann: Any = None  # usearch Index over the live rows, keyed by row
        #: rows put or dropped while the graph is built (None: no build under way)
        self.changed: set[int] | None = None
        self.failed = False  # a build failed: stay exact
        self.built = threading.Event()  # a build ended (tests and benchmarks wait on it)
        self.stopping = threading.Event()  # closing: a build under way ends, none starts

    def live(self) -> int:
        return len(self.ids) - len(self.free)

    def __getstate__(self) -> dict[str, Any]:
        """Saved (``graph_db.index_file``): the rows, and the graph as usearch's bytes when
        in use (one being built is built again after loading)."""
        unsaved = ("lock", "built", "stopping")
        state = {k: v for k, v in self.__dict__.items() if k not in unsaved}
        state["ann"] = None if self.ann is None else bytes(self.ann.save())
        state["changed"], state["failed"] = None, False
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        from usearch.index import Index

        ann = state.pop("ann")
        self.__dict__.update(state)
        self.ann = None if ann is None else Index.restore(ann)
        if self.ann is not None and not _made_as_now(self.ann):  # of an older MAGS: made
            self.ann = None  # again in the background (searches exact meanwhile)
        self.built, self.stopping = threading.Event(), threading.Event()
        self.lock = threading.Lock()  # the space's, set when the space is loaded

    def put(self, row: int | None, mid: str, vec: np.ndarray, seq: int | None = None) -> int:
        """Write ``mid``'s vector at ``row`` (its own: ``seq`` None keeps its write order),
        or at a free row (None); returns the row. ``seq``: its write order, which orders
        ties (``lexicon.order_of``)."""
        order = int(self.seq[row]) if seq is None and row is not None else order_of(seq, mid)
        if row is None:
            row = self.free.pop() if self.free else len(self.ids)
            if row == len(self.ids):
                self.ids.append(None)
            if row >= len(self.own):  # grow by half again
                grown = np.zeros((max(64, row + row // 2), self.own.shape[1]), np.float32)
                grown[: len(self.own)] = self.own
                self.own = grown
                more = len(grown) - len(self.alive)
                self.alive = np.concatenate([self.alive, np.zeros(more, bool)])
                self.seq = np.concatenate([self.seq, np.zeros(more, np.int64)])
        self.ids[row] = mid
        self.own[row] = vec
        self.seq[row] = order
        self.alive[row] = True
        self._changed(row)
        return row

    def drop(self, row: int) -> None:
        self.ids[row] = None
        self.alive[row] = False
        self.free.append(row)
        self._changed(row)

    def _changed(self, row: int) -> None:
        if self.changed is not None:
            self.changed.add(row)
        elif self.ann is not None:
            self._sync(self.ann, [row])

    def _sync(self, ann: Any, rows: Iterable[int]) -> None:
        """Make the graph's entries of ``rows`` those of the matrix (a row replaced or
        reused is removed and added again: usearch keeps one vector a key)."""
        rows = np.fromiter(rows, np.int64)
        if len(rows):
            ann.remove(rows[[ann.contains(int(r)) for r in rows]])
            live = rows[self.alive[rows]]
            if len(live):
                ann.add(live, self.own[live], threads=1)

    def nearest(self, queries: np.ndarray, k: int) -> list[list[tuple[str, float]]]:
        """The ``k`` rows nearest each query, best first (ties: the earlier written first,
        ``lexicon.best``)."""
        n, live = len(self.ids), self.live()
        if live == 0 or k <= 0:
            return [[] for _ in queries]
        queries = queries.astype(np.float32)
        k = min(k, live)
        found: list[tuple[np.ndarray, np.ndarray]] = []  # (rows, their cosines) a query
        if self.ann is None:
            ready = self.changed is None and not self.failed and not self.stopping.is_set()
            if live > self.exact_below and ready:
                self._build_ann()
            sims = (self.own[:n] @ queries.T).T  # (q, n); this way round, a third faster
            sims[:, self.free] = -np.inf
            rows = np.arange(n)
            for s in sims:
                top = top_k(rows, s, k, self.seq)[0] if k < n else np.flatnonzero(self.alive[:n])
                found.append((top, s[top]))
        else:
            self.ann.expansion_search = max(self.ef, k)
            threads = BATCH_THREADS if len(queries) >= BATCH_SEARCH_MIN else 1
            near = self.ann.search(queries, k, threads=threads)
            batch = [near] if len(queries) == 1 else near  # usearch: Matches or BatchMatches
            for hits, q in zip(batch, queries, strict=True):
                top = hits.keys.astype(np.int64)
                found.append((top, self.own[top] @ q))  # exact, as the scan gives them
        ids: list[str] = self.ids  # type: ignore[assignment]  # the found rows are live
        return [best(top, s, len(top), ids, self.seq) for top, s in found]

    def _build_ann(self) -> None:
        """Build the graph on a background thread: the live rows as they are when it
        starts, then those put or dropped meanwhile, and put it in use (on failure, say so
        and stay exact)."""
        self.changed = set()

        def build() -> None:
            try:
                from usearch.index import Index

                with self.lock:
                    own, rows = self.own, np.flatnonzero(self.alive[: len(self.ids)])
                ann = Index(ndim=own.shape[1], metric="ip", **HNSW)
                for start in range(0, len(rows), 4096):  # rows rewritten meanwhile: redone
                    if self.stopping.is_set():  # closing: searches stay exact
                        with self.lock:
                            self.changed = None
                        return
                    part = rows[start : start + 4096]
                    ann.add(part, own[part], threads=1)
                with self.lock:
                    self._sync(ann, self.changed or ())
                    self.ann, self.changed = ann, None
                log.debug("read index: HNSW over %d rows ready", len(rows))
            except Exception:
                log.warning("read index: HNSW build failed; searches stay exact", exc_info=True)
                with self.lock:
                    self.changed, self.failed = None, True
            finally:
                self.built.set()

        threading.Thread(target=build, name="read-index-hnsw", daemon=True).start()

    def stop(self) -> None:
        """End a build under way within one batch of rows (~1 s) and start none: a process
        that exits while usearch runs on a daemon thread is aborted (``terminate called
        without an active exception``). The caller holds no lock the build takes."""
        self.stopping.set()
        if self.changed is not None:
            self.built.wait()


def _made_as_now(ann: Any) -> bool:
    """Whether a usearch graph has ``HNSW``'s form: its vectors' type and its links a node
    (how broadly it looked while built is not kept by usearch: read back, it says 128)."""
    kind = str(ann.dtype).rsplit(".", 1)[-1].lower()  # ScalarKind.I8 -> i8
    return kind == HNSW["dtype"] and ann.connectivity == HNSW["connectivity"]


@dataclass
class _Space:
    """One namespace's memories: a block of own vectors and a lexicon per label, each
    memory's recall vectors (float16, as stored) for scoring, and what recall ranks it by;
    and a block of its entities' vectors."""

    stamp: Stamp
    dim: int
    #: a label's own vectors searched exactly up to this many, through HNSW past it, and
    #: the HNSW search's breadth: handed to the blocks, which search by them
    exact_below: InitVar[int] = EXACT_BELOW
    ef: InitVar[int] = 256
    #: by a memory's number (its node's in ``adjacency``, as the rows are): the block its
    #: own vector is in (1 + its label's place in LABELS; 0: none) and its row there, its
    #: sentence and in-context views, and its recall vectors as stored (float16,
    #: vecpack.unpack_rows' array as bytes, a third of an array's header)
    in_block: bytearray = field(default_factory=bytearray)
    block_row: array = field(default_factory=lambda: array("i"))
    views: array = field(default_factory=lambda: array("i"))
    ctx: bytearray = field(default_factory=bytearray)
    packed: list[bytes | None] = field(default_factory=list)
    blocks: dict[str, _Block] = field(default_factory=dict)
    lexicons: dict[str, Lexicon] = field(default_factory=dict)
    #: an entity's row in the Entity block (entities have no other part here but their node
    #: in ``adjacency``, which their links make)
    entity_rows: dict[str, int] = field(default_factory=dict)
    rows: RowTable = field(default_factory=RowTable)
    adjacency: Adjacency = field(default_factory=Adjacency)
    #: held while it is searched or written: searches of other namespaces go on meanwhile
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: the stamp it was last saved or loaded at (None: not saved), and the labels searched
    #: through an HNSW graph then (one built since is saved at close: not built again)
    saved: Stamp | None = None
    saved_graphs: frozenset[str] = frozenset()
    #: the version of the last change it took from the store (built, loaded, caught up):
    #: those since are this process's own commits, written through (``ReadIndex.still``)
    foreign: Stamp = field(init=False)

    def __post_init__(self, exact_below: int, ef: int) -> None:
        self.foreign = self.stamp
        self.blocks = {label: _Block(self.dim, self.lock, exact_below, ef) for label in SEARCHED}
        self.lexicons = {label: Lexicon() for label in LABELS}

    def __getstate__(self) -> dict[str, Any]:
        unsaved = ("lock", "saved", "saved_graphs", "foreign")
        return {k: v for k, v in self.__dict__.items() if k not in unsaved}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, lock=threading.Lock(), saved=state["stamp"],
                             foreign=state["stamp"])  # fmt: skip
        self.saved_graphs = self.graphs()
        for block in self.blocks.values():
            block.lock = self.lock

    def graphs(self) -> frozenset[str]:
        """The labels searched through an HNSW graph."""
        return frozenset(label for label, block in self.blocks.items() if block.ann is not None)

    def tune(self, exact_below: int, ef: int) -> None:
        """Search as these settings say (a loaded space was saved under others)."""
        for block in self.blocks.values():
            block.exact_below, block.ef = exact_below, ef

    def put(self, record: dict[str, Any]) -> None:
        """Add or replace a memory as ``index_memories`` or ``index_records`` (with its
        vectors) read it (no packed vectors: it is found by its terms only)."""
        mid = self.put_record(record)
        self.put_vectors(mid, record["label"], record["vecs"], record["row"].get("seq"))

    def put_record(self, record: dict[str, Any]) -> str:
        """A memory's terms, row (``recall_rows``') and edges as a read or a commit gave
        them (its vectors aside); returns its id as held."""
        # one string for the id in every part (an edge to it may have come first, ~85 bytes)
        mid, label = self.adjacency.nodes.same(record["id"]), record["label"]
        self.put_terms(mid, label, record["terms"], record["row"].get("seq"))
        self.adjacency.set_memory(mid, record["edges"], record["entities"])
        self.rows.put(self.adjacency.node(mid), label, record["row"])
        return mid

    def put_created(self, label: str, row: dict[str, Any]) -> None:
        """A memory as a create wrote it (``episodes_create``, ``facts_create``: the row is
        its properties): its terms, row and vectors; its edges come with the writes that
        link it (``LINKS``)."""
        mid = row["id"]
        self.put_terms(mid, label, row.get("terms"), row.get("seq"))
        self.rows.put(self.adjacency.node(mid), label, row)
        self.put_vectors(mid, label, row.get("vecs"), row.get("seq"))

    def put_terms(self, mid: str, label: str, terms: str | None, seq: int | None = None) -> None:
        """``mid``'s terms; ``seq``: its stored write order (None: as held), which orders
        ties (``lexicon.best``)."""
        for other, lexicon in self.lexicons.items():
            if other != label:
                lexicon.drop(mid)
        self.lexicons[label].put(mid, terms, seq)

    def put_vectors(self, mid: str, label: str, packed: str | None, seq: int | None = None) -> None:
        if not packed:
            self._drop_vectors(mid)
            return
        rows, n, c = unpack_rows(packed, self.dim, np.float16)
        at = self._numbered(mid, label)
        block = LABELS.index(label) + 1
        if self.in_block[at] not in (0, block):  # it changed label: out of the other block
            self._drop_vectors(mid)
        kept = self.block_row[at] if self.in_block[at] else None
        self.block_row[at] = self.blocks[label].put(kept, mid, rows[0], seq)
        self.in_block[at], self.views[at], self.ctx[at] = block, n, c
        self.packed[at] = rows.tobytes()

    def put_entities(self, rows: Iterable[dict[str, Any]]) -> None:
        """Entities' vectors as stored (``id``, ``embedding``; made unit: the search is a dot
        product), as ``index_entities`` reads them or ``entities_create`` writes them."""
        for r in rows:
            if r.get("embedding"):
                vec = np.array(r["embedding"], np.float32)  # a copy: made unit here
                vec /= float(np.linalg.norm(vec)) or 1.0
                eid = r["id"]
                self.entity_rows[eid] = self.blocks[ENTITY].put(self.entity_rows.get(eid), eid, vec)

    def set_row(self, mid: str, key: str, value: float | None) -> None:
        """One of the times or the importance of ``mid``'s row, if held."""
        at = self.number(mid)
        if at is not None:
            self.rows.set(at, key, value)

    def drop(self, mid: str) -> None:
        """Memory or entity ``mid`` deleted."""
        row = self.entity_rows.pop(mid, None)
        if row is not None:
            self.blocks[ENTITY].drop(row)
        self._drop_vectors(mid)
        at = self.number(mid)
        if at is not None:
            self.rows.drop(at)
        for lexicon in self.lexicons.values():
            lexicon.drop(mid)
        self.adjacency.drop(mid)  # last: its number goes with its node

    def number(self, mid: str) -> int | None:
        """``mid``'s number in this namespace: its node's in ``adjacency``, which every
        memory held has (one id -> number map for every part, not one a part)."""
        return self.adjacency.nodes.of.get(mid)

    def _numbered(self, mid: str, label: str) -> int:
        """``mid``'s number, and a row, when its vectors come first (a commit applies its
        writes before its records), the vector columns grown to hold it."""
        at = self.number(mid)
        if at is None or self.rows.label(at) is None:
            at = self.adjacency.node(mid)
            self.rows.put(at, label, {})
        grow = at + 1 - len(self.packed)
        if grow > 0:
            self.in_block.extend(bytes(grow))
            self.block_row.extend([0] * grow)
            self.views.extend([0] * grow)
            self.ctx.extend(bytes(grow))
            self.packed.extend([None] * grow)
        return at

    def _with_vectors(self, mid: str) -> int | None:
        """``mid``'s number when its vectors are held."""
        at = self.number(mid)
        return at if at is not None and at < len(self.packed) and self.in_block[at] else None

    def _drop_vectors(self, mid: str) -> None:
        at = self._with_vectors(mid)
        if at is not None:
            self.blocks[LABELS[self.in_block[at] - 1]].drop(self.block_row[at])
            self.in_block[at], self.packed[at] = 0, None

    def held_vectors(self, ids: list[str]) -> list[tuple[str, int, int, bytes]]:
        """(id, sentence views, in-context views, recall vectors as stored) of those of
        ``ids`` held with vectors."""
        held = [(mid, at) for mid in ids if (at := self._with_vectors(mid)) is not None]
        return [(mid, self.views[at], self.ctx[at], self.packed[at] or b"") for mid, at in held]

    def label_of(self, mid: str) -> str | None:
        at = self.number(mid)
        return None if at is None else self.rows.label(at)

    def rows_of(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The rows, as ``recall_rows`` gives them, of those of ``ids`` held."""
        held: list[tuple[str, int, str | None]] = []
        for mid in ids:
            at = self.number(mid)
            if at is not None and (label := self.rows.label(at)) is not None:
                held.append((mid, at, self.lexicons[label].terms(mid)))
        return self.rows.rows(held)

    def columns(self, ids: list[str]) -> tuple[Columns, list[str]]:
        """Those of ``ids`` held, in columns (``graph_db.columns``; a turn's terms as its
        lexicon's ids, a fact's left out: only turns are compared by them), and the others.
        Gathered a column at a time where it can: a recall asks for hundreds."""
        labels, last = self.rows.labels, len(self.rows.labels)
        numbers = list(map(self.adjacency.nodes.of.get, ids))
        try:
            kinds = pick(labels, numbers)
        except (TypeError, IndexError):  # one not held: no number, or past the rows
            kinds = [labels[at] if at is not None and at < last else None for at in numbers]
        held, ats, missing = list(ids), numbers, []
        if None in kinds:  # not held (written since the index was checked)
            keep = [i for i, kind in enumerate(kinds) if kind is not None]
            missing = [mid for mid, kind in zip(ids, kinds, strict=True) if kind is None]
            held, ats = [ids[i] for i in keep], [numbers[i] for i in keep]
            kinds = [kinds[i] for i in keep]
        turns = self.lexicons["Episode"]
        terms: list[bytes | str | None] = [None] * len(held)
        words = np.ones(len(held), np.int64)  # none: 1, as recall counts them
        for label, lexicon in self.lexicons.items():
            mine = [i for i, kind in enumerate(kinds) if kind == label]
            if mine:
                got, n = lexicon.term_ids_of(pick(held, mine), with_ids=lexicon is turns)
                words[mine] = np.maximum(n, 1)
                for i, t in zip(mine, got, strict=True):
                    terms[i] = t
        at = np.array(ats, np.intp)
        with_vecs = np.frombuffer(self.in_block, np.uint8)[at] > 0
        if with_vecs.all():
            packed = pick(self.packed, ats)
        else:  # one stored without any: scored as a zero vector
            zero = np.zeros(self.dim, np.float16).tobytes()
            packed = [
                self.packed[a] if v else zero for a, v in zip(ats, with_vecs.tolist(), strict=True)
            ]
        every = np.frombuffer(b"".join(packed), np.float16)  # type: ignore[arg-type]
        views = np.where(with_vecs, np.frombuffer(self.views, np.int32)[at], 0).astype(np.int64)
        ctx = np.where(with_vecs, np.frombuffer(self.ctx, np.uint8)[at], 0).astype(np.int64)
        facts = self.rows.facts
        cols = Columns(
            ids=held,
            labels=kinds,  # type: ignore[arg-type]
            floats=self.rows.floats[at],
            asks=np.frombuffer(self.rows.asks, np.uint8)[at],
            speakers=pick(self.rows.speakers, ats),
            facts=list(map(facts.get, ats)) if facts else [None] * len(ats),
            words=words,
            terms=terms,
            vectors=every.reshape(-1, self.dim).astype(np.float32),
            views=views,
            ctx=ctx,
            vocab=turns.vocab,
        )
        return cols, missing

    def size(self) -> int:
        """Memories held (each has a row; nearly all have vectors and terms)."""
        return len(self.rows)

    def vector_bytes(self) -> int:
        """What the vectors take (the own-vector matrices and each memory's views)."""
        own = sum(b.own.nbytes for b in self.blocks.values())
        return own + sum(len(packed) for packed in self.packed if packed)


class ReadIndex:
    """The read index of one store (see the module doc)."""

    def __init__(
        self,
        backend: GraphBackend,
        dim: int,
        max_memories: int = 250_000,
        exact_below: int = EXACT_BELOW,
        ef: int = 256,
        directory: Path | None = None,
        model: str = "",
        save_min: int = 5_000,
        gc_freeze: bool = True,
    ) -> None:
        self.backend = backend
        self.dim = dim
        #: where namespaces of at least ``save_min`` memories are saved (graph_db.index_file;
        #: None: never), and the embedding model their vectors are of
        self.directory, self.model, self.save_min = directory, model, save_min
        #: a namespace's label searched exactly up to this many memories, by HNSW past it
        self.exact_below, self.ef = exact_below, ef
        #: memories held over all namespaces before the least recently searched go (a
        #: namespace larger than this alone is still held, alone)
        self.max_memories = max_memories
        self._spaces: OrderedDict[str, _Space] = OrderedDict()  # least recently used first
        self._lock = threading.RLock()
        self._building: dict[str, threading.Lock] = {}
        self.builds = 0  # namespaces read whole (tests and benchmarks count them)
        self.catch_ups = 0  # namespaces brought up to date after other processes' writes
        self.loads = 0  # namespaces read from their saved files
        #: whether namespaces read whole or loaded are frozen (``settle``), and how many
        #: memories were since the last freeze
        self.gc_freeze, self._unfrozen = gc_freeze, 0
        self._saving: list[threading.Thread] = []  # saves after builds (close waits for them)
        self._searching: ThreadPoolExecutor | None = None  # see find; made when first needed
        backend.on_commit.append(self.committed)

    def _side(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._searching is None:
                self._searching = ThreadPoolExecutor(1, thread_name_prefix="mags-read-index")
            return self._searching

    # -- reads ------------------------------------------------------------------------
    def find(
        self,
        run: Any,
        ns: str,
        labels: list[str],
        k: int,
        vectors: np.ndarray | None = None,
        words: list[list[str]] | None = None,
        stamp: Stamp | None = None,
    ) -> tuple[dict[str, list[Hits]], dict[str, list[Hits]]]:
        """Per label, the ``k`` memories of ``ns`` nearest each vector (cosine, best first)
        and the ``k`` best by BM25 for each list of query terms, as the store holds them
        now: one check of the version (``run``: how to read it, a transaction's own when
        asked inside one), or as of ``stamp`` when the caller read it (``version``)."""
        space = self._space(run, ns, stamp)
        queries = np.zeros((0, self.dim)) if vectors is None else np.asarray(vectors)
        with space.lock:  # a commit may be growing it
            # a large label's search (an HNSW probe or a long scan, ~2 ms, without the GIL)
            # runs on the index's thread beside the others' (the other core is mostly idle
            # then: the engine waits for the recall's next read)
            blocks = [space.blocks[label] for label in labels]
            large = (b for b in blocks if b.live() >= SIDE_SEARCH_MIN and len(queries))
            first = next(large, None)
            side = self._side().submit(first.nearest, queries, k) if first is not None else None
            near = {
                label: b.nearest(queries, k) for label, b in zip(labels, blocks, strict=True)
                if b is not first
            }  # fmt: skip
            text = {
                label: [space.lexicons[label].search(w, k) for w in words or []] for label in labels
            }
            if side is not None:
                near[labels[blocks.index(first)]] = side.result()  # type: ignore[arg-type]
            near = {label: near[label] for label in labels}
        return near, text

    def nearest(
        self, run: Any, ns: str, labels: list[str], vectors: np.ndarray, k: int
    ) -> dict[str, list[Hits]]:
        """Per label, the ``k`` memories of ``ns`` nearest each vector (``find``)."""
        return self.find(run, ns, labels, k, vectors=vectors)[0]

    def fulltext(
        self, run: Any, ns: str, labels: list[str], words: list[list[str]], k: int
    ) -> dict[str, list[Hits]]:
        """Per label, the ``k`` best memories of ``ns`` by BM25 for each list of query
        terms (``find``)."""
        return self.find(run, ns, labels, k, words=words)[1]

    def rows(self, ns: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The rows (as ``recall_rows`` gives them) of those of ``ids`` the index holds of
        ``ns``, as of its last check (``find``); the caller reads the others."""
        space = self._spaces.get(ns)
        if space is None:
            return {}
        with space.lock:
            return space.rows_of(ids)

    def walked(self, ns: str, step: Callable[[Adjacency], list[Step]]) -> list[Step] | None:
        """``step`` (``Adjacency.step`` or ``entity_step``: the walk's ``walk_edges`` and
        ``walk_entities`` in process) over the edges held of ``ns`` as of the last check
        (``find``); None when ``ns`` is not held (the caller asks the engine)."""
        space = self._spaces.get(ns)
        if space is None:
            return None
        with space.lock:
            return step(space.adjacency)

    def hnsw(self, ns: str, wait: float | None = 0) -> dict[str, int]:
        """Per label of ``ns`` searched through an HNSW graph, its bytes (see ``_Block``);
        ``wait``: seconds to wait for builds under way first (None: until they end)."""
        space = self._spaces.get(ns)
        if space is None:
            return {}
        for block in space.blocks.values():
            if block.changed is not None:
                block.built.wait(wait)
        with space.lock:
            return {
                label: int(block.ann.memory_usage)
                for label, block in space.blocks.items()
                if block.ann is not None
            }

    def vectors(self, ns: str, ids: list[str]) -> dict[str, dict[str, np.ndarray]]:
        """The decoded recall vectors of those of ``ids`` the index holds (the caller
        unpacks the others' rows)."""
        space = self._spaces.get(ns)
        if space is None:
            return {}
        with space.lock:
            held = space.held_vectors(ids)
        if not held:
            return {}
        # decoded in one take (a recall asks for hundreds), each memory's rows a view of it
        every = np.frombuffer(b"".join(packed for *_, packed in held), np.float16)
        every = every.reshape(-1, self.dim).astype(np.float32)
        out, start = {}, 0
        for mid, n, c, _ in held:
            out[mid] = as_dict(every[start : start + 1 + n + c], n, c)
            start += 1 + n + c
        return out

    def own_vectors(self, run: Any, ns: str, ids: list[str]) -> dict[str, np.ndarray]:
        """The own vectors (as held: float16, within 2**-11 of the stored ones in each
        component) of those of ``ids`` the index holds of ``ns`` as the store holds it now
        (``find``'s version check; ``run``: a transaction's own inside one)."""
        self._space(run, ns)
        return {mid: vecs["embedding"] for mid, vecs in self.vectors(ns, ids).items()}

    def columns(self, ns: str, ids: list[str]) -> tuple[Columns | None, list[str]]:
        """Those of ``ids`` the index holds of ``ns``, in columns (``_Space.columns``; None:
        ``ns`` is not held), and the others (the caller reads them)."""
        space = self._spaces.get(ns)
        if space is None:
            return None, ids
        with space.lock:
            return space.columns(ids)

    def held(self, ns: str) -> Stamp | None:
        """The version ``ns`` is held at (None: not held): a recall may search it as it is
        and read the store's version with its results (``still``), one query fewer. Not
        while a commit of this process is on its way to the index: it may be in the store
        already, before the recall began, and so must be in its answer (the recall checks
        the version first, beside its embedding, and waits for it then)."""
        if self.backend.committing(ns):
            return None
        space = self._spaces.get(ns)
        return None if space is None else space.stamp

    def still(self, ns: str, searched: Stamp, store: Stamp) -> bool:
        """Whether a search of ``ns`` held at ``searched`` answers for the store at ``store``
        (read after the search): nothing came in between but this process's own commits,
        written through. Else a write of another process may have come before the search
        started, and the search is run again, checked first. A commit of this process that
        the store has and the index not yet is waited for: it began after the search was
        held (``held`` holds nothing while one is on its way), so the recall ran beside it,
        and either answer is one a recall beside a write may give (as when the store, read,
        is still at the version searched and the index has since moved on)."""
        if store == searched:
            return True
        space = self._spaces.get(ns)
        if space is not None and space.stamp != store and self.backend.settle(ns):
            space = self._spaces.get(ns)
        return (
            space is not None
            and space.stamp == store
            # (none: read before the namespace was made; every version since was written
            # through, as only a version that follows the one held is)
            and (space.foreign[0] is None or _at_least(searched, space.foreign))
        )

    def version(self, run: Any, ns: str) -> Stamp:
        """The store's (epoch, version) of ``ns`` now, what ``find`` checks the index
        against: read ahead by a caller with other work to do meanwhile (a recall embeds
        its query)."""
        return _stamp(run("namespace_version", ns=ns))

    def _space(self, run: Any, ns: str, stamp: Stamp | None = None) -> _Space:
        if stamp is None:
            stamp = self.version(run, ns)
        with self._lock:
            building = self._building.setdefault(ns, threading.Lock())
        with building:  # one build of a namespace at a time: the others wait and take it
            with self._lock:
                space = self._spaces.get(ns)
                if space is not None and _at_least(space.stamp, stamp):
                    self._spaces.move_to_end(ns)
                    return space
            if space is None:
                space = self._load(ns, stamp)  # held when usable: then caught up
                if space is not None and _at_least(space.stamp, stamp):
                    return space
            elif self.backend.settle(ns) and _at_least(space.stamp, stamp):
                return space  # the version ahead was this process's commit, now applied
            if space is not None and space.stamp[0] is not None and self._catch_up(ns, space):
                return space
            return self._build(ns)

    def _load(self, ns: str, stamp: Stamp) -> _Space | None:
        """``ns`` as saved, held, when the file is of this store's namespace as it was at
        its version or before (the caller catches up on the versions since)."""
        if self.directory is None or stamp[0] is None:
            return None
        space = index_file.load(self.directory, ns, self.model, self.dim, layout())
        if space is None:
            return None
        if space.stamp[0] != stamp[0] or (space.stamp[1] or 0) > (stamp[1] or 0):
            log.info("read index: the file of %s is of %s, the store at %s: removed", ns,
                     space.stamp, stamp)  # fmt: skip
            index_file.remove(self.directory, ns)  # of a namespace deleted since: it goes
            return None
        space.tune(self.exact_below, self.ef)
        with self._lock:
            self._spaces[ns] = space
            self._spaces.move_to_end(ns)
            self.loads += 1
            self._evict()
        log.debug("read index: loaded %s at %s (%d memories)", ns, space.stamp, space.size())
        self.settle(space.size())
        return space

    def settle(self, memories: int) -> None:
        """Count ``memories`` just read whole or loaded; past ``FREEZE_MIN`` since the last
        time, collect once and freeze what the process holds (``gc.freeze``). Python's full
        collection visits every object that survived the earlier ones, and a namespace's
        index is lists of ~100k items a few times over: at 100k memories one took 30-90 ms
        and struck about one recall in 30 (7 of 200), their p95. Frozen objects are left out
        of every collection after (a cycle among them is never freed: the index holds
        none); what is held later, as writes go through, is not frozen."""
        if not self.gc_freeze:
            return
        with self._lock:
            self._unfrozen += memories
            if self._unfrozen < FREEZE_MIN:
                return
            self._unfrozen = 0
        gc.collect()  # what is garbage now is not kept for good
        gc.freeze()
        log.debug("read index: %d objects frozen", gc.get_freeze_count())

    def save(self, ns: str, space: _Space) -> bool:
        """Save ``space`` (of ``ns``) to its file if it changed since it was last saved or
        loaded (or an HNSW graph was built since) and is large enough to be worth it;
        whether it was written."""
        if self.directory is None or space.stamp[0] is None:
            return False
        with space.lock:
            graphs = space.graphs()
            same = space.saved == space.stamp and space.saved_graphs == graphs
            if same or space.size() < self.save_min:
                return False
            index_file.save(self.directory, ns, self.model, self.dim, layout(), space)
            space.saved, space.saved_graphs = space.stamp, graphs
        log.debug("read index: saved %s at %s", ns, space.stamp)
        return True

    def _save_quietly(self, ns: str, space: _Space) -> None:
        try:
            self.save(ns, space)
        except Exception:  # a cache: the next open reads the namespace instead
            log.warning("read index: saving %s failed", ns, exc_info=True)

    def _catch_up(self, ns: str, space: _Space) -> bool:
        """Apply what other processes wrote to ``ns`` since the version held: the change
        log's entries of the versions since (``namespace_bump``: the memories each
        changed and deleted) and those memories as they are now, read with the version in
        one read transaction. False when that cannot be told (the namespace was deleted and
        made again, or it is further behind than the log keeps): then it is read whole."""
        since = space.stamp[1] or 0

        def read(tx: Any) -> tuple[Stamp, list[str] | None, list[dict[str, Any]], list[Any]]:
            stamp = self.version(tx.run, ns)
            if stamp[0] != space.stamp[0] or not 0 < (stamp[1] or 0) - since <= CHANGES_KEPT:
                return stamp, None, [], []
            keys = [change_key(stamp[0], v) for v in range(since + 1, stamp[1] + 1)]  # type: ignore[arg-type, operator]
            entries = tx.run("index_change_read", ns=ns, keys=keys)
            if len(entries) != len(keys):  # dropped from the log meanwhile
                return stamp, None, [], []
            alive: dict[str, bool] = {}  # the latest of each memory: changed or deleted
            for entry in entries:  # in version order; within one, a deletion came first
                alive |= dict.fromkeys(entry["gone"] or [], False)
                alive |= dict.fromkeys(entry["ids"] or [], True)
            written = [mid for mid, live in alive.items() if live]
            rows = tx.run("index_records", ns=ns, ids=written, vecs=True) if written else []
            entities = tx.run("index_entity_records", ns=ns, ids=written) if written else []
            found = {r["id"] for r in (*rows, *entities)}  # a later deletion is a deletion
            return stamp, [mid for mid in alive if mid not in found], rows, entities

        stamp, dropped, rows, entities = self.backend.read_tx(read)
        if dropped is None:
            return False
        with space.lock:
            if not _at_least(space.stamp, stamp):  # (this process's own commit may be ahead)
                for mid in dropped:
                    space.drop(mid)
                for r in rows:
                    space.put(r)
                space.put_entities(entities)
                space.stamp = space.foreign = stamp
        with self._lock:
            self.catch_ups += 1
            self._evict()
        log.debug("read index: %s caught up to %s (%d written, %d deleted)", ns, stamp,
                  len(rows), len(dropped))  # fmt: skip
        return True

    def _build(self, ns: str) -> _Space:
        """Read ``ns`` whole, with its version, in one read transaction: each memory held as
        it arrives (with a progress bar from ``progress.PROGRESS_MIN`` memories: ~5 minutes at
        1M)."""

        def read(tx: Any) -> _Space:
            space = _Space(self.version(tx.run, ns), self.dim, self.exact_below, self.ef)
            total = tx.run("memory_count", ns=ns)[0]["memories"]
            with progress(total, f"read index: {ns}") as bar:
                for r in tx.stream("index_memories", ns=ns):
                    space.put(r)
                    bar.update()
            space.put_entities(tx.stream("index_entities", ns=ns))
            return space

        space = self.backend.read_tx(read)
        space.rows.trim()
        space.adjacency.trim()
        with self._lock:
            self._spaces[ns] = space
            self._spaces.move_to_end(ns)
            self.builds += 1
            self._evict()
        log.debug("read index: built %s (%d memories)", ns, space.size())
        self.settle(space.size())
        if self.directory is not None and space.size() >= self.save_min:
            saving = threading.Thread(target=self._save_quietly, args=(ns, space), daemon=True,
                                      name="read-index-save")  # fmt: skip
            saving.start()
            self._saving = [t for t in self._saving if t.is_alive()] + [saving]
        return space

    # -- write-through ------------------------------------------------------------------
    def committed(self, commit: Commit) -> None:
        """Apply this process's committed writes to the namespaces held: the vectors and
        deletions from the writes themselves, the terms and rows as the transaction left
        them (``Commit.records``); where another process wrote in between, leave it to the
        next search to catch up on both."""
        with self._lock:
            for ns, stamp in commit.versions.items():
                mine = [(name, p) for name, p in commit.writes if p.get("ns") == ns]
                if any(name == "namespace_delete" for name, _ in mine):
                    self._spaces.pop(ns, None)
                    if self.directory is not None:  # nothing of it stays in the home either
                        index_file.remove(self.directory, ns)
                    continue
                space = self._spaces.get(ns)
                if space is None:
                    continue
                follows = (
                    stamp is not None
                    and space.stamp[0] in (None, stamp[0])
                    and (space.stamp[1] or 0) + 1 == stamp[1]
                )
                if not follows:  # another process wrote in between: the next search
                    continue  # catches up on both (this write is in the change log too)
                with space.lock:
                    for name, p in mine:
                        _apply(space, name, p)
                    for r in commit.records.get(ns, []):
                        space.put_record(r)
                    space.stamp = stamp  # type: ignore[assignment]
                self._spaces.move_to_end(ns)
            self._evict()

    def _evict(self) -> None:
        """Past the budget, let the least recently used namespaces go (the lock held)."""
        held = sum(sp.size() for sp in self._spaces.values())
        while held > self.max_memories and len(self._spaces) > 1:
            ns, gone = self._spaces.popitem(last=False)
            self._building.pop(ns, None)  # one lock per namespace held, not per one seen
            held -= gone.size()

    def forget(self, ns: str | None = None) -> None:
        """Drop what is held of ``ns`` (None: of every namespace)."""
        with self._lock:
            if ns is None:
                self._spaces.clear()
                self._building.clear()
            else:
                self._spaces.pop(ns, None)
                self._building.pop(ns, None)

    def close(self) -> None:
        """Save the namespaces held that changed (see ``save``), then let them go."""
        if self.committed in self.backend.on_commit:
            self.backend.on_commit.remove(self.committed)
        for saving in self._saving:  # a save after a build, under way
            saving.join()
        with self._lock:
            held = list(self._spaces.items())
        for ns, space in held:
            for block in space.blocks.values():
                block.stop()
            self._save_quietly(ns, space)
        self.forget()
        with self._lock:
            searching, self._searching = self._searching, None
        if searching is not None:
            searching.shutdown(wait=True)


@functools.cache
def layout() -> str:
    """The attribute names of a fresh namespace's parts, hashed: a saved index of classes
    that hold other attributes (another MAGS) is read whole instead of loaded."""
    space = _Space((None, None), 4)
    parts = [space, space.blocks["Episode"], space.lexicons["Episode"], space.rows,
             space.adjacency, space.adjacency.nodes, space.adjacency.liquid,
             space.adjacency.fixed]  # fmt: skip
    names = [f"{type(p).__name__}:{','.join(sorted(vars(p)))}" for p in parts]
    names.append(adjacency.FORMAT)  # how the parts hold what they hold
    return hashlib.sha256(";".join(names).encode()).hexdigest()[:16]


def _stamp(rows: list[dict[str, Any]]) -> Stamp:
    """A namespace's (epoch, version) from ``namespace_version`` (none: not registered)."""
    return (rows[0]["epoch"], rows[0]["version"]) if rows else (None, None)


def _at_least(held: Stamp, now: Stamp) -> bool:
    """The index holds the namespace as of ``now`` or later (a build or a write of this
    process that committed after ``now`` was read)."""
    return held[0] == now[0] and (held[1] or 0) >= (now[1] or 0)


def _apply(space: _Space, name: str, params: dict[str, Any]) -> None:
    """What a write made, linked, changed or deleted, from its parameters and results
    (``bolt.APPLIED``) and a memory's new vectors; the rest comes with the commit's records."""
    if name == "memory_touch":  # as memory_touch.cypher sets it
        for r in params["rows"]:
            space.set_row(r["id"], "last_access", r["now"])
    elif name == "hebbian_update":  # as hebbian_update.cypher sets the edges it returns
        for r in params["returned"]:
            now = r["now"]
            space.adjacency.set_edge(r["a"], r["b"], "ASSOC", r["w"], now, now, r["permanent"])
    elif name == "memory_vitals":
        for r in params["returned"]:
            for mid, importance in r["importance"]:
                space.set_row(mid, "importance", importance)
    elif name == "edges_prune":
        for r in params["returned"]:
            for a, b in (pair for pairs in r["dead_pairs"] for pair in pairs):
                space.adjacency.drop_edge(a, b, "ASSOC")
    elif name in LINKS:  # each edge as the write left it: [a, b(, w, w_at, fired_at, permanent)]
        for r in params["returned"]:
            for a, b, *props in r["edges"] or ():
                if name == "unlink_next":
                    space.adjacency.drop_edge(a, b, LINKS[name])
                else:
                    space.adjacency.set_edge(a, b, LINKS[name], *props)
    elif name == "entities_create":
        space.put_entities(params["rows"])
    elif name == "entities_drop_orphans":
        for r in params["returned"]:
            for eid in r["gone"] or ():
                space.drop(eid)
    elif name in _CREATES:
        for r in params["rows"]:
            space.put_created(_CREATES[name], r)
    elif name == "memory_delete":
        space.drop(params["id"])
    elif name == "memory_update" and "vecs" in params["props"]:
        label = space.label_of(params["id"])
        if label is not None:
            space.put_vectors(params["id"], label, params["props"]["vecs"])
