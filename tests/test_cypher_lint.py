"""Every statement MAGS sends to Neo4j passes Neo4j's own Cypher linter.

The linter is the npm package @neo4j-cypher/language-support (lintCypherQuery);
the test installs it under tests/.npm when it is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from graph_db import cypher

HERE = Path(__file__).parent
NPM_DIR = HERE / ".npm"
PACKAGE = "@neo4j-cypher/language-support@2.0.0-next.38"


@pytest.fixture(scope="module")
def linter() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are needed for the Cypher lint test (apt-get install nodejs npm)")
    if not (NPM_DIR / "node_modules" / "@neo4j-cypher" / "language-support").exists():
        NPM_DIR.mkdir(exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(NPM_DIR), "--no-audit", "--no-fund", PACKAGE],
            check=True,
            capture_output=True,
            timeout=600,
        )
    script = NPM_DIR / "cypher_lint.mjs"  # resolved against tests/.npm/node_modules
    shutil.copyfile(HERE / "cypher_lint.mjs", script)
    return script


def _lint(script: Path, queries: dict[str, str]) -> dict[str, list]:
    out = subprocess.run(
        ["node", str(script)],
        input=json.dumps(queries),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout)


def _neo4j_statements() -> dict[str, str]:
    queries = {name: cypher.query(name, "neo4j") for name in cypher.names()}
    for i, stmt in enumerate(cypher.statements("schema.neo4j.cypher", 384)):
        queries[f"schema.neo4j.cypher#{i}"] = stmt
    return queries


def test_every_neo4j_statement_passes_the_linter(linter):
    queries = _neo4j_statements()
    assert len(queries) > 40
    results = _lint(linter, queries)
    errors = {name: [m for sev, m in diags if sev == 1] for name, diags in results.items()}
    errors = {name: msgs for name, msgs in errors.items() if msgs}
    assert not errors, json.dumps(errors, indent=1)


def test_the_linter_catches_a_broken_statement(linter):
    results = _lint(
        linter,
        {
            "typo": "MATCH (n:Episode {ns: $ns}) RETRN n",
            "proc": "CALL db.index.vector.queryNode($i, 3, $v) YIELD node RETURN node",
        },
    )
    assert results["typo"] and results["proc"]


def _code(name: str, dialect: str = "neo4j") -> str:
    return re.sub(r"//[^\n]*", "", cypher.query(name, dialect))


def test_queries_take_user_data_only_as_parameters():
    """No query file has a placeholder that code could format user data into."""
    for name in cypher.names():
        text = re.sub(r"\{[^{}]*:[^{}]*\}", "", _code(name))
        assert not re.search(r"\{\w*\}|%s|__\w+__", text), name


# queries that return counts over the whole store and no memory content
GLOBAL = {"label_totals", "namespace_list", "meta_get", "meta_put"}
# the one-time store-wide migration when a store of an older schema is opened
GLOBAL |= {"vecs_missing", "vecs_set"}


def test_every_memory_pattern_is_filtered_by_namespace():
    """Each (x:Episode|Fact|Entity|Namespace ...) pattern carries ns: $ns or is checked
    with x.ns = $ns (lookups by id), and index searches keep only node.ns = $ns."""
    for name in sorted(set(cypher.names()) - GLOBAL):
        code = _code(name)
        for m in re.finditer(r"\((\w*):(Episode|Fact|Entity|Namespace)\b([^)]*)\)", code):
            var, props = m.group(1), m.group(3)
            filtered = "ns: $ns" in props or (var and f"{var}.ns = $ns" in code)
            assert filtered, f"{name}: {m.group(0)} is not filtered by ns"
        if "queryNodes" in code:  # ids leave the engine only for hits of this namespace
            assert "WHERE node.ns = $ns" in code or "WHEN node.ns = $ns THEN node.id" in code, name
