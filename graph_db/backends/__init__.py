"""Open the graph engine the settings name: Neo4j, or the embedded ArcadeDB."""

from __future__ import annotations

from graph_db.backends.bolt import GraphBackend, Tx, connect
from graph_db.backends.dialects import ARCADEDB, DIALECTS, NEO4J, Dialect
from graph_db.settings import GraphSettings

__all__ = ["ARCADEDB", "DIALECTS", "NEO4J", "Dialect", "GraphBackend", "Tx", "open_backend"]


def open_backend(settings: GraphSettings) -> GraphBackend:
    """Neo4j when ``MAGS_NEO4J_URI`` is set, else the embedded ArcadeDB in ``MAGS_HOME``.

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
        from graph_db.backends.arcadedb_embedded import embedded_server

        server = embedded_server(settings.home, settings.arcadedb_database, settings.arcadedb_heap)
        endpoint = server.acquire(settings.join_wait_s)
        try:
            driver = connect(
                endpoint.uri,
                (endpoint.user, endpoint.password),
                settings.connect_timeout_s,
                settings.tx_retry_s,
                "the embedded ArcadeDB",
            )
        except BaseException:
            server.release()
            raise
        server.track(driver)
        backend = GraphBackend(
            driver,
            settings.arcadedb_database,
            ARCADEDB,
            run_sql=server.run_sql,
            on_close=server.release,
            describe=f"embedded ArcadeDB in {server.home}",
        )
    return backend
