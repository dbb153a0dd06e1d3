"""``mags``: the command line of MAGS.

mags demo                      ingest a small conversation, recall from it, show the graph
mags ingest conversation.json  store a conversation (same format as the demo's)
mags recall USER "question"    what the memory recalls for a question (and why)
mags search USER "question"    plain hybrid search (vector + full-text)
mags maintain USER             decay, prune, consolidate, forget
mags stats USER | namespaces | snapshot USER FILE | restore FILE | forget USER
"""

from __future__ import annotations

import json
import logging
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from graph_db import GraphSettings, LiquidGraph, MagsError

app = typer.Typer(
    help="MAGS: a memory for LLM agents that learns while it is used.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
HomeOpt = Annotated[
    Path | None, typer.Option("--home", help="MAGS home (default: MAGS_HOME or the user data dir).")
]
DEMO_USER = "maya"


def _open(home: Path | None) -> LiquidGraph:
    settings = GraphSettings(home=home) if home else GraphSettings()
    with console.status(f"Opening the memory in {settings.neo4j_uri or settings.home} ..."):
        return LiquidGraph(settings)


def _demo_file() -> Path:
    return Path(str(resources.files("mags_langgraph") / "data" / "demo_conversation.json"))


def ingest_conversation(graph: LiquidGraph, user: str, path: Path) -> tuple[int, int]:
    """Store each session's turns (one transaction per session) and the listed facts."""
    data = json.loads(path.read_text(encoding="utf-8"))
    episodes = 0
    for session in data["sessions"]:
        turns = [
            {**turn, "session_id": session["id"], "ts": session["date"], "metadata": {"turn": i}}
            for i, turn in enumerate(session["turns"])
        ]
        # same date for the session: insertion order keeps the turns in sequence
        episodes += len(graph.add_episodes(user, turns))
    facts = graph.add_facts(user, data.get("facts", []))
    return episodes, len(facts)


def _hits_table(title: str, hits) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("score", justify="right")
    table.add_column("block")
    table.add_column("memory")
    table.add_column("found by")
    for h in hits:
        who = h.memory.properties.get("speaker")
        text = f"{who}: {h.memory.text}" if who else h.memory.text
        found = "+".join(s for s in h.sources if s != "walk")
        path = getattr(h, "path", None)
        if path:  # recalled by the walk: show the edges that led here
            found = " > ".join(f"{s.edge}({s.weight:.2f})" for s in path)
        table.add_row(f"{h.score:.3f}", h.memory.block, text, found)
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


@app.command()
def demo(home: HomeOpt = None, k: int = 4) -> None:
    """Ingest a small two-session conversation, recall from it, and show the graph."""
    path = _demo_file()
    data = json.loads(path.read_text(encoding="utf-8"))
    with _open(home) as graph:
        graph.forget_namespace(DEMO_USER)  # the demo starts from a clean memory each time
        episodes, facts = ingest_conversation(graph, DEMO_USER, path)
        console.print(f"Stored {episodes} turns and {facts} facts for user {DEMO_USER!r}.\n")
        for question in data["questions"]:
            hits = graph.recall(DEMO_USER, question, k=k)
            console.print(_hits_table(f"Q: {question}", hits))
        console.print(_stats_table(graph.stats(DEMO_USER)))
        console.print(
            f"\nThe memory stays in {graph.settings.home}; try: mags recall {DEMO_USER} "
            '"Where does Maya live?"'
        )


@app.command()
def ingest(
    path: Path,
    user: str = typer.Option(..., help="Namespace to store under."),
    home: HomeOpt = None,
) -> None:
    """Store a conversation file (JSON: sessions with turns, optional facts)."""
    with _open(home) as graph:
        episodes, facts = ingest_conversation(graph, user, path)
    console.print(f"Stored {episodes} turns and {facts} facts for {user!r}.")


@app.command()
def search(
    user: str,
    query: str,
    k: int = 5,
    blocks: str = "both",
    mode: str = "hybrid",
    home: HomeOpt = None,
) -> None:
    """What the memory finds for QUERY in USER's namespace."""
    with _open(home) as graph:
        console.print(_hits_table(f"Q: {query}", graph.search(user, query, k, blocks, mode)))


@app.command()
def recall(
    user: str,
    query: str,
    k: int = 5,
    blocks: str = "both",
    history: bool = typer.Option(False, help="Include superseded facts."),
    home: HomeOpt = None,
) -> None:
    """What the memory recalls for QUERY (anchors + walk), and the path to each memory."""
    with _open(home) as graph:
        hits = graph.recall(user, query, k, blocks, history=history)  # type: ignore[arg-type]
        console.print(_hits_table(f"Q: {query}", hits))


@app.command()
def maintain(user: str, home: HomeOpt = None) -> None:
    """Decay, prune, consolidate and forget in USER's memory; prints what changed."""
    with _open(home) as graph:
        report = graph.maintain(user)
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
def restore(path: Path, user: str | None = None, home: HomeOpt = None) -> None:
    """Replace a namespace with a snapshot (default: the snapshot's own namespace)."""
    with _open(home) as graph:
        counts = graph.restore(path, user)
    console.print(f"Restored {counts['nodes']} nodes and {counts['edges']} edges.")


@app.command()
def forget(user: str, yes: bool = typer.Option(False, "--yes", help="Do not ask.")) -> None:
    """Delete everything USER's namespace holds."""
    if not yes:
        typer.confirm(f"Delete all memories of {user!r}?", abort=True)
    with _open(None) as graph:
        console.print(f"Deleted {graph.forget_namespace(user)} nodes.")


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    try:
        app()
    except MagsError as e:
        console.print(f"[red]error:[/red] {e}")
        raise SystemExit(2) from e


if __name__ == "__main__":
    main()
