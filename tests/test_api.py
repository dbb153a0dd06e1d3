"""The REST API (``mags api``, mags_langgraph/api.py) through FastAPI's TestClient, on both
engines. Facts come from the patterns (engram and reconcile "rules"): no model is started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from graph_db import LiquidGraph
from mags_langgraph.api import OPENAPI_PATH, create_app, openapi_schema
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.settings import AgentSettings

MAGS = str(Path(sys.executable).parent / "mags")
TOKEN = "s3cret-token"


@pytest.fixture
def client(graph: LiquidGraph) -> TestClient:
    loop = MemoryLoop(graph, settings=AgentSettings(engram="rules", reconcile="rules"))
    return TestClient(create_app(graph, loop))


def ok(response) -> dict:
    assert response.status_code < 300, response.text
    return response.json()


def failed(response, status: int) -> str:
    """The error's message (the request must fail with ``status``, as {"error": message})."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert isinstance(body["error"], str) and body["error"].strip()
    return body["error"]


def test_openapi_is_committed_and_current():
    committed = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    assert committed == openapi_schema(), "run: python -m mags_langgraph.api --write-openapi"
    assert "/v1/namespaces/{ns}/recall" in committed["paths"]


def test_round_trip(client: TestClient, ns: str):
    v1 = f"/v1/namespaces/{ns}"
    lisbon = ok(client.post(f"{v1}/remember", json={"text": "I live in Lisbon."}))
    [lives] = lisbon["facts"]
    assert (lives["predicate"], lives["object"], lives["action"]) == (
        "lives_in",
        "Lisbon",
        "created",
    )
    assert ns in ok(client.get("/v1/namespaces", params={"prefix": ns}))["namespaces"]

    texts = [m["text"] for m in ok(client.get(f"{v1}/memories"))["memories"]]
    assert "I live in Lisbon." in texts
    facts = ok(client.get(f"{v1}/memories", params={"block": "semantic"}))["memories"]
    assert [f["id"] for f in facts] == [lives["id"]]
    assert all(f["block"] == "semantic" and "embedding" not in f for f in facts)

    porto = ok(client.post(f"{v1}/remember", json={"text": "I moved to Porto."}))
    [moved] = porto["facts"]
    assert moved["supersedes"] == [lives["id"]]
    old = ok(client.get(f"{v1}/memories/{lives['id']}"))
    assert old["memory"]["current"] is False
    assert [(h["value"], h["current"]) for h in old["history"]] == [
        ("Lisbon", False),
        ("Porto", True),
    ]
    superseded = {(e["type"], e["direction"], e["other"]) for e in old["edges"]}
    assert ("SUPERSEDES", "in", moved["id"]) in superseded
    assert ("DERIVED_FROM", "out", lisbon["id"]) in superseded
    said = ok(client.get(f"{v1}/memories/{lisbon['id']}"))
    assert (said["memory"]["block"], said["history"]) == ("episodic", [])
    assert ("DERIVED_FROM", "in", lives["id"]) in {
        (e["type"], e["direction"], e["other"]) for e in said["edges"]
    }
    assert ok(client.get(f"{v1}/memories/{lisbon['id']}", params={"edges": 0}))["edges"] == []

    fact = ok(
        client.post(
            f"{v1}/facts",
            json={"subject": ns, "predicate": "works_at", "object": "Acme", "confidence": 0.9},
        )
    )
    assert fact["action"] == "created"
    assert ok(client.get(f"{v1}/memories/{fact['id']}"))["memory"]["object"] == "Acme"

    edited = ok(client.patch(f"{v1}/memories/{lisbon['id']}", json={"text": "I lived in Lisbon."}))
    assert edited["text"] == "I lived in Lisbon."
    assert ok(client.put(f"{v1}/memories/{fact['id']}/pin"))["permanent"] is True
    assert ok(client.delete(f"{v1}/memories/{fact['id']}/pin"))["permanent"] is False

    stats = ok(client.get(f"{v1}/stats"))
    assert stats["ns"] == ns
    assert stats["nodes"]["Episode"] == 2
    assert stats["nodes"]["Fact"] == 3

    gone = ok(client.delete(f"{v1}/memories/{lisbon['id']}"))
    assert lisbon["id"] in gone["ids"]
    message = failed(client.get(f"{v1}/memories/{lisbon['id']}"), 404)
    assert lisbon["id"] in message


def test_recall_returns_the_walk(client: TestClient, ns: str):
    v1 = f"/v1/namespaces/{ns}"
    for text in ("I live in Lisbon.", "My sister Ana lives in Lisbon too.", "I have a cat."):
        ok(client.post(f"{v1}/remember", json={"text": text}))
    hits = ok(client.post(f"{v1}/recall", json={"query": "Where do I live?", "asker": ns}))["hits"]
    assert hits
    assert "I live in Lisbon." in [h["text"] for h in hits]
    walked = [h for h in hits if h["path"]]
    assert walked, hits
    for h in walked:
        assert h["path"][-1]["target"] == h["id"]
        assert all(s["edge"] and isinstance(s["weight"], float) for s in h["path"])
    assert any(h["anchor"] for h in hits)

    found = ok(client.post(f"{v1}/search", json={"query": "cat", "k": 3}))["hits"]
    assert "I have a cat." in [h["text"] for h in found]
    assert all("path" not in h for h in found)


def test_namespaces_are_isolated(client: TestClient, ns: str):
    other = f"{ns}-other"
    secret = ok(client.post(f"/v1/namespaces/{ns}/remember", json={"text": "My PIN is 4821."}))
    ok(client.post(f"/v1/namespaces/{other}/remember", json={"text": "I like tea."}))
    b = f"/v1/namespaces/{other}"
    for response in (
        client.get(f"{b}/memories/{secret['id']}"),
        client.patch(f"{b}/memories/{secret['id']}", json={"text": "hijacked"}),
        client.put(f"{b}/memories/{secret['id']}/pin"),
        client.delete(f"{b}/memories/{secret['id']}"),
    ):
        # the secret's words, not its digits alone: a memory id is hex and may hold them
        assert "PIN is 4821" not in failed(response, 404)
    listed = ok(client.get(f"{b}/memories"))["memories"]
    assert all("4821" not in m["text"] and m["ns"] == other for m in listed)
    said = ok(client.get(f"{b}/memories", params={"block": "episodic"}))["memories"]
    assert [m["text"] for m in said] == ["I like tea."]
    hits = ok(client.post(f"{b}/search", json={"query": "PIN 4821"}))["hits"]
    assert all("4821" not in h["text"] for h in hits)
    # still there, unchanged, in its own namespace
    mine = ok(client.get(f"/v1/namespaces/{ns}/memories/{secret['id']}"))["memory"]
    assert mine["text"] == "My PIN is 4821."
    assert "PIN is 4821" not in failed(client.get(f"/v1/namespaces/{ns}-nobody/memories"), 404)


def test_bad_input_is_a_4xx_with_a_message(client: TestClient, ns: str):
    v1 = f"/v1/namespaces/{ns}"
    ok(client.post(f"{v1}/remember", json={"text": "I live in Lisbon."}))
    assert "query" in failed(client.post(f"{v1}/recall", json={"query": ""}), 422)
    assert "query" in failed(client.post(f"{v1}/search", json={"query": "   "}), 422)
    assert "k" in failed(client.post(f"{v1}/recall", json={"query": "x", "k": 0}), 422)
    assert "k" in failed(client.post(f"{v1}/search", json={"query": "x", "k": 51}), 422)
    assert "block" in failed(client.get(f"{v1}/memories", params={"block": "dreams"}), 422)
    assert "limit" in failed(client.get(f"{v1}/memories", params={"limit": 0}), 422)
    assert "limit" in failed(client.get(f"{v1}/memories", params={"limit": 5000}), 422)
    assert "text" in failed(client.post(f"{v1}/remember", json={"text": ""}), 422)
    assert "nothing to change" in failed(client.patch(f"{v1}/memories/x", json={}), 422)
    failed(client.post(f"{v1}/remember", content=b"not json"), 422)
    failed(client.post(f"{v1}/facts", json={"subject": "a", "predicate": "b"}), 422)
    assert "nope" in failed(client.get(f"{v1}/memories/nope"), 404)
    failed(client.get("/v1/nowhere"), 404)
    failed(client.post(f"{v1}/snapshots/..%2F..%2Fetc/restore"), 404)


def test_filters(graph: LiquidGraph, client: TestClient, ns: str):
    day = 86_400.0
    graph.add_episodes(
        ns,
        [
            {"text": "Ana: hello", "speaker": "ana", "ts": 10 * day},
            {"text": "Bo: hi", "speaker": "bo", "ts": 20 * day},
            {"text": "Ana: bye", "speaker": "ana", "ts": 30 * day},
        ],
    )
    v1 = f"/v1/namespaces/{ns}/memories"

    def texts(**params) -> set[str]:
        return {m["text"] for m in ok(client.get(v1, params=params))["memories"]}

    assert texts(speaker="ana") == {"Ana: hello", "Ana: bye"}
    since = datetime.fromtimestamp(15 * day, UTC).isoformat()
    until = datetime.fromtimestamp(25 * day, UTC).isoformat()
    assert texts(since=since) == {"Bo: hi", "Ana: bye"}
    assert texts(since=since, until=until) == {"Bo: hi"}
    assert texts(speaker="ana", until=until) == {"Ana: hello"}
    first, second = texts(speaker="ana", limit=1), texts(speaker="ana", limit=1, offset=1)
    assert len(first) == len(second) == 1 and first | second == {"Ana: hello", "Ana: bye"}


def test_snapshots_and_maintenance(client: TestClient, ns: str):
    v1 = f"/v1/namespaces/{ns}"
    kept = ok(client.post(f"{v1}/remember", json={"text": "I play the cello."}))
    assert ok(client.get(f"{v1}/snapshots"))["snapshots"] == []
    snap = ok(client.post(f"{v1}/snapshots"))
    assert snap["bytes"] > 0
    assert [s["name"] for s in ok(client.get(f"{v1}/snapshots"))["snapshots"]] == [snap["name"]]
    ok(client.delete(f"{v1}/memories/{kept['id']}"))
    failed(client.get(f"{v1}/memories/{kept['id']}"), 404)
    restored = ok(client.post(f"{v1}/snapshots/{snap['name']}/restore"))
    assert sum(restored["counts"].values()) > 0
    assert ok(client.get(f"{v1}/memories/{kept['id']}"))["memory"]["text"] == "I play the cello."
    failed(client.post(f"{v1}/snapshots/nope.mags.gz/restore"), 404)

    report = ok(client.post(f"{v1}/maintenance", json={"full": True}))
    assert report["ns"] == ns
    assert report["full"] is True
    assert report["visited"] > 0


def test_graph_view_knobs_and_a_maintenance_preview(client: TestClient, ns: str):
    v1 = f"/v1/namespaces/{ns}"
    for text in ("I live in Lisbon.", "I moved to Porto.", "My cat is called Tom."):
        ok(client.post(f"{v1}/remember", json={"text": text}))
    view = ok(client.get(f"{v1}/graph"))
    kinds = {n["kind"] for n in view["nodes"]}
    assert kinds == {"episode", "fact", "entity"}
    lisbon = next(n for n in view["nodes"] if n["kind"] == "fact" and n["object"] == "Lisbon")
    assert lisbon["current"] is False
    ids = {n["id"] for n in view["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in view["edges"])
    assert "SUPERSEDES" in {e["type"] for e in view["edges"]}
    assert "limit" in failed(client.get(f"{v1}/graph", params={"limit": 0}), 422)

    knobs = {k["name"]: k for k in ok(client.get(f"{v1}/settings"))["settings"]}
    assert knobs["walk_depth"]["kind"] == "int" and knobs["walk_depth"]["group"] == "recall"
    assert knobs["walk_depth"]["minimum"] == 0
    assert knobs["w_min"]["group"] == "maintenance" and knobs["w_min"]["maximum"] == 1
    assert knobs["capacity"]["nullable"] is True
    assert (
        knobs["recall_name_free"]["kind"] == "bool" and knobs["recall_name_free"]["value"] is True
    )
    assert knobs["recall_name_free_penalty"]["kind"] == "float"

    flat = ok(
        client.post(
            f"{v1}/recall", json={"query": "Where do I live?", "settings": {"walk_depth": 0}}
        )
    )
    assert flat["hits"] and all(not h["path"] for h in flat["hits"])
    named = {"query": "Where do I live?", "settings": {"recall_name_free": False}}
    assert ok(client.post(f"{v1}/recall", json=named))["hits"]
    bad = failed(
        client.post(f"{v1}/recall", json={"query": "x", "settings": {"walk_depth": -1}}), 422
    )
    assert "walk_depth" in bad
    bad = failed(client.post(f"{v1}/recall", json={"query": "x", "settings": {"home": 1}}), 422)
    assert "tunable" in bad

    before = ok(client.get(f"{v1}/memories", params={"limit": 100}))["memories"]
    preview = ok(client.post(f"{v1}/maintenance/preview", json={"full": True, "capacity": 2}))
    assert preview["report"]["capacity_dropped"] == len(before) - 2
    assert len(preview["forgotten"]) == len(before) - 2
    after = ok(client.get(f"{v1}/memories", params={"limit": 100}))["memories"]
    assert len(after) == len(before)  # a preview changes nothing
    ran = ok(client.post(f"{v1}/maintenance", json={"full": True, "capacity": 2}))
    assert ran["capacity_dropped"] == len(before) - 2
    left = {m["id"] for m in ok(client.get(f"{v1}/memories"))["memories"]}
    assert left == {m["id"] for m in before} - set(preview["forgotten"])


def test_stats_over_time_are_sampled_after_changes(client: TestClient, ns: str):
    v1 = f"/v1/namespaces/{ns}"
    ok(client.post(f"{v1}/remember", json={"text": "I live in Lisbon."}))
    ok(client.post(f"{v1}/maintenance", json={"full": True}))  # a sample at once
    samples = ok(client.get(f"{v1}/stats/history"))["samples"]
    assert len(samples) >= 2
    assert samples[-1]["nodes"]["Episode"] == 1 and samples[-1]["nodes"]["Fact"] == 1
    assert len(samples[-1]["weights"]) == 10
    assert sum(samples[-1]["weights"]) == ok(client.get(f"{v1}/stats"))["edges"]["ASSOC"]["count"]


def test_a_stats_file_keeps_only_its_newest_samples(
    graph: LiquidGraph, ns: str, tmp_path: Path, monkeypatch
):
    from mags_langgraph import stats_log

    monkeypatch.setattr(stats_log, "KEEP", 4)
    monkeypatch.setattr(stats_log, "HISTORY_MAX", 2)
    samples = stats_log.StatsLog(tmp_path)
    for n in range(1, 11):
        graph.add_episode(ns, f"note {n}")
        samples.record(graph, ns, force=True)
    lines = (tmp_path / f"ns-{ns}.jsonl").read_text().splitlines()
    assert 2 <= len(lines) <= 5  # cut back to the newest 2 whenever it grew past 4
    assert [s.nodes["Episode"] for s in samples.history(ns)][-1] == 10


def test_chat_stores_the_turn_even_when_the_model_is_down(graph: LiquidGraph, ns: str):
    dead = AgentSettings(
        engram="rules", reconcile="rules", llm_base_url="http://127.0.0.1:9/v1", llm_api_key="x"
    )
    client = TestClient(create_app(graph, MemoryLoop(graph, settings=dead)))
    v1 = f"/v1/namespaces/{ns}"
    ok(client.post(f"{v1}/remember", json={"text": "My dog is called Rex."}))
    out = ok(client.post(f"{v1}/chat", json={"message": "I live in Leeds. What is my dog called?"}))
    assert out["answer"] is None and out["error"]
    assert "Rex" in " ".join(h["text"] for h in out["recalled"])
    assert [(f["predicate"], f["object"]) for f in out["written"]] == [("lives_in", "Leeds")]
    stored = ok(client.get(f"{v1}/memories/{out['episode_id']}"))["memory"]
    assert stored["text"] == "I live in Leeds. What is my dog called?"
    assert "message" in failed(client.post(f"{v1}/chat", json={"message": ""}), 422)


def test_the_ui_is_served_without_a_token_and_its_api_still_needs_one(graph: LiquidGraph, ns: str):
    secured = TestClient(create_app(graph, token=TOKEN, ui=True))
    page = secured.get("/ui/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert secured.get("/", follow_redirects=False).headers["location"] == "/ui/"
    failed(secured.get(f"/v1/namespaces/{ns}/graph"), 401)


def test_bearer_token(graph: LiquidGraph, ns: str):
    graph.add_episode(ns, "hello", speaker="ana")
    secured = TestClient(create_app(graph, token=TOKEN))
    path = f"/v1/namespaces/{ns}/memories"
    assert "bearer" in failed(secured.get(path), 401)
    failed(secured.get(path, headers={"Authorization": "Bearer wrong"}), 401)
    failed(secured.get(path, headers={"Authorization": TOKEN}), 401)
    response = secured.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
    assert [m["text"] for m in ok(response)["memories"]] == ["hello"]
    assert secured.get(path).headers["WWW-Authenticate"] == "Bearer"
    # no token configured (loopback): no header needed
    assert [m["text"] for m in ok(TestClient(create_app(graph)).get(path))["memories"]] == ["hello"]


def test_cli_refuses_a_public_address_without_a_token(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "MAGS_API_TOKEN"}
    done = subprocess.run(
        [MAGS, "api", "--host", "0.0.0.0", "--home", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    assert "not loopback" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "snapshots").exists()


def test_mags_ui_serves_the_page_and_the_api(tmp_path: Path):
    from test_mcp import env_for, free_port

    home, port = tmp_path / "home", free_port()
    log = (tmp_path / "ui.log").open("w")
    server = subprocess.Popen(
        [MAGS, "ui", "--no-open", "--port", str(port), "--home", str(home)],
        stdout=log, stderr=subprocess.STDOUT, env=env_for(home),
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        page = _first_answer(f"{base}/ui/", server, tmp_path / "ui.log")
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert httpx.get(f"{base}/v1/namespaces").json() == {"namespaces": []}
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()
        subprocess.run([MAGS, "engine", "stop", "--home", str(home)], env=env_for(home),
                       capture_output=True, timeout=120)  # fmt: skip
    assert "Traceback" not in (tmp_path / "ui.log").read_text()


def _first_answer(url: str, server: subprocess.Popen, log: Path) -> httpx.Response:
    """The first answer of a server that is starting (it must not exit first)."""
    for _ in range(600):
        if server.poll() is not None:
            pytest.fail(f"mags ui exited ({server.returncode}): {log.read_text()}")
        try:
            return httpx.get(url)
        except httpx.TransportError:
            time.sleep(0.2)
    pytest.fail(f"mags ui never answered: {log.read_text()}")
