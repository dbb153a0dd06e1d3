"""A second process for durability and locking tests (run as a script)."""

from __future__ import annotations

import os
import sys
import time

from filelock import FileLock

from graph_db import GraphSettings, LiquidGraph


def main() -> None:
    mode, home = sys.argv[1], sys.argv[2]
    if mode == "lock-only":
        with FileLock(f"{home}/mags.lock"):
            print("ready", flush=True)
            sys.stdin.read()  # until the test closes our stdin
        return
    graph = LiquidGraph(GraphSettings(home=home))
    if mode == "hold":
        graph.add_episodes("shared", ["written by the owner process"])
        print("ready", flush=True)
        sys.stdin.read()
    elif mode == "race":  # one of several processes opening a fresh home at once
        graph.add_episodes("race", [f"written by process {os.getpid()}"])
        print("ready", flush=True)
        sys.stdin.read()
    elif mode == "write-batches":
        batches, size = int(sys.argv[3]), int(sys.argv[4])
        for b in range(batches):
            turns = [
                {
                    "text": f"batch {b} turn {i}: we talked about topic {i % 17}",
                    "session_id": f"batch-{b}",
                    "ts": float(i),
                }
                for i in range(size)
            ]
            graph.add_episodes("dur", turns)
            print(f"committed {b}", flush=True)
            time.sleep(0.05)
    graph.close()


if __name__ == "__main__":
    main()
