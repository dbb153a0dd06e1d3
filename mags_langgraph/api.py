"""MAGS over HTTP: a REST API (FastAPI), a thin adapter over ``LiquidGraph`` and
``MemoryLoop`` (remembering a turn takes the loop's one path).

    mags api --host 127.0.0.1 --port 8765          # loopback: a token is optional
    MAGS_API_TOKEN=... mags api --host 0.0.0.0     # any other address: a token is required

Every route but the namespace list is under ``/v1/namespaces/{ns}/``: a request reads or
changes one namespace only (a memory id of another namespace is 404). Errors are
``{"error": message}``: MAGS's one-line message (404 not found, 409 occupied, 422 bad input,
503 store unavailable or busy), or the first validation failure. The OpenAPI schema is
served at ``/openapi.json`` and committed at ``docs/openapi.json``; regenerate it with
``python -m mags_langgraph.api --write-openapi``.
"""

from __future__ import annotations

import hmac
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, cast, get_args
from urllib.parse import quote, unquote

from fastapi import Body, Depends, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, Field, computed_field
from pydantic.json_schema import SkipJsonSchema
from starlette.exceptions import HTTPException

from graph_db import (
    TUNABLE,
    GraphSettings,
    GraphUnavailableError,
    GraphView,
    InvalidInputError,
    LiquidGraph,
    MagsError,
    MaintenancePreview,
    MaintenanceReport,
    Memory,
    NamespaceOccupiedError,
    NotFoundError,
    Recalled,
    Step,
    StoreBusyError,
    UnknownNamespaceError,
)
from graph_db.view import VIEW_MAX
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.records import (
    MAX_K,
    FactWritten,
    Forgotten,
    Found,
    Remembered,
    Value,
    found,
    remembered,
    value,
)
from mags_langgraph.stats_log import HISTORY_MAX, StatsLog, StatsSample

API_VERSION = "1.0"
MAX_LIMIT = 1000  # the most memories one page lists
OPENAPI_PATH = Path(__file__).resolve().parent.parent / "docs" / "openapi.json"
SNAPSHOT_SUFFIX = ".mags.gz"
_SNAPSHOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
LOOPBACK = ("127.0.0.1", "::1", "localhost")
UI_DIST = Path(__file__).resolve().parent / "ui" / "dist"
_NS_PATH = re.compile(r"^/v1/namespaces/([^/]+)/")
_READS = ("/search", "/recall", "/maintenance/preview", "/snapshots")  # POSTs that change nothing

Block = Literal["episodic", "semantic", "both"]
Ns = Annotated[str, PathParam(description="The namespace (a user or agent id).")]
MemoryId = Annotated[str, PathParam(description="A memory's id.")]
K = Annotated[int, Field(ge=1, le=MAX_K, description=f"How many memories, 1 to {MAX_K}.")]


# -- records ---------------------------------------------------------------------------
class MemoryRecord(Memory):
    """A stored memory: an episode (speaker, session, ts) or a fact (subject, predicate,
    object, confidence, valid_from/valid_to); times are Unix seconds."""

    embedding: SkipJsonSchema[list[float] | None] = Field(default=None, exclude=True)

    @computed_field(description="False: a fact since superseded (kept as history).")  # type: ignore[prop-decorator]
    @property
    def current(self) -> bool:
        return self.valid_to is None

    @classmethod
    def of(cls, m: Memory) -> MemoryRecord:
        return cls.model_validate(m.model_dump(exclude={"embedding"}))


class Namespaces(BaseModel):
    namespaces: list[str]


class MemoryList(BaseModel):
    memories: list[MemoryRecord]


class Edge(BaseModel):
    """An edge next to a memory: NEXT (the following turn), DERIVED_FROM (a fact's source),
    SUPERSEDES (a fact's old value), ASSOC (learned, weighted), MENTIONS/ABOUT (entities)."""

    type: str
    direction: Literal["out", "in"]
    other: str | None = Field(description="The other end's id.")
    label: str = Field(description="Episode, Fact or Entity.")
    other_text: str | None = Field(default=None, description="Its text, or an entity's name.")
    props: dict[str, Any] = Field(default_factory=dict, description="w: weight; reason; ...")


class MemoryDetail(BaseModel):
    memory: MemoryRecord
    edges: list[Edge] = Field(default_factory=list, description="The edges around it.")
    history: list[Value] = Field(
        default_factory=list,
        description="A fact's: every value its subject's predicate has had, oldest first "
        "(the SUPERSEDES chain); empty for an episode.",
    )


class SearchHits(BaseModel):
    hits: list[Found]


class RecallHit(Found):
    relevance: float = Field(description="1 = this recall's best match.")
    activation: float = Field(description="Anchor relevance times the product of the weights.")
    anchor: bool = Field(description="A match the walk started from.")
    path: list[Step] = Field(
        default_factory=list, description="The walk from an anchor to this memory (edges)."
    )


class RecallHits(BaseModel):
    hits: list[RecallHit]


class FactStored(BaseModel):
    id: str
    action: Literal["created", "merged", "rejected"] = Field(
        description="created (current now), merged into the same fact, or rejected (history)."
    )
    supersedes: list[str] = Field(default_factory=list, description="Ids it replaced.")
    reason: str | None = None


class EdgeStats(BaseModel):
    count: int
    mean_w: float | None = None


class Stats(BaseModel):
    ns: str
    nodes: dict[str, int]
    edges: dict[str, EdgeStats]
    weights: list[int] = Field(description="Liquid edges by weight now: [0, 0.1), ... [0.9, 1].")
    backend: str


class StatsHistory(BaseModel):
    samples: list[StatsSample] = Field(description="Oldest first.")


class Knob(BaseModel):
    name: str
    value: bool | int | float | None = Field(description="The store's value (null: no limit).")
    description: str
    kind: Literal["bool", "int", "float"]
    group: Literal["recall", "maintenance"]
    minimum: float | None = None
    maximum: float | None = None
    nullable: bool = Field(default=False, description="null is allowed (no limit).")


class Knobs(BaseModel):
    settings: list[Knob]


class ChatOut(BaseModel):
    answer: str | None = Field(description="null when the model failed (see error).")
    error: str | None = None
    recalled: list[RecallHit] = Field(description="What the turn recalled to answer.")
    episode_id: str | None = Field(description="The stored message.")
    written: list[FactWritten] = Field(description="The facts the message stated.")
    facts_error: str | None = None


class Snapshot(BaseModel):
    name: str
    bytes: int
    taken: str = Field(description="ISO 8601.")


class Snapshots(BaseModel):
    snapshots: list[Snapshot]


class Restored(BaseModel):
    counts: dict[str, int]


class ErrorOut(BaseModel):
    error: str


# -- requests --------------------------------------------------------------------------
class SearchIn(BaseModel):
    query: str = Field(min_length=1, description="What to look for, in words.")
    k: K = 10
    blocks: Block = "both"
    mode: Literal["hybrid", "vector", "fulltext"] = "hybrid"
    min_similarity: float | None = Field(default=None, ge=-1, le=1)


#: a call's settings: name -> value (``LiquidGraph.tuned``)
Settings = dict[str, bool | float | None]
Tuning = Annotated[
    Settings | None,
    Field(description="Tunable settings for this call only (GET .../settings lists them)."),
]


class RecallIn(BaseModel):
    query: str = Field(min_length=1, description="The question.")
    settings: Tuning = None
    k: K = 10
    blocks: Block = "both"
    as_of: datetime | None = Field(default=None, description="The graph as it stood then.")
    history: bool = Field(default=False, description="Superseded facts too.")
    asker: str | None = Field(default=None, description="Who asks: 'I', 'me', 'my' mean them.")
    min_similarity: float | None = Field(default=None, ge=-1, le=1)


class RememberIn(BaseModel):
    text: str = Field(min_length=1, description="What the user said, in their words.")
    session: str = Field(default="api", min_length=1)


class FactIn(BaseModel):
    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    object: str = Field(min_length=1)
    confidence: float = Field(default=0.8, ge=0, le=1)
    valid_from: datetime | None = None
    source_episode_id: str | None = None


class EditIn(BaseModel):
    """The fields to change (others stay); new text, or a fact's s/p/o, is re-embedded."""

    text: str | None = None
    speaker: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    confidence: float | None = Field(default=None, ge=0, le=1)
    salience: float | None = Field(default=None, ge=0, le=1)
    importance: float | None = Field(default=None, ge=0, le=1)
    metadata: dict[str, Any] | None = None
    permanent: bool | None = None


class MaintainIn(BaseModel):
    full: bool | None = Field(default=None, description="Visit every memory, not only those due.")
    kcore: bool | None = Field(default=None, description="Decompose the k-core in this pass.")
    capacity: int | None = Field(default=None, ge=1, description="Overrides the setting.")
    settings: Tuning = None


class Turn(BaseModel):
    speaker: Literal["user", "assistant"]
    text: str


class ChatIn(BaseModel):
    message: str = Field(min_length=1, description="What the user says now.")
    session: str = Field(default="ui", min_length=1)
    thread: list[Turn] = Field(
        default_factory=list, max_length=50, description="The turns before it, oldest first."
    )


# -- errors and auth -------------------------------------------------------------------
def _status(e: MagsError) -> int:
    if isinstance(e, NotFoundError | UnknownNamespaceError):
        return 404
    if isinstance(e, NamespaceOccupiedError):
        return 409
    if isinstance(e, InvalidInputError):
        return 422
    if isinstance(e, GraphUnavailableError | StoreBusyError):
        return 503
    return 400


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _first_problem(e: RequestValidationError) -> str:
    errors = e.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    return f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg"))


_bearer = HTTPBearer(auto_error=False, description="MAGS_API_TOKEN (required off loopback).")


def _auth(token: str | None) -> Any:
    def check(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> None:
        if token is None:
            return
        given = credentials.credentials if credentials is not None else ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            raise HTTPException(401, "a valid bearer token is required (Authorization: Bearer …)")

    return check


def is_loopback(host: str) -> bool:
    return host.strip("[]").lower() in LOOPBACK or host.startswith("127.")


# -- the app ---------------------------------------------------------------------------
def create_app(
    graph: LiquidGraph,
    loop: MemoryLoop | None = None,
    token: str | None = None,
    *,
    ui: bool = False,
) -> FastAPI:
    """The REST API over ``graph``; remember and chat go through ``loop`` (default: a
    ``MemoryLoop`` of ``graph`` with the environment's settings, made on first use).
    ``token``: every request must carry it as a bearer token (None: no check). ``ui``:
    the web UI (built by ``make setup``) served at /ui/ (its files need no token)."""
    if token is not None and not token.strip():
        raise InvalidInputError("the API token is empty: set MAGS_API_TOKEN to a secret")
    app = FastAPI(
        title="MAGS memory",
        version=API_VERSION,
        description="A knowledge-graph memory for LLM agents: every request is scoped to one "
        'namespace. Errors are {"error": message}.',
        dependencies=[Depends(_auth(token))],
        responses={
            401: {"model": ErrorOut},
            404: {"model": ErrorOut},
            422: {"model": ErrorOut},
        },
    )
    loops: list[MemoryLoop] = [loop] if loop is not None else []
    samples = StatsLog.of(graph) if graph is not None else None

    def the_loop() -> MemoryLoop:
        if not loops:
            loops.append(MemoryLoop(graph))
        return loops[0]

    if ui:
        if not (UI_DIST / "index.html").is_file():
            raise InvalidInputError(
                f"the web UI is not built ({UI_DIST} is missing): run `make setup`, or "
                "`npm ci --prefix mags_langgraph/ui && npm run build --prefix mags_langgraph/ui`"
            )
        app.mount("/ui", StaticFiles(directory=UI_DIST, html=True), name="ui")

        # a plain route: the app's token check is for the API, not the page's address
        app.add_route("/", lambda request: RedirectResponse("/ui/"), include_in_schema=False)

    @app.middleware("http")
    async def _sample(request: Request, call_next: Any) -> Any:
        """A stats sample after a change (in the background, rate-limited; at once after
        maintenance or a rollback): the UI's charts over time."""
        response = await call_next(request)
        path, found = request.url.path, _NS_PATH.match(request.url.path)
        if samples and found and _changes(request.method, path) and response.status_code < 300:
            force = path.endswith(("/maintenance", "/restore"))
            samples.record_later(graph, unquote(found.group(1)), force=force)
        return response

    @app.exception_handler(MagsError)
    def _mags_error(request: Request, e: MagsError) -> JSONResponse:
        return _error(_status(e), str(e))

    @app.exception_handler(RequestValidationError)
    def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        return _error(422, _first_problem(e))

    @app.exception_handler(HTTPException)
    def _http(request: Request, e: HTTPException) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if e.status_code == 401 else None
        return _error(e.status_code, str(e.detail), headers)

    v1 = "/v1/namespaces"
    one = v1 + "/{ns}"

    @app.get(v1, tags=["namespaces"])
    def namespaces(
        prefix: str = "",
        limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Namespaces:
        """Namespaces that hold memories, by name."""
        return Namespaces(namespaces=graph.namespaces(prefix, limit, offset))

    @app.get(one + "/memories", tags=["memories"])
    def memories(
        ns: Ns,
        block: Block = "both",
        speaker: Annotated[str | None, Query(description="Episodes this speaker said.")] = None,
        since: Annotated[datetime | None, Query(description="Said or held from then.")] = None,
        until: Annotated[datetime | None, Query(description="Said or held before then.")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> MemoryList:
        """Memories of the namespace, newest first."""
        listed = graph.list(ns, block, limit, offset, speaker=speaker, since=since, until=until)
        return MemoryList(memories=[MemoryRecord.of(m) for m in listed])

    @app.get(one + "/graph", tags=["memories"])
    def view(
        ns: Ns,
        limit: Annotated[int, Query(ge=1, le=VIEW_MAX, description="Memories at most.")] = 2000,
    ) -> GraphView:
        """The graph as a person looks at it: the memories that matter most (permanent,
        then by importance, then newest), the entities they name and the edges among them
        (a liquid edge with its weight now)."""
        return graph.view(ns, limit)

    @app.get(one + "/memories/{memory_id}", tags=["memories"])
    def memory(
        ns: Ns,
        memory_id: MemoryId,
        edges: Annotated[int, Query(ge=0, le=MAX_LIMIT, description="Edges at most.")] = 100,
    ) -> MemoryDetail:
        """One memory, the edges around it, and a fact's history (the values it superseded
        or that superseded it)."""
        m = graph.get(ns, memory_id)
        history = []
        if m.block == "semantic" and m.subject and m.predicate:
            history = [value(h) for h in graph.history(ns, m.subject, m.predicate)]
        around = [Edge.model_validate(e) for e in graph.edges(ns, memory_id, edges)]
        return MemoryDetail(memory=MemoryRecord.of(m), edges=around, history=history)

    @app.patch(one + "/memories/{memory_id}", tags=["memories"])
    def edit(ns: Ns, memory_id: MemoryId, changes: EditIn) -> MemoryRecord:
        """Change fields of one memory."""
        fields = changes.model_dump(exclude_unset=True)
        if not fields:
            raise InvalidInputError("nothing to change: send the fields to edit, e.g. {'text'}")
        return MemoryRecord.of(graph.update(ns, memory_id, **fields))

    @app.put(one + "/memories/{memory_id}/pin", tags=["memories"])
    def pin(ns: Ns, memory_id: MemoryId) -> MemoryRecord:
        """Make a memory permanent: maintenance never forgets it."""
        return MemoryRecord.of(graph.update(ns, memory_id, permanent=True))

    @app.delete(one + "/memories/{memory_id}/pin", tags=["memories"])
    def unpin(ns: Ns, memory_id: MemoryId) -> MemoryRecord:
        """Let maintenance forget a memory again (when it fades)."""
        return MemoryRecord.of(graph.update(ns, memory_id, permanent=False))

    @app.delete(one + "/memories/{memory_id}", tags=["memories"])
    def forget(
        ns: Ns,
        memory_id: MemoryId,
        cascade: Annotated[bool, Query(description="Also facts only this episode stated.")] = True,
    ) -> Forgotten:
        """Delete a memory, its edges, and (cascade) facts only it stated."""
        return Forgotten(ids=graph.forget(ns, memory_id, cascade=cascade))

    @app.post(one + "/search", tags=["search"])
    def search(ns: Ns, body: SearchIn) -> SearchHits:
        """Plain search (vector and full-text, fused), superseded facts included."""
        hits = graph.search(
            ns, body.query, body.k, body.blocks, body.mode, min_similarity=body.min_similarity
        )
        return SearchHits(hits=[found(h) for h in hits])

    @app.post(one + "/recall", tags=["search"])
    def recall(ns: Ns, body: RecallIn) -> RecallHits:
        """What the memory recalls for a question: matches and what the walk reached from
        them, each with its path. Recalling strengthens what it finds."""
        hits = _tuned(graph, body.settings).recall(
            ns, body.query, body.k, body.blocks, body.as_of, history=body.history,
            asker=body.asker, min_similarity=body.min_similarity,
        )  # fmt: skip
        return RecallHits(hits=[_recall_hit(h) for h in hits])

    @app.post(one + "/chat", tags=["write"])
    def chat(ns: Ns, body: ChatIn) -> ChatOut:
        """One chat turn through the memory loop: recall, answer, then the message and its
        facts stored (the answer is null if the model failed; the message is stored)."""
        thread: list[BaseMessage] = [
            HumanMessage(t.text) if t.speaker == "user" else AIMessage(t.text) for t in body.thread
        ]
        said = [(ns if t.speaker == "user" else "assistant", t.text) for t in body.thread]
        done = the_loop().turn(ns, body.message, session=body.session, thread=said, messages=thread)
        stored = remembered(done) if done.context.episode_id else None
        return ChatOut(
            answer=done.answer, error=done.error,
            recalled=[_recall_hit(h) for h in done.context.memories],
            episode_id=done.context.episode_id,
            written=stored.facts if stored else [],
            facts_error=stored.facts_error if stored else None,
        )  # fmt: skip

    @app.post(one + "/remember", tags=["write"])
    def remember(ns: Ns, body: RememberIn) -> Remembered:
        """Store a turn the user said and the facts it states (through the memory loop)."""
        return remembered(the_loop().remember(ns, body.text, session=body.session))

    @app.post(one + "/facts", tags=["write"])
    def add_fact(ns: Ns, body: FactIn) -> FactStored:
        """Store one fact; a duplicate merges, a conflicting value is reconciled."""
        [w] = graph.add_facts(ns, [body.model_dump(exclude_none=True)])
        return FactStored(id=w.id, action=w.action, supersedes=w.supersedes, reason=w.reason)

    @app.get(one + "/stats", tags=["maintenance"])
    def stats(ns: Ns) -> Stats:
        """Nodes per label and edges per type (with their mean weight), now."""
        return Stats.model_validate(graph.stats(ns, weights=True))

    @app.get(one + "/stats/history", tags=["maintenance"])
    def stats_history(
        ns: Ns, limit: Annotated[int, Query(ge=1, le=HISTORY_MAX)] = HISTORY_MAX
    ) -> StatsHistory:
        """Samples of the namespace's size and weights over time (taken after the changes
        made through this API, and now), oldest first."""
        assert samples is not None
        samples.flush()
        samples.record(graph, ns)
        return StatsHistory(samples=samples.history(ns, limit))

    @app.get(one + "/settings", tags=["maintenance"])
    def knobs(ns: Ns) -> Knobs:
        """The settings a recall or a maintenance pass may change for one call, with the
        store's values and their bounds."""
        return Knobs(
            settings=[_knob(name, group, graph.settings) for name, group in TUNABLE.items()]
        )

    @app.post(one + "/maintenance", tags=["maintenance"])
    def maintain(ns: Ns, body: Annotated[MaintainIn | None, Body()] = None) -> MaintenanceReport:
        """Run a maintenance pass (prune, consolidate, forget) now; returns what changed."""
        opts = body or MaintainIn()
        return _tuned(graph, opts.settings).maintain(
            ns, capacity=opts.capacity, full=opts.full, kcore=opts.kcore
        )

    @app.post(one + "/maintenance/preview", tags=["maintenance"])
    def preview(ns: Ns, body: Annotated[MaintainIn | None, Body()] = None) -> MaintenancePreview:
        """What a maintenance pass would do now (with the settings sent, or the store's),
        rehearsed and rolled back: nothing changes."""
        opts = body or MaintainIn()
        return _tuned(graph, opts.settings).preview_maintenance(
            ns, capacity=opts.capacity, full=opts.full
        )

    @app.get(one + "/snapshots", tags=["snapshots"])
    def snapshots(ns: Ns) -> Snapshots:
        """The namespace's snapshots in the store's home, oldest first."""
        folder = _snapshot_dir(graph, ns)
        files = sorted(folder.glob(f"*{SNAPSHOT_SUFFIX}")) if folder.is_dir() else []
        return Snapshots(snapshots=[_snapshot(p) for p in files])

    @app.post(one + "/snapshots", tags=["snapshots"], status_code=201)
    def take_snapshot(ns: Ns) -> Snapshot:
        """Write the namespace to a new snapshot."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = _snapshot_dir(graph, ns) / f"{stamp}{SNAPSHOT_SUFFIX}"
        path.parent.mkdir(parents=True, exist_ok=True)
        return _snapshot(graph.export(ns, path))

    @app.post(one + "/snapshots/{name}/restore", tags=["snapshots"])
    def restore_snapshot(
        ns: Ns,
        name: Annotated[str, PathParam(description="A snapshot's name (the list shows them).")],
    ) -> Restored:
        """Put the namespace back as the snapshot holds it (replaces what it holds now)."""
        if not _SNAPSHOT_NAME.match(name) or not name.endswith(SNAPSHOT_SUFFIX):
            raise NotFoundError(f"no snapshot {name!r} of namespace {ns!r}")
        path = _snapshot_dir(graph, ns) / name
        if not path.is_file():
            raise NotFoundError(f"no snapshot {name!r} of namespace {ns!r}")
        return Restored(counts=graph.restore(path, ns, replace=True))

    return app


def _tuned(graph: LiquidGraph, settings: Settings | None) -> LiquidGraph:
    return graph.tuned(**settings) if settings else graph


def _knob(name: str, group: Literal["recall", "maintenance"], settings: GraphSettings) -> Knob:
    field = GraphSettings.model_fields[name]
    bounds: dict[str, float] = {}
    for rule in field.metadata:
        for key, side in (
            ("ge", "minimum"),
            ("gt", "minimum"),
            ("le", "maximum"),
            ("lt", "maximum"),
        ):
            if getattr(rule, key, None) is not None:
                bounds[side] = float(getattr(rule, key))
    types = {field.annotation, *get_args(field.annotation)}
    kind = "bool" if bool in types else "int" if int in types else "float"
    return Knob(
        name=name, value=getattr(settings, name), description=field.description or name,
        kind=kind, group=group, nullable=type(None) in types, **bounds,
    )  # fmt: skip


def _changes(method: str, path: str) -> bool:
    """Whether a request changes what a namespace holds (a read sent as POST does not)."""
    return method != "GET" and not path.endswith(_READS)


def _recall_hit(h: Recalled) -> RecallHit:
    return RecallHit(
        **found(h).model_dump(), relevance=round(h.relevance, 4),
        activation=round(h.activation, 4), anchor=h.anchor, path=h.path,
    )  # fmt: skip


def _snapshot_dir(graph: LiquidGraph, ns: str) -> Path:
    # one folder per namespace, its name escaped (a "/" or ".." never leaves the folder)
    return graph.settings.home / "snapshots" / f"ns-{quote(ns, safe='')}"


def _snapshot(path: Path) -> Snapshot:
    st = path.stat()
    taken = datetime.fromtimestamp(st.st_mtime, UTC).isoformat("T", "seconds")
    return Snapshot(name=path.name, bytes=st.st_size, taken=taken)


def openapi_schema() -> dict[str, Any]:
    """The API's OpenAPI schema (the routes only: no store is opened)."""
    return create_app(cast(LiquidGraph, None)).openapi()


def openapi_text() -> str:
    return json.dumps(openapi_schema(), indent=2, ensure_ascii=False) + "\n"


def serve(
    app: FastAPI, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None
) -> None:
    """Run ``app`` (``create_app``) until stopped; refuses a non-loopback address without
    a token."""
    if not is_loopback(host) and not token:
        raise InvalidInputError(
            f"{host} is not loopback: set MAGS_API_TOKEN (or --token) so requests must carry it"
        )
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] != ["--write-openapi"] or len(args) > 2:
        print("usage: python -m mags_langgraph.api --write-openapi [PATH]", file=sys.stderr)
        return 2
    path = Path(args[1]) if len(args) == 2 else OPENAPI_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(openapi_text(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
