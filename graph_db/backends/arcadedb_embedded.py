"""The embedded default: an ArcadeDB server for one MAGS home, reached over Bolt.

Why a server and not the embedded API: the same ``neo4j`` driver code then runs
on the embedded store and on Neo4j. The server listens on 127.0.0.1 only (Bolt
and its HTTP endpoint, on free ports), its MCP endpoint stays off, the root
password is generated once and kept in a 0600 file, and a lock on the home
keeps a second server from opening the same files. It runs in the home's engine
process (``graph_db.backends.engine``), which every MAGS process shares.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
from pathlib import Path

from filelock import FileLock, Timeout

from graph_db.errors import GraphUnavailableError, HomeLockedError

log = logging.getLogger(__name__)

_BOLT_PLUGIN = "Bolt:com.arcadedb.bolt.BoltProtocolPlugin"
_PORT_ATTEMPTS = 3  # fresh ports each time: another process may take one before the engine binds
_LOG_PROPERTIES = """\
handlers = java.util.logging.FileHandler, java.util.logging.ConsoleHandler
.level = INFO
io.undertow.level = WARNING
org.xnio.level = WARNING
org.jboss.level = WARNING
com.arcadedb.level = INFO
java.util.logging.ConsoleHandler.level = SEVERE
java.util.logging.ConsoleHandler.formatter = com.arcadedb.log.LogFormatter
java.util.logging.FileHandler.level = INFO
java.util.logging.FileHandler.pattern = {pattern}
java.util.logging.FileHandler.formatter = com.arcadedb.log.LogFormatter
java.util.logging.FileHandler.limit = 10000000
java.util.logging.FileHandler.count = 3
"""


def _free_ports(n: int) -> list[int]:
    """``n`` distinct free loopback ports: held open together, so the OS cannot hand the
    same one out twice (it can between two separate look-ups)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(n):
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _reachable(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def _keep_private(home: Path) -> None:
    """Memories are private: the home 0700, what it holds 0600 (0700 for folders), also
    for a home made before (another local user could read the engine's files)."""
    st = home.stat()
    if st.st_uid != os.getuid() or st.st_mode & 0o077 == 0:
        return  # not ours to change (an admin-made home), or private already: no walk
    home.chmod(0o700)
    for root, dirs, files in os.walk(home):
        for d in dirs:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(root, d), 0o700)
        for f in files:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(root, f), 0o600)


def _write_private(path: Path, text: str) -> None:
    """Write a file only the owner can read (the password lives in one)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, 0o600)


def page_cache_mb(heap: str, share: float) -> int:
    """ArcadeDB's page cache (``arcadedb.maxPageRAM``, megabytes) as ``share`` of a JVM
    heap given as -Xmx takes it (``2g``, ``1536m``, ``1048576k``, bytes)."""
    unit = {"k": 1 / 1024, "m": 1, "g": 1024}.get(heap[-1].lower())
    mb = int(heap[:-1]) * unit if unit else int(heap) / 2**20
    return max(1, int(mb * share))


class EmbeddedArcadeDB:
    """The ArcadeDB server of one MAGS home, run by the home's engine process
    (``graph_db.backends.engine``), which holds the home's lock while it runs."""

    def __init__(self, home: Path, database: str, heap: str, page_cache: float) -> None:
        self.home = Path(home).expanduser().resolve()
        self.database = database
        self.heap, self.page_cache = heap, page_cache
        self._lock = FileLock(str(self.home / "mags.lock"))
        self._server = None
        self._db = None
        self.bolt_port = 0
        self.http_port = 0

    def password(self) -> str:
        """The root password, generated once and kept in a 0600 file."""
        secret = self.home / "secrets" / "arcadedb-root"
        secret.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if secret.exists():
            return secret.read_text(encoding="utf-8").strip()
        # a fresh password: ArcadeDB sets root's password from it on first start only,
        # so drop a users file left by an earlier home with a lost secret
        (self.home / "arcadedb" / "config" / "server-users.jsonl").unlink(missing_ok=True)
        password = secrets.token_urlsafe(24)
        _write_private(secret, password)
        return password

    def start(self) -> None:
        """Take the home's lock and start the server (Bolt and HTTP on free loopback ports)."""
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        _keep_private(self.home)
        try:
            self._lock.acquire(timeout=0)
        except Timeout as e:
            raise HomeLockedError(
                f"The MAGS home {self.home} is locked by another process that is not its "
                "engine (an older MAGS, or a copy of the store in use). Close that process, or "
                "use another home (MAGS_HOME=/path or --home)."
            ) from e
        try:
            self._start()
        except BaseException:
            self._lock.release()
            raise

    def _start(self) -> None:
        root = self.home / "arcadedb"
        logdir = self.home / "log"
        logdir.mkdir(parents=True, exist_ok=True)
        password = self.password()
        props = logdir / "arcadedb-log.properties"
        props.write_text(_LOG_PROPERTIES.format(pattern=logdir / "arcadedb.%g.log"))
        os.environ.setdefault("ARCADEDB_JVM_ERROR_FILE", str(logdir / "hs_err_pid%p.log"))
        try:
            import arcadedb_embedded as arcadedb
            from arcadedb_embedded.jvm import start_jvm
        except ImportError as e:  # pragma: no cover - a core dependency
            raise GraphUnavailableError(
                "The embedded store needs arcadedb-embedded: pip install arcadedb-embedded"
            ) from e
        import jpype

        if not jpype.isJVMStarted():  # one JVM per process: the first home sets its options
            # -Xrs: the JVM leaves SIGTERM/SIGINT/SIGHUP to the engine process, which stops
            # the server itself (the JVM's own shutdown on a signal could hang)
            start_jvm(
                heap_size=self.heap,
                jvm_args=[
                    f"-Djava.util.logging.config.file={props}",
                    "-Xrs",
                    f"-Darcadedb.maxPageRAM={page_cache_mb(self.heap, self.page_cache)}",
                ],
            )
        for attempt in range(_PORT_ATTEMPTS):
            bolt_port, http_port = _free_ports(2)
            self._server = arcadedb.create_server(
                str(root),
                root_password=password,
                config={
                    "host": "127.0.0.1",
                    "http_port": http_port,
                    "server_plugins": _BOLT_PLUGIN,
                    "bolt_port": bolt_port,
                },
            )
            try:
                self._server.start()
                if (root / "databases" / self.database).exists():
                    self._db = self._server.get_database(self.database)
                else:
                    self._db = self._server.create_database(self.database)
                break
            except Exception as e:
                self._server.stop()
                # a free port can be taken by another process before the engine binds it
                if "Unable to listen" in str(e) and attempt + 1 < _PORT_ATTEMPTS:
                    log.info("embedded ArcadeDB: a port was taken meanwhile (%s); retrying", e)
                    continue
                raise GraphUnavailableError(
                    f"Could not start the embedded ArcadeDB in {root}: {e}. "
                    f"See {logdir} for the engine's log."
                ) from e
        self.bolt_port, self.http_port = bolt_port, self._server.get_http_port()

    def stop(self) -> None:
        """Stop the server (its clients' connections are closed) and release the lock."""
        if self._server is not None:
            server, self._server, self._db = self._server, None, None
            try:
                server.stop()
            except Exception:
                log.warning("ArcadeDB did not stop cleanly", exc_info=True)
        if self._lock.is_locked:
            self._lock.release()
