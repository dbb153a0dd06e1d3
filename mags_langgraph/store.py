"""``MAGSStore``: LangGraph's ``BaseStore`` backed by the liquid graph.

    store = MAGSStore(LiquidGraph())
    graph = builder.compile(store=store)        # or create_agent(..., store=store)
    store.put(("maya",), "diet", {"text": "vegetarian"})
    store.search(("maya",), query="what does she eat?")   # recall: anchors + walk

A namespace tuple is one memory namespace: its labels joined by "/" (``("maya",)`` is the
namespace the chatbot writes, so an agent's store and its conversations share a memory).
An item is an episode whose text is the item's string fields (what recall searches) and
whose metadata keeps the key and the value; its id is derived from namespace and key.
``search`` with a query runs recall and returns store items and the namespace's other
memories (turns, facts; their key is the memory id, their value has LangMem's ``kind`` and
``content``: ``get`` finds them, ``delete`` forgets them, ``put`` replaces them with an item
under that key). As LangGraph's own stores: namespaces under a prefix are ranked on one
scale, the filter applies before the limit, no query means the latest updated first, and a
search writes nothing but its trace in the prefix's own namespace (none with
``refresh_ttl=False``). Items are permanent: maintenance never forgets them; a put is one
transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from graph_db import (
    NS_SEP,
    InvalidInputError,
    LiquidGraph,
    Memory,
    NotFoundError,
    UnknownNamespaceError,
    namespace_of,
)

_IDS = uuid.UUID("6d3f0e2a-8f4b-4c55-9a8e-2f1d7b6c4a10")  # uuid5 namespace of item ids
STORE_SESSION = "store"
MAX_NAMESPACES = 100_000
MAX_SCAN = 4096  # memories of one namespace a filtered search looks through at most


class StoreNamespaceError(InvalidNamespaceError, InvalidInputError):
    """A namespace tuple the store refuses: LangGraph's error type, and a MAGS one."""


def ns_of(namespace: tuple[str, ...]) -> str:
    """The memory namespace of a store namespace tuple (graph_db's one rule)."""
    try:
        return namespace_of(namespace)
    except InvalidInputError as e:
        raise StoreNamespaceError(f"{e} (store namespace {namespace!r})") from None


@contextlib.contextmanager
def _one_namespace_error(namespace: tuple[str, ...]) -> Iterator[None]:
    """MAGS's namespace rule, then LangGraph's (no "." in a label): both raise a
    ``StoreNamespaceError``, which is LangGraph's error type and a MAGS one."""
    ns_of(namespace)
    try:
        yield
    except InvalidNamespaceError as e:
        if isinstance(e, StoreNamespaceError):
            raise
        raise StoreNamespaceError(f"{e} (LangGraph's rule for a put)") from None


def item_id(ns: str, key: str) -> str:
    return str(uuid.uuid5(_IDS, f"{ns}\x00{key}"))


def text_of(value: Mapping[str, Any], fields: list[str] | None = None) -> str:
    """What recall searches for an item: its string leaves (of ``fields`` when given)."""
    parts: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, Mapping):
            for k, x in v.items():
                if k != "kind":  # LangMem's type tag, not content
                    walk(x)
        elif isinstance(v, list | tuple):
            for x in v:
                walk(x)

    if fields:
        for f in fields:
            walk(_path(value, f))
    else:
        walk(value)
    return "\n".join(p for p in parts if p.strip()) or json.dumps(value, ensure_ascii=False)


def _path(value: Any, dotted: str) -> Any:
    """``a.b[0].c`` / ``a[*].b`` in a JSON value (None where it does not exist)."""
    cur: list[Any] = [value]
    for part in dotted.replace("]", "").split("."):
        name, _, index = part.partition("[")
        cur = [c.get(name) if isinstance(c, Mapping) else None for c in cur]
        if index:
            if index == "*":
                cur = [x for c in cur if isinstance(c, list) for x in c]
            else:
                cur = [c[int(index)] if isinstance(c, list) and len(c) > int(index) else None
                       for c in cur]  # fmt: skip
    return cur


def _when(epoch: Any) -> datetime:
    return datetime.fromtimestamp(float(epoch or 0), UTC)


def _stored(m: Memory) -> dict[str, Any] | None:
    """The store's record (key, value, times) a memory carries, if it is a store item."""
    return m.metadata.get("store")


def _item_parts(m: Memory) -> tuple[str, dict[str, Any], datetime, datetime]:
    """key, value, created, updated of a memory seen through the store."""
    if stored := _stored(m):
        return (
            stored["key"],
            stored["value"],
            _when(stored["created_at"]),
            _when(stored["updated_at"]),
        )
    p = m.properties
    # "kind" and "content" as LangMem's memory manager reads its own items
    value = {"text": m.text, "block": m.block, "kind": "Memory", "content": {"content": m.text}}
    value |= {k: p[k] for k in ("speaker", "subject", "predicate", "object") if k in p}
    made = _when(p.get("ts") or p.get("valid_from") or p.get("created_at"))
    return m.id, value, made, made


class MAGSStore(BaseStore):
    """A LangGraph store whose ``search`` is MAGS recall (and that learns from it)."""

    supports_ttl = False

    def __init__(self, graph: LiquidGraph, *, fire: bool = True) -> None:
        self.graph = graph
        self.fire = fire  # searches leave their trace (touch, co-fired anchors linked)

    # -- BaseStore -------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(op))
            elif isinstance(op, PutOp):
                self._put(op)
                out.append(None)
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self._list_namespaces(op))
            else:
                raise TypeError(f"unknown store operation {op!r}")
        return out

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def put(self, namespace: tuple[str, ...], *args: Any, **kwargs: Any) -> None:
        """BaseStore's put, its namespace checked by MAGS's rule first (one error type)."""
        with _one_namespace_error(namespace):
            return super().put(namespace, *args, **kwargs)

    async def aput(self, namespace: tuple[str, ...], *args: Any, **kwargs: Any) -> None:
        with _one_namespace_error(namespace):
            return await super().aput(namespace, *args, **kwargs)

    # -- operations ------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        ns = ns_of(op.namespace)
        item, recalled = self._lookup(ns, op.key)
        found = item or recalled
        if found is None:
            return None
        key, value, made, changed = _item_parts(found)
        return Item(value=value, key=key, namespace=op.namespace, created_at=made,
                    updated_at=changed)  # fmt: skip

    def _lookup(self, ns: str, key: str) -> tuple[Memory | None, Memory | None]:
        """One read for what ``key`` names in ``ns``: the store item under it, and the
        memory (a turn or fact, not an item) whose id it is, as search hands them out."""
        mid = item_id(ns, key)
        try:
            found = {m.id: m for m in self.graph.get_many(ns, [mid, key])}
        except UnknownNamespaceError:
            return None, None
        recalled = found.get(key) if key != mid else None
        return found.get(mid), None if recalled is None or _stored(recalled) else recalled

    def _put(self, op: PutOp) -> None:
        """One transaction: the item created, changed or deleted. (A turn or fact that
        search handed out under its id is deleted first, then replaced by the item.)"""
        ns = ns_of(op.namespace)
        mid = item_id(ns, op.key)
        current, recalled = self._lookup(ns, op.key)
        if recalled is not None:  # the caller deletes or rewrites it (LangMem does)
            with contextlib.suppress(NotFoundError):
                self.graph.delete(ns, recalled.id)
        if op.value is None:
            if current is not None:
                with contextlib.suppress(NotFoundError):  # deleted meanwhile: done too
                    self.graph.delete(ns, mid)
            return
        value = json.loads(json.dumps(op.value))  # JSON only, a private copy
        fields = op.index if isinstance(op.index, list) else None
        now = datetime.now(UTC).timestamp()
        created = _item_parts(current)[2].timestamp() if current is not None else now
        store = {"key": op.key, "value": value, "created_at": created, "updated_at": now}
        text = text_of(value, fields)
        if current is None:  # an item stays until it is deleted: maintenance never forgets it
            self.graph.add_episodes(
                ns,
                [{"id": mid, "text": text, "session_id": STORE_SESSION, "ts": now,
                  "permanent": True, "metadata": {"store": store}}],
            )  # fmt: skip
        else:
            self.graph.update(ns, mid, text=text, metadata={"store": store})

    def _search(self, op: SearchOp) -> list[SearchItem]:
        """Store items and the namespaces' other memories: with a query, recall in each
        namespace under the prefix, ranked together by recall score x the namespace's best
        cosine to the query (recall's scores are relative to each namespace's best hit);
        without one, the most recently updated first. The filter is applied before the
        limit. Only the prefix's own namespace learns from the search (co-firing), and only
        when ``refresh_ttl`` (LangGraph's one read that writes) is not turned off."""
        prefix = ns_of(op.namespace_prefix) if op.namespace_prefix else ""
        want = op.offset + op.limit
        found: list[tuple[float | None, float, str, Memory]] = []
        for ns in self._spaces(prefix):
            fire = self.fire and op.refresh_ttl and ns == prefix
            found += self._matching(ns, op, want, fire)
        if op.query:
            found.sort(key=lambda t: -(t[0] or 0.0))
        else:
            found.sort(key=lambda t: -t[1])
        items = []
        for score, _, ns, m in found[op.offset : want]:
            key, value, made, changed = _item_parts(m)
            items.append(
                SearchItem(namespace=tuple(ns.split(NS_SEP)), key=key, value=value,
                           created_at=made, updated_at=changed, score=score)
            )  # fmt: skip
        return items

    def _spaces(self, prefix: str) -> list[str]:
        """The namespace ``prefix`` and those below it (not "maya-2" for "maya")."""
        if not prefix:
            return self.graph.namespaces(limit=MAX_NAMESPACES)
        below = self.graph.namespaces(prefix=prefix + NS_SEP, limit=MAX_NAMESPACES)
        spaces = [*self.graph.namespaces(prefix=prefix, limit=1)[:1], *below]
        return [s for s in dict.fromkeys(spaces) if s == prefix or s.startswith(prefix + NS_SEP)]

    def _matching(
        self, ns: str, op: SearchOp, want: int, fire: bool
    ) -> list[tuple[float | None, float, str, Memory]]:
        """Up to ``want`` memories of ``ns`` that pass the filter, as (score, updated, ns,
        memory): recall's, then (no query, or recall found fewer) the others newest first,
        without a score, as LangGraph's stores rank every item that passes."""
        kept: list[tuple[float | None, Memory]] = []
        if op.query:
            hits = self.graph.recall(ns, op.query, k=want * (2 if op.filter else 1), fire=fire)
            best = max((h.similarity or 0.0 for h in hits), default=0.0)
            kept = [(h.score * best, h.memory) for h in hits if _passes(h.memory, op.filter)]
        if len(kept) < want:
            seen = {m.id for _, m in kept}
            kept += [(None, m) for m in self._listed(ns, op.filter, want - len(kept), seen)]
        return [(s, _item_parts(m)[3].timestamp(), ns, m) for s, m in kept[:want]]

    def _listed(self, ns: str, filter: dict | None, n: int, seen: set[str]) -> list[Memory]:
        """The newest ``n`` memories of ``ns`` that pass ``filter`` (at most MAX_SCAN read)."""
        out: list[Memory] = []
        page = max(n * 4, 64)
        for offset in range(0, MAX_SCAN, page):
            batch = self.graph.list(ns, limit=page, offset=offset)
            out += [m for m in batch if m.id not in seen and _passes(m, filter)]
            if len(out) >= n or len(batch) < page:
                break
        return out[:n]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces = [tuple(s.split(NS_SEP)) for s in self.graph.namespaces(limit=MAX_NAMESPACES)]
        conditions = op.match_conditions or ()
        kept = [s for s in spaces if all(_ns_matches(s, c) for c in conditions)]
        if op.max_depth is not None:
            kept = [s[: op.max_depth] for s in kept]
        unique = sorted(set(kept))
        return unique[op.offset : op.offset + op.limit]


def _passes(m: Memory, filter: dict | None) -> bool:
    return not filter or _matches(_item_parts(m)[1], filter)


def _matches(value: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """Equality on each filter key (``$eq``/``$ne``/``$gt``... as LangGraph's own store)."""
    for key, want in filter.items():
        have = _path(value, key)[0] if "." in key else value.get(key)
        if isinstance(want, Mapping):
            for op, arg in want.items():
                if not _compare(have, op, arg):
                    return False
        elif have != want:
            return False
    return True


def _compare(have: Any, op: str, arg: Any) -> bool:
    try:
        return {
            "$eq": lambda: have == arg,
            "$ne": lambda: have != arg,
            "$gt": lambda: have > arg,
            "$gte": lambda: have >= arg,
            "$lt": lambda: have < arg,
            "$lte": lambda: have <= arg,
        }[op]()
    except KeyError as e:
        raise InvalidInputError(
            f"unsupported filter operator {op!r}: use $eq, $ne, $gt, $gte, $lt or $lte"
        ) from e
    except TypeError:
        return False


def _ns_matches(ns: tuple[str, ...], cond: MatchCondition) -> bool:
    path = tuple(cond.path)
    if len(path) > len(ns):
        return False
    part = ns[: len(path)] if cond.match_type == "prefix" else ns[len(ns) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))
