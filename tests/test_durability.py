"""The embedded store survives restarts and crashes, and one home has one owner."""

from __future__ import annotations

import collections
import os
import random
import signal
from pathlib import Path

import pytest

from graph_db import GraphSettings, HomeLockedError, LiquidGraph
from tests.helpers.workers import start_worker, wait_for


def _batch_sizes(home: Path, embedder) -> dict[str, int]:
    with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
        if "dur" not in g.namespaces():
            return {}
        eps = g.list("dur", "episodic", limit=100_000)
        return collections.Counter(m.properties["session_id"] for m in eps)


def test_data_survives_a_restart(tmp_path, embedder):
    home = tmp_path / "home"
    with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
        ids = g.add_episodes("u", ["remember me across restarts"])
        g.add_fact("u", "I", "want", "durability")
    with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
        assert g.get("u", ids[0]).text == "remember me across restarts"
        assert g.stats("u")["nodes"]["Fact"] == 1
        assert g.search("u", "restarts", k=1)[0].memory.id == ids[0]


@pytest.mark.slow
def test_kill_during_batch_writes_leaves_whole_batches_only(tmp_path, embedder):
    home, size = tmp_path / "home", 150
    proc = start_worker("write-batches", home, "50", str(size))
    try:
        wait_for(proc, "committed 1")
        # somewhere inside a later batch: embedding, or the transaction itself
        proc.stdout.readline()
        import time

        time.sleep(random.uniform(0.05, 0.8))
    finally:
        proc.kill()
        proc.wait()
    sizes = _batch_sizes(home, embedder)
    assert sizes, "committed batches were lost"
    assert all(n == size for n in sizes.values()), f"a half-written batch survived: {sizes}"
    assert {"batch-0", "batch-1"} <= set(sizes)


@pytest.mark.slow
def test_sigterm_stops_the_engine_cleanly(tmp_path, embedder):
    home = tmp_path / "home"
    proc = start_worker("write-batches", home, "1000", "20")
    wait_for(proc, "committed 0")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert not (home / "endpoint.json").exists(), "the server did not stop cleanly"
    assert all(n == 20 for n in _batch_sizes(home, embedder).values())


def test_a_home_locked_by_another_process_is_a_clear_error(tmp_path, embedder):
    home = tmp_path / "home"
    home.mkdir()
    proc = start_worker("lock-only", home)
    try:
        wait_for(proc, "ready")
        with pytest.raises(HomeLockedError, match="another home"):
            LiquidGraph(GraphSettings(home=home, join_wait_s=2), embedder=embedder)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_a_second_process_joins_the_running_engine(tmp_path, embedder):
    home = tmp_path / "home"
    proc = start_worker("hold", home)
    try:
        wait_for(proc, "ready")
        with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
            assert [m.text for m in g.list("shared")] == ["written by the owner process"]
            g.add_episodes("shared", ["written by the second process"])
            assert g.stats("shared")["nodes"]["Episode"] == 2
        assert proc.poll() is None, "closing the client must not stop the owner's engine"
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    assert os.path.exists(home / "secrets" / "arcadedb-root")
    assert (home / "secrets" / "arcadedb-root").stat().st_mode & 0o077 == 0


def test_the_embedded_engine_listens_on_loopback_only_with_mcp_off(home, embedder):
    import ipaddress
    import json

    import psutil

    graph = LiquidGraph(GraphSettings(home=home, neo4j_uri=None), embedder=embedder)
    listening = [c for c in psutil.Process().net_connections(kind="inet") if c.status == "LISTEN"]
    assert listening, "the engine should listen (Bolt, HTTP)"
    for c in listening:
        ip = ipaddress.ip_address(c.laddr.ip)
        ip = getattr(ip, "ipv4_mapped", None) or ip
        assert ip.is_loopback, f"listening on {c.laddr.ip}:{c.laddr.port}"
    home = Path(graph.settings.home)
    mcp = json.loads((home / "arcadedb" / "config" / "mcp-config.json").read_text())
    assert mcp["enabled"] is False
    assert (home / "secrets" / "arcadedb-root").stat().st_mode & 0o077 == 0
    graph.close()
