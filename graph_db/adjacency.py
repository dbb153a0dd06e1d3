"""The edges the recall walk steps over, held by the read index per namespace: liquid ASSOC
edges (weight, when it was set, when it last fired, permanent), NEXT and DERIVED_FROM, and
which entities each memory links to (MENTIONS, ABOUT), so that a walk step is array
arithmetic, not a Bolt round trip (``walk_edges`` and ``walk_entities`` are the engine's
twins; the tests hold the two to the same steps).

Each edge is held once, in columns (ends, kind, w, w_at, fired_at, permanent), and each
node (a memory, or an entity) lists its edges' numbers; edges are undirected here, as the
walk takes them, and a link to an entity is an edge of kind ENTITY (an entity's degree is
its number of edges). A memory's edges are replaced whole by what the store says of it
(``set_memory``: the read index's records), so an edge changed by a write is current once
either end was read back.
"""

from __future__ import annotations

import math
from array import array
from typing import Any

import numpy as np

from graph_db.dynamics import DecayParams

KINDS = ("ASSOC", "NEXT", "DERIVED_FROM", "ENTITY")
_KIND = {name: i for i, name in enumerate(KINDS)}
ENTITY = _KIND["ENTITY"]
#: one step: (source id, reached id, edge kind or entity id, weight)
Step = tuple[str, str, str, float]


class _Slots:
    """Small numbers for ids (memories or entities), reused once let go."""

    def __init__(self) -> None:
        self.of: dict[str, int] = {}
        self.ids: list[str | None] = []
        self.free: list[int] = []

    def get(self, key: str) -> int:
        at = self.of.get(key)
        if at is None:
            at = self.free.pop() if self.free else len(self.ids)
            if at == len(self.ids):
                self.ids.append(None)
            self.ids[at] = key
            self.of[key] = at
        return at

    def same(self, key: str) -> str:
        """``key`` as held (the one string object), else ``key`` itself."""
        at = self.of.get(key)
        return key if at is None else self.ids[at]  # type: ignore[return-value]

    def release(self, key: str) -> None:
        at = self.of.pop(key, None)
        if at is not None:
            self.ids[at] = None
            self.free.append(at)


class Adjacency:
    """One namespace's walkable edges and entity links (see the module doc)."""

    def __init__(self) -> None:
        self.nodes = _Slots()  # memories and entities (ids are unique over both)
        self.incident: list[array | None] = []  # per node: its edges' numbers
        # per edge, in columns (numpy, grown by half again); a deleted edge's number is reused
        self.a = np.zeros(0, np.int32)
        self.b = np.zeros(0, np.int32)
        self.kind = np.zeros(0, np.int8)
        self.w = np.zeros(0)
        self.w_at = np.zeros(0)
        self.fired_at = np.zeros(0)
        self.permanent = np.zeros(0, bool)
        self.count = 0  # edge numbers used so far
        self.free: list[int] = []

    # -- writes ------------------------------------------------------------------------
    def set_memory(
        self, mid: str, edges: list[list[Any]] | None, entities: list[str] | None
    ) -> None:
        """``mid``'s edges (``[kind, other id, w, w_at, fired_at, permanent]`` each) and
        entity links as the store has them now, replacing what was held."""
        me = self._node(mid)
        held = {self._key(e, me): e for e in self.incident[me] or ()}
        kept: set[int] = set()
        links = [["ENTITY", en, None, None, None, False] for en in entities or ()]
        for kind, other, w, w_at, fired_at, permanent in [*(edges or ()), *links]:
            if kind not in _KIND or other is None or other == mid:
                continue
            you = self._node(other)
            e = held.get((you, _KIND[kind]))
            if e is None:
                e = held[you, _KIND[kind]] = self._new_edge(me, you, _KIND[kind])
            self._set(e, w, w_at, fired_at, permanent)
            kept.add(e)
        for e in set(held.values()) - kept:
            self._drop_edge(e)

    def set_edge(
        self,
        a: str,
        b: str,
        kind: str,
        w: float,
        w_at: float | None,
        fired_at: float | None,
        permanent: bool,
    ) -> None:
        """The edge of ``kind`` between ``a`` and ``b`` as a write left it (made if new)."""
        e = self._find(a, b, kind)
        if e is None:
            e = self._new_edge(self._node(a), self._node(b), _KIND[kind])
        self._set(e, w, w_at, fired_at, permanent)

    def drop_edge(self, a: str, b: str, kind: str) -> None:
        """The edge of ``kind`` between ``a`` and ``b`` deleted (if held)."""
        e = self._find(a, b, kind)
        if e is not None:
            self._drop_edge(e)

    def drop(self, mid: str) -> None:
        """``mid`` deleted: its edges and entity links go with it."""
        me = self.nodes.of.get(mid)
        if me is None:
            return
        for e in list(self.incident[me] or ()):
            self._drop_edge(e)
        self.incident[me] = None
        self.nodes.release(mid)

    # -- the walk ------------------------------------------------------------------------
    def step(
        self,
        frontier: list[tuple[str, float]],
        stop: float,
        now: float,
        decay: DecayParams,
        next_w: float,
        derived_w: float,
        fanout: int,
    ) -> list[Step]:
        """``walk_edges`` in process: from each (id, activation), the memories next to it
        whose edge weight w (ASSOC lazily decayed) keeps activation x w at or above
        ``stop``; at most ``fanout`` edges of a memory, its strongest (the engine reads the
        first it finds)."""
        out: list[Step] = []
        for mid, act in frontier:
            me = self.nodes.of.get(mid)
            held = None if me is None else self.incident[me]
            if not held:
                continue
            es = np.frombuffer(held, np.uint32).astype(np.intp)
            es = es[self.kind[es] != ENTITY]
            kind = self.kind[es]
            w = self._weights(es, kind, now, decay, next_w, derived_w)
            if len(es) > fanout:
                keep = np.lexsort((es, -w))[:fanout]
                es, kind, w = es[keep], kind[keep], w[keep]
            ok = act * w >= stop
            others = np.where(self.a[es] == me, self.b[es], self.a[es])
            for you, k, weight in zip(others[ok].tolist(), kind[ok].tolist(), w[ok].tolist(),
                                      strict=True):  # fmt: skip
                out.append((mid, self.nodes.ids[you], KINDS[k], weight))  # type: ignore[arg-type]
        return out

    def entity_step(
        self, frontier: list[tuple[str, float]], stop: float, max_degree: int, entity_w: float
    ) -> list[Step]:
        """``walk_entities`` in process: memories sharing an entity of at most
        ``max_degree`` links with each, weighted ``entity_w`` / sqrt(its degree)."""
        out: list[Step] = []
        for mid, act in frontier:
            me = self.nodes.of.get(mid)
            for e in (None if me is None else self.incident[me]) or ():
                if self.kind[e] != ENTITY:
                    continue
                ent = self._key(e, me)[0]
                links = self.incident[ent] or ()
                if len(links) > max_degree:
                    continue
                w = entity_w / math.sqrt(max(len(links), 1))
                if act * w < stop:
                    continue
                entity = self.nodes.ids[ent]
                for link in links:
                    you = self._key(link, ent)[0]
                    if you != me:
                        out.append((mid, self.nodes.ids[you], entity, w))  # type: ignore[arg-type]
        return out

    def trim(self) -> None:
        """Let the columns' room to grow go (after a build: a read namespace grows slowly)."""
        for name in ("a", "b", "kind", "w", "w_at", "fired_at", "permanent"):
            setattr(self, name, getattr(self, name)[: self.count].copy())

    # -- inside ----------------------------------------------------------------------------
    def _weights(
        self,
        es: np.ndarray,
        kind: np.ndarray,
        now: float,
        decay: DecayParams,
        next_w: float,
        derived_w: float,
    ) -> np.ndarray:
        """Each edge's weight now: ASSOC as ``dynamics.effective_weight`` (and walk_edges)."""
        w = self.w[es].copy()
        w_at = np.where(np.isnan(self.w_at[es]), now, self.w_at[es])
        fired = self.fired_at[es]
        held = np.where(np.isnan(fired), w_at, fired) + decay.hold
        start = np.maximum(w_at, held)
        decays = ~self.permanent[es] & (now > start)
        w[decays] *= np.exp(-decay.decay * (now - start[decays]))
        w[kind == _KIND["NEXT"]] = next_w
        w[kind == _KIND["DERIVED_FROM"]] = derived_w
        return w

    def _set(self, e: int, w: Any, w_at: Any, fired_at: Any, permanent: Any) -> None:
        """Edge ``e``'s weight, times and permanence as the store has them (None: unset)."""
        self.w[e] = _num(w, 0.0)
        self.w_at[e] = _num(w_at)
        self.fired_at[e] = _num(fired_at)
        self.permanent[e] = bool(permanent)

    def _node(self, mid: str) -> int:
        at = self.nodes.get(mid)
        while at >= len(self.incident):
            self.incident.append(None)
        return at

    def _find(self, a: str, b: str, kind: str) -> int | None:
        """The number of the edge of ``kind`` between ``a`` and ``b``, if held."""
        me, you = self.nodes.of.get(a), self.nodes.of.get(b)
        if me is None or you is None:
            return None
        want = (you, _KIND[kind])
        return next((e for e in self.incident[me] or () if self._key(e, me) == want), None)

    def _key(self, e: int, me: int) -> tuple[int, int]:
        other = int(self.b[e]) if self.a[e] == me else int(self.a[e])
        return other, int(self.kind[e])

    def _new_edge(self, me: int, you: int, kind: int) -> int:
        if self.free:
            e = self.free.pop()
        else:
            e = self.count
            self.count += 1
            if e >= len(self.a):  # grow by half again
                size = max(64, e + e // 2)
                for name in ("a", "b", "kind", "w", "w_at", "fired_at", "permanent"):
                    old = getattr(self, name)
                    grown = np.zeros(size, old.dtype)
                    grown[: len(old)] = old
                    setattr(self, name, grown)
        self.a[e], self.b[e], self.kind[e] = me, you, kind
        for end in (me, you):
            if self.incident[end] is None:
                self.incident[end] = array("I")
            self.incident[end].append(e)  # type: ignore[union-attr]
        return e

    def _drop_edge(self, e: int) -> None:
        for end in (int(self.a[e]), int(self.b[e])):
            held = self.incident[end]
            if held is not None and e in held:
                held.remove(e)
        self.free.append(e)


def _num(value: Any, default: float = math.nan) -> float:
    return default if value is None else float(value)
