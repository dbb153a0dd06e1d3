"""A second process writing one user's single-valued fact (run as a script by
tests/test_concurrency.py): settings as JSON, then the namespace, a value prefix, the
number of writes and of threads. Prints "ready", waits for a line, writes, prints "done"
and then, as JSON, every log record at WARNING or above that the writes produced."""

from __future__ import annotations

import json
import logging
import sys
from concurrent.futures import ThreadPoolExecutor

from graph_db import GraphSettings, LiquidGraph


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(f"{record.name}: {record.getMessage()[:200]}")


def main() -> None:
    warnings = Warnings()
    logging.getLogger().addHandler(warnings)
    settings, ns, prefix = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    writes, threads = int(sys.argv[4]), int(sys.argv[5])
    with LiquidGraph(GraphSettings(**settings)) as graph:
        graph.embedder.embed(["warm up"])
        print("ready", flush=True)
        sys.stdin.readline()

        def write(i: int) -> None:
            fact = {"subject": "Maya", "predicate": "lives_in", "object": f"{prefix} town {i}"}
            graph.add_facts(ns, [fact])

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(write, range(writes)))
    print("done", flush=True)
    print(json.dumps(warnings.seen), flush=True)


if __name__ == "__main__":
    main()
