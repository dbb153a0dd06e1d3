"""A chat session over the MAGS graph: what ``mags chat`` and ``mags demo`` drive.

Each message runs the compiled memory graph (``nodes.build_mags_graph``); the answer is
streamed from the respond node; a dim line after it says what memory did (recalled,
used, stored, facts written or superseded). Slash commands look inside the memory.
"""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph.checkpoint.memory import InMemorySaver
from rich.console import Console
from rich.table import Table

from graph_db import LiquidGraph, MagsError, Memory, NotFoundError
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop, check_user
from mags_langgraph.nodes import build_mags_graph, memories_of, writes_of

HELP = """Commands:
  /memories            the newest memories and the graph's size
  /why                 what the last answer recalled, why, and what it used
  /history [SUBJECT] PREDICATE   every value a fact has had (SUBJECT: you)
  /forget ID           forget one memory (ids: /memories, /why)
  /snapshot [FILE]     save your memory to a file (mags restore FILE --replace brings it back)
  /help, /quit"""


def plural(n: int, word: str) -> str:
    """ "1 turn", "2 turns", "3 entities", "2 processes"."""
    if n == 1:
        return f"{n} {word}"
    if word.endswith("y"):
        return f"{n} {word[:-1]}ies"
    return f"{n} {word}es" if word.endswith(("s", "x", "ch", "sh")) else f"{n} {word}s"


class ChatSession:
    """One conversation (a LangGraph thread) of ``user`` with memory."""

    def __init__(
        self,
        graph: LiquidGraph,
        llms: LLMs,
        user: str,
        *,
        session: str | None = None,
        console: Console | None = None,
    ) -> None:
        self.graph, self.user = graph, check_user(user)
        self.console = console or Console()
        self.loop = MemoryLoop(graph, llms)
        self.app = build_mags_graph(self.loop, checkpointer=InMemorySaver())
        self.session = session or f"{user}-{datetime.now(UTC):%Y%m%d-%H%M%S}"
        self.config = {"configurable": {"thread_id": self.session, "user_id": user}}
        self.last: dict[str, Any] = {}

    # -- a turn ----------------------------------------------------------------------
    def say(self, text: str, *, echo: bool = False) -> dict[str, Any]:
        """Run one turn; the answer is printed as it streams. Returns the turn's state."""
        if echo:
            self.console.print(f"[bold cyan]{self.user}>[/] {text}")
        self.console.print("[bold green]mags>[/] ", end="")
        started = time.perf_counter()
        for chunk, meta in self.app.stream(
            {"messages": [("user", text)]}, self.config, stream_mode="messages"
        ):
            streamed = isinstance(chunk, AIMessageChunk)  # the node's own message repeats them
            failed = isinstance(chunk, AIMessage) and chunk.additional_kwargs.get("mags_error")
            if meta.get("langgraph_node") == "respond" and (streamed or failed):
                self.console.print(chunk.text, end="", markup=False, highlight=False)
        self.console.print()
        self.last = self.app.get_state(self.config).values
        summary = self._summary(self.last, time.perf_counter() - started)
        self.console.print(summary, style="dim", markup=False, highlight=False)
        return self.last

    def _summary(self, state: dict[str, Any], seconds: float) -> str:
        memories, used = memories_of(state), state.get("used") or []
        parts = [f"recalled {len(memories)}, used {len(used)}"]
        parts.append(f"stored {plural(len(state.get('episode_ids') or []), 'turn')}")
        writes = writes_of(state)
        ids = [i for w in writes for i in (w.id, *w.supersedes)]
        facts = {m.id: m.properties for m in self.graph.get_many(self.user, ids)} if ids else {}
        for w in writes:
            p = facts[w.id]
            what = f"{p['predicate']}={p['object']}"
            if w.supersedes:
                old = [facts[i]["object"] for i in w.supersedes if i in facts]
                parts.append(f"updated {what} (was {', '.join(old)})")
            elif w.action == "rejected":
                parts.append(f"kept as history {what} ({w.reason})")
            else:
                parts.append(f"{'confirmed' if w.action == 'merged' else 'learned'} {what}")
        if (state.get("engram") or {}).get("failed"):
            parts.append("fact extraction failed: turn stored as is")
        return f"  [memory: {'; '.join(parts)} · {seconds:.1f} s]"

    # -- commands ----------------------------------------------------------------------
    def command(self, line: str) -> bool:
        """Run a slash command; False when the session should end."""
        name, *args = line.strip().split()
        name = name.lower()
        try:
            if name in ("/quit", "/exit", "/q"):
                return False
            handler = {
                "/memories": self.show_memories,
                "/why": self.show_why,
                "/history": self.show_history,
                "/forget": self.forget,
                "/snapshot": self.snapshot,
            }.get(name)
            if handler is None:
                self.console.print(HELP)
            else:
                handler(*args)
        except TypeError:
            self.console.print(f"[red]usage:[/red] see /help for {name}")
        except MagsError as e:
            self.console.print(f"[red]{e}[/red]")
        return True

    def show_memories(self, limit: str = "15") -> None:
        table = Table(title=f"newest memories of {self.user!r}", title_justify="left")
        for col in ("id", "block", "memory"):
            table.add_column(col)
        for m in self.graph.list(self.user, limit=int(limit)):
            who = m.speaker
            table.add_row(m.id[:8], m.block, f"{who}: {m.text}" if who else m.text)
        self.console.print(table)
        s = self.graph.stats(self.user)
        nodes = ", ".join(plural(n, label.lower()) for label, n in s["nodes"].items())
        edges = sum(e["count"] for e in s["edges"].values())
        self.console.print(f"{nodes}; {plural(edges, 'edge')}", style="dim")

    def show_why(self) -> None:
        memories, used = memories_of(self.last), set(self.last.get("used") or [])
        if not memories:
            self.console.print("The last answer recalled nothing.")
            return
        table = Table(title="what the last answer recalled", title_justify="left")
        for col in ("#", "id", "score", "used", "memory", "found by"):
            table.add_column(col)
        for i, r in enumerate(memories, 1):
            path = " > ".join(f"{s.edge}({s.weight:.2f})" for s in r.path)
            found = path or "+".join(r.sources)
            mark = "yes" if r.id in used else ""
            text = r.memory.text if r.memory.current else f"[superseded] {r.memory.text}"
            table.add_row(str(i), r.id[:8], f"{r.score:.2f}", mark, text, found)
        self.console.print(table)

    def show_history(self, *args: str) -> None:
        if not args:
            raise TypeError
        subject, predicate = (self.user, args[0]) if len(args) == 1 else (args[0], args[1])
        table = Table(title=f"{subject} {predicate}", title_justify="left")
        for col in ("value", "from", "to", "confidence"):
            table.add_column(col)
        for m in self.graph.history(self.user, subject, predicate):
            p = m.properties
            table.add_row(p["object"], _day(p.get("valid_from")), _day(p.get("valid_to")) or "now",
                          f"{p.get('confidence', 0):.2f}")  # fmt: skip
        self.console.print(table)

    def forget(self, memory_id: str) -> None:
        gone = self.graph.forget(self.user, find_memory(self.graph, self.user, memory_id).id)
        self.console.print(f"Forgot {plural(len(gone), 'memory')}.")

    def snapshot(self, path: str | None = None) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        where = (
            Path(path)
            if path
            else self.graph.settings.home / "snapshots" / f"{self.user}-{stamp}.json.gz"
        )
        where.parent.mkdir(parents=True, exist_ok=True)
        self.console.print(f"Wrote {self.graph.export(self.user, where)}")


def find_memory(graph: LiquidGraph, user: str, id_or_prefix: str) -> Memory:
    """A memory by its id, or by the start of it as the tables show it (8 characters)."""
    with contextlib.suppress(NotFoundError):
        return graph.get(user, id_or_prefix)
    match = [m for m in graph.list(user, limit=100_000) if m.id.startswith(id_or_prefix)]
    if len(match) != 1:
        raise MagsError(
            f"{plural(len(match), 'memory')} of {user!r} have ids starting"
            f" {id_or_prefix!r}; /memories and /why show the ids"
        )
    return match[0]


def _day(epoch: Any) -> str:
    if not epoch:
        return ""
    return datetime.fromtimestamp(float(epoch), UTC).strftime("%Y-%m-%d %H:%M")
