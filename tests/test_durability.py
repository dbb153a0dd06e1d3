"""The embedded store survives restarts and crashes, and one home has one owner."""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from graph_db import GraphSettings, HomeLockedError, LiquidGraph

WORKER = Path(__file__).parent / "helpers" / "store_worker.py"


def _start(mode: str, home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), mode, str(home), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _wait_for(proc: subprocess.Popen, line: str) -> list[str]:
    seen = []
    for out in proc.stdout:
        seen.append(out.strip())
        if out.strip() == line:
            return seen
    raise AssertionError(f"worker exited ({proc.wait()}) before printing {line!r}: {seen}")


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
    proc = _start("write-batches", home, "50", str(size))
    try:
        _wait_for(proc, "committed 1")
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
    proc = _start("write-batches", home, "1000", "20")
    _wait_for(proc, "committed 0")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert not (home / "endpoint.json").exists(), "the server did not stop cleanly"
    assert all(n == 20 for n in _batch_sizes(home, embedder).values())


def test_a_home_locked_by_another_process_is_a_clear_error(tmp_path, embedder):
    home = tmp_path / "home"
    home.mkdir()
    proc = _start("lock-only", home)
    try:
        _wait_for(proc, "ready")
        with pytest.raises(HomeLockedError, match="another home"):
            LiquidGraph(GraphSettings(home=home, join_wait_s=2), embedder=embedder)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_a_second_process_joins_the_running_engine(tmp_path, embedder):
    home = tmp_path / "home"
    proc = _start("hold", home)
    try:
        _wait_for(proc, "ready")
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


@pytest.mark.slow
def test_processes_opening_a_fresh_home_at_once_all_join_one_engine(tmp_path, embedder):
    """One starts the engine; the others wait for it and join (they used to fail with
    HomeLockedError while it was still starting)."""
    home = tmp_path / "home"
    procs = [_start("race", home) for _ in range(3)]
    try:
        for proc in procs:
            _wait_for(proc, "ready")
        with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
            texts = {m.text for m in g.list("race")}
        assert texts == {f"written by process {p.pid}" for p in procs}
    finally:
        for proc in procs:
            proc.stdin.close()
        for proc in procs:
            proc.wait(timeout=60)


def test_a_home_and_what_it_holds_are_private_also_an_older_one(tmp_path, embedder):
    home = tmp_path / "home"
    (home / "log").mkdir(parents=True)
    os.chmod(home, 0o755)
    (home / "log" / "old.log").write_text("a line of memory text")
    os.chmod(home / "log" / "old.log", 0o644)
    with LiquidGraph(GraphSettings(home=home, neo4j_uri=None), embedder=embedder) as g:
        g.add_episodes("private", ["nobody else reads this"])
        assert home.stat().st_mode & 0o777 == 0o700
        assert (home / "log").stat().st_mode & 0o777 == 0o700
        assert (home / "log" / "old.log").stat().st_mode & 0o777 == 0o600


def test_a_batch_larger_than_a_bolt_message_is_stored_whole(graph, ns):
    """300 turns of 30,000 characters (with their index terms, ~18 MB: over the 16 MiB a
    Bolt message may carry on ArcadeDB) in one call: one transaction, sent in parts."""
    turns = [
        {"text": " ".join(f"w{i}x{j}" for j in range(4300))[:30_000], "session_id": "big"}
        for i in range(300)
    ]
    ids = graph.add_episodes(ns, turns)
    assert len(ids) == 300 and graph.stats(ns)["nodes"]["Episode"] == 300
    assert graph.get(ns, ids[-1]).text == turns[-1]["text"]
