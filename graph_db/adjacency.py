"""The edges the recall walk steps over, held by the read index per namespace: liquid ASSOC
edges (weight, when it was set, when it last fired, permanent), NEXT and DERIVED_FROM, and
which entities each memory links to (MENTIONS, ABOUT), so that a walk step is array
arithmetic, not a Bolt round trip (``walk_edges`` and ``walk_entities`` are the engine's
twins; the tests hold the two to the same steps).

Each edge is held once, in columns (ends, and w, w_at, fired_at, permanent for an ASSOC
edge, the kind for another), and each node (a memory, or an entity) lists its edges;
edges are undirected here, as the walk takes them, and a link to an entity is an edge of
kind ENTITY (an entity's degree is its number of edges). A memory's edges are replaced
whole by what the store says of it (``set_memory``: the read index's records), so an edge
changed by a write is current once either end was read back.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from graph_db.dynamics import DecayParams

KINDS = ("ASSOC", "NEXT", "DERIVED_FROM", "ENTITY")
_KIND = {name: i for i, name in enumerate(KINDS)}
ENTITY = _KIND["ENTITY"]
#: how ``incident`` is held, in the read index's saved files (``read_index.layout``)
FORMAT = "incident:int32-bytearray"
_REF = struct.Struct("=i")  # an edge reference in ``Adjacency.incident``, as numpy's int32
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


class _Edges:
    """Edges of one sort in columns (numpy, grown by half again): their ends and the
    columns named at making; a deleted edge's number is reused."""

    def __init__(self, **columns: type) -> None:
        self.columns = {"a": np.int32, "b": np.int32, **columns}
        for name, dtype in self.columns.items():
            setattr(self, name, np.zeros(0, dtype))
        self.count = 0  # edge numbers used so far
        self.free: list[int] = []

    def new(self, me: int, you: int) -> int:
        if self.free:
            e = self.free.pop()
        else:
            e = self.count
            self.count += 1
            if e >= len(self.a):
                size = max(64, e + e // 2)
                for name in self.columns:
                    old = getattr(self, name)
                    grown = np.zeros(size, old.dtype)
                    grown[: len(old)] = old
                    setattr(self, name, grown)
        self.a[e], self.b[e] = me, you
        return e

    def trim(self) -> None:
        for name in self.columns:
            setattr(self, name, getattr(self, name)[: self.count].copy())


class Adjacency:
    """One namespace's walkable edges and entity links (see the module doc).

    ASSOC edges (weight, its times, permanence) and the fixed ones (NEXT, DERIVED_FROM,
    entity links: a kind, their weight is the walk's setting) are held apart, so that only
    the ~half of edges that learn pay for weight columns. A node lists its edges by
    reference: ``e`` >= 0 is ASSOC edge ``e``, ``~e`` (< 0) fixed edge ``e``."""

    def __init__(self) -> None:
        self.nodes = _Slots()  # memories and entities (ids are unique over both)
        #: per node: its edges' references, int32 in a bytearray: unlike an ``array``, not
        #: tracked by Python's collector (at 100k memories an array a node was 107k of a
        #: process's 167k tracked objects; a full collection ~60 ms, ~40 without them)
        self.incident: list[bytearray | None] = []
        self.liquid = _Edges(w=np.float64, w_at=np.float64, fired_at=np.float64, permanent=bool)
        self.fixed = _Edges(kind=np.int8)

    # -- writes ------------------------------------------------------------------------
    def set_memory(
        self, mid: str, edges: list[list[Any]] | None, entities: list[str] | None
    ) -> None:
        """``mid``'s edges (``[kind, other id, w, w_at, fired_at, permanent]`` each) and
        entity links as the store has them now, replacing what was held."""
        me = self.node(mid)
        held = {self._key(r, me): r for r in _refs(self.incident[me])}
        kept: set[int] = set()
        links = [["ENTITY", en, None, None, None, False] for en in entities or ()]
        for kind, other, w, w_at, fired_at, permanent in [*(edges or ()), *links]:
            if kind not in _KIND or other is None or other == mid:
                continue
            you = self.node(other)
            r = held.get((you, _KIND[kind]))
            if r is None:
                r = held[you, _KIND[kind]] = self._new_edge(me, you, _KIND[kind])
            self._set(r, w, w_at, fired_at, permanent)
            kept.add(r)
        for r in set(held.values()) - kept:
            self._drop_edge(r)

    def set_edge(
        self,
        a: str,
        b: str,
        kind: str,
        w: float | None = None,
        w_at: float | None = None,
        fired_at: float | None = None,
        permanent: bool = False,
    ) -> None:
        """The edge of ``kind`` between ``a`` and ``b`` as a write left it (made if new; a
        fixed edge or an entity link has no weight or times)."""
        r = self._find(a, b, kind)
        if r is None:
            r = self._new_edge(self.node(a), self.node(b), _KIND[kind])
        self._set(r, w, w_at, fired_at, permanent)

    def drop_edge(self, a: str, b: str, kind: str) -> None:
        """The edge of ``kind`` between ``a`` and ``b`` deleted (if held)."""
        r = self._find(a, b, kind)
        if r is not None:
            self._drop_edge(r)

    def drop(self, mid: str) -> None:
        """``mid`` deleted: its edges and entity links go with it."""
        me = self.nodes.of.get(mid)
        if me is None:
            return
        for r in _refs(self.incident[me]):
            self._drop_edge(r)
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
        first it finds; here ties go to the smaller id: ``_strongest``)."""
        of, incident = self.nodes.of, self.incident
        held = [(i, me) for i, (mid, _) in enumerate(frontier)
                if (me := of.get(mid)) is not None and incident[me]]  # fmt: skip
        if not held:
            return []
        # every edge of the frontier at once; ``seg``: whose (an index into ``held``)
        lists = [incident[me] for _, me in held]
        refs = np.frombuffer(b"".join(lists), np.int32).astype(np.intp)  # type: ignore[arg-type]
        seg = np.repeat(np.arange(len(held)), [len(r) // _REF.size for r in lists])  # type: ignore[arg-type]
        liquid, fixed = self.liquid, self.fixed
        kind = np.full(len(refs), _KIND["ASSOC"], np.int8)
        fx = refs < 0
        kind[fx] = fixed.kind[~refs[fx]]
        walkable = kind != ENTITY
        # a hub's fan-out is chosen among all its edges (``over``): its strongest first
        over = np.bincount(seg[walkable], minlength=len(held)) > fanout
        # an ASSOC edge's weight only decays from the one stored, so the steps that may
        # reach ``stop`` are found before any decay is computed
        act = np.array([frontier[i][1] for i, _ in held])[seg]
        bound = np.where(kind == _KIND["NEXT"], next_w, derived_w)
        lq = refs >= 0
        bound[lq] = liquid.w[refs[lq]]
        may = np.flatnonzero(walkable & (act * bound >= stop))
        refs, seg, kind, act, lq = refs[may], seg[may], kind[may], act[may], lq[may]
        fx, es, fs = ~lq, refs[lq], ~refs[~lq]
        a, b = np.empty(len(refs), np.int32), np.empty(len(refs), np.int32)
        a[lq], a[fx], b[lq], b[fx] = liquid.a[es], fixed.a[fs], liquid.b[es], fixed.b[fs]
        w = bound[may]
        w[lq] = self._weights(es, now, decay)
        mine = np.array([m for _, m in held])[seg]
        others = np.where(a == mine, b, a)
        walked = np.flatnonzero(act * w >= stop)  # in the order each node lists them
        if over[seg[walked]].any():
            # the steps left of a hub are the first of all its edges by strength: its
            # strongest ``fanout`` that reach ``stop`` are the first ``fanout`` left
            walked = _strongest(walked, seg[walked], over, w, others, kind, self.nodes.ids,
                                fanout)  # fmt: skip
        ids, source = self.nodes.ids, [frontier[i][0] for i, _ in held]
        return [
            (source[s], ids[you], KINDS[k], weight)  # type: ignore[misc]
            for s, you, k, weight in zip(seg[walked].tolist(), others[walked].tolist(),
                                         kind[walked].tolist(), w[walked].tolist(), strict=True)
        ]  # fmt: skip

    def entity_step(
        self, frontier: list[tuple[str, float]], stop: float, max_degree: int, entity_w: float
    ) -> list[Step]:
        """``walk_entities`` in process: memories sharing an entity of at most
        ``max_degree`` links with each, weighted ``entity_w`` / sqrt(its degree)."""
        out: list[Step] = []
        for mid, act in frontier:
            me = self.nodes.of.get(mid)
            for r in _refs(None if me is None else self.incident[me]):
                if r >= 0 or self.fixed.kind[~r] != ENTITY:
                    continue
                ent = self._key(r, me)[0]
                degree = len(self.incident[ent] or b"") // _REF.size
                if degree > max_degree:  # a hub: not walked through (nor listed)
                    continue
                w = entity_w / math.sqrt(max(degree, 1))
                if act * w < stop:
                    continue
                entity = self.nodes.ids[ent]
                for link in _refs(self.incident[ent]):
                    you = self._key(link, ent)[0]
                    if you != me:
                        out.append((mid, self.nodes.ids[you], entity, w))  # type: ignore[arg-type]
        return out

    def trim(self) -> None:
        """Let the columns' room to grow go (after a build: a read namespace grows slowly)."""
        self.liquid.trim()
        self.fixed.trim()
        self.incident = [None if held is None else bytearray(held) for held in self.incident]

    # -- inside ----------------------------------------------------------------------------
    def _weights(self, es: np.ndarray, now: float, decay: DecayParams) -> np.ndarray:
        """ASSOC edges' weights now, as ``dynamics.effective_weight`` (and walk_edges)."""
        t = self.liquid
        w = t.w[es].copy()
        w_at = np.where(np.isnan(t.w_at[es]), now, t.w_at[es])
        fired = t.fired_at[es]
        held = np.where(np.isnan(fired), w_at, fired) + decay.hold
        start = np.maximum(w_at, held)
        decays = ~t.permanent[es] & (now > start)
        w[decays] *= np.exp(-decay.decay * (now - start[decays]))
        return w

    def _set(self, r: int, w: Any, w_at: Any, fired_at: Any, permanent: Any) -> None:
        """ASSOC edge ``r``'s weight, times and permanence as the store has them (None:
        unset); a fixed edge has none."""
        if r >= 0:
            t = self.liquid
            t.w[r], t.w_at[r] = _num(w, 0.0), _num(w_at)
            t.fired_at[r], t.permanent[r] = _num(fired_at), bool(permanent)

    def node(self, mid: str) -> int:
        """The number of node ``mid`` (a memory or an entity), made if new."""
        at = self.nodes.get(mid)
        while at >= len(self.incident):
            self.incident.append(None)
        return at

    def _find(self, a: str, b: str, kind: str) -> int | None:
        """The reference of the edge of ``kind`` between ``a`` and ``b``, if held."""
        me, you = self.nodes.of.get(a), self.nodes.of.get(b)
        if me is None or you is None:
            return None
        if len(self.incident[me] or b"") > len(self.incident[you] or b""):
            me, you = you, me  # the shorter list (an entity or a hub can have thousands)
        want = (you, _KIND[kind])
        return next((r for r in _refs(self.incident[me]) if self._key(r, me) == want), None)

    def _key(self, r: int, me: int) -> tuple[int, int]:
        """(the other end, the kind) of edge ``r`` of node ``me``."""
        if r >= 0:
            t, e, kind = self.liquid, r, _KIND["ASSOC"]
        else:
            t, e = self.fixed, ~r
            kind = int(t.kind[e])
        return (int(t.b[e]) if t.a[e] == me else int(t.a[e])), kind

    def _new_edge(self, me: int, you: int, kind: int) -> int:
        if kind == _KIND["ASSOC"]:
            r = self.liquid.new(me, you)
        else:
            e = self.fixed.new(me, you)
            self.fixed.kind[e] = kind
            r = ~e
        for end in (me, you):
            if self.incident[end] is None:
                self.incident[end] = bytearray()
            self.incident[end] += _REF.pack(r)  # type: ignore[operator]
        return r

    def _drop_edge(self, r: int) -> None:
        t, e = (self.liquid, r) if r >= 0 else (self.fixed, ~r)
        for end in (int(t.a[e]), int(t.b[e])):
            held = self.incident[end]
            at = np.flatnonzero(np.frombuffer(held, np.int32) == r) if held else ()
            if len(at):  # the first, as array.remove took it (numpy's view is gone: it can shrink)
                start = _REF.size * int(at[0])
                del held[start : start + _REF.size]  # type: ignore[index]
        t.free.append(e)


def _refs(held: bytearray | None) -> list[int]:
    """The edge references in a node's ``incident`` entry."""
    return memoryview(held).cast("i").tolist() if held else []


def _strongest(
    walked: np.ndarray,
    seg: np.ndarray,
    over: np.ndarray,
    w: np.ndarray,
    others: np.ndarray,
    kind: np.ndarray,
    ids: list[str | None],
    fanout: int,
) -> np.ndarray:
    """``walked`` (edge positions, each node's in listing order; ``seg``: whose) with at
    most ``fanout`` of each node marked ``over``: its strongest, strongest first, ties to
    the smaller id at the other end, then the kind (``others``: the other end's node and
    ``kind`` the edge's kind, by position; ``ids``: the nodes' ids). Not to the edge listed
    first: a node lists its edges in the order they came, written through or read back, and
    the edges one recall co-fired start out tied. The other nodes' edges stay as listed."""
    bounds = np.flatnonzero(np.diff(seg)) + 1
    starts, ends = np.concatenate([[0], bounds]), np.concatenate([bounds, [len(seg)]])
    pieces, done = [], 0
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        if not over[seg[a]]:
            continue
        part = walked[a:b]
        weight = w[part]
        if len(np.unique(weight)) == len(part):  # no ties: strength alone orders them
            order = np.argsort(-weight, kind="stable")
        else:
            rank = np.unique(np.array([ids[o] for o in others[part]]), return_inverse=True)[1]
            order = np.lexsort((kind[part], rank, -weight))
        pieces += [walked[done:a], part[order[:fanout]]]
        done = b
    pieces.append(walked[done:])
    return np.concatenate(pieces)


def _num(value: Any, default: float = math.nan) -> float:
    return default if value is None else float(value)
