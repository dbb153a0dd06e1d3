"""A local Neo4j for tests, benchmarks and developers: Neo4j Community in a child JVM.

Not the production path (that is any Neo4j at ``MAGS_NEO4J_URI``: a server, a cluster, Aura):
this starts one on this machine from Maven Central, so the Neo4j code path runs everywhere
Java and Maven do. ``neo4j/pom.xml`` pins the versions; Maven fetches them into the local
repository once (the resolved classpath is cached); ``neo4j/MagsNeo4j.java`` is run by a
JDK >= 25 from source. The child listens on 127.0.0.1 (a free port unless one is given), with
a generated password, and stops when this process closes its stdin: at ``stop()``, at exit,
or when this process dies in any way (kill -9 included), so no JVM outlives its parent; a
temporary home (no ``home`` given) is deleted by the JVM as it exits.

    with LocalNeo4j() as neo4j:
        graph = LiquidGraph(neo4j.settings())

``python -m graph_db.backends.local_neo4j`` runs one in the foreground and prints the
``MAGS_NEO4J_*`` variables that point MAGS at it.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import platformdirs

from graph_db.errors import GraphUnavailableError

JAVA_MIN = 25  # Neo4j 2025.10 and later
READY = re.compile(r"^READY (bolt://\S+)$", re.M)


class Neo4jPrerequisiteError(GraphUnavailableError):
    """Java or Maven is missing: a local Neo4j cannot run on this machine."""


@dataclass(frozen=True)
class Neo4jEndpoint:
    uri: str
    user: str
    password: str

    def env(self) -> dict[str, str]:
        """The variables that point MAGS (and its child processes) at this server."""
        return {
            "MAGS_NEO4J_URI": self.uri,
            "MAGS_NEO4J_USER": self.user,
            "MAGS_NEO4J_PASSWORD": self.password,
        }


def _files() -> Path:
    return Path(str(resources.files("graph_db.backends") / "neo4j"))


def _java_version(java: str) -> int:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return 0
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else 0


def find_java(minimum: int = JAVA_MIN) -> str:
    """A ``java`` of version ``minimum`` or later: ``MAGS_NEO4J_JAVA`` (a binary or a JDK
    home), ``JAVA_HOME``, ``java`` on the PATH, then the JDKs installed side by side."""
    candidates: list[str] = []
    for var in ("MAGS_NEO4J_JAVA", "JAVA_HOME"):
        value = os.environ.get(var)
        if value:
            path = Path(value)
            candidates.append(str(path / "bin" / "java") if path.is_dir() else value)
    if shutil.which("java"):
        candidates.append(shutil.which("java") or "java")
    for root in ("/usr/lib/jvm", "/opt/java", "/Library/Java/JavaVirtualMachines"):
        base = Path(root)
        if base.is_dir():
            for jdk in sorted(base.iterdir(), reverse=True):
                for java in (jdk / "bin" / "java", jdk / "Contents" / "Home" / "bin" / "java"):
                    if java.is_file():
                        candidates.append(str(java))
    seen = []
    for java in dict.fromkeys(candidates):
        version = _java_version(java)
        seen.append(f"{java} ({version or '?'})")
        if version >= minimum:
            return java
    raise Neo4jPrerequisiteError(
        f"A local Neo4j needs Java {minimum} or later; found "
        f"{', '.join(seen) or 'no java'}. Install a JDK {minimum} (e.g. Temurin {minimum}, or "
        f"apt-get install openjdk-{minimum}-jdk-headless) and point MAGS_NEO4J_JAVA at it, "
        "or set MAGS_NEO4J_URI to a running Neo4j."
    )


def resolve_classpath(cache_dir: Path | None = None) -> list[str]:
    """The jars of ``neo4j/pom.xml``, fetched by Maven once and cached by the pom's hash."""
    pom = _files() / "pom.xml"
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()[:16]
    cache = (cache_dir or platformdirs.user_cache_path("mags")) / "neo4j" / digest
    cached = cache / "classpath.txt"
    if cached.is_file():
        jars = cached.read_text(encoding="utf-8").strip().split(os.pathsep)
        if jars and all(Path(j).is_file() for j in jars):
            return jars
    mvn = os.environ.get("MAGS_NEO4J_MVN") or shutil.which("mvn")
    if not mvn:
        raise Neo4jPrerequisiteError(
            "A local Neo4j is fetched by Maven, which is not installed: apt-get install maven "
            "(or set MAGS_NEO4J_MVN), or set MAGS_NEO4J_URI to a running Neo4j."
        )
    cache.mkdir(parents=True, exist_ok=True)
    out = cache / f"classpath.{os.getpid()}.tmp"
    cmd = [mvn, "-q", "-B", "-f", str(pom), "dependency:build-classpath",
           f"-Dmdep.outputFile={out}"]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired as e:
        raise GraphUnavailableError(f"Maven did not fetch Neo4j within 30 min: {cmd}") from e
    if done.returncode != 0 or not out.is_file():
        tail = (done.stdout + done.stderr).strip()[-2000:]
        raise GraphUnavailableError(f"Maven could not fetch Neo4j ({' '.join(cmd)}):\n{tail}")
    os.replace(out, cached)
    return cached.read_text(encoding="utf-8").strip().split(os.pathsep)


def _plugins(jars: list[str], directory: Path) -> None:
    """Neo4j loads procedures from its plugin folder: the GDS jars, linked (they are also on
    the classpath, which loads them first, so their extension and procedures share classes)."""
    directory.mkdir(parents=True, exist_ok=True)
    for jar in jars:
        if f"{os.sep}org{os.sep}neo4j{os.sep}gds{os.sep}" in jar:
            link = directory / Path(jar).name
            if not link.exists():
                link.symlink_to(jar)


class LocalNeo4j:
    """One Neo4j child process; ``start()`` returns its endpoint, ``stop()`` ends it."""

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        port: int = 0,
        heap: str = "1g",
        pagecache_mb: int = 512,
        password: str | None = None,
        start_timeout_s: float = 300.0,
    ) -> None:
        self._tmp = None if home else tempfile.mkdtemp(prefix="mags-neo4j-")
        self.home = Path(home or self._tmp).expanduser().resolve()
        self.port = port
        self.heap = heap
        self.pagecache_mb = pagecache_mb
        self.password = password or secrets.token_urlsafe(18)
        self.start_timeout_s = start_timeout_s
        self.endpoint: Neo4jEndpoint | None = None
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    @property
    def log_path(self) -> Path:
        return self.home / "launcher.log"

    def start(self) -> Neo4jEndpoint:
        """Fetch (once), start and wait until Bolt serves; an error says why it could not."""
        with self._lock:
            if self.endpoint is not None:
                return self.endpoint
            java = find_java()
            jars = resolve_classpath()
            self.home.mkdir(parents=True, exist_ok=True)
            _plugins(jars, self.home / "plugins")
            cmd = [
                java,
                f"-Xmx{self.heap}",
                "-XX:+UseG1GC",
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                os.pathsep.join(jars),
                str(_files() / "MagsNeo4j.java"),
                str(self.home / "server"),
                str(self.home / "plugins"),
                str(self.port),
                str(self.pagecache_mb),
                *([self._tmp] if self._tmp else []),  # the JVM deletes it, its parent dead or not
            ]
            env = {**os.environ, "MAGS_NEO4J_INITIAL_PASSWORD": self.password}
            with open(self.log_path, "wb") as log:
                self._proc = subprocess.Popen(
                    cmd, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, env=env
                )
            _running.add(self)
            try:
                uri = self._wait_ready()
            except BaseException:
                self._stop_locked()
                raise
            self.endpoint = Neo4jEndpoint(uri, "neo4j", self.password)
            return self.endpoint

    def _wait_ready(self) -> str:
        assert self._proc is not None
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
            m = READY.search(text)
            if m:
                return m.group(1)
            if self._proc.poll() is not None:
                raise GraphUnavailableError(
                    f"Neo4j exited with code {self._proc.returncode} before it served "
                    f"(log {self.log_path}):\n{_tail(text)}"
                )
            time.sleep(0.2)
        raise GraphUnavailableError(
            f"Neo4j did not serve within {self.start_timeout_s:.0f} s (log {self.log_path}):\n"
            f"{_tail(self.log_path.read_text(encoding='utf-8', errors='replace'))}"
        )

    def settings(self, **over: Any):
        """``GraphSettings`` for a ``LiquidGraph`` on this server."""
        from graph_db.settings import GraphSettings

        ep = self.start()
        return GraphSettings(
            neo4j_uri=ep.uri, neo4j_user=ep.user, neo4j_password=ep.password, **over
        )

    def stop(self) -> None:
        """Close the child's stdin (it shuts Neo4j down), wait, kill if it hangs."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        proc, self._proc, self.endpoint = self._proc, None, None
        _running.discard(self)
        if proc is not None and proc.poll() is None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait(timeout=30)
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def __enter__(self) -> LocalNeo4j:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _tail(text: str, lines: int = 25) -> str:
    keep = [ln for ln in text.splitlines() if not ln.startswith("WARNING:")]
    return "\n".join(keep[-lines:])


_running: set[LocalNeo4j] = set()


@atexit.register
def _stop_all() -> None:
    for server in list(_running):
        server.stop()


def main(argv: list[str] | None = None) -> None:
    """Run a local Neo4j in the foreground until Ctrl-C (data kept in the folder given)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("home", nargs="?", help="data folder (default: a temporary one)")
    parser.add_argument("--port", type=int, default=7687)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache-mb", type=int, default=1024)
    args = parser.parse_args(argv)
    server = LocalNeo4j(args.home, port=args.port, heap=args.heap, pagecache_mb=args.pagecache_mb)
    print("starting Neo4j (the first start fetches it with Maven)...", file=sys.stderr)
    endpoint = server.start()
    for key, value in endpoint.env().items():
        print(f"export {key}={value}")
    print(f"# Neo4j serves at {endpoint.uri}; Ctrl-C stops it", file=sys.stderr, flush=True)
    try:
        while server._proc is not None and server._proc.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
