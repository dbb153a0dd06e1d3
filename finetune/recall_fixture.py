"""The small graphs recall plans are scored on: each example's memories, in a real store.

Why the real store: a recall query is useful if graph_db's own recall (vector + full-text,
anchors, walk) brings the gold memory back, which no word-overlap stand-in measures. One
embedded ArcadeDB in a temporary home serves the process; each distinct set of memories gets
its own namespace, written once. Recall runs with ``fire=False``: scoring leaves no trace, so
every completion of a group meets the same graph, and answers can be cached.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import re
import shutil
import tempfile
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from finetune.records import Memory, RecallExample
from graph_db.errors import InvalidInputError
from graph_db.reconcile import FUNCTIONAL, MULTI_VALUED

if TYPE_CHECKING:
    from graph_db import LiquidGraph
    from graph_db.embeddings import Embedder

_WORD = re.compile(r"\S+")
_LOWER_WORD = re.compile(r"^[a-z]+$")


def _phrases() -> list[tuple[str, ...]]:
    """Known predicate phrases ("lives in", and "live in" for plural subjects), longest
    first, so that "lives in" wins over "lives"."""
    out = set()
    for p in FUNCTIONAL | MULTI_VALUED:
        words = tuple(p.split("_"))
        out.add(words)
        if len(words[0]) > 3 and words[0].endswith("s"):
            out.add((words[0][:-1], *words[1:]))
    return sorted(out, key=lambda p: (-len(p), p))


_PHRASES = _phrases()


def split_fact(text: str) -> tuple[str, str, str]:
    """A fact memory's text as (subject, predicate, object) that graph_db writes back as the
    same text ("Ben's parents live in Bristol" -> Ben's parents / live_in / Bristol).

    The predicate is the first known phrase after the first word (is, has, lives in, ...),
    else the first lower-case word that looks like a verb ("weighs"), else the first
    lower-case word; only plain lower-case words, so the text round-trips."""
    words = _WORD.findall(text)
    if len(words) < 3:
        raise InvalidInputError(
            f"fact memory {text!r} has fewer than 3 words; write facts as 'subject predicate "
            "object' text, e.g. 'Maya lives in Leeds'"
        )
    plain = [bool(_LOWER_WORD.match(w)) for w in words]
    last = len(words) - 1  # the object keeps at least one word
    for at in range(1, last):
        for phrase in _PHRASES:
            end = at + len(phrase)
            if end <= last and tuple(words[at:end]) == phrase:
                return _split(words, at, end)
    verbs = [i for i in range(1, last) if plain[i] and words[i].endswith("s")]
    lower = [i for i in range(1, last) if plain[i]]
    at = (verbs or lower or [1])[0]
    return _split(words, at, at + 1)


def _split(words: list[str], at: int, end: int) -> tuple[str, str, str]:
    return " ".join(words[:at]), "_".join(words[at:end]), " ".join(words[end:])


def _when(date: str | None, i: int) -> datetime | None:
    """Noon of the memory's date, plus its index in seconds (keeps the list's order)."""
    if date is None:
        return None
    return datetime.fromisoformat(date).replace(hour=12, tzinfo=UTC) + timedelta(seconds=i)


def namespace_of(memories: Sequence[Memory]) -> str:
    """The namespace of a set of memories: the same memories share one graph."""
    blob = json.dumps([m.model_dump() for m in memories], sort_keys=True)
    return "reward-" + hashlib.sha256(blob.encode()).hexdigest()[:24]


class FixtureGraphs:
    """Recall examples' memories in one embedded store, each set written once per process."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder
        self._graph: LiquidGraph | None = None
        self._home = ""
        self._ids: dict[str, list[str]] = {}
        self._found: dict[tuple, frozenset[str]] = {}
        self._lock = threading.RLock()

    @property
    def graph(self) -> LiquidGraph:
        """The store, opened on first use in a temporary home removed at exit."""
        with self._lock:
            if self._graph is None:
                from graph_db import GraphSettings, LiquidGraph

                self._home = tempfile.mkdtemp(prefix="mags-reward-")
                settings = GraphSettings(home=self._home, neo4j_uri=None)
                try:
                    self._graph = LiquidGraph(settings, embedder=self._embedder)
                except BaseException:
                    shutil.rmtree(self._home, ignore_errors=True)
                    raise
                atexit.register(self.close)  # before the engine's own exit handler
            return self._graph

    def close(self) -> None:
        """Stop the store and remove its home (a new one opens if used again)."""
        with self._lock:
            if self._graph is not None:
                self._graph.close()  # the last user of the embedded server stops it
                self._graph = None
                self._ids.clear()
                self._found.clear()
                shutil.rmtree(self._home, ignore_errors=True)

    def memory_ids(self, example: RecallExample) -> tuple[str, list[str]]:
        """The example's namespace and the id of each of its memories, by index."""
        ns = namespace_of(example.memories)
        with self._lock:
            if ns not in self._ids:
                self._ids[ns] = self._write(ns, example.memories)
            return ns, self._ids[ns]

    def _write(self, ns: str, memories: Sequence[Memory]) -> list[str]:
        graph = self.graph
        ids: list[str] = [""] * len(memories)
        episodes = [(i, m) for i, m in enumerate(memories) if m.kind == "episode"]
        facts = [(i, m) for i, m in enumerate(memories) if m.kind == "fact"]
        rows = []  # split before anything is written: a bad fact leaves no half-built graph
        for i, m in facts:
            subject, predicate, obj = split_fact(m.text)
            rows.append({"subject": subject, "predicate": predicate, "object": obj})
            if m.date is not None:
                rows[-1]["valid_from"] = _when(m.date, i)
        if episodes:
            turns = [
                {"text": m.text, "speaker": m.speaker, "ts": _when(m.date, i), "session_id": "fix"}
                for i, m in episodes
            ]
            for (i, _), id_ in zip(episodes, graph.add_episodes(ns, turns), strict=True):
                ids[i] = id_
        if facts:
            for (i, _), w in zip(facts, graph.add_facts(ns, rows), strict=True):
                ids[i] = w.id
        return ids

    def found(
        self, ns: str, queries: Sequence[str], k: int, blocks: str, history: bool
    ) -> set[str]:
        """Ids in the union of each query's top-k (graph_db's recall, leaving no trace)."""
        out: set[str] = set()
        for query in dict.fromkeys(q.strip() for q in queries if q.strip()):
            key = (ns, query, k, blocks, history)
            with self._lock:
                hit = self._found.get(key)
            if hit is None:
                recalled = self.graph.recall(
                    ns, query, k=k, blocks=blocks, history=history, fire=False
                )
                hit = frozenset(r.memory.id for r in recalled)
                with self._lock:
                    self._found[key] = hit
            out |= hit
        return out
