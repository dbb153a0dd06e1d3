"""A process that owns a local Neo4j (run as a script): prints its endpoint and JVM pid,
then waits until killed, so a test can kill it and watch the JVM follow and its temporary
home go (nothing of the owner runs after a SIGKILL: the JVM deletes it)."""

from __future__ import annotations

import json
import sys
import time

from graph_db.backends.local_neo4j import LocalNeo4j


def main() -> None:
    server = LocalNeo4j(heap="512m", pagecache_mb=64)
    endpoint = server.start()
    home = str(server.home)
    print(
        json.dumps(
            {"uri": endpoint.uri, "password": endpoint.password, "pid": server.pid, "home": home}
        )
    )
    sys.stdout.flush()
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main()
