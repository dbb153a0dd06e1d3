"""One embedded engine per MAGS home, in a small background process that every MAGS
process shares (the shape local model servers have).

The first process to open a home starts ``python -m graph_db.backends.engine HOME`` under a
lock (simultaneous starts start it once); the engine runs the embedded ArcadeDB server and
publishes its endpoint in the home; every process, the one that started it too, reaches it
over loopback Bolt. A process holds a lease while it uses the engine (a file named by its
pid); once no live process has held one for ``MAGS_ENGINE_IDLE_S``, the engine stops. A
process that loses the engine (killed, stopped) starts it again at its next call. No MAGS
process but the engine runs a JVM: a command connects in a fraction of a second, nothing
hangs at its exit, and a second process outlives the first. ``mags engine status|stop``.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import contextlib
import http.client
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock

from graph_db.backends.arcadedb_embedded import (
    EmbeddedArcadeDB,
    _keep_private,
    _reachable,
    _write_private,
)
from graph_db.errors import EngineError, GraphUnavailableError, HomeLockedError

log = logging.getLogger(__name__)
T = TypeVar("T")

ENDPOINT = "endpoint.json"
LEASES = "engine-leases"
ENGINE_LOG = "log/engine.log"
_STOP_WAIT_S = 60.0  # a stop that takes longer than this is killed
_DYING_WAIT_S = 10.0  # a killed JVM releases its port within this


@dataclass(frozen=True)
class Endpoint:
    """How to reach a home's running engine."""

    uri: str
    user: str
    password: str
    pid: int
    http_port: int

    def request(self, path: str, sql: str | None = None, timeout: float = 60) -> tuple[int, str]:
        """The engine's HTTP API: GET ``path``, or POST the SQL command ``sql`` to it; the
        status and the body."""
        auth = base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
        headers = {"Content-Type": "application/json", "Authorization": f"Basic {auth}"}
        body = None if sql is None else json.dumps({"language": "sql", "command": sql})
        conn = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=timeout)
        try:
            conn.request("GET" if sql is None else "POST", path, body, headers)
            reply = conn.getresponse()
            return reply.status, reply.read().decode("utf-8", "replace")
        finally:
            conn.close()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a child that exited is reaped first: no zombie counts)."""
    with contextlib.suppress(ChildProcessError, OSError):
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        pass
    return True


def _info(home: Path) -> dict[str, Any] | None:
    try:
        return json.loads((home / ENDPOINT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def running(home: Path, info: dict[str, Any] | None = None) -> Endpoint | None:
    """The engine of ``home`` (its endpoint file's ``info`` if read already) if it runs and
    listens, else None."""
    info = info or _info(home)
    if not info or not _alive(int(info.get("pid", 0))) or not _reachable(info["bolt_port"]):
        return None
    password = (home / "secrets" / "arcadedb-root").read_text(encoding="utf-8").strip()
    return Endpoint(
        f"bolt://127.0.0.1:{info['bolt_port']}", "root", password, info["pid"], info["http_port"]
    )


def status(home: Path) -> dict[str, Any] | None:
    """What ``mags engine status`` shows: the running engine and who uses it, or None."""
    home = Path(home).expanduser().resolve()
    info = _info(home)
    if info is None or running(home, info) is None:
        return None
    return {**info, "uptime_s": time.time() - info["started"], "clients": _live_leases(home)}


def stop_engine(home: Path, wait_s: float = _STOP_WAIT_S) -> bool:
    """Stop the engine of ``home`` (SIGTERM; SIGKILL if it has not stopped after
    ``wait_s``); False if none ran. Its clients start it again when they next need it."""
    home = Path(home).expanduser().resolve()
    info = _info(home)
    pid = int(info.get("pid", 0)) if info else 0
    if not pid or not _alive(pid):
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while _alive(pid):
        if time.monotonic() > deadline:
            log.warning("the engine of %s did not stop in %.0f s: killed", home, wait_s)
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.1)
    return True


def _live_leases(home: Path) -> list[int]:
    """The pids of the processes using the engine; leases of dead ones are dropped."""
    live = []
    for lease in (home / LEASES).glob("*"):
        with contextlib.suppress(ValueError):
            if _alive(int(lease.name)):
                live.append(int(lease.name))
                continue
        lease.unlink(missing_ok=True)
    return sorted(live)


class EngineClient:
    """This process's use of one home's engine: joins it or starts it, holds a lease, runs
    the schema statements (SQL, over the engine's loopback HTTP API)."""

    def __init__(
        self, home: Path, database: str, heap: str, page_cache: float, idle_s: float, wait_s: float
    ) -> None:
        self.home = Path(home).expanduser().resolve()
        self.database, self.heap, self.page_cache = database, heap, page_cache
        self.idle_s, self.wait_s = idle_s, wait_s
        self.endpoint: Endpoint | None = None
        self._users = 0
        self._mutex = threading.Lock()
        self._lease = self.home / LEASES / str(os.getpid())

    def acquire(self) -> Endpoint:
        """The running engine, started if needed; this process holds a lease on it."""
        with self._mutex:
            if self.endpoint is None:
                self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
                _keep_private(self.home)
                self._lease.parent.mkdir(exist_ok=True, mode=0o700)
                self._lease.touch()  # first: the engine must not stop between start and use
                _leases_held.add(self._lease)
                try:
                    self.endpoint = self._join_or_start()
                except BaseException:
                    self._drop_lease()
                    raise
            self._users += 1
            return self.endpoint

    def restart(self) -> Endpoint:
        """The engine again, after this process lost it (stopped, killed)."""
        with self._mutex:
            self._lease.touch()
            self.endpoint = self._join_or_start()
            return self.endpoint

    def connect(self, connect: Callable[[Endpoint], T], endpoint: Endpoint) -> T:
        """``connect(endpoint)``; if that fails because the engine found is dying (killed a
        moment ago: its port still open, the handshake reset), its successor instead."""
        try:
            return connect(endpoint)
        except GraphUnavailableError:
            deadline = time.monotonic() + _DYING_WAIT_S
            while _alive(endpoint.pid):
                if time.monotonic() > deadline:
                    raise  # a live engine that refuses us: nothing to wait out
                time.sleep(0.1)
            log.warning("the engine of %s died as this process joined it", self.home)
            return connect(self.restart())

    def release(self) -> None:
        """Drop one user; the last one gives up the lease (the engine then idles out)."""
        with self._mutex:
            self._users -= 1
            if self._users <= 0:
                self._users, self.endpoint = 0, None
                self._drop_lease()

    def _drop_lease(self) -> None:
        _leases_held.discard(self._lease)
        self._lease.unlink(missing_ok=True)

    def _join_or_start(self) -> Endpoint:
        found = running(self.home)
        if found is not None:
            return found
        with FileLock(str(self.home / "engine-start.lock"), timeout=self.wait_s):
            found = running(self.home)  # another process started it meanwhile
            if found is not None:
                return found
            return self._start()

    def _start(self) -> Endpoint:
        logdir = self.home / "log"
        logdir.mkdir(exist_ok=True)
        cmd = [
            sys.executable, "-m", "graph_db.backends.engine", str(self.home),
            "--database", self.database, "--heap", self.heap,
            "--page-cache", str(self.page_cache), "--idle-s", str(self.idle_s),
        ]  # fmt: skip
        with open(logdir / "engine.out", "ab") as out:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,  # not this terminal's: Ctrl-C and hang-ups spare it
            )  # fmt: skip
        # reaped when it exits, though this process outlives it: a zombie would still count
        # as running to ``mags engine stop`` in another process (it waited, then SIGKILLed)
        threading.Thread(target=proc.wait, name="mags-engine-reaper", daemon=True).start()
        deadline = time.monotonic() + self.wait_s
        while True:
            found = running(self.home)
            if found is not None and found.pid == proc.pid:
                log.info("started the engine of %s (pid %d)", self.home, proc.pid)
                return found
            code = proc.poll()
            if code is not None:
                reason = _last_error(logdir / "engine.out")
                error = HomeLockedError if code == _LOCKED else GraphUnavailableError
                raise error(f"The embedded engine of {self.home} did not start: {reason}")
            if time.monotonic() > deadline:
                proc.kill()
                raise GraphUnavailableError(
                    f"The embedded engine of {self.home} did not start within "
                    f"{self.wait_s:.0f} s (MAGS_JOIN_WAIT_S); see {logdir / 'engine.log'}."
                )
            time.sleep(0.05)

    def run_sql(self, statements: list[str]) -> None:
        """Run schema statements (ArcadeDB's DDL is SQL; idempotent) one process at a time."""
        with FileLock(str(self.home / "engine-schema.lock"), timeout=self.wait_s):
            try:
                self._post_sql(statements)
            except OSError:  # the engine was lost since this process joined it
                self._post_sql(statements, self.restart())

    def _post_sql(self, statements: list[str], endpoint: Endpoint | None = None) -> None:
        endpoint = endpoint or self.endpoint
        if endpoint is None:
            raise GraphUnavailableError(f"No engine of {self.home} was acquired")
        for stmt in statements:  # a statement may index a full store (graph_db.search)
            status, text = endpoint.request(f"/api/v1/command/{self.database}", stmt, 3600)
            if status != 200:
                raise EngineError(f"The engine refused a schema statement ({stmt}): {text}")


_LOCKED = 3  # the engine's exit code when another process holds the home
_leases_held: set[Path] = set()


@atexit.register
def _drop_leases() -> None:
    for lease in list(_leases_held):
        lease.unlink(missing_ok=True)


def _last_error(path: Path) -> str:
    try:
        lines = [x for x in path.read_text(errors="replace").splitlines() if x.strip()]
    except OSError:
        return "no log"
    return lines[-1] if lines else "no output"


_clients: dict[Path, EngineClient] = {}
_clients_lock = threading.Lock()


def engine_client(
    home: Path, database: str, heap: str, page_cache: float, idle_s: float, wait_s: float
) -> EngineClient:
    """This process's client of ``home``'s engine (one per home)."""
    key = Path(home).expanduser().resolve()
    with _clients_lock:
        client = _clients.get(key)
        if client is None or client.database != database:
            client = _clients[key] = EngineClient(key, database, heap, page_cache, idle_s, wait_s)
        return client


# -- the engine process --------------------------------------------------------------------
def serve(home: Path, database: str, heap: str, page_cache: float, idle_s: float) -> int:
    """Run the engine of ``home`` until stopped (SIGTERM, SIGINT) or idle."""
    home = Path(home).expanduser().resolve()
    (home / "log").mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=home / ENGINE_LOG, level=logging.INFO,
        format="%(asctime)s %(levelname)s engine[%(process)d] %(message)s",
    )  # fmt: skip
    stop = threading.Event()

    def stopped_by(signum: int, _frame: object) -> None:
        log.info("%s: stopping", signal.Signals(signum).name)  # who stopped it, in the log
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stopped_by)
    server = EmbeddedArcadeDB(home, database, heap, page_cache)
    try:
        server.start()
    except HomeLockedError as e:
        print(e, flush=True)
        return _LOCKED
    except Exception as e:
        print(e, flush=True)
        return 1
    me = os.getpid()
    info = {"pid": me, "bolt_port": server.bolt_port, "http_port": server.http_port,
            "database": database, "started": time.time(), "idle_s": idle_s}  # fmt: skip
    _write_private(home / ENDPOINT, json.dumps(info))
    log.info("serving %s on bolt port %d (idle timeout %.0f s)", home, server.bolt_port, idle_s)
    busy = time.monotonic()
    while not stop.wait(1.0):
        if _live_leases(home):
            busy = time.monotonic()
        elif time.monotonic() - busy > idle_s:
            log.info("no MAGS process used the engine for %.0f s: stopping", idle_s)
            break
    if (_info(home) or {}).get("pid") == me:
        (home / ENDPOINT).unlink(missing_ok=True)
    # the JVM can hang in its own shutdown: the store is closed once the server stops
    threading.Timer(_STOP_WAIT_S, os._exit, (1,)).start()
    server.stop()
    log.info("stopped")
    logging.shutdown()
    os._exit(0)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="The embedded engine of one MAGS home.")
    ap.add_argument("home", type=Path)
    ap.add_argument("--database", default="mags")
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--page-cache", type=float, default=0.45)
    ap.add_argument("--idle-s", type=float, default=300.0)
    args = ap.parse_args(argv)
    sys.exit(serve(args.home, args.database, args.heap, args.page_cache, args.idle_s))


if __name__ == "__main__":
    main()
