"""Shared fixtures: a real store per engine and the real default embedder, loaded once.

Every test that takes ``graph`` runs on both engines: the embedded ArcadeDB, and Neo4j,
either the one ``MAGS_NEO4J_URI`` names or a local Neo4j Community that this session starts
as a child JVM (graph_db/backends/local_neo4j.py) and stops at its end. Without Java 25 and
Maven the Neo4j runs skip, saying what to install; with ``MAGS_REQUIRE_NEO4J=1`` (CI) they
fail instead. A Neo4j that is there but cannot start fails them, with its reason.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator

import pytest

from graph_db import GraphSettings, LiquidGraph
from graph_db.backends.local_neo4j import LocalNeo4j, Neo4jEndpoint, Neo4jPrerequisiteError
from graph_db.embeddings import make_embedder

BACKENDS = ["arcadedb", "neo4j"]


class _Neo4jForTests:
    """The session's Neo4j, started in the background as soon as tests are collected."""

    def __init__(self) -> None:
        self.server: LocalNeo4j | None = None
        self.endpoint: Neo4jEndpoint | None = None
        self.error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def start_in_background(self) -> None:
        if self._thread is None and not os.environ.get("MAGS_NEO4J_URI"):
            self._thread = threading.Thread(target=self._start, name="neo4j-start", daemon=True)
            self._thread.start()

    def _start(self) -> None:
        try:
            self.server = LocalNeo4j(heap=os.environ.get("MAGS_TEST_NEO4J_HEAP", "1g"))
            self.endpoint = self.server.start()
        except BaseException as e:  # reported by the fixture, in the test that needs it
            self.error = e

    def get(self) -> Neo4jEndpoint:
        uri = os.environ.get("MAGS_NEO4J_URI")
        if uri:
            return Neo4jEndpoint(
                uri,
                os.environ.get("MAGS_NEO4J_USER", "neo4j"),
                os.environ.get("MAGS_NEO4J_PASSWORD", ""),
            )
        self.start_in_background()
        assert self._thread is not None
        self._thread.join()
        if isinstance(self.error, Neo4jPrerequisiteError):
            if os.environ.get("MAGS_REQUIRE_NEO4J") == "1":
                pytest.fail(f"Neo4j is required here (MAGS_REQUIRE_NEO4J=1): {self.error}")
            pytest.skip(f"Neo4j runs skipped: {self.error}")
        if self.error is not None:
            pytest.fail(f"the local Neo4j could not start: {self.error}")
        assert self.endpoint is not None
        return self.endpoint

    def stop(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self.server is not None:
            self.server.stop()


_NEO4J = _Neo4jForTests()


def _needs_neo4j(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    engine = callspec.params.get("graph") if callspec is not None else None
    return engine == "neo4j" or "neo4j" in getattr(item, "fixturenames", ())


def pytest_collection_finish(session: pytest.Session) -> None:
    # the JVM starts while the first (embedded) tests run
    if any(_needs_neo4j(item) for item in session.items):
        _NEO4J.start_in_background()


@pytest.fixture(scope="session")
def neo4j() -> Iterator[Neo4jEndpoint]:
    """A Neo4j to run on: MAGS_NEO4J_URI's, or the session's local one."""
    yield _NEO4J.get()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _NEO4J.stop()
    _stop_engines(session)


# the embedded engine is a process per home that outlives its clients for a while: the test
# homes' engines stop soon after their tests (and all of them when the session ends)
os.environ.setdefault("MAGS_ENGINE_IDLE_S", "20")


def _stop_engines(session: pytest.Session) -> None:
    """Stop the engines this session's homes started (the session's own graph included)."""
    from graph_db.backends.engine import stop_engine

    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        return
    for endpoint in factory.getbasetemp().rglob("endpoint.json"):
        stop_engine(endpoint.parent)


@pytest.fixture(scope="session")
def embedder():
    return make_embedder(GraphSettings())


@pytest.fixture(scope="session")
def home(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("mags-home"))


def settings_for(backend: str, home: str, **over) -> GraphSettings:
    if backend == "neo4j":
        ep = _NEO4J.get()
        return GraphSettings(
            home=home,
            neo4j_uri=ep.uri,
            neo4j_user=ep.user,
            neo4j_password=ep.password,
            **over,
        )
    return GraphSettings(home=home, neo4j_uri=None, **over)


@pytest.fixture(scope="session", params=BACKENDS)
def graph(request, home, embedder) -> Iterator[LiquidGraph]:
    g = LiquidGraph(settings_for(request.param, home), embedder=embedder)
    yield g
    g.close()


@pytest.fixture
def ns() -> str:
    """A fresh namespace per test: tests share one store but never each other's data."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def tally():
    """The adversarial suite's counts (tests/helpers/tally.py), printed at the end."""
    from tests.helpers.tally import TALLY

    return TALLY


def pytest_terminal_summary(terminalreporter) -> None:
    from tests.helpers.tally import TALLY

    if TALLY.rows:
        terminalreporter.section("adversarial attacks")
        for line in TALLY.table():
            terminalreporter.write_line(line)


@pytest.fixture(scope="module")
def llms(tmp_path_factory):
    """The agent's LLMs on the local llama.cpp server, as a user without an endpoint gets
    them: no hub here, so the SmolLM2-135M fallback serves (and says so), without adapters."""
    from mags_langgraph.llm import LLMs
    from mags_langgraph.settings import AgentSettings

    settings = AgentSettings(
        llm_base_url=None,
        llm_api_key=None,
        respond_max_tokens=48,
        local_adapters=tmp_path_factory.mktemp("no-adapters"),  # the base model's own behaviour
    )
    llms = LLMs(settings, models_dir=tmp_path_factory.mktemp("models"), notice=lambda _: None)
    assert llms.fallback
    return llms
