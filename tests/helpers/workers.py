"""Worker processes of the durability and race tests (tests/helpers/store_worker.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from graph_db import LiquidGraph

WORKER = Path(__file__).parent / "store_worker.py"
FACT_WRITER = Path(__file__).parent / "fact_writer.py"
EPISODE_WRITER = Path(__file__).parent / "episode_writer.py"


def start_worker(mode: str, home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), mode, str(home), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def wait_for(proc: subprocess.Popen, line: str) -> list[str]:
    seen = []
    for out in proc.stdout:
        seen.append(out.strip())
        if out.strip() == line:
            return seen
    raise AssertionError(f"worker exited ({proc.wait()}) before printing {line!r}: {seen}")


def store_config(graph: LiquidGraph) -> str:
    """``graph``'s store as the JSON settings a child process opens it with."""
    s = graph.settings
    config = {"home": str(s.home), "neo4j_uri": s.neo4j_uri}
    if s.neo4j_uri:
        config |= {
            "neo4j_user": s.neo4j_user,
            "neo4j_password": s.neo4j_password.get_secret_value(),
        }
    return json.dumps(config)


def write_episode_elsewhere(graph: LiquidGraph, ns: str, text: str, die: bool = False):
    """Another process writes ``text`` into ``ns`` of ``graph``'s store (with ``die``, it
    is killed once the write committed, before its read index hears of it)."""
    return subprocess.run(
        [sys.executable, str(EPISODE_WRITER), store_config(graph), ns, text,
         "die" if die else "live"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def recall_elsewhere(graph: LiquidGraph, ns: str, query: str):
    """Another process recalls ``query`` from ``ns`` (its trace written: access times)."""
    return subprocess.run(
        [sys.executable, str(EPISODE_WRITER), store_config(graph), ns, query, "recall"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def write_entity_elsewhere(graph: LiquidGraph, ns: str, name: str):
    """Another process writes a turn into ``ns`` that names entity ``name``."""
    return subprocess.run(
        [sys.executable, str(EPISODE_WRITER), store_config(graph), ns, name, "entity"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def delete_elsewhere(graph: LiquidGraph, ns: str, memory_id: str):
    """Another process deletes memory ``memory_id`` of ``ns`` in ``graph``'s store."""
    return subprocess.run(
        [sys.executable, str(EPISODE_WRITER), store_config(graph), ns, memory_id, "delete"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def start_fact_writer(
    graph: LiquidGraph, ns: str, prefix: str, writes: int, threads: int
) -> subprocess.Popen:
    """A process writing ``writes`` values of one user's lives_in on ``graph``'s store."""
    return subprocess.Popen(
        [
            sys.executable,
            str(FACT_WRITER),
            store_config(graph),
            ns,
            prefix,
            str(writes),
            str(threads),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
