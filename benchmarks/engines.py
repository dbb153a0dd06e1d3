"""The graph engines a benchmark runs on, side by side: ``--engine arcadedb|neo4j|both``.

    add_options(parser)                      # --engine, --neo4j-heap, --neo4j-pagecache-mb
    for name in selected(args):
        with running(name, home, args) as engine:   # engine.settings, engine.info
            with LiquidGraph(engine.settings) as g:
                ...

ArcadeDB is the embedded store in ``home``. Neo4j is the server ``MAGS_NEO4J_URI`` names
(with ``MAGS_NEO4J_USER`` / ``MAGS_NEO4J_PASSWORD`` / ``MAGS_NEO4J_DATABASE``) when it is set,
else a local Neo4j Community (``graph_db.backends.local_neo4j``) started for the block with
its data in ``home`` (a kept home keeps its store for the next run) and stopped at its end.
Engines run one after the other, never at once: on 2 cores the other JVM would be measured too
(the embedded engine is stopped at the end of its block, not left to idle out).
A server named by ``MAGS_NEO4J_URI`` holds other data: ``Engine.external`` tells the caller to
keep to its own namespace and clear it.
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from graph_db import GraphSettings

ENGINES = ("arcadedb", "neo4j")
NEO4J_HEAP = "2g"  # 100k memories: ~1.5 GB of store; the page cache holds most of it
NEO4J_PAGECACHE_MB = 1536
# the server's notes on queries (deprecations, property keys not written yet) are for the
# Cypher linter, not for a benchmark's output
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


def add_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--engine",
        choices=[*ENGINES, "both"],
        default="both",
        help="graph engine(s) to run the same work on, one after the other (default: both)",
    )
    ap.add_argument(
        "--neo4j-heap", default=NEO4J_HEAP, help=f"local Neo4j's JVM heap ({NEO4J_HEAP})"
    )
    ap.add_argument(
        "--neo4j-pagecache-mb",
        type=int,
        default=NEO4J_PAGECACHE_MB,
        help=f"local Neo4j's page cache in MB ({NEO4J_PAGECACHE_MB})",
    )


def selected(args: argparse.Namespace) -> list[str]:
    return list(ENGINES) if args.engine == "both" else [args.engine]


@dataclass
class Engine:
    """One running engine: its settings for a ``LiquidGraph`` and what to report about it."""

    name: str
    settings: GraphSettings
    info: dict[str, Any] = field(default_factory=dict)
    #: folders holding the store's files (None: a server elsewhere, not measured)
    store_dirs: dict[str, Path] | None = None
    external: bool = False
    #: the engine's process id while it runs (None: a server elsewhere, or not running)
    pid: Callable[[], int | None] = lambda: None

    def cpu_s(self) -> float | None:
        """CPU seconds the engine's process has used (user + system, all its threads; None:
        not measurable here). A recall's own wait hides what it costs the engine: work
        left behind (the trace's writes) takes the cores of the recalls that follow."""
        import psutil

        pid = self.pid()
        if pid is None:
            return None
        with suppress(psutil.Error):
            times = psutil.Process(pid).cpu_times()
            return times.user + times.system
        return None

    def disk_bytes(self) -> dict[str, int] | None:
        """Bytes on disk per folder of the store. Call it after the ``running`` block: a
        stopped engine has written everything (Neo4j's page cache holds what was written
        since its last checkpoint, and Community has no procedure to force one)."""
        if self.store_dirs is None:
            return None
        return {
            key: sum(p.stat().st_size for p in d.rglob("*") if p.is_file()) if d.exists() else 0
            for key, d in self.store_dirs.items()
        }


def _driver(settings: GraphSettings):
    from neo4j import GraphDatabase

    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
    auth = (settings.neo4j_user, password) if password else None
    return GraphDatabase.driver(settings.neo4j_uri, auth=auth)


def neo4j_components(settings: GraphSettings) -> dict[str, Any]:
    """``CALL dbms.components()``: the server's name, version and edition."""
    with _driver(settings) as driver:
        records, _, _ = driver.execute_query(
            "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition",
            database_="system",
        )
    out: dict[str, Any] = {}
    for r in records:
        if r["name"] == "Neo4j Kernel" or not out:
            out = {"name": r["name"], "version": r["versions"][0], "edition": r["edition"]}
    return out


@contextmanager
def running(name: str, home: Path, args: argparse.Namespace, **over: Any) -> Iterator[Engine]:
    """Engine ``name`` with its data in ``home`` (``over``: more GraphSettings), running for
    the block: a local Neo4j is started here and stopped at the end."""
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    if name == "arcadedb":
        settings = GraphSettings(home=home, neo4j_uri=None, **over)
        try:
            version = metadata.version("arcadedb-embedded")
        except metadata.PackageNotFoundError:
            version = "?"
        info = {"engine": "arcadedb", "version": version, "heap": settings.arcadedb_heap,
                "page_cache": settings.arcadedb_page_cache}  # fmt: skip
        db = home / "arcadedb" / "databases" / settings.arcadedb_database
        try:
            yield Engine(name, settings, info, {"store": db}, pid=lambda: embedded_pid(home))
        finally:
            # stopped, not left to idle out for minutes: the next block (another store or
            # engine) must not share the cores with its background work
            from graph_db.backends.engine import stop_engine

            stop_engine(home)
        return
    if name != "neo4j":
        raise ValueError(f"unknown engine {name!r}: one of {', '.join(ENGINES)}")
    if os.environ.get("MAGS_NEO4J_URI"):
        settings = GraphSettings(home=home, **over)  # MAGS_NEO4J_* from the environment
        info = {"engine": "neo4j", "server": "MAGS_NEO4J_URI", **neo4j_components(settings)}
        yield Engine(name, settings, info, None, external=True)
        return
    from graph_db.backends.local_neo4j import LocalNeo4j

    server = LocalNeo4j(home, heap=args.neo4j_heap, pagecache_mb=args.neo4j_pagecache_mb)
    try:
        server.start()
        settings = server.settings(home=home, **over)
        info = {
            "engine": "neo4j",
            "server": "local (graph_db.backends.local_neo4j)",
            **neo4j_components(settings),
            "heap": args.neo4j_heap,
            "pagecache_mb": args.neo4j_pagecache_mb,
        }
        data = home / "server" / "data"
        dirs = {"store": data / "databases" / settings.neo4j_database,
                "tx_logs": data / "transactions" / settings.neo4j_database}  # fmt: skip
        yield Engine(name, settings, info, dirs, pid=lambda: server.pid)
    finally:
        server.stop()


def embedded_pid(home: Path) -> int | None:
    """The pid of the embedded engine serving ``home`` (it starts with the first client)."""
    from graph_db.backends.engine import running as serving

    endpoint = serving(home)
    return None if endpoint is None else endpoint.pid
