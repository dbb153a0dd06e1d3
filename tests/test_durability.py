"""The embedded store survives restarts and crashes; one engine process per home, shared by
every MAGS process: a client's death or SIGTERM leaves it serving the others, its own death
is survived by the clients (the next call starts it again), and it stops cleanly."""

from __future__ import annotations

import collections
import json
import logging
import os
import random
import signal
from pathlib import Path

import pytest

from graph_db import GraphSettings, HomeLockedError, LiquidGraph, SettingsError
from graph_db.backends.engine import running, status, stop_engine
from tests.helpers.workers import start_worker, wait_for


def _engine_pid(home: Path) -> int:
    found = running(home)
    assert found is not None, "the engine should be running"
    return found.pid


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
    assert stop_engine(home)  # a real restart of the engine, not only of the client
    assert running(home) is None and not (home / "endpoint.json").exists()
    with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
        assert g.get("u", ids[0]).text == "remember me across restarts"
        assert g.stats("u")["nodes"]["Fact"] == 1
        assert g.search("u", "restarts", k=1)[0].memory.id == ids[0]


def test_opening_a_home_just_after_its_engine_was_killed_starts_a_new_one(tmp_path, embedder):
    """The killed JVM keeps its port open for a moment and resets the handshake (the CI
    failure of stop 25): the client waits it out and starts the successor."""
    home = tmp_path / "home"
    with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
        g.add_episodes("u", ["written before the kill"])
        killed = _engine_pid(home)
    os.kill(killed, signal.SIGKILL)
    with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
        assert [m.text for m in g.list("u")] == ["written before the kill"]
        assert _engine_pid(home) != killed
    assert stop_engine(home)


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
        os.kill(_engine_pid(home), signal.SIGKILL)  # the engine dies mid-write too
    finally:
        proc.kill()
        proc.wait()
    sizes = _batch_sizes(home, embedder)  # a new engine, recovering the store
    assert sizes, "committed batches were lost"
    assert all(n == size for n in sizes.values()), f"a half-written batch survived: {sizes}"
    assert {"batch-0", "batch-1"} <= set(sizes)


@pytest.mark.slow
def test_sigterm_ends_a_client_at_once_and_the_engine_stops_cleanly(tmp_path, embedder):
    home = tmp_path / "home"
    proc = start_worker("write-batches", home, "1000", "20")
    wait_for(proc, "committed 0")
    engine = _engine_pid(home)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM  # no JVM in the client: nothing to wait for
    assert running(home) is not None and _engine_pid(home) == engine  # it serves on
    assert stop_engine(home)
    assert not (home / "endpoint.json").exists(), "the engine did not stop cleanly"
    assert "stopped" in (home / "log" / "engine.log").read_text()
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


def test_an_engine_stopped_from_another_process_is_not_waited_on_as_a_zombie(tmp_path, caplog):
    """The process that started the engine reaps it when it stops, so a stop asked from
    any other process (``mags engine stop``) sees it gone at once: it does not wait out the
    stop's time on a zombie and then kill it."""
    home = tmp_path / "home"
    proc = start_worker("hold", home)  # starts the engine: its parent
    try:
        wait_for(proc, "ready")
        with caplog.at_level(logging.WARNING, logger="graph_db.backends.engine"):
            assert stop_engine(home, wait_s=30)
        assert "did not stop" not in caplog.text
        assert "stopped" in (home / "log" / "engine.log").read_text()
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


@pytest.mark.slow
def test_a_second_process_outlives_the_first_and_the_engine(tmp_path, embedder):
    home = tmp_path / "home"
    proc = start_worker("hold", home)
    try:
        wait_for(proc, "ready")
        with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
            assert [m.text for m in g.list("shared")] == ["written by the owner process"]
            info = status(home)
            assert info is not None and sorted(info["clients"]) == sorted([proc.pid, os.getpid()])
            proc.kill()  # the process that started the engine dies: the engine serves on
            proc.wait()
            g.add_episodes("shared", ["written by the second process"])
            assert g.stats("shared")["nodes"]["Episode"] == 2
            os.kill(_engine_pid(home), signal.SIGKILL)  # the engine dies: the next call starts it
            g.add_episodes("shared", ["written after the engine was lost"])
            assert g.stats("shared")["nodes"]["Episode"] == 3
            assert status(home)["clients"] == [os.getpid()]  # the dead client's lease is gone
    finally:
        proc.kill()
        proc.wait()
        stop_engine(home)
    assert os.path.exists(home / "secrets" / "arcadedb-root")
    assert (home / "secrets" / "arcadedb-root").stat().st_mode & 0o077 == 0


def test_the_embedded_engine_listens_on_loopback_only_with_mcp_off(home, embedder):
    import ipaddress
    import json

    import psutil

    graph = LiquidGraph(GraphSettings(home=home, neo4j_uri=None), embedder=embedder)
    engine = psutil.Process(_engine_pid(Path(graph.settings.home)))
    listening = [c for c in engine.net_connections(kind="inet") if c.status == "LISTEN"]
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


def _ask_engine(home: Path, path: str, sql: str | None = None) -> dict:
    """The running embedded engine's answer over its HTTP API: GET ``path``, or POST the
    SQL command ``sql`` to it."""
    endpoint = running(home)
    assert endpoint is not None
    status, text = endpoint.request(path, sql)
    assert status == 200, text
    return json.loads(text)


def _multi_page(home: Path, types: tuple[str, ...]) -> dict[str, int]:
    """How many records of each type the running engine holds over more than one page."""
    checked = {t: _ask_engine(home, "/api/v1/command/mags", f"CHECK DATABASE TYPE {t}")
               for t in types}  # fmt: skip
    return {t: r["result"][0]["totalMultiPageRecords"] for t, r in checked.items()}


def test_the_embedded_engine_keeps_its_share_of_the_heap_for_pages(tmp_path, embedder):
    """``arcadedb_page_cache``: ArcadeDB's page cache is that share of the engine's heap (its
    own default is a quarter), read back from the running server."""
    home = tmp_path / "home"
    settings = GraphSettings(home=home, neo4j_uri=None, arcadedb_heap="1g", arcadedb_page_cache=0.5)
    with LiquidGraph(settings, embedder=embedder):
        server = _ask_engine(home, "/api/v1/server?mode=default")
    assert stop_engine(home)
    assert server["metrics"]["profiler"]["cacheMax"]["space"] == 512 * 2**20


def test_memories_and_their_liquid_edges_are_stored_whole(tmp_path, embedder):
    """The write path gives ArcadeDB each memory and liquid edge with its properties, and
    later writes (links in the same transaction, a recall's trace) keep their size: a record
    made empty and grown is split over pages, and every read and update of it then loads
    two or more (at 1M memories, each growth also made the engine scan for free space). The
    structural edges, made by MERGE and then SET, are small enough to stay whole too."""
    home = tmp_path / "home"
    settings = GraphSettings(home=home, neo4j_uri=None)
    turns = [f"turn {i}: I walked the dog to the {place} park" for i, place in
             enumerate(["north", "south", "river", "harbour", "castle", "old"] * 5)]  # fmt: skip
    with LiquidGraph(settings, embedder=embedder) as g:
        first = g.add_episodes("u", [{"text": t, "entities": ["Anna"]} for t in turns[:15]])
        g.add_episodes("u", turns[15:])  # linked to the stored ones
        g.add_facts(
            "u",
            [
                {"subject": "I", "predicate": "walk", "object": "the dog"},
                {"subject": "the dog", "predicate": "likes", "object": "the river park"},
                {"subject": "Anna", "predicate": "lives_in", "object": "Berlin",
                 "source_episode_id": first[0]},
            ],
        )  # fmt: skip
        g.add_facts("u", [{"subject": "Anna", "predicate": "lives_in", "object": "Leeds"}])
        edges = g.stats("u")["edges"]
        kinds = ("ASSOC", "NEXT", "MENTIONS", "ABOUT", "DERIVED_FROM", "SUPERSEDES")
        assert all(edges[kind]["count"] > 0 for kind in kinds), edges
        written = _multi_page(home, ("Episode", "Fact", "Entity", *kinds))
        for query in ("dog park", "river", "castle walk"):
            g.recall("u", query)
        g.flush()  # the traces: access counts and times, co-firing of linked memories
        traced = _multi_page(home, ("Episode", "Fact", "ASSOC"))
        # triadic closure: a and c share b1 and b2, so maintenance makes a-c and b1-b2
        a, c, b1, b2 = g.add_episodes("t", ["alpha", "gamma", "beta one", "beta two"])
        with g.backend.driver.session(database=g.backend.database) as s:
            s.run("MATCH (:Episode {ns: 't'})-[x:ASSOC]-() DELETE x").consume()
        edge = {"w_at": 0.0, "fired_at": 0.0, "fired_count": 0, "permanent": True}
        triad = [(a, b1, 0.8), (b1, c, 0.5), (a, b2, 0.6), (b2, c, 0.5)]
        rows = [{"a": x, "b": y, "props": {**edge, "w": w}} for x, y, w in triad]
        g.backend.write("link_assoc", ns="t", rows=rows)
        assert g.maintain("t", now=1.0).births == 2
        closed = _multi_page(home, ("ASSOC",))
    assert stop_engine(home)
    for split in (written, traced, closed):
        assert split == dict.fromkeys(split, 0)


def test_the_page_cache_is_a_share_of_the_heap_however_it_is_written():
    from graph_db.backends.arcadedb_embedded import page_cache_mb

    assert [page_cache_mb(h, 0.45) for h in ("2g", "2048m", "2097152k", "2147483648")] == [921] * 4
    assert page_cache_mb("10G", 0.45) == 4608
    with pytest.raises(SettingsError, match="MAGS_ARCADEDB_HEAP"):
        GraphSettings(arcadedb_heap="2 GB")
