"""Threads released together, and the invariant concurrent fact writers must keep."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from graph_db import LiquidGraph


def all_at_once(n: int, fn) -> list:
    """Run ``fn(i)`` for i < n in n threads released together."""
    start = threading.Barrier(n)

    def run(i: int):
        start.wait()
        return fn(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


def assert_one_chain(graph: LiquidGraph, ns: str, subject: str, predicate: str, n: int):
    """``n`` values written, one current; every other superseded by exactly one fact."""
    history = graph.history(ns, subject, predicate)
    assert len(history) == n, "a write was lost"
    current = [m.id for m in history if m.properties.get("valid_to") is None]
    assert len(current) == 1, f"{len(current)} current values of {predicate}"
    ids = {m.id for m in history}
    edges = [e for e in graph.backend.read("export_edges", ns=ns) if e["type"] == "SUPERSEDES"]
    incoming = {i: sum(e["b"] == i for e in edges) for i in ids}
    assert incoming[current[0]] == 0
    assert {i: c for i, c in incoming.items() if i != current[0]} == dict.fromkeys(
        ids - {current[0]}, 1
    )
