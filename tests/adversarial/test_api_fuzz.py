"""A property-based run of Schemathesis against the REST API's OpenAPI schema (the one
committed at docs/openapi.json: test_api checks the app serves the same): every operation,
with requests drawn from the schema, answers without a server error, with a status code,
content type and body that the schema documents. Small form: a few derandomised examples per
operation on the embedded store; MAGS_ADVERSARIAL=full draws many more, at random."""

from __future__ import annotations

import json
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from graph_db import GraphSettings, LiquidGraph
from mags_langgraph.api import OPENAPI_PATH, create_app
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.settings import AgentSettings

pytestmark = pytest.mark.adversarial
FULL = os.environ.get("MAGS_ADVERSARIAL") == "full"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
OPERATIONS = [
    f"{method.upper()} {path}"
    for path, methods in json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))["paths"].items()
    for method in methods
]


@pytest.fixture(scope="module")
def operations(home, embedder):
    """The API's operations as Schemathesis reads them, over the embedded store (the API's
    code is the same on both engines: test_api runs both)."""
    # facts by the patterns; the chat's model is down (nothing listens on port 9): a failed
    # answer is part of the contract, and no model is started
    agent = AgentSettings(
        engram="rules", reconcile="rules", llm_base_url="http://127.0.0.1:9/v1", llm_api_key="x"
    )
    with LiquidGraph(GraphSettings(home=home, neo4j_uri=None), embedder=embedder) as graph:
        app = create_app(graph, MemoryLoop(graph, settings=agent))
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        yield {op.label: op for op in (r.ok() for r in schema.get_all_operations())}


@pytest.mark.parametrize("label", OPERATIONS)
def test_every_operation_keeps_to_the_schema(operations, label):
    operation = operations[label]

    @given(case=operation.as_strategy())
    @settings(
        max_examples=100 if FULL else 8,
        derandomize=not FULL,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case):
        case.call_and_validate(checks=CHECKS)

    run()
