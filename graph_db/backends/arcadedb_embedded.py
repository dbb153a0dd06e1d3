"""The embedded default: ArcadeDB started in this process, reached over Bolt.

Why a server and not the embedded API: the same ``neo4j`` driver code then runs
on the embedded store and on Neo4j. The server listens on 127.0.0.1 only (Bolt
and its HTTP endpoint, on free ports), its MCP endpoint stays off, the root
password is generated once and kept in a 0600 file, and a lock on the home
keeps a second process from opening the same files: that process connects to
the running server instead, or gets a clear error.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import secrets
import signal
import socket
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from graph_db.errors import GraphUnavailableError, HomeLockedError

log = logging.getLogger(__name__)

_BOLT_PLUGIN = "Bolt:com.arcadedb.bolt.BoltProtocolPlugin"
JOIN_WAIT_S = 90.0  # how long a process waits for the home owner's engine to come up
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


@dataclass(frozen=True)
class Endpoint:
    """How to reach a running embedded server."""

    uri: str
    user: str
    password: str
    owner_pid: int


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


class EmbeddedArcadeDB:
    """One ArcadeDB server for one MAGS home, owned by this process."""

    def __init__(self, home: Path, database: str, heap: str = "2g") -> None:
        self.home = Path(home).expanduser().resolve()
        self.database = database
        self.heap = heap
        self._lock = FileLock(str(self.home / "mags.lock"))
        self._server = None
        self._db = None
        self._bolt_port = 0
        self._users = 0
        self._mutex = threading.Lock()
        self.endpoint: Endpoint | None = None
        self.owner = False
        self._drivers: weakref.WeakSet = weakref.WeakSet()

    # -- files in the home --------------------------------------------------------
    @property
    def _endpoint_file(self) -> Path:
        return self.home / "endpoint.json"

    def _password(self) -> str:
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

    # -- lifecycle ----------------------------------------------------------------
    def acquire(self, join_wait_s: float = JOIN_WAIT_S) -> Endpoint:
        """Start the server (or join the one another process runs, waiting up to
        ``join_wait_s`` for it to come up) and return its endpoint."""
        with self._mutex:
            if self.endpoint is not None:
                self._users += 1
                return self.endpoint
            self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
            _keep_private(self.home)
            deadline = time.monotonic() + join_wait_s
            while True:
                try:
                    self._lock.acquire(timeout=0)
                    break
                except Timeout:  # another process owns the home: join its server, once up
                    joined = self._join_running(final=time.monotonic() > deadline)
                    if joined is not None:
                        self.endpoint, self._users = joined, 1
                        return joined
                    time.sleep(0.25)
            try:
                self.endpoint = self._start()
            except BaseException:
                self._lock.release()
                raise
            self.owner = True
            self._users = 1
            return self.endpoint

    def _join_running(self, final: bool) -> Endpoint | None:
        """The owner's server, if it is up; None while it may still be starting (it writes
        the endpoint file once it listens); ``final``: not up by now is an error."""
        try:
            info = json.loads(self._endpoint_file.read_text(encoding="utf-8"))
            port = int(info["bolt_port"])
        except (OSError, ValueError, KeyError):
            info, port = {}, 0
        if port and _reachable(port):
            log.info("MAGS home %s is open in process %s: connecting to it", self.home, info["pid"])
            secret = self.home / "secrets" / "arcadedb-root"
            password = secret.read_text(encoding="utf-8").strip()
            return Endpoint(f"bolt://127.0.0.1:{port}", "root", password, int(info["pid"]))
        if not final:
            return None
        raise HomeLockedError(
            f"The MAGS home {self.home} is locked by another process "
            f"(pid {info.get('pid', '?')}) whose server could not be reached (MAGS_JOIN_WAIT_S). "
            "Close that process, or use another home (MAGS_HOME=/path or --home)."
        )

    def _start(self) -> Endpoint:
        root = self.home / "arcadedb"
        logdir = self.home / "log"
        logdir.mkdir(parents=True, exist_ok=True)
        password = self._password()
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
            start_jvm(heap_size=self.heap, jvm_args=[f"-Djava.util.logging.config.file={props}"])
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
        self._bolt_port = bolt_port  # published once the schema is in place (run_sql)
        _install_exit_handlers()
        return Endpoint(f"bolt://127.0.0.1:{bolt_port}", "root", password, owner_pid=os.getpid())

    def track(self, driver: object) -> None:
        """Close ``driver`` before the server stops (at exit or on a signal)."""
        self._drivers.add(driver)

    def run_sql(self, statements: list[str]) -> None:
        """Run schema statements through the embedded handle (ArcadeDB DDL is SQL)."""
        if self._db is None:
            return  # a joined server: its owner created the schema
        for stmt in statements:
            self._db.command("sql", stmt)
        # other processes join from now on: writes before the unique indexes exist would
        # duplicate keys (and fail the owner's index builds)
        info = {"bolt_port": self._bolt_port, "pid": os.getpid()}
        _write_private(self._endpoint_file, json.dumps(info))

    def release(self) -> None:
        """Drop one user; the last one stops the server."""
        with self._mutex:
            self._users -= 1
            if self._users <= 0:
                self._stop_locked()

    def stop(self) -> None:
        """Stop the server now, whoever still uses it (at exit, on signals)."""
        with self._mutex:
            self._stop_locked()

    def _stop_locked(self) -> None:
        self._users = 0
        self.endpoint = None
        for driver in list(self._drivers):
            # an open Bolt connection keeps a server thread alive: the JVM then crashes
            # or hangs at exit, so connections close before the server stops
            driver.close()
        self._drivers.clear()
        if self._server is not None:
            server, self._server, self._db = self._server, None, None
            try:
                server.stop()
            except Exception:
                log.warning("ArcadeDB did not stop cleanly", exc_info=True)
            self._endpoint_file.unlink(missing_ok=True)
        if self.owner:
            self.owner = False
            self._lock.release()


_servers: dict[Path, EmbeddedArcadeDB] = {}
_servers_lock = threading.Lock()
_handlers_installed = False


def embedded_server(home: Path, database: str, heap: str) -> EmbeddedArcadeDB:
    """The process-wide server of ``home`` (one JVM hosts each home once)."""
    key = Path(home).expanduser().resolve()
    with _servers_lock:
        server = _servers.get(key)
        if server is None or server.database != database:
            server = _servers[key] = EmbeddedArcadeDB(key, database, heap)
        return server


def _stop_all() -> None:
    for server in list(_servers.values()):
        server.stop()


def _install_exit_handlers() -> None:
    """Stop every server at exit and on SIGTERM/SIGHUP: the JVM crashes if not."""
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(_stop_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous = signal.getsignal(signum)

        def handler(sig, frame, previous=previous):
            _stop_all()
            if callable(previous):
                previous(sig, frame)
            raise SystemExit(128 + sig)

        signal.signal(signum, handler)
