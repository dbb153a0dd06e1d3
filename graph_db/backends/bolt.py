"""One Bolt client for every engine: the official ``neo4j`` driver.

Queries are named (files of the Cypher library) and always run with
parameters, inside managed transactions that the driver retries on transient
errors; a read of one query runs alone first (auto-commit: a round trip fewer),
in a managed transaction when that meets a transient error. A batch is one
transaction: all of it is stored, or none.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    Driver,
    GraphDatabase,
    ManagedTransaction,
    NotificationDisabledClassification,
    Result,
)
from neo4j.exceptions import (
    AuthError,
    ConfigurationError,
    ConstraintError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph_db import cypher
from graph_db.backends.dialects import Dialect
from graph_db.errors import EngineError, GraphUnavailableError, InvalidInputError, StoreBusyError

log = logging.getLogger(__name__)
T = TypeVar("T")
Rows = list[dict[str, Any]]

#: Notifications the server is asked not to send. UNRECOGNIZED says that a label, relationship
#: type or property does not exist (yet): true of most queries on a new or small store, where an
#: edge type or an optional property has not been written, and harmless. Every other kind
#: (deprecations, performance, hints, ...) still reaches the ``neo4j.notifications`` log, at
#: WARNING or INFO by its severity. Bolt >= 5.2 (Neo4j 5.7+; the embedded ArcadeDB speaks 5.4).
QUIET_NOTIFICATIONS = (NotificationDisabledClassification.UNRECOGNIZED,)
RACE_RETRIES = 2  # a unique key or a record raced by a concurrent writer (_attempts)
ENTITY_GONE = "Neo.ClientError.Statement.EntityNotFound"  # retried as a conflict (_attempts)
# ArcadeDB's Bolt refuses messages over 16 MiB (a batch of long turns failed after minutes
# with "Expected structure, got: Long"): a query's rows are sent in parts below this
MESSAGE_BUDGET = 4 * 1024 * 1024
#: versioned writes (VERSIONED_WRITES) that name in their parameters the memories they
#: changed, other than creates, updates and deletions: a list of ids, or rows and the keys
#: of their ids
_CHANGED: dict[str, tuple[str, ...]] = {
    # what recall ranks by (recall_rows): access times, importance, a fact's end
    "memory_touch": ("rows", "id"),
    "memory_vitals": ("ids",),
    "importance_bump": ("rows", "id"),
    "fact_reinforce": ("rows", "id"),
    "facts_close": ("rows", "id"),
    # the edges the walk steps over (walk_edges, walk_entities)
    "edges_prune": ("ids",),
    "link_assoc": ("rows", "a", "b"),
    "link_next": ("rows", "a", "b"),
    "unlink_next": ("rows", "a", "b"),
    "link_derived_from": ("rows", "a", "b"),
    "hebbian_update": ("rows", "a", "b"),
    "link_mentions": ("rows", "a"),  # b: the entity
    "link_about": ("rows", "a"),
}
#: writes of entities (whose vectors entity linking searches in the read index): made, with
#: their vectors in the rows, and deleted when orphaned, their ids returned (``gone``)
_ENTITY_WRITES = frozenset({"entities_create", "entities_drop_orphans"})
#: versioned writes that make or remove edges, and the edge kind the read index holds them as
LINKS = {"link_assoc": "ASSOC", "link_next": "NEXT", "unlink_next": "NEXT",
         "link_derived_from": "DERIVED_FROM", "link_mentions": "ENTITY",
         "link_about": "ENTITY"}  # fmt: skip
#: versioned writes whose results name the memories they changed (column ``touched``)
_CHANGED_AS_RESULT = frozenset({"triadic_close", "next_bridge"})
#: Named writes that change what the read index holds of a namespace (graph_db/read_index.py):
#: a write transaction that runs one bumps the namespace's version inside it, and once it
#: committed, this process's listeners are handed them (write-through). Every process bumps,
#: with or without an index of its own, so that the others' indexes see its writes.
VERSIONED_WRITES = frozenset(
    {"episodes_create", "facts_create", "memory_delete", "memory_update", "namespace_delete",
     *_ENTITY_WRITES, *_CHANGED, *_CHANGED_AS_RESULT}
)  # fmt: skip
#: versioned writes whose effect a read index applies itself, from their parameters and
#: results (``Commit.writes``), so the memories they changed are not read back: a recall's
#: trace (access times, Hebbian co-firing), written after every recall, maintenance's
#: importance and pruning, which visit thousands of memories, the memories and entities a
#: write makes (the rows are their properties) and the edges it makes or removes (each
#: returns them as it left them). Read back, a new turn's neighbours came with all their
#: edges: at 10k memories, a fifth of the time a batch of turns took to write.
APPLIED = frozenset({"memory_touch", "hebbian_update", "memory_vitals", "edges_prune",
                     "episodes_create", "facts_create", *LINKS, *_ENTITY_WRITES})  # fmt: skip
#: versions of a namespace its change log keeps for other processes' read indexes to catch up
#: on (``namespace_bump``; an index further behind reads the namespace whole)
CHANGES_KEPT = 1_000


@dataclass
class Commit:
    """What a committed write transaction changed of the read index's holdings."""

    #: namespace -> (epoch, version), or None when the transaction deleted it
    versions: dict[str, tuple[str, int] | None]
    #: the versioned writes it ran, as (query name, parameters), in order
    writes: list[tuple[str, dict[str, Any]]]
    #: namespace -> the memories it created or changed, as they were at its end
    #: (``index_records``' rows: id, label, terms, row)
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


Committed = Callable[[Commit], None]


class _QuietRetries(logging.Filter):
    """The driver logs a WARNING for every retry of a transient error (two processes
    deadlocking on one user's records, a cluster changing leader): hundreds under
    contention, about something the store handles. The first is said once at INFO on this
    module's log; the rest, and it, go to the driver's log at DEBUG."""

    said = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and str(record.msg).startswith(
            "Transaction failed and will be retried"
        ):
            if not _QuietRetries.said:
                _QuietRetries.said = True
                log.info(
                    "the engine asked to retry a transaction (%s); the store retries for up "
                    "to MAGS_TX_RETRY_S, and logs later retries at DEBUG on neo4j.session",
                    str(record.args[-1] if record.args else "")[:160],
                )
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


logging.getLogger("neo4j.session").addFilter(_QuietRetries())


class Tx:
    """A transaction that runs named queries: handed to ``GraphBackend.write_tx``."""

    def __init__(self, tx: ManagedTransaction, dialect: Dialect) -> None:
        self._tx = tx
        self._dialect = dialect
        self.versioned: list[tuple[str, dict[str, Any]]] = []  # see VERSIONED_WRITES

    def run(self, name: str, **params: Any) -> Rows:
        """Run query ``name``; a ``rows`` batch larger than a Bolt message may carry is
        sent in parts, in this same transaction (every ``rows`` query UNWINDs its rows)."""
        rows = params.get("rows")
        if isinstance(rows, list) and len(rows) > 1 and _size(rows) > MESSAGE_BUDGET:
            out: Rows = []
            for part in _parts(rows):
                out += self._run(name, {**params, "rows": part})
        else:
            out = self._run(name, params)
        if name in VERSIONED_WRITES:
            if name in _CHANGED_AS_RESULT:
                params = {**params, "touched": [mid for r in out for mid in r["touched"] or []]}
            if name in APPLIED:
                params = {**params, "returned": out}
            self.versioned.append((name, params))
        return out

    def _run(self, name: str, params: dict[str, Any]) -> Rows:
        return _rows(self._tx.run(cypher.query(name, self._dialect.name), params))

    def stream(self, name: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Read query ``name``'s records one by one as the driver fetches them (a large
        namespace read whole is not held twice, as records and as what is made of them)."""
        result = self._tx.run(cypher.query(name, self._dialect.name), params)
        keys = result.keys()
        for record in result:
            yield dict(zip(keys, tuple.__iter__(record), strict=True))


def _rows(result: Result) -> Rows:
    """A result's records as dicts: zipped with the keys, not .data() (queries return plain
    values and maps, and .data() walks each value; a third of a recall's client time)."""
    keys = result.keys()
    return [dict(zip(keys, tuple.__iter__(r), strict=True)) for r in result]


class _RollBack(Exception):
    """Raised inside a managed transaction to roll it back (``GraphBackend.rehearse``)."""


class TxBackend:
    """``GraphBackend``'s query methods over one open transaction (a rehearsal): code
    written against a backend runs unchanged inside it."""

    def __init__(self, tx: Tx, dialect: Dialect, describe: str) -> None:
        self._tx = tx
        self.dialect = dialect
        self.describe = describe

    def read(self, name: str, **params: Any) -> Rows:
        return self._tx.run(name, **params)

    write = read

    def write_tx(self, work: Callable[[Tx], T]) -> T:
        return work(self._tx)

    read_tx = write_tx


def _versioned(
    tx: ManagedTransaction,
    dialect: Dialect,
    work: Callable[[Tx], T],
    done: list[Commit],
    committing: Callable[[Commit], None],
) -> T:
    """``work`` in ``tx``, then the version bump of each namespace its versioned writes
    touched, in the same transaction (a retried attempt starts over: ``done`` keeps the
    last); ``committing`` is told before the commit."""
    t = Tx(tx, dialect)
    out = work(t)
    commit = Commit({}, t.versioned)
    for ns in sorted({p["ns"] for _, p in t.versioned if isinstance(p.get("ns"), str)}):
        mine = [(n, p) for n, p in t.versioned if p.get("ns") == ns]
        # made anew (a snapshot restored): a new epoch, every index reads it whole
        anew = any(n == "namespace_delete" for n, _ in mine)
        written, gone, read_back = ([], [], []) if anew else _touched(mine)
        rows = t.run("namespace_bump", ns=ns, epoch=uuid.uuid4().hex, ids=written, gone=gone,
                     kept=CHANGES_KEPT)  # fmt: skip
        commit.versions[ns] = (rows[0]["epoch"], rows[0]["version"]) if rows else None
        if rows and read_back:  # as they are now, for this process's index
            commit.records[ns] = t.run("index_records", ns=ns, ids=read_back, vecs=False)
    done.append(commit)
    committing(commit)
    return out


def change_key(epoch: str, version: int) -> str:
    """The change log's key of a namespace's ``version`` (``namespace_bump``): the epoch
    tells a namespace deleted and made again apart."""
    return f"{epoch}#{version}"


def _touched(
    writes: list[tuple[str, dict[str, Any]]],
) -> tuple[list[str], list[str], list[str]]:
    """The ids a transaction's versioned writes created or changed, those it deleted, and
    those of the first that a read index reads back (changed by a write it does not apply
    itself: ``APPLIED``)."""
    written: dict[str, None] = {}
    gone: dict[str, None] = {}
    read_back: dict[str, None] = {}
    for name, p in writes:
        if name in ("memory_delete", "entities_drop_orphans"):
            dead = [p["id"]] if name == "memory_delete" else [
                mid for r in p["returned"] for mid in r["gone"] or []]  # fmt: skip
            for mid in dead:
                gone[mid] = None
                written.pop(mid, None)
                read_back.pop(mid, None)
            continue
        if name in ("episodes_create", "facts_create", "entities_create"):
            ids = dict.fromkeys(r["id"] for r in p["rows"])
        elif name == "memory_update":
            ids = {p["id"]: None}
        elif name in _CHANGED_AS_RESULT:
            ids = dict.fromkeys(p["touched"])
        elif name in _CHANGED:
            source, *keys = _CHANGED[name]
            ids = dict.fromkeys(p[source]) if not keys else {}
            for key in keys:
                ids |= dict.fromkeys(r[key] for r in p[source])
        else:
            continue
        written |= ids
        if name not in APPLIED:
            read_back |= ids
    return list(written), list(gone), list(read_back)


def _size(value: Any) -> int:
    """About how many bytes ``value`` takes in a Bolt message (an upper bound)."""
    if isinstance(value, str):
        return 4 * len(value) + 8  # UTF-8: at most 4 bytes a character
    if isinstance(value, dict):
        return sum(_size(k) + _size(v) for k, v in value.items()) + 8
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], float):
            return 9 * len(value) + 8
        return sum(_size(v) for v in value) + 8
    return 9


def _parts(rows: list[Any]) -> list[list[Any]]:
    """``rows`` cut into consecutive parts of at most MESSAGE_BUDGET bytes each (a row
    larger than that alone is its own part: the field limits keep rows far smaller)."""
    parts: list[list[Any]] = [[]]
    used = 0
    for row in rows:
        size = _size(row)
        if parts[-1] and used + size > MESSAGE_BUDGET:
            parts.append([])
            used = 0
        parts[-1].append(row)
        used += size
    return parts


class GraphBackend:
    """The graph engine behind a ``LiquidGraph``: driver, dialect and schema runner."""

    def __init__(
        self,
        driver: Driver,
        database: str,
        dialect: Dialect,
        *,
        run_sql: Callable[[list[str]], None] | None = None,
        on_close: Callable[[], None] | None = None,
        reconnect: Callable[[], Driver] | None = None,
        describe: str = "",
    ) -> None:
        self.driver = driver
        self.database = database
        self.dialect = dialect
        self._run_sql = run_sql
        self._on_close = on_close
        self._reconnect = reconnect  # a new driver after the engine was lost (embedded)
        self._reconnect_lock = threading.Lock()
        self.describe = describe or dialect.name
        # one writer at a time in this process: the background co-firing writes and the
        # foreground ones would otherwise deadlock on the same records and wait out the
        # engine's retries; other processes on the same store queue in the engine
        self._write_lock = threading.RLock()
        #: told after each commit that ran a versioned write (the read index)
        self.on_commit: list[Committed] = []
        #: namespaces this process is committing a version of, until the listeners were
        #: told (``settle``: a reader that sees the version waits for them, not the engine)
        self._committing: Counter[str] = Counter()
        self._settled = threading.Condition()

    # -- queries ------------------------------------------------------------------
    def read(self, name: str, **params: Any) -> Rows:
        """Run read query ``name``: as one auto-commit query (a round trip fewer than a
        transaction, and one query reads one state), again in a managed read transaction,
        which the driver retries, when that meets a transient error or an expired session."""
        rows = params.get("rows")
        single = (name, params) if not isinstance(rows, list) or len(rows) <= 1 else None
        return self._execute(False, lambda tx: tx.run(name, **params), single)

    def write(self, name: str, **params: Any) -> Rows:
        """Run write query ``name`` in its own managed write transaction."""
        return self._execute(True, lambda tx: tx.run(name, **params))

    def write_tx(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in one write transaction: every query in it commits, or none."""
        return self._execute(True, work)

    def read_tx(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in one read transaction (a consistent view)."""
        return self._execute(False, work)

    def rehearse(self, work: Callable[[TxBackend], T]) -> T:
        """Run ``work`` in one write transaction and roll it back: what it would do (it
        reads its own writes), with nothing kept. ``work`` gets a backend whose reads and
        writes all run in that transaction."""
        done: list[T] = []

        def once(tx: Tx) -> None:
            done.append(work(TxBackend(tx, self.dialect, self.describe)))
            raise _RollBack

        try:
            self._execute(True, once)
        except _RollBack:
            return done[-1]
        raise AssertionError("unreachable")

    def _execute(
        self, write: bool, work: Callable[[Tx], T], single: tuple[str, dict] | None = None
    ) -> T:
        try:
            with self._write_lock if write else contextlib.nullcontext():
                driver = self.driver
                try:
                    return self._attempts(driver, write, work, single)
                except ServiceUnavailable:
                    if self._reconnect is None:
                        raise
                    # the engine stopped or was killed: start or join it again, once (a
                    # transaction that did not commit is run again; one that did would
                    # meet its own ids and fail clearly)
                    return self._attempts(self._renewed(driver), write, work, single)
        except ConstraintError as e:
            raise InvalidInputError(
                f"the write conflicts with a stored memory ({e.message}); ids must be unique: "
                "leave id unset to get a fresh one"
            ) from e
        except TransientError as e:  # still conflicting when the driver's retries ran out
            raise StoreBusyError(
                f"The graph engine ({self.describe}) stayed busy: other writers held the same "
                f"records through every retry ({e.message}). Nothing of this call was stored: "
                "try again, or raise MAGS_TX_RETRY_S."
            ) from e
        except (ServiceUnavailable, AuthError) as e:
            raise GraphUnavailableError(
                f"The graph engine ({self.describe}) cannot be reached: {e}. Check that it is "
                "running, MAGS_NEO4J_URI / MAGS_NEO4J_PASSWORD, or unset MAGS_NEO4J_URI to use "
                "the embedded store."
            ) from e
        except (Neo4jError, DriverError) as e:  # after the driver's retries of transient ones
            raise EngineError(
                f"The graph engine ({self.describe}) failed a query: {e}. If it persists, "
                "check the engine's log (the embedded one's is in MAGS_HOME/logs)."
            ) from e

    def _attempts(
        self,
        driver: Driver,
        write: bool,
        work: Callable[[Tx], T],
        single: tuple[str, dict] | None = None,
    ) -> T:
        """``work`` in a managed transaction (``single``: a read query, run alone first)."""
        for attempt in range(RACE_RETRIES + 1):
            try:
                mode = WRITE_ACCESS if write else READ_ACCESS
                with driver.session(database=self.database, default_access_mode=mode) as session:
                    if single is not None:
                        try:
                            return _rows(session.run(cypher.query(single[0], self.dialect.name),
                                                     single[1]))  # type: ignore[return-value]  # fmt: skip
                        except (TransientError, SessionExpired):
                            log.info("a read met a transient error: again, with retries")
                    if not write:
                        return session.execute_read(lambda tx: work(Tx(tx, self.dialect)))
                    done: list[Commit] = []
                    try:
                        out = session.execute_write(
                            _versioned, self.dialect, work, done, self._committing_now
                        )
                        if done and done[-1].writes:
                            self._committed(done[-1])
                        return out
                    finally:
                        self._told(done)
            except ConstraintError:
                # another process created the same unique key (a namespace, a predicate)
                # between our MERGE's look and its create: run again, the MERGE now finds
                # it; a user's duplicate id fails every time
                if not write or attempt == RACE_RETRIES:
                    raise
                log.info("unique key taken by a concurrent writer: retrying")
            except Neo4jError as e:
                # a record an index named was gone when read: a concurrent writer's, rolled
                # back or deleted meanwhile (seen once in a test run on the embedded
                # ArcadeDB, two graphs adding facts at once); nothing was committed: run again
                if not write or e.code != ENTITY_GONE or attempt == RACE_RETRIES:
                    raise
                log.info("a record was gone when read (a concurrent writer's): retrying")
        raise AssertionError("unreachable")

    def committing(self, ns: str) -> bool:
        """Whether a commit of this process to ``ns`` is between the engine and the
        listeners now."""
        with self._settled:
            return bool(self._committing[ns])

    def settle(self, ns: str, timeout: float = 5.0) -> bool:
        """Wait until no commit of this process to ``ns`` is between the engine and the
        listeners (at most ``timeout`` s); whether one was. A read index that finds the
        store a version ahead waits for its own write-through instead of reading it back."""
        with self._settled:
            if not self._committing[ns]:
                return False
            self._settled.wait_for(lambda: not self._committing[ns], timeout)
            return True

    def _committing_now(self, commit: Commit) -> None:
        with self._settled:
            self._committing.update(commit.versions.keys())

    def _told(self, done: list[Commit]) -> None:
        """Every attempt's commit is in the engine and told, or will never be."""
        if done:
            with self._settled:
                for commit in done:
                    self._committing.subtract(commit.versions.keys())
                self._committing += Counter()  # drop the zeros
                self._settled.notify_all()

    def _committed(self, commit: Commit) -> None:
        for listener in self.on_commit:
            try:
                listener(commit)
            except Exception:  # the write is stored; a listener that failed catches up later
                log.exception("a commit listener failed (it will catch up from the store)")

    def _renewed(self, lost: Driver) -> Driver:
        """A driver to the engine again (one thread reconnects; the others take its driver)."""
        assert self._reconnect is not None
        with self._reconnect_lock:
            if self.driver is lost:
                log.warning("lost the graph engine (%s): reconnecting", self.describe)
                self.driver = self._reconnect()
                lost.close()
            return self.driver

    # -- schema -------------------------------------------------------------------
    def ensure_schema(self, dimensions: int, parts: Sequence[str] = ("",)) -> None:
        """Run the schema files of ``parts`` (``Dialect.schema_file``; idempotent): by
        default the graph's labels, properties and indexes."""
        for part in parts:
            stmts = cypher.statements(self.dialect.schema_file(part), dimensions)
            if self.dialect.schema_language == "sql":
                if self._run_sql is not None:
                    self._run_sql(stmts)
                continue
            with self.driver.session(database=self.database) as session:
                for stmt in stmts:
                    session.run(stmt).consume()

    def close(self) -> None:
        self.driver.close()
        if self._on_close is not None:
            on_close, self._on_close = self._on_close, None
            on_close()


_NEO4J_FIX = (
    "Check the URI and credentials (MAGS_NEO4J_URI, MAGS_NEO4J_USER, MAGS_NEO4J_PASSWORD), "
    "or unset MAGS_NEO4J_URI to use the embedded store."
)


def connect(
    uri: str,
    auth: tuple[str, str] | None,
    timeout: float,
    retry_s: float,
    what: str,
    fix: str = _NEO4J_FIX,
) -> Driver:
    """A verified driver, or a ``GraphUnavailableError`` that names the ``fix``."""
    try:
        return _verified(uri, auth, timeout, retry_s, what, fix, QUIET_NOTIFICATIONS)
    except ConfigurationError:  # Bolt < 5.2 (Neo4j < 5.7) cannot filter: every one is logged
        return _verified(uri, auth, timeout, retry_s, what, fix, ())


def _verified(
    uri: str,
    auth: tuple[str, str] | None,
    timeout: float,
    retry_s: float,
    what: str,
    fix: str,
    quiet: tuple[NotificationDisabledClassification, ...],
) -> Driver:
    filters = {"notifications_disabled_classifications": list(quiet)} if quiet else {}
    driver = GraphDatabase.driver(
        uri, auth=auth, connection_timeout=timeout, max_transaction_retry_time=retry_s, **filters
    )
    try:
        driver.verify_connectivity()
    except (ServiceUnavailable, AuthError, OSError, ValueError) as e:
        driver.close()
        raise GraphUnavailableError(f"Cannot reach {what} at {uri}: {e}. {fix}") from e
    except BaseException:
        driver.close()
        raise
    return driver
