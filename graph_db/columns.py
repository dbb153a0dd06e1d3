"""Memories a recall's walk reached, in columns: scored over arrays, and made into candidates
(``graph_db.recall.Candidate``) only where the ranking needs them. A heavy walk reaches
~2,000 memories; making a row dict, a vector dict and a candidate object of each took ~40% of
such a recall, and all but a few dozen of them rank far below the top k.

The columns come from the read index (``ReadIndex.columns``) or from the rows the engine sent
(``Columns.of_rows``), so that both score the same way. A memory's ``terms`` are its stored
terms as the read index holds them (the term ids of its label's lexicon, as bytes) or as
text: two turns repeat each other when their terms are equal, and a query's words are
looked up in the same form (``Columns.words_in``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, TypeVar

import numpy as np

from graph_db.row_table import ASKS, FLOATS

_TS, _VALID_FROM, _VALID_TO = (
    FLOATS.index("ts"),
    FLOATS.index("valid_from"),
    FLOATS.index("valid_to"),
)
_BORN = [FLOATS.index(k) for k in ("valid_from", "ts", "created_at")]
T = TypeVar("T")


def pick(items: Sequence[T], at: Sequence[int]) -> list[T]:
    """``items[i]`` for each ``i`` of ``at`` (ints), gathered in C: a recall gathers the
    columns of hundreds of memories, a few times over."""
    return list(itemgetter(*at)(items)) if len(at) > 1 else [items[i] for i in at]


@dataclass
class Columns:
    """One entry a memory (see the module doc); ``vectors`` holds each memory's recall
    vectors in turn: its own, ``views`` sentence views and ``ctx`` (0 or 1) in-context."""

    ids: list[str]
    labels: list[str]
    floats: np.ndarray  # (n, len(FLOATS)): row_table.FLOATS, NaN where unset
    asks: np.ndarray  # uint8: 0 states, 1 asks, 2 unknown
    speakers: list[str | None]
    facts: list[tuple[Any, ...] | None]  # (subject, predicate, source_episode_id) of a fact
    words: np.ndarray  # stored terms a memory has (1 when none, as recall counts them)
    terms: list[bytes | str | None]  # a turn's stored terms, as term ids (bytes) or text
    vectors: np.ndarray  # (rows, dim) float32
    views: np.ndarray
    ctx: np.ndarray
    vocab: Mapping[str, int] | None = None  # the turns' term ids, when ``terms`` are ids

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def of_rows(
        cls,
        rows: Mapping[str, Mapping[str, Any]],
        vectors: Mapping[str, tuple[np.ndarray, int, int]],
        dim: int,
    ) -> Columns:
        """From ``recall_rows``' rows and each memory's stacked vectors (own, views, ctx;
        ``vecpack.unpack_rows``), in the order of ``rows``."""
        ids = list(rows)
        stacks, views, ctx = [], [], []
        for mid in ids:
            got = vectors.get(mid)
            if got is None:  # stored without any: scored as a zero vector
                got = (np.zeros((1, dim), np.float32), 0, 0)
            stacks.append(got[0])
            views.append(got[1])
            ctx.append(got[2])
        texts = [r.get("terms") for r in rows.values()]
        return cls(
            ids=ids,
            labels=[r["label"] for r in rows.values()],
            floats=np.array(
                [
                    [np.nan if r.get(k) is None else float(r[k]) for k in FLOATS]
                    for r in rows.values()
                ],
                np.float64,
            ).reshape(len(ids), len(FLOATS)),
            asks=np.array([ASKS.get(r.get("asks"), 1) for r in rows.values()], np.uint8),
            speakers=[r.get("speaker") for r in rows.values()],
            facts=[_fact(r) for r in rows.values()],
            words=np.array([len((t or "").split(" ")) for t in texts], np.int64),
            terms=[
                t if r["label"] == "Episode" else None
                for t, r in zip(texts, rows.values(), strict=True)
            ],
            vectors=np.concatenate(stacks) if stacks else np.zeros((0, dim), np.float32),
            views=np.array(views, np.int64),
            ctx=np.array(ctx, np.int64),
        )

    def dense(self, qv: np.ndarray, ctx_weight: float) -> tuple[np.ndarray, np.ndarray]:
        """``dense_scores`` of each memory."""
        return dense_scores(self.vectors, self.views, self.ctx, qv, ctx_weight)

    def take(self, idx: Sequence[int] | np.ndarray) -> Columns:
        """The memories at ``idx``, in that order."""
        idx = np.asarray(idx, np.int64)
        size = 1 + self.views + self.ctx
        rows = np.repeat(_starts(size)[idx], size[idx]) + _ranks(size[idx])
        at = idx.tolist()
        return Columns(
            ids=pick(self.ids, at),
            labels=pick(self.labels, at),
            floats=self.floats[idx],
            asks=self.asks[idx],
            speakers=pick(self.speakers, at),
            facts=pick(self.facts, at),
            words=self.words[idx],
            terms=pick(self.terms, at),
            vectors=self.vectors[rows],
            views=self.views[idx],
            ctx=self.ctx[idx],
            vocab=self.vocab,
        )

    def own(self) -> np.ndarray:
        """Each memory's own vector (the first of its rows)."""
        return self.vectors[_starts(1 + self.views + self.ctx)[: len(self)]]

    def joined(self, other: Columns, vectors: bool = True) -> Columns:
        """These memories, then ``other``'s (their terms in this one's form); without
        ``vectors``, none are copied (the joined columns hold none: scored already)."""
        terms = other.terms
        if self.vocab is not None and other.vocab is None:
            terms = [self.key(t) if isinstance(t, str) else t for t in terms]
        none = np.zeros(0, np.int64)
        return Columns(
            ids=self.ids + other.ids,
            labels=self.labels + other.labels,
            floats=np.concatenate([self.floats, other.floats]),
            asks=np.concatenate([self.asks, other.asks]),
            speakers=self.speakers + other.speakers,
            facts=self.facts + other.facts,
            words=np.concatenate([self.words, other.words]),
            terms=self.terms + terms,
            vectors=np.concatenate([self.vectors, other.vectors]) if vectors else self.vectors[:0],
            views=np.concatenate([self.views, other.views]) if vectors else none,
            ctx=np.concatenate([self.ctx, other.ctx]) if vectors else none,
            vocab=self.vocab if self.vocab is not None else other.vocab,
        )

    def stack(self, i: int) -> tuple[np.ndarray, int, int]:
        """Memory ``i``'s vectors (own, views, ctx) as ``vecpack.unpack_rows`` gives them."""
        start = int(_starts(1 + self.views + self.ctx)[i])
        n, c = int(self.views[i]), int(self.ctx[i])
        return self.vectors[start : start + 1 + n + c], n, c

    def visible(self, as_of: float | None, history: bool) -> np.ndarray:
        """``recall.visible`` of each memory."""
        valid_to = self.floats[:, _VALID_TO]
        if as_of is None:
            return np.full(len(self), True) if history else np.isnan(valid_to)
        born = np.full(len(self), np.nan)
        for col in reversed(_BORN):  # the first one set
            at = self.floats[:, col]
            born = np.where(np.isnan(at), born, at)
        before = np.isnan(born) | (born <= as_of)
        return before & (np.isnan(valid_to) | (valid_to > as_of))

    def times(self) -> list[float | None]:
        """Each memory's time for the query's dates: said at, or (a fact) held from."""
        t = np.where(
            np.isnan(self.floats[:, _TS]), self.floats[:, _VALID_FROM], self.floats[:, _TS]
        )
        return [None if np.isnan(v) else float(v) for v in t]

    def key(self, terms: str | None) -> bytes | str | None:
        """Stored terms as text in the form ``terms`` holds them (a word the turns' lexicon
        lacks: the text, equal to no id form)."""
        if self.vocab is None or not terms:
            return terms
        ids = [self.vocab.get(w) for w in terms.split()]
        if any(i is None for i in ids):
            return terms
        return np.array(ids, np.uint32).tobytes()

    def words_in(self, words: set[str]) -> Any:
        """``words`` in the form ``terms`` holds them (None: one is in no turn)."""
        if self.vocab is None:
            return words
        ids = {self.vocab.get(w) for w in words}
        return None if None in ids else ids

    def has_all(self, i: int, wanted: Any) -> bool:
        """Whether memory ``i``'s terms have every one of ``wanted`` (``words_in``'s)."""
        terms = self.terms[i]
        if not terms or wanted is None:
            return False
        if isinstance(terms, bytes):
            return wanted <= set(np.frombuffer(terms, np.uint32).tolist())
        return wanted <= set(terms.split())


def dense_scores(
    vectors: np.ndarray, views: np.ndarray, ctx: np.ndarray, qv: np.ndarray, ctx_weight: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per memory and query: the cosine of its own vector, and max(own, best sentence view)
    + ``ctx_weight`` x its in-context view's (its own where it has none). ``vectors``: each
    memory's own, ``views`` sentence views and ``ctx`` (0 or 1) in-context vectors in turn;
    one matrix product for all."""
    sims = vectors @ qv.T
    size = 1 + views + ctx
    starts = _starts(size)
    own = sims[starts]
    best = own.copy()
    has = np.flatnonzero(views)
    if len(has):  # each memory's views are the rows after its own, a segment a memory
        rows = np.repeat(starts[has] + 1, views[has]) + _ranks(views[has])
        best[has] = np.maximum(
            best[has], np.maximum.reduceat(sims[rows], _starts(views[has]), axis=0)
        )
    ctx_sim = own.copy()
    with_ctx = np.flatnonzero(ctx)
    ctx_sim[with_ctx] = sims[starts[with_ctx] + size[with_ctx] - 1]
    return own, best + ctx_weight * ctx_sim


def _fact(row: Mapping[str, Any]) -> tuple[Any, ...] | None:
    extra = (row.get("subject"), row.get("predicate"), row.get("source_episode_id"))
    return extra if any(v is not None for v in extra) else None


def _starts(counts: np.ndarray) -> np.ndarray:
    """Where each of consecutive segments of ``counts`` rows begins."""
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)


def _ranks(counts: Sequence[int] | np.ndarray) -> np.ndarray:
    """0, 1, ..., c - 1 for each count c, one after another."""
    counts = np.asarray(counts)
    ends = np.cumsum(counts)
    return np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - counts, counts)
