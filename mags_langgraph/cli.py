"""``mags``: the command line of MAGS.

mags demo                      two scripted chat sessions: a fact carried over, a contradiction
                               reconciled with history, the graph's stats
mags chat --user NAME          chat with memory that persists across runs (/help inside)
mags ingest conversation.json --user NAME   store a conversation (sessions of turns, facts)
mags recall USER "question"    what the memory recalls for a question (and why)
mags search USER "question"    plain hybrid search (vector + full-text)
mags maintain USER             decay, prune, consolidate, forget
mags inspect USER [ID]          size, current facts, newest turns; or one memory
mags stats USER | namespaces | snapshot USER FILE | restore FILE | forget USER
mags mcp --user NAME           an MCP server of NAME's memory (stdio, or --transport http)
mags api [--host H --port P]   the REST API (FastAPI; a bearer token off loopback)
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import MofNCompleteColumn, Progress
from rich.table import Table

from graph_db import (
    GraphSettings,
    InvalidInputError,
    LiquidGraph,
    MagsError,
    NamespaceOccupiedError,
    UnknownNamespaceError,
    labels_of,
)
from mags_langgraph.conversation import Conversation, read_conversation
from mags_langgraph.conversation import schema as conversation_schema

app = typer.Typer(
    help="MAGS: a memory for LLM agents that learns while it is used.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
HomeOpt = Annotated[
    Path | None, typer.Option("--home", help="MAGS home (default: MAGS_HOME or the user data dir).")
]
HostOpt = Annotated[str, typer.Option(help="Address to listen on (loopback by default).")]
PortOpt = Annotated[int, typer.Option(help="Port to listen on.")]
TokenOpt = Annotated[
    str | None,
    typer.Option(
        envvar="MAGS_API_TOKEN",
        help="Bearer token every request must carry; required off loopback.",
    ),
]
DEMO_USER = "maya"
KOpt = Annotated[int, typer.Option("--k", "-k", help="How many memories at most.")]
BlocksOpt = Annotated[str, typer.Option(help="episodic (what was said), semantic (facts) or both.")]
MinSimilarityOpt = Annotated[
    float | None,
    typer.Option(
        help="Leave out memories less similar to the query (cosine: unrelated text ~0.1, "
        "the same topic ~0.4, a paraphrase ~0.7); scores only order the results."
    ),
]


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        console.print(f"mags {version('mags')}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """MAGS: a memory for LLM agents that learns while it is used."""


def _settings(home: Path | None) -> GraphSettings:
    return GraphSettings(home=home) if home else GraphSettings()


def _open(home: Path | None) -> LiquidGraph:
    settings = _settings(home)
    with console.status(f"Opening the memory in {settings.neo4j_uri or settings.home} ..."):
        return LiquidGraph(settings)


_INGEST_IDS = uuid.UUID("0f1d6c52-3b7e-4c1a-9d55-7a2e8b9c4f31")  # uuid5 namespace


def ingest_conversation(
    graph: LiquidGraph, user: str, conversation: Conversation
) -> tuple[int, int, int]:
    """Store each session's turns (one transaction per session), then the listed facts.
    Returns (turns stored, facts stored, already stored). Every turn and fact gets an id
    from the namespace, its session, place and content: running the same file again, or
    again after an interruption, stores nothing twice."""
    sessions = conversation.sessions
    total = sum(len(s.turns) for s in sessions)
    stored = skipped = 0
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(f"ingest into {user!r}", total=total)
        done = 0
        try:
            for session in sessions:
                turns = [
                    {**turn.model_dump(exclude_none=True), "session_id": str(session.id),
                     "ts": session.date, "metadata": {**turn.metadata, "turn": i},
                     "id": turn.id or _ingest_id(user, session.id, i, turn.text)}
                    for i, turn in enumerate(session.turns)
                ]  # fmt: skip
                new = _not_stored(graph, user, turns)
                # same date for the session: insertion order keeps the turns in sequence
                stored += len(graph.add_episodes(user, new)) if new else 0
                skipped += len(turns) - len(new)
                progress.advance(task, len(turns))
                done += 1
        except KeyboardInterrupt:  # a session is one transaction: whole or not at all
            progress.stop()
            console.print(
                f"Interrupted after {done} of {len(sessions)} sessions; {stored} turns stored. "
                "Run the same command again to go on: what is stored is skipped."
            )
            raise typer.Exit(130) from None
    facts = [
        {**f.model_dump(exclude_none=True),
         "id": f.id or _ingest_id(user, "fact", 0, f.model_dump_json(exclude={"id"}))}
        for f in conversation.facts
    ]  # fmt: skip
    new_facts = _not_stored(graph, user, facts)
    written = graph.add_facts(user, new_facts) if new_facts else []
    return stored, len(written), skipped + len(facts) - len(new_facts)


def _ingest_id(user: str, session: object, index: int, text: object) -> str:
    return str(uuid.uuid5(_INGEST_IDS, f"{user}\x00{session}\x00{index}\x00{text}"))


def _not_stored(graph: LiquidGraph, user: str, items: list[dict]) -> list[dict]:
    try:  # one lookup; the namespace is known to the graph after the first
        have = {m.id for m in graph.get_many(user, [x["id"] for x in items])}
    except UnknownNamespaceError:
        return items
    return [x for x in items if x["id"] not in have]


def _hits_table(title: str, hits) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("score", justify="right")
    table.add_column("similarity", justify="right")
    table.add_column("block")
    table.add_column("memory")
    table.add_column("found by")
    for h in hits:
        who = h.memory.speaker
        text = f"{who}: {h.memory.text}" if who else h.memory.text
        if not h.memory.current:
            text = f"[superseded] {text}"
        found = "+".join(s for s in h.sources if s != "walk")
        path = getattr(h, "path", None)
        if path:  # recalled by the walk: show the edges that led here
            found = " > ".join(f"{s.edge}({s.weight:.2f})" for s in path)
        similarity = "" if h.similarity is None else f"{h.similarity:.2f}"
        table.add_row(f"{h.score:.3f}", similarity, h.memory.block, text, found)
    return table


def _stats_table(stats: dict) -> Table:
    table = Table(title=f"graph of {stats['ns']!r} ({stats['backend']})", title_justify="left")
    table.add_column("nodes / edges")
    table.add_column("count", justify="right")
    table.add_column("mean w", justify="right")
    for label, n in stats["nodes"].items():
        table.add_row(label, str(n), "")
    for etype, e in sorted(stats["edges"].items()):
        w = "" if e["mean_w"] is None else f"{e['mean_w']:.3f}"
        table.add_row(f"[{etype}]", str(e["count"]), w)
    return table


DEMO_SESSIONS = [
    ["Hi! My name is Maya.", "I live in Berlin and I work at Acme Corp.",
     "My dog is called Biscuit."],
    ["What is my dog called?", "I moved to Leeds last month.", "Where do I live now?"],
]  # fmt: skip


def _models(console: Console, graph: LiquidGraph):
    """The roles' models of this home (the local server starts on first use), notices
    printed to ``console``."""
    from mags_langgraph.llm import LLMs

    return LLMs(
        models_dir=graph.settings.home / "models",
        adapters_dir=graph.settings.home / "adapters",
        notice=lambda text: console.print(text, style="yellow"),
    )


def _llms(console: Console, graph: LiquidGraph):
    llms = _models(console, graph)
    with console.status("Starting the language model ..."):
        llms.model("respond")  # the local server starts (and says if it is the fallback)
    if llms.local and llms.local.adapters:
        names = ", ".join(f"{role} ({path})" for role, path in llms.local.adapters.items())
        console.print(f"Trained adapters: {names}", style="dim")
    return llms


@app.command()
def demo(home: HomeOpt = None) -> None:
    """Two chat sessions with memory on the embedded default (ArcadeDB + local llama.cpp):
    a fact carried into session 2, a contradiction reconciled with history, the graph."""
    from mags_langgraph.chat import ChatSession

    with _open(home) as graph:
        graph.forget_namespace(DEMO_USER)  # the demo starts from a clean memory each time
        llms = _llms(console, graph)
        for number, lines in enumerate(DEMO_SESSIONS, 1):
            console.rule(f"session {number}" + (" (a new conversation: only memory carries over)"
                                                if number > 1 else ""))  # fmt: skip
            chat = ChatSession(graph, llms, DEMO_USER, session=f"demo-{number}", console=console)
            for line in lines:
                chat.say(line, echo=True)
                if number > 1 and line == lines[0]:
                    chat.show_why()  # what session 1 left that this answer found
        console.rule("what memory holds now")
        chat.show_history("lives_in")
        console.print(_stats_table(graph.stats(DEMO_USER)))
        calls = llms.usage.totals()
        turns = sum(map(len, DEMO_SESSIONS))
        console.print(
            f"{turns} turns, {calls['calls']} model calls ({calls['calls'] / turns:.1f} per turn), "
            f"{calls['prompt_tokens']} prompt tokens."
        )
        console.print(
            f"\nThe memory stays in {graph.backend.describe}; continue it with: "
            f"mags chat --user {DEMO_USER}"
        )


@app.command()
def chat(
    user: str = typer.Option(..., "--user", "-u", help="Whose memory (a namespace)."),
    home: HomeOpt = None,
) -> None:
    """Chat with memory: what you say is remembered across runs. /help lists commands."""
    from mags_langgraph.chat import HELP, ChatSession
    from mags_langgraph.loop import check_user

    user = check_user(user)  # before the store opens

    with _open(home) as graph:
        session = ChatSession(graph, _llms(console, graph), user, console=console)
        console.print(f"Chatting as {user!r} ({graph.backend.describe}). {HELP.splitlines()[0]} "
                      "/help; /quit or Ctrl-D to leave.")  # fmt: skip
        while True:
            try:
                line = console.input(f"[bold cyan]{user}>[/] ").strip()
            except (EOFError, KeyboardInterrupt):
                console.print()
                break
            if not line:
                continue
            if line.startswith("/"):
                if not session.command(line):
                    break
                continue
            try:
                session.say(line)
            except MagsError as e:  # bad input: say so, keep chatting
                console.print(f"[red]error:[/red] {e}", soft_wrap=True)  # one line, any width
            except KeyboardInterrupt:  # Ctrl-C cancels the turn, not the chat
                console.print("\n[yellow](turn cancelled)[/yellow]")


@app.command()
def mcp(
    user: str = typer.Option(
        ...,
        "--user",
        "-u",
        envvar="MAGS_MCP_USER",
        help="Whose memory the server serves (a namespace, fixed while it runs).",
    ),
    transport: str = typer.Option(
        "stdio",
        help="stdio (the MCP client starts this command) or http (streamable HTTP, at "
        "http://HOST:PORT/mcp).",
    ),
    host: str = typer.Option(
        "127.0.0.1", help="Address the http transport listens on (no authentication)."
    ),
    port: int = typer.Option(8000, help="Port of the http transport."),
    home: HomeOpt = None,
) -> None:
    """Serve USER's memory to MCP clients: tools recall, search, remember, forget, history;
    resource mags://stats."""
    from mags_langgraph.loop import MemoryLoop, check_user
    from mags_langgraph.mcp_server import serve

    user = check_user(user)  # before the store opens
    if transport not in ("stdio", "http"):
        raise InvalidInputError(f"--transport must be stdio or http, not {transport!r}")
    said = Console(stderr=True)  # stdout carries the stdio transport's messages: nothing else
    with LiquidGraph(_settings(home)) as graph:
        llms = _models(said, graph)  # only remember may need a model (engram, reconcile)
        where = "stdio" if transport == "stdio" else f"http://{host}:{port}/mcp"
        said.print(
            f"MAGS MCP server of {user!r} ({graph.backend.describe}) on {where}", soft_wrap=True
        )
        if transport == "http" and host not in ("127.0.0.1", "localhost", "::1"):
            said.print(f"{host} is not loopback: whoever reaches it reads and changes "
                       f"{user!r}'s memory (no authentication)", style="yellow")  # fmt: skip
        serve(MemoryLoop(graph, llms), user, transport=transport, host=host, port=port)  # type: ignore[arg-type]


@app.command()
def api(
    host: HostOpt = "127.0.0.1", port: PortOpt = 8765, token: TokenOpt = None, home: HomeOpt = None
) -> None:
    """Serve the memory as a REST API: /v1/namespaces/{ns}/... (schema at /openapi.json,
    docs at /docs)."""
    _serve(host, port, token, home, ui=False)


@app.command()
def ui(
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8765,
    token: TokenOpt = None,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the UI in the default browser.")
    ] = True,
    home: HomeOpt = None,
) -> None:
    """See and steer the memory in the browser: the graph, recall and its walk, edits,
    knobs with a maintenance preview, snapshots, charts and a chat (the REST API beside)."""
    _serve(host, port, token, home, ui=True, open_browser=open_browser)


def _serve(
    host: str, port: int, token: str | None, home: Path | None, *, ui: bool,
    open_browser: bool = False,
) -> None:  # fmt: skip
    from mags_langgraph.api import create_app, is_loopback, serve
    from mags_langgraph.loop import MemoryLoop

    if not is_loopback(host) and not token:  # before the store opens
        raise InvalidInputError(
            f"{host} is not loopback: set MAGS_API_TOKEN (or --token) so requests must carry it"
        )
    with LiquidGraph(_settings(home)) as graph:
        llms = _models(console, graph)  # remember and chat may need a model
        loop = MemoryLoop(graph, llms)  # type: ignore[arg-type]
        app_ = create_app(graph, loop, token, ui=ui)
        auth = "bearer token required" if token else "no token"
        where = f"http://{host}:{port}"
        console.print(
            f"MAGS REST API ({graph.backend.describe}) on {where}/v1 ({auth})", soft_wrap=True
        )
        if ui:
            console.print(f"MAGS UI on [bold]{where}/ui/[/] (Ctrl-C stops)", soft_wrap=True)
            if open_browser:
                threading.Timer(1.0, webbrowser.open, [f"{where}/ui/"]).start()
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises Ctrl-C after its shutdown
            serve(app_, host=host, port=port, token=token)


@app.command()
def ingest(
    path: Annotated[Path | None, typer.Argument(help="The conversation file (JSON).")] = None,
    user: str = typer.Option("", help="Namespace to store under."),
    schema: bool = typer.Option(False, "--schema", help="Print the file's JSON schema."),
    home: HomeOpt = None,
) -> None:
    """Store a conversation file (JSON: sessions of turns, optional facts); again, or after
    an interruption, it stores only what is not stored yet."""
    if schema:
        console.print_json(conversation_schema())
        return
    if path is None:
        raise InvalidInputError("mags ingest needs a FILE (its format: mags ingest --schema)")
    conversation = read_conversation(path)  # a bad file is said before the store opens
    if not user:
        raise InvalidInputError("mags ingest needs --user NAME: the namespace to store under")
    from mags_langgraph.chat import plural

    with _open(home) as graph:
        episodes, written, skipped = ingest_conversation(graph, user, conversation)
    more = f" ({skipped} already stored)" if skipped else ""
    console.print(
        f"Stored {plural(episodes, 'turn')} and {plural(written, 'fact')} for {user!r}{more}."
    )


@app.command()
def search(
    user: str,
    query: str,
    k: KOpt = 5,
    blocks: BlocksOpt = "both",
    mode: str = typer.Option("hybrid", help="vector, fulltext, or hybrid (both, fused)."),
    min_similarity: MinSimilarityOpt = None,
    home: HomeOpt = None,
) -> None:
    """What the memory finds for QUERY in USER's namespace."""
    labels_of(blocks)  # a typo is said at once, before the store is opened
    with _open(home) as graph:
        hits = graph.search(user, query, k, blocks, mode, min_similarity=min_similarity)  # type: ignore[arg-type]
        console.print(_hits_table(f"Q: {query}", hits))


@app.command()
def recall(
    user: str,
    query: str,
    k: KOpt = 5,
    blocks: BlocksOpt = "both",
    history: bool = typer.Option(False, help="Include superseded facts."),
    as_of: str | None = typer.Option(
        None, help="The memory as it stood then (a date or time, ISO 8601: 2026-03-01)."
    ),
    asker: str | None = typer.Option(
        None, help="Who asks: 'I', 'my' in QUERY mean them (default: USER)."
    ),
    min_similarity: MinSimilarityOpt = None,
    home: HomeOpt = None,
) -> None:
    """What the memory recalls for QUERY (anchors + walk), and the path to each memory."""
    labels_of(blocks)
    with _open(home) as graph:
        hits = graph.recall(
            user, query, k, blocks, as_of, history=history, asker=asker or user,  # type: ignore[arg-type]
            min_similarity=min_similarity,
        )  # fmt: skip
        console.print(_hits_table(f"Q: {query}", hits))


@app.command()
def maintain(user: str, home: HomeOpt = None) -> None:
    """Decay, prune, consolidate and forget in USER's memory; prints what changed."""
    from mags_langgraph.stats_log import StatsLog

    with _open(home) as graph:
        report = graph.maintain(user)
        StatsLog.of(graph).record(graph, user, force=True)  # a point of the UI's charts
    table = Table(title=f"maintenance of {user!r}", title_justify="left")
    table.add_column("what")
    table.add_column("value", justify="right")
    for key, value in report.model_dump().items():
        if key != "ns":
            if value is None:
                continue  # not counted by an incremental pass
            shown = f"{value:.2f}" if isinstance(value, float) else str(value)
            table.add_row(key.replace("_", " "), shown)
    console.print(table)


@app.command()
def inspect(
    user: str,
    memory_id: str | None = typer.Argument(None, help="One memory (an id or its prefix)."),
    limit: int = typer.Option(10, help="How many current facts and newest turns to list."),
    home: HomeOpt = None,
) -> None:
    """What USER's memory holds: its size, current facts and newest turns; or one memory."""
    with _open(home) as graph:
        if memory_id:
            from mags_langgraph.chat import find_memory

            m = find_memory(graph, user, memory_id)
            table = Table(title=f"{m.block} memory {m.id}", title_justify="left")
            table.add_column("field")
            table.add_column("value")
            table.add_row("text", m.text)
            for key, value in sorted(m.properties.items()):
                table.add_row(key, f"{value:.3f}" if isinstance(value, float) else str(value))
            console.print(table)
            return
        console.print(_stats_table(graph.stats(user)))
        facts = Table(title="current facts (newest first)", title_justify="left")
        for col in ("id", "subject", "predicate", "object", "confidence", "importance"):
            facts.add_column(col)
        current = [m for m in graph.list(user, "semantic", limit=1000)
                   if m.current][:limit]  # fmt: skip
        for m in current:
            p = m.properties
            scores = (f"{p.get(k, 0):.2f}" for k in ("confidence", "importance"))
            facts.add_row(m.id[:8], p["subject"], p["predicate"], p["object"], *scores)
        console.print(facts)
        turns = Table(title="newest turns", title_justify="left")
        for col in ("id", "speaker", "text"):
            turns.add_column(col)
        for m in graph.list(user, "episodic", limit=limit):
            turns.add_row(m.id[:8], str(m.speaker or ""), m.text)
        console.print(turns)


@app.command()
def stats(user: str, home: HomeOpt = None) -> None:
    """Nodes and edges of USER's memory."""
    with _open(home) as graph:
        console.print(_stats_table(graph.stats(user)))


@app.command()
def namespaces(home: HomeOpt = None) -> None:
    """The namespaces (users, agents) that hold memories."""
    with _open(home) as graph:
        for ns in graph.namespaces():
            console.print(ns)


@app.command()
def snapshot(user: str, path: Path, home: HomeOpt = None) -> None:
    """Export USER's memory to a snapshot file."""
    with _open(home) as graph:
        console.print(f"Wrote {graph.export(user, path)}")


@app.command()
def restore(
    path: Path,
    user: str | None = typer.Option(None, help="Namespace to restore into (default: the file's)."),
    replace: bool = typer.Option(
        False, "--replace", "--yes", help="Replace a namespace that has memories without asking."
    ),
    home: HomeOpt = None,
) -> None:
    """Restore a snapshot into USER's namespace (default: the snapshot's own); asks before
    replacing a namespace that holds memories."""
    with _open(home) as graph:
        try:
            counts = graph.restore(path, user, replace=replace)
        except NamespaceOccupiedError as e:
            typer.confirm(f"{e.ns!r} holds memories. Replace them with {path.name}?", abort=True)
            counts = graph.restore(path, user, replace=True)
    console.print(f"Restored {counts['nodes']} nodes and {counts['edges']} edges.")


@app.command()
def forget(
    user: str, yes: bool = typer.Option(False, "--yes", help="Do not ask."), home: HomeOpt = None
) -> None:
    """Delete everything USER's namespace holds."""
    if not yes:
        typer.confirm(f"Delete all memories of {user!r}?", abort=True)
    with _open(home) as graph:
        console.print(f"Deleted {graph.forget_namespace(user)} nodes.")


engine_app = typer.Typer(
    help="The embedded engine: one background process per MAGS home, shared by every MAGS "
    "process, stopped after MAGS_ENGINE_IDLE_S unused.",
    no_args_is_help=True,
)
app.add_typer(engine_app, name="engine")


@engine_app.command("status")
def engine_status(home: HomeOpt = None) -> None:
    """Whether the home's engine runs, since when, and which processes use it."""
    from graph_db import engine_status as status
    from mags_langgraph.chat import plural

    where = _settings(home).home
    info = status(where)
    if info is None:
        console.print(f"No engine runs for {where} (the next MAGS command starts one).")
        return
    users = ", ".join(map(str, info["clients"])) or "none"
    console.print(
        f"Engine of {where}: pid {info['pid']}, Bolt on 127.0.0.1:{info['bolt_port']}, up "
        f"{info['uptime_s']:.0f} s; used by {plural(len(info['clients']), 'process')}"
        f" ({users}); stops after {info['idle_s']:.0f} s unused."
    )


@engine_app.command("stop")
def engine_stop(home: HomeOpt = None) -> None:
    """Stop the home's engine now (processes still using it start it again when needed)."""
    from graph_db import stop_engine

    where = _settings(home).home
    stopped = stop_engine(where)
    console.print(f"Stopped the engine of {where}." if stopped else f"No engine runs for {where}.")


def _plugin_commands() -> None:
    """Commands other layers add (entry point group ``mags.commands``): ``mags tune`` comes
    from finetune, which this layer may not import."""
    from importlib.metadata import entry_points

    for ep in entry_points(group="mags.commands"):
        app.command(name=ep.name)(ep.load())


_plugin_commands()


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    # the driver logs each transient conflict it retries (and then succeeds): not for a chat
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    try:
        app()
    except MagsError as e:
        console.print(f"[red]error:[/red] {e}", soft_wrap=True)  # one line, any width
        raise SystemExit(2) from e


if __name__ == "__main__":
    main()
