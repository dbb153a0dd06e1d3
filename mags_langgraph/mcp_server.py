"""MAGS as an MCP server (the official ``mcp`` SDK): one user's memory for any MCP client.

    mags mcp --user maya                          # stdio: the client starts it
    mags mcp --user maya --transport http --port 8000   # streamable HTTP at /mcp

Tools: ``recall``, ``search``, ``remember``, ``forget``, ``history``; resource
``mags://stats``. The namespace is fixed when the server starts (the client's
configuration names it), so no call can reach another user's memory. Bad input is a tool
error carrying MAGS's one-line message that names the fix, checked before anything is
written; the records are typed, so each tool returns structured output.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import version
from typing import Annotated, Any, Literal, TypeVar, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from graph_db import (
    Blocks,
    InvalidInputError,
    MagsError,
    NotFoundError,
    UnknownNamespaceError,
    labels_of,
)
from mags_langgraph.loop import MemoryLoop, check_user
from mags_langgraph.records import MAX_K, Forgotten, Found, History, Remembered, remembered
from mags_langgraph.records import found as _found
from mags_langgraph.records import value as _value

STATS_URI = "mags://stats"
Transport = Literal["stdio", "http"]
T = TypeVar("T")


class Memories(BaseModel):
    memories: list[Found]


Query = Annotated[str, Field(description="What to look for, in words.")]
# the schema shows the bounds and the choices; the tools check them themselves, so a bad
# value gets MAGS's one-line message rather than a validation report
K = Annotated[
    int,
    Field(
        description=f"How many memories, 1 to {MAX_K}.",
        json_schema_extra={"minimum": 1, "maximum": MAX_K},
    ),
]
BlocksArg = Annotated[
    str,
    Field(
        description="episodic (what was said), semantic (facts) or both.",
        json_schema_extra={"enum": ["episodic", "semantic", "both"]},
    ),
]


def _said(text: str, what: str, example: str) -> str:
    if not text.strip():
        raise InvalidInputError(f"{what} is empty: {example}")
    return text


def _k(k: int) -> int:
    if not 1 <= k <= MAX_K:
        raise InvalidInputError(f"k must be from 1 to {MAX_K} (how many memories), not {k}")
    return k


def _blocks(blocks: str) -> Blocks:
    labels_of(blocks)  # type: ignore[arg-type]  # a wrong one: the message lists the choices
    return cast(Blocks, blocks)


def _or_none(read: Callable[..., list[T]], *args: Any, **kwargs: Any) -> list[T]:
    """A read of a user with no memories yet: nothing, not an error (the namespace is
    the server's own; a typo in it is not the client's to fix)."""
    try:
        return read(*args, **kwargs)
    except UnknownNamespaceError:
        return []


@contextmanager
def _tool_errors() -> Iterator[None]:
    """A MagsError is the caller's to fix: a tool error with its message (the SDK would
    hide any other exception's text and log its traceback)."""
    try:
        yield
    except NotFoundError as e:
        raise ToolError(f"{e}; recall or search shows the ids") from None
    except MagsError as e:
        raise ToolError(str(e)) from None


def build_mcp_server(loop: MemoryLoop, user: str) -> MCPServer:
    """The MCP server of ``user``'s memory over ``loop`` (its graph and models)."""
    user = check_user(user)
    graph = loop.graph
    server = MCPServer(
        "mags",
        title="MAGS memory",
        version=version("mags"),
        instructions=f"Long-term memory of {user!r}: recall or search before answering from "
        "what you know of them; remember what they state about themselves; history shows how "
        "a fact changed; forget takes an id from recall or search.",
        log_level="WARNING",  # sets the root logger only where nothing configured it
    )

    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=False))
    def recall(query: Query, k: K = 5) -> Memories:
        """What the memory recalls for a question: the best matches and the memories linked
        to them (the walk), current facts first. Recalling strengthens what it finds."""
        with _tool_errors():
            query = _said(query, "query", "say what to look for, e.g. 'Where do I live?'")
            hits = _or_none(graph.recall, user, query, _k(k), asker=user)
        return Memories(memories=[_found(h) for h in hits])

    @server.tool(annotations=read_only)
    def search(query: Query, k: K = 5, blocks: BlocksArg = "both") -> Memories:
        """Plain search (vector and full-text, fused), superseded facts included."""
        with _tool_errors():
            query = _said(query, "query", "say what to look for, e.g. 'my dog'")
            hits = _or_none(graph.search, user, query, _k(k), _blocks(blocks))
        return Memories(memories=[_found(h) for h in hits])

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    def remember(
        text: Annotated[str, Field(description="What the user said, in their words.")],
    ) -> Remembered:
        """Store what the user said and the facts it states (a new value of a single-valued
        fact, such as where they live, supersedes the old one, kept as history)."""
        with _tool_errors():
            return remembered(loop.remember(user, text, session="mcp"))

    @server.tool(annotations=ToolAnnotations(destructive_hint=True, open_world_hint=False))
    def forget(
        memory_id: Annotated[str, Field(description="An id from recall or search.")],
    ) -> Forgotten:
        """Delete one memory; forgetting a said text also deletes the facts only it stated."""
        with _tool_errors():
            try:
                return Forgotten(ids=graph.forget(user, memory_id))
            except UnknownNamespaceError:  # nothing stored yet: no such memory either
                raise NotFoundError(f"no memory {memory_id!r} in namespace {user!r}") from None

    @server.tool(annotations=read_only)
    def history(
        predicate: Annotated[str, Field(description="e.g. lives_in, works_at.")],
        subject: Annotated[str | None, Field(description="Whose (default: the user).")] = None,
    ) -> History:
        """Every value a fact has had, oldest first, with when each held."""
        who = subject if subject and subject.strip() else user
        with _tool_errors():
            predicate = _said(predicate, "predicate", "name one, e.g. lives_in")
            values = _or_none(graph.history, user, who, predicate)
        return History(subject=who, predicate=predicate, values=[_value(m) for m in values])

    @server.resource(
        STATS_URI,
        name="stats",
        mime_type="application/json",
        description=f"Nodes and edges of the memory of {user!r} (JSON).",
    )
    def stats() -> str:
        try:
            counts = graph.stats(user)
        except UnknownNamespaceError:  # nothing stored yet
            counts = {"ns": user, "nodes": {"Episode": 0, "Fact": 0, "Entity": 0}, "edges": {},
                      "backend": graph.backend.describe}  # fmt: skip
        except MagsError as e:
            raise ResourceError(str(e)) from None
        return json.dumps(counts)

    return server


def serve(
    loop: MemoryLoop,
    user: str,
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
) -> None:
    """Run the server until the client goes (stdio) or it is stopped (Ctrl-C, SIGTERM).
    SIGTERM stops it as Ctrl-C does, so the caller closes the store on the way out
    (uvicorn re-raises the signal after its shutdown; the default action would kill us)."""
    if transport not in ("stdio", "http"):
        raise InvalidInputError(f"transport must be 'stdio' or 'http', not {transport!r}")
    server = build_mcp_server(loop, user)
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=port)
    except KeyboardInterrupt:
        pass
    finally:
        if main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
