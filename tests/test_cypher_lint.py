"""Every statement MAGS sends to Neo4j passes Neo4j's own Cypher linter, and Neo4j itself.

The linter is the npm package @neo4j-cypher/language-support (lintCypherQuery);
the test installs it under tests/.npm when it is missing. It checks every statement against the
running Neo4j's own procedures and functions (GDS included; a run against the linter's static
table alone would only repeat it), and shows it catches a broken statement and a wrong call.
The running Neo4j (the ``neo4j`` fixture) then plans every statement (``EXPLAIN``): no error
and no deprecation.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from neo4j import GraphDatabase, NotificationClassification
from neo4j.exceptions import ConfigurationError

from graph_db import GraphSettings, LiquidGraph, cypher
from graph_db.backends import NEO4J, bolt
from graph_db.backends.dialects import SCHEMA_PARTS

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


def _lint(script: Path, queries: dict[str, str], schema: dict | None = None) -> dict[str, list]:
    """Diagnostics per statement: against the script's static procedure table, or ``schema``."""
    stdin = {"queries": queries, "schema": schema} if schema is not None else queries
    out = subprocess.run(
        ["node", str(script)],
        input=json.dumps(stdin, default=str),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout)


def _neo4j_statements() -> dict[str, str]:
    queries = {name: cypher.query(name, "neo4j") for name in cypher.names()}
    for part in ("", *SCHEMA_PARTS):
        name = NEO4J.schema_file(part)
        for i, stmt in enumerate(cypher.statements(name, 384)):
            queries[f"{name}#{i}"] = stmt
    return queries


def test_the_linter_catches_a_broken_statement(linter):
    results = _lint(
        linter,
        {
            "typo": "MATCH (n:Episode {ns: $ns}) RETRN n",
            "proc": "CALL db.index.vector.queryNode($i, 3, $v) YIELD node RETURN node",
        },
    )
    assert results["typo"] and results["proc"]


# -- against the running Neo4j -------------------------------------------------------------
@pytest.fixture(scope="module")
def neo4j_driver(neo4j):
    """A plain driver on the session's Neo4j: no notification filter, it hears everything."""
    driver = GraphDatabase.driver(neo4j.uri, auth=(neo4j.user, neo4j.password))
    yield driver
    driver.close()


def _database() -> str | None:
    return os.environ.get("MAGS_NEO4J_DATABASE") or None


def _server_schema(driver) -> dict:
    """The server's procedures and functions per Cypher version it speaks (Neo4j 5 has no
    CYPHER 25), as the linter's DbSchema wants them (SHOW ... YIELD * has its fields: name,
    signature, argumentDescription, returnDescription, mode, ...)."""
    schema: dict = {"procedures": {}, "functions": {}}
    with driver.session(database=_database()) as session:
        versions = session.run(
            "CALL dbms.components() YIELD name, versions WHERE name = 'Cypher' RETURN versions"
        ).single()
        languages = [f"CYPHER {v}" for v in versions[0]] if versions else ["CYPHER 5"]
        for lang in languages:
            for kind in ("procedures", "functions"):
                rows = session.run(f"{lang} SHOW {kind.upper()} YIELD *").data()
                schema[kind][lang] = {r["name"]: r for r in rows}
        default = session.run(
            "SHOW DATABASES YIELD name, home, defaultLanguage "
            "WHERE name = $db OR ($db IS NULL AND home) RETURN defaultLanguage",
            db=_database(),
        ).single()
    if default is not None and default[0] in languages:
        schema["defaultLanguage"] = default[0]
    return schema


@pytest.fixture(scope="module")
def server_schema(neo4j_driver) -> dict:
    return _server_schema(neo4j_driver)


def test_every_neo4j_statement_passes_the_linter_with_the_servers_procedures(linter, server_schema):
    procedures = server_schema["procedures"]["CYPHER 5"]
    assert {"db.index.vector.queryNodes", "db.index.fulltext.queryNodes"} <= set(procedures)
    results = _lint(linter, _neo4j_statements(), server_schema)
    errors = {name: [m for sev, m in diags if sev == 1] for name, diags in results.items()}
    errors = {name: msgs for name, msgs in errors.items() if msgs}
    assert not errors, json.dumps(errors, indent=1)
    deprecated = {
        name: [m for _sev, m in diags if "deprecated" in m.lower()]
        for name, diags in results.items()
    }
    deprecated = {name: msgs for name, msgs in deprecated.items() if msgs}
    assert not deprecated, json.dumps(deprecated, indent=1)


def test_the_servers_table_catches_wrong_calls(linter, server_schema):
    broken = {
        "args": "CALL db.index.fulltext.queryNodes('episode_terms') YIELD node RETURN node",
        "name": "CALL db.index.vector.queryNode('i', 3, $v) YIELD node RETURN node",
        "function": "RETURN vector.similarity.cosin([1.0], [1.0]) AS s",
    }
    if "gds.kcore.stream" in server_schema["procedures"]["CYPHER 5"]:  # the local Neo4j has GDS
        broken["gds"] = "CALL gds.kcore.stream() YIELD nodeId, coreValue RETURN nodeId"
    results = _lint(linter, broken, server_schema)
    missed = [name for name in broken if not any(sev == 1 for sev, _ in results[name])]
    assert not missed, json.dumps(results, indent=1)


def _notes(summary) -> list[str]:
    return [
        f"{g.gql_status} line {g.position.line if g.position else '?'}: {g.status_description}"
        for g in summary.gql_status_objects
        if g.is_notification and g.classification == NotificationClassification.DEPRECATION
    ]


def test_neo4j_plans_every_statement_without_errors_or_deprecations(neo4j_driver):
    """EXPLAIN plans a statement without running it; each $parameter is bound to null (enough
    to plan every query of the library). Schema statements are planned after they run."""
    failed: dict[str, str] = {}
    deprecated: dict[str, list[str]] = {}
    with neo4j_driver.session(database=_database()) as session:
        statements = _neo4j_statements()
        for name, text in statements.items():
            params = dict.fromkeys(re.findall(r"\$([A-Za-z_]\w*)", text))
            try:
                summary = session.run("EXPLAIN " + text, params).consume()
            except Exception as e:  # every failure is listed, not only the first
                failed[name] = f"{type(e).__name__}: {e}"
                continue
            if notes := _notes(summary):
                deprecated[name] = notes
    assert len(statements) > 40
    assert not failed, json.dumps(failed, indent=1)
    assert not deprecated, json.dumps(deprecated, indent=1)


def test_a_facts_key_has_an_index_of_all_three_properties(neo4j_driver):
    """The write path asks for the current value of each new fact's subject and predicate (a
    subject such as the user holds thousands of facts): the schema holds an index of all
    three (ns, subject_key, predicate), and drops the two-property one of older stores."""
    with neo4j_driver.session(database=_database()) as session:
        old = "CREATE INDEX fact_ns_subject IF NOT EXISTS FOR (n:Fact) ON (n.ns, n.subject_key)"
        session.run(old).consume()
        for stmt in cypher.statements("schema.neo4j.cypher", 384):
            session.run(stmt).consume()
        rows = session.run(
            "SHOW INDEXES YIELD name, properties, labelsOrTypes WHERE 'Fact' IN labelsOrTypes"
        )
        indexes = {r["name"]: r["properties"] for r in rows}
    assert indexes["fact_ns_subject_predicate"] == ["ns", "subject_key", "predicate"]
    assert "fact_ns_subject" not in indexes


def _notification_records(caplog, level: int) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "neo4j.notifications" and r.levelno >= level
    ]


def test_the_driver_is_quiet_about_missing_properties_not_deprecations(neo4j, caplog):
    """connect() asks the server not to send UNRECOGNIZED notifications (a property or type not
    written yet); a deprecation still reaches the log as a warning."""
    missing = "MATCH (n:Episode) WHERE n.no_such_property_anywhere = $v RETURN count(n) AS c"
    auth = (neo4j.user, neo4j.password)
    plain = GraphDatabase.driver(neo4j.uri, auth=auth)
    try:
        with caplog.at_level(logging.INFO, logger="neo4j.notifications"):
            records, _, _ = plain.execute_query(missing, v=1, database_=_database())
        assert records[0]["c"] == 0
        heard = _notification_records(caplog, logging.WARNING)
        assert any("no_such_property_anywhere" in m for m in heard), heard  # the control
    finally:
        plain.close()
    caplog.clear()
    driver = bolt.connect(neo4j.uri, auth, 10.0, 5.0, "Neo4j")
    try:
        with caplog.at_level(logging.INFO, logger="neo4j.notifications"):
            records, _, _ = driver.execute_query(missing, v=1, database_=_database())
            assert records[0]["c"] == 0
            assert _notification_records(caplog, logging.WARNING) == []
            records, _, _ = driver.execute_query(
                "CALL { RETURN 1 AS x } RETURN x", database_=_database()
            )
        assert records[0]["x"] == 1
        heard = _notification_records(caplog, logging.WARNING)
        assert any("deprecated" in m for m in heard), heard
    finally:
        driver.close()


def test_connect_drops_the_filter_for_servers_that_cannot_filter(monkeypatch):
    """Bolt < 5.2 (Neo4j < 5.7) refuses a notification filter at HELLO: connect retries
    without it rather than failing."""
    made: list[dict] = []

    class FakeDriver:
        def __init__(self, config: dict) -> None:
            self.config, self.closed = config, False

        def verify_connectivity(self) -> None:
            if "notifications_disabled_classifications" in self.config:
                raise ConfigurationError("Notification filtering is not supported")

        def close(self) -> None:
            self.closed = True

    def driver(uri, **config):
        made.append(config)
        return FakeDriver(config)

    monkeypatch.setattr(bolt.GraphDatabase, "driver", driver)
    got = bolt.connect("bolt://old:7687", None, 1.0, 1.0, "Neo4j")
    assert len(made) == 2 and "notifications_disabled_classifications" in made[0]
    assert got.config == made[1] and not got.closed


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
GLOBAL |= {"vecs_missing", "vecs_set", "legacy_cardinality", "meta_delete"}


def test_every_memory_pattern_is_filtered_by_namespace():
    """Each (x:Episode|Fact|Entity|Namespace ...) pattern carries ns: $ns or is checked
    with x.ns = $ns (lookups by id), and index searches keep only node.ns = $ns."""
    for name in sorted(set(cypher.names()) - GLOBAL):
        code = _code(name)
        for m in re.finditer(r"\((\w*):(Episode|Fact|Entity|Namespace|Predicate)\b([^)]*)\)", code):
            var, props = m.group(1), m.group(3)
            filtered = "ns: $ns" in props or (var and f"{var}.ns = $ns" in code)
            assert filtered, f"{name}: {m.group(0)} is not filtered by ns"
        if "queryNodes" in code:  # ids leave the engine only for hits of this namespace
            assert "WHERE node.ns = $ns" in code or "WHEN node.ns = $ns THEN node.id" in code, name


def test_no_query_reads_every_property_of_a_memory():
    """Reads name the properties they return (``$fields``: models.MEMORY_FIELDS): a map of
    every property (``m {.*}``) also reads a memory's vectors and terms, most of its bytes
    (on Neo4j a recall's read of its results took 9-11 ms instead of 6, mean)."""
    for name in cypher.names():
        for dialect in ("neo4j", "arcadedb"):
            assert not re.search(r"\{\s*\.\*", _code(name, dialect)), (name, dialect)


def test_neo4j_indexes_fit_the_embedder(neo4j, home, embedder):
    """The schema on Neo4j: vector indexes of the embedder's dimension with cosine, full-text
    indexes over the stemmed terms with the whitespace analyzer (made for a store whose
    searches ask the engine: tests/test_engine_indexes.py), the unique ids."""
    settings = GraphSettings(
        home=home,
        neo4j_uri=neo4j.uri,
        neo4j_user=neo4j.user,
        neo4j_password=neo4j.password,
        read_index=False,
    )
    with LiquidGraph(settings, embedder=embedder) as g:
        rows = g.backend.driver.execute_query(
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options "
            "RETURN name, type, labelsOrTypes, properties, options"
        ).records
        constraints = g.backend.driver.execute_query(
            "SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type "
            "RETURN labelsOrTypes, properties, type"
        ).records
    indexes = {r["name"]: r for r in rows}
    for label in ("Episode", "Fact", "Entity"):
        vector = indexes[f"{label.lower()}_embedding"]
        config = vector["options"]["indexConfig"]
        assert vector["type"] == "VECTOR" and vector["labelsOrTypes"] == [label]
        assert config["vector.dimensions"] == embedder.dim
        assert config["vector.similarity_function"].lower() == "cosine"
        assert any(
            c["labelsOrTypes"] == [label] and c["properties"] == ["id"] and "UNIQUE" in c["type"]
            for c in constraints
        )
    for label in ("Episode", "Fact"):
        fulltext = indexes[f"{label.lower()}_terms"]
        assert fulltext["type"] == "FULLTEXT" and fulltext["properties"] == ["terms"]
        assert fulltext["options"]["indexConfig"]["fulltext.analyzer"] == "whitespace"
