"""The MCP server (``mags mcp``) through the SDK's own clients: in process on both engines,
and as real ``mags mcp`` processes over stdio and streamable HTTP. Facts come from the
patterns (MAGS_ENGRAM=rules, MAGS_RECONCILE=rules): no model is needed or started."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from contextlib import AsyncExitStack, asynccontextmanager, closing
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from graph_db import GraphSettings
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.mcp_server import MAX_K, STATS_URI, build_mcp_server
from mags_langgraph.settings import AgentSettings

MAGS = str(Path(sys.executable).parent / "mags")
NO_MODEL = {"MAGS_ENGRAM": "rules", "MAGS_RECONCILE": "rules"}
MAX_CHARS = GraphSettings.model_fields["max_text_chars"].default  # a child process's limit


async def call(session: Any, tool: str, **arguments: Any) -> dict:
    """A tool's structured output; a tool error fails the test with its message."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def error(session: Any, tool: str, **arguments: Any) -> str:
    """A tool error's message (the call must fail)."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    [content] = result.content
    return content.text


async def texts(session: Any, query: str, k: int = 10) -> list[str]:
    return [m["text"] for m in (await call(session, "recall", query=query, k=k))["memories"]]


async def stats(session: Any) -> dict:
    [contents] = (await session.read_resource(STATS_URI)).contents
    assert contents.mime_type == "application/json"
    return json.loads(contents.text)


async def scenario(a: Any, b: Any, user_a: str, user_b: str, max_chars: int) -> None:
    """What every transport must do: ``a`` serves ``user_a``'s memory, ``b`` ``user_b``'s."""
    tools = {t.name for t in (await a.list_tools()).tools}
    assert tools == {"recall", "search", "remember", "forget", "history"}
    assert (await stats(a))["nodes"] == {"Episode": 0, "Fact": 0, "Entity": 0}  # a new user
    assert await texts(a, "Where do I live?") == []  # nothing yet: no error either

    # remember -> recall -> forget -> recall
    cat = await call(a, "remember", text="My cat is called Miso.")
    assert "My cat is called Miso." in await texts(a, "What is my cat called?")
    gone = await call(a, "forget", memory_id=cat["id"])
    assert cat["id"] in gone["ids"]
    assert all("Miso" not in t for t in await texts(a, "What is my cat called?"))

    # a move: the single-valued fact is superseded, its history kept
    lisbon = await call(a, "remember", text="I live in Lisbon.")
    assert [(f["predicate"], f["object"], f["action"]) for f in lisbon["facts"]] == [
        ("lives_in", "Lisbon", "created")
    ]
    porto = await call(a, "remember", text="I moved to Porto.")
    [moved] = porto["facts"]
    assert (moved["object"], moved["supersedes"]) == ("Porto", [lisbon["facts"][0]["id"]])
    history = await call(a, "history", predicate="lives_in")
    assert history["subject"] == user_a
    assert [(v["value"], v["current"]) for v in history["values"]] == [
        ("Lisbon", False),
        ("Porto", True),
    ]
    assert history["values"][0]["until"] is not None and history["values"][1]["until"] is None
    now = await call(a, "recall", query="Where do I live now?", k=5)
    facts = [m for m in now["memories"] if m["block"] == "semantic"]
    assert [m["text"] for m in facts if "Porto" in m["text"]]  # the current fact ...
    assert all(m["current"] for m in facts)  # ... and no superseded one: recall hides those
    searched = await call(a, "search", query="lives in Lisbon", k=10, blocks="semantic")
    old = [m for m in searched["memories"] if "Lisbon" in m["text"]]
    assert [m["current"] for m in old] == [False]  # search shows it, marked superseded
    assert searched["memories"][0]["time"].endswith("+00:00")  # ISO 8601, UTC
    counts = (await stats(a))["nodes"]
    assert (counts["Episode"], counts["Fact"]) == (2, 2)  # the cat's turn and fact are gone

    # isolation: b serves another user's memory and reaches nothing of a's
    await call(b, "remember", text="I live in Oslo.")
    seen_by_a = await texts(a, "Where do I live?")
    assert any("Porto" in t for t in seen_by_a) and all("Oslo" not in t for t in seen_by_a)
    seen_by_b = await texts(b, "Where do I live? Lisbon or Porto?")
    assert any("Oslo" in t for t in seen_by_b)
    assert not any("Lisbon" in t or "Porto" in t for t in seen_by_b)
    assert "no memory" in await error(b, "forget", memory_id=porto["id"])
    assert [v["value"] for v in (await call(b, "history", predicate="lives_in"))["values"]] == [
        "Oslo"
    ]
    assert (await stats(b))["ns"] == user_b and (await stats(b))["nodes"]["Episode"] == 1

    # bad input: a tool error that names the fix, and nothing written
    before = await stats(a)
    assert "query is empty: say what to look for" in await error(a, "recall", query="  ")
    assert "query is empty" in await error(a, "search", query="")
    assert "predicate is empty: name one" in await error(a, "history", predicate=" ")
    assert f"k must be from 1 to {MAX_K}" in await error(a, "recall", query="home", k=500)
    assert "k must be from 1 to" in await error(a, "search", query="home", k=0)
    says = await error(a, "search", query="home", blocks="dreams")
    assert "blocks must be 'episodic', 'semantic' or 'both', not 'dreams'" in says
    says = await error(a, "forget", memory_id="no-such-id")
    assert "no memory 'no-such-id'" in says and "recall or search shows the ids" in says
    assert "text is empty" in await error(a, "remember", text=" \n ")
    says = await error(a, "remember", text="I live in Rome. " * (max_chars // 16 + 1))
    assert "MAGS_MAX_TEXT_CHARS" in says and "Split it" in says
    assert await stats(a) == before  # nothing half-written
    assert history["values"] == (await call(a, "history", predicate="lives_in"))["values"]


# -- in process: the SDK's in-memory client, each engine --------------------------------
def test_the_tools_and_the_stats_resource_in_process(graph, ns):
    loop = MemoryLoop(graph, settings=AgentSettings(engram="rules", reconcile="rules"))
    other = f"{ns}-b"

    async def run() -> None:
        async with (
            Client(build_mcp_server(loop, ns)) as a,
            Client(build_mcp_server(loop, other)) as b,
        ):
            await scenario(a, b, ns, other, graph.settings.max_text_chars)

    asyncio.run(run())


def test_a_bad_user_is_refused_when_the_server_is_built(graph):
    from graph_db import InvalidInputError

    with pytest.raises(InvalidInputError, match="may not contain '/'"):
        build_mcp_server(MemoryLoop(graph), "alice/x")


# -- real processes ---------------------------------------------------------------------
def env_for(home: Path) -> dict[str, str]:
    return {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "MAGS_HOME": str(home),
        "MAGS_ENGINE_IDLE_S": os.environ["MAGS_ENGINE_IDLE_S"],  # set by conftest
        **NO_MODEL,
    }


@pytest.fixture
def own_home(tmp_path) -> Any:
    """A MAGS home whose embedded engine is stopped after the test."""
    yield tmp_path / "home"
    subprocess.run(
        [MAGS, "engine", "stop", "--home", str(tmp_path / "home")],
        capture_output=True,
        timeout=120,
        env=env_for(tmp_path / "home"),
    )


def test_mags_mcp_over_stdio(own_home, tmp_path):
    log = (tmp_path / "servers.log").open("w")  # the servers' stderr

    @asynccontextmanager
    async def server(user: str):
        params = StdioServerParameters(
            command=MAGS, args=["mcp", "--user", user], env=env_for(own_home), cwd=str(tmp_path)
        )
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session

    async def run() -> None:
        async with server("ana") as a, server("bo") as b:
            await scenario(a, b, "ana", "bo", MAX_CHARS)

    try:
        asyncio.run(run())
    finally:
        log.close()
    assert "Traceback" not in (tmp_path / "servers.log").read_text()


def free_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, deadline_s: float = 300) -> None:
    """Until the server listens (it opens the store first); fails if it exits."""
    until = time.monotonic() + deadline_s
    while time.monotonic() < until:
        assert proc.poll() is None, log.read_text()
        with closing(socket.socket()) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    pytest.fail(f"mags mcp did not listen on {port}: {log.read_text()}")


def test_mags_mcp_over_streamable_http(own_home, tmp_path):
    servers: list[tuple[subprocess.Popen, int]] = []
    log = tmp_path / "servers.log"
    try:
        with log.open("w") as out:
            for user in ("ana", "bo"):
                port = free_port()
                args = ["mcp", "--user", user, "--transport", "http", "--port", str(port)]
                proc = subprocess.Popen(
                    [MAGS, *args], stdout=out, stderr=subprocess.STDOUT, env=env_for(own_home),
                    cwd=tmp_path,
                )  # fmt: skip
                servers.append((proc, port))
                wait_for_port(port, proc, log)

        async def run() -> None:
            async with AsyncExitStack() as stack:
                sessions = []
                for _, port in servers:
                    url = f"http://127.0.0.1:{port}/mcp"
                    read, write = await stack.enter_async_context(streamable_http_client(url))
                    session = await stack.enter_async_context(ClientSession(read, write))
                    await session.initialize()
                    sessions.append(session)
                await scenario(*sessions, "ana", "bo", MAX_CHARS)

        asyncio.run(run())
    finally:
        for proc, _ in servers:
            proc.terminate()  # SIGTERM: uvicorn shuts down, then the store is closed
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert [proc.returncode for proc, _ in servers] == [0, 0], log.read_text()
    assert "Traceback" not in log.read_text()


@pytest.mark.parametrize(
    "args, env, says",
    [
        (["--user", "alice/x"], {}, "a user id may not contain '/'"),
        ([], {"MAGS_MCP_USER": "bob/y"}, "a user id may not contain '/'"),  # the env form
        (["--user", "maya", "--transport", "pigeon"], {}, "--transport must be stdio or http"),
    ],
)
def test_mags_mcp_refuses_a_bad_start_in_one_line(tmp_path, args, env, says):
    out = subprocess.run(
        [MAGS, "mcp", *args, "--home", str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env_for(tmp_path / "home"), "COLUMNS": "200", **env},
    )
    assert out.returncode == 2
    assert out.stdout.startswith("error: ") and says in out.stdout
    assert len(out.stdout.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "home").exists()  # refused before the store opened
