"""A second process writing one episode (run as a script by tests/test_read_index.py):
settings as JSON, the namespace, the text, and "die" to SIGKILL itself once the write has
committed and before its own read index hears of it, "delete" to delete the memory whose
id is the text instead, or "entity" to write a turn that names the text as an entity.
Prints the episode's id."""

from __future__ import annotations

import json
import os
import signal
import sys

from graph_db import GraphSettings, LiquidGraph
from graph_db.read_index import ReadIndex


def main() -> None:
    settings, ns, text, mode = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    if mode == "die":

        def killed(self, commit) -> None:
            print(commit.writes[0][1]["rows"][0]["id"], flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

        ReadIndex.committed = killed  # type: ignore[method-assign]
    with LiquidGraph(GraphSettings(**settings)) as graph:
        if mode == "delete":
            graph.delete(ns, text)
            print(text, flush=True)
        elif mode == "recall":  # its trace (access times, Hebbian) is written, then it exits
            ids = [hit.memory.id for hit in graph.recall(ns, text, k=3)]
            graph.flush()
            print(" ".join(ids), flush=True)
        elif mode == "entity":
            turn = {"text": f"Today I met {text}", "session_id": "other", "entities": [text]}
            print(graph.add_episodes(ns, [turn])[0], flush=True)
        else:
            print(graph.add_episode(ns, text, session_id="other"), flush=True)


if __name__ == "__main__":
    main()
