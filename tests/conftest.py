"""Shared fixtures: a real store per backend (embedded ArcadeDB always, Neo4j when
MAGS_NEO4J_URI is set) and the real default embedder, loaded once."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from graph_db import GraphSettings, LiquidGraph
from graph_db.embeddings import make_embedder

BACKENDS = ["arcadedb", "neo4j"]


@pytest.fixture(scope="session")
def embedder():
    return make_embedder(GraphSettings())


@pytest.fixture(scope="session")
def home(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("mags-home"))


def settings_for(backend: str, home: str, **over) -> GraphSettings:
    if backend == "neo4j":
        uri = os.environ.get("MAGS_NEO4J_URI")
        if not uri:
            pytest.skip("Neo4j contract run skipped: set MAGS_NEO4J_URI (and credentials)")
        return GraphSettings(home=home, neo4j_uri=uri, **over)
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
