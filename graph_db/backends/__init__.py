"""Open the graph engine the settings name: Neo4j, or the embedded ArcadeDB."""

from __future__ import annotations

from neo4j import Driver

from graph_db.backends.bolt import GraphBackend, Tx, connect
from graph_db.backends.dialects import ARCADEDB, DIALECTS, NEO4J, Dialect
from graph_db.settings import GraphSettings

__all__ = ["ARCADEDB", "DIALECTS", "NEO4J", "Dialect", "GraphBackend", "Tx", "open_backend"]


def open_backend(settings: GraphSettings) -> GraphBackend:
    """Neo4j when ``MAGS_NEO4J_URI`` is set, else the embedded ArcadeDB of ``MAGS_HOME``
    (its engine process, started if needed: ``graph_db.backends.engine``).

    The caller creates the schema (``backend.ensure_schema(dim)``) once it knows the
    embedding dimension.
    """
    if settings.neo4j_uri:
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        auth = (settings.neo4j_user, password) if password else None
        driver = connect(
            settings.neo4j_uri, auth, settings.connect_timeout_s, settings.tx_retry_s, "Neo4j"
        )
        backend = GraphBackend(
            driver, settings.neo4j_database, NEO4J, describe=f"Neo4j {settings.neo4j_uri}"
        )
    else:
        from graph_db.backends.engine import engine_client

        client = engine_client(
            settings.home, settings.arcadedb_database, settings.arcadedb_heap,
            settings.arcadedb_page_cache, settings.engine_idle_s, settings.join_wait_s,
        )  # fmt: skip

        def connected(endpoint) -> Driver:
            return connect(
                endpoint.uri,
                (endpoint.user, endpoint.password),
                settings.connect_timeout_s,
                settings.tx_retry_s,
                "the embedded ArcadeDB",
                f"See {client.home / 'log' / 'engine.log'}, or restart the engine: "
                f"mags engine stop --home {client.home}",
            )

        endpoint = client.acquire()
        try:
            driver = client.connect(connected, endpoint)
        except BaseException:
            client.release()
            raise
        backend = GraphBackend(
            driver,
            settings.arcadedb_database,
            ARCADEDB,
            run_sql=client.run_sql,
            on_close=client.release,
            reconnect=lambda: client.connect(connected, client.restart()),
            describe=f"embedded ArcadeDB in {client.home}",
        )
    return backend
