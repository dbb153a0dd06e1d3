"""bench_chat: after a fact changes, does the chat's memory hand the answer the current truth?

    python benchmarks/bench_chat.py                  # 16 users, rules, both engines, ~6 min
    python benchmarks/bench_chat.py --users 4 --engine arcadedb --llm-users 2

A seeded generator writes users who chat over four sessions (new threads: only memory
carries over): they say where they live and work, their pet's name, their favourite colour
and what they love doing, phrased a few ways; they ask questions, about those facts too (the
questions are stored turns as well, and the assistant's replies repeat what was true then:
the distractors that crowded out the answer); in session 3 some facts change ("I moved to
Porto last week", "I just joined Initech") and session 4 asks about every fact, phrased
freely ("Which city am I in these days?").
Every question of session 4 is scored on the memories the loop hands the respond role:
``current`` (the current value is among them), ``first`` (the first memory naming the
current or an earlier value names the current one) and ``update-fidelity`` (both, on the
facts that changed; ``kept``: the current value on the others).
Systems, side by side on each engine: MAGS, each fix of issue 16 turned off alone (the
asker, the question penalty, the stale-turn demotion) and all three off. Engram: the
first-person patterns on every user (the default with the tiny local model); with
``--llm-users N`` also the local LLM as the respond role on N users (its answers scored
too: the current value and no earlier one), writing facts as the engram role alone
(``llm``) or beside the patterns (``both``); ``--adapters DIR`` puts it on trained role
adapters. Writes
benchmarks/results/bench_chat.json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import engines
from bench_store import git_commit, machine
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from graph_db import LiquidGraph
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.settings import AgentSettings

ROOT = Path(__file__).resolve().parent
NAMES = [
    "Maya",
    "Tom",
    "Priya",
    "Jonas",
    "Aiko",
    "Lucas",
    "Fatima",
    "Noah",
    "Elena",
    "Kofi",
    "Sofia",
    "Mateo",
    "Hana",
    "Oliver",
    "Zara",
    "Ivan",
    "Chloe",
    "Ravi",
    "Lena",
    "Omar",
]
CITIES = [
    "Lisbon",
    "Porto",
    "Leeds",
    "Berlin",
    "Oslo",
    "Lyon",
    "Madrid",
    "Dublin",
    "Krakow",
    "Vienna",
    "Seville",
    "Glasgow",
    "Ghent",
    "Turin",
    "Bergen",
    "Utrecht",
]
COMPANIES = [
    "Acme Corp",
    "Initech",
    "Globex",
    "Umbrella Labs",
    "Hooli",
    "Vandelay Imports",
    "Stark Industries",
    "Wonka Foods",
    "Soylent Systems",
    "Tyrell Robotics",
]
PETS = ["Biscuit", "Pepper", "Mochi", "Rex", "Luna", "Ziggy", "Olive", "Bruno"]
COLOURS = ["green", "blue", "orange", "purple", "yellow", "red", "teal"]
HOBBIES = [
    "hiking in the mountains",
    "baking bread",
    "playing chess",
    "rock climbing",
    "painting watercolours",
    "running marathons",
]
SAY = {
    "city": ["I live in {v}.", "I currently live in {v}."],
    "job": ["I work at {v}.", "I work for {v} as an engineer."],
    "pet": ["My dog is called {v}.", "My cat is named {v}."],
    "colour": ["My favourite colour is {v}.", "My favorite colour is {v}, always has been."],
    "hobby": ["I love {v}.", "I really enjoy {v}."],
}
CHANGE = {
    "city": [
        "I moved to {v} last week.",
        "I relocated to {v} a few days ago.",
        "Big news: I now live in {v}.",
    ],
    "job": ["I just joined {v}.", "I started a new job at {v} on Monday.", "I now work at {v}."],
    "colour": ["My favourite colour is {v} now.", "These days my favourite colour is {v}."],
}
ASK = {
    "city": [
        "Where do I live now?",
        "Which city am I in these days?",
        "Where is my home?",
        "Do you remember where I live?",
    ],
    "job": [
        "Where do I work now?",
        "Which company am I with?",
        "Who is my employer?",
        "Where do I work these days?",
    ],
    "pet": ["What is my pet called?", "What's my pet's name again?"],
    "colour": ["What is my favourite colour?", "Which colour do I like best?"],
    "hobby": ["What do I love doing?", "What is my favourite pastime?"],
}
REPLY = {
    "city": "You live in {v}.", "job": "You work at {v}.", "pet": "Your pet is {v}.",
    "colour": "Your favourite colour is {v}.", "hobby": "You love {v}.",
}  # fmt: skip
SMALL = [
    "Can you recommend a good book?",
    "Thanks, that helps!",
    "What should I cook tonight?",
    "Any tips for sleeping better?",
    "Haha, good one.",
]
PHATIC = ["Good to know!", "Happy to help.", "Sounds great.", "Noted, thanks for telling me."]
SYSTEMS: dict[str, tuple[dict, dict]] = {  # name: (graph settings, agent settings)
    "MAGS": ({}, {}),
    "no asker": ({}, {"recall_as_asker": False}),
    "no question penalty": ({"recall_question_penalty": 0.0}, {}),
    "no corrections first": ({"recall_corrections_first": False}, {}),
    "all three off": (
        {"recall_question_penalty": 0.0, "recall_corrections_first": False},
        {"recall_as_asker": False},
    ),
}  # fmt: skip


@dataclass
class Turn:
    text: str
    reply: str
    probe: str | None = None  # the fact a session-4 question asks about
    current: str = ""
    earlier: list[str] = field(default_factory=list)


@dataclass
class User:
    name: str
    sessions: list[list[Turn]]


def make_user(rng: random.Random, name: str) -> User:
    """One user's four sessions (see the module doc)."""
    now = {"city": rng.choice(CITIES), "job": rng.choice(COMPANIES), "pet": rng.choice(PETS),
           "colour": rng.choice(COLOURS), "hobby": rng.choice(HOBBIES)}  # fmt: skip
    before: dict[str, list[str]] = {k: [] for k in now}

    def said(kind: str, templates=SAY) -> Turn:
        return Turn(rng.choice(templates[kind]).format(v=now[kind]), rng.choice(PHATIC))

    def asked(kind: str) -> Turn:
        return Turn(rng.choice(ASK[kind]), REPLY[kind].format(v=now[kind]))

    intro = [Turn(f"Hi! My name is {name}.", f"Nice to meet you, {name}!")]
    intro += [said(k) for k in rng.sample(list(now), len(now))]
    intro.insert(3, Turn(rng.choice(SMALL), rng.choice(PHATIC)))
    recap = [asked(k) for k in rng.sample(list(now), 3)] + [Turn(rng.choice(SMALL), "Sure.")]
    changes = rng.sample(list(CHANGE), rng.randint(1, len(CHANGE)))
    if "city" not in changes:
        changes.append("city")  # every user moves: the case, once each
    moved = []
    for kind in changes:
        pool = {"city": CITIES, "job": COMPANIES, "colour": COLOURS}[kind]
        before[kind].append(now[kind])
        now[kind] = rng.choice([v for v in pool if v not in (now[kind], *before[kind])])
        moved.append(said(kind, CHANGE))
        moved.append(asked(kind) if rng.random() < 0.5 else Turn(rng.choice(SMALL), "Sure."))
    final = []
    for kind in rng.sample(list(now), len(now)):
        t = asked(kind)
        t.probe, t.current, t.earlier = kind, now[kind], list(before[kind])
        final.append(t)
    return User(name, [intro, recap, moved, final])


def make_users(n: int, seed: int) -> list[User]:
    rng = random.Random(seed)
    return [make_user(rng, name) for name in rng.sample(NAMES, min(len(NAMES), n))]


def names_value(text: str, value: str) -> bool:
    return re.search(rf"\b{re.escape(value.lower())}\b", text.lower()) is not None


def score(turn: Turn, texts: list[str], answer: str | None) -> dict:
    """The session-4 question's scores on the memories handed to the respond role."""
    current = any(names_value(t, turn.current) for t in texts)
    mentions = [t for t in texts if any(names_value(t, v) for v in [turn.current, *turn.earlier])]
    first = bool(mentions) and names_value(mentions[0], turn.current)
    out = {"probe": turn.probe, "changed": bool(turn.earlier), "current": current,
           "first": first, "text": turn.text, "memories": texts}  # fmt: skip
    if answer is not None:
        out["answer"] = answer
        out["answer_right"] = names_value(answer, turn.current) and not any(
            names_value(answer, v) for v in turn.earlier
        )
    return out


def run_user(loop: MemoryLoop, ns: str, user: User, respond: bool) -> list[dict]:
    """Replays one user's sessions; the scores of session 4's questions."""
    out = []
    for number, session in enumerate(user.sessions, 1):
        thread: list[BaseMessage] = []
        for turn in session:
            ctx = loop.before(ns, turn.text, session=f"s{number}")
            thread.append(HumanMessage(turn.text))
            answer = loop.respond(ctx, thread) if respond else turn.reply
            thread.append(AIMessage(answer))
            loop.after(ctx, answer)
            if turn.probe:
                texts = [m.memory.text for m in ctx.memories]
                out.append(score(turn, texts, answer if respond else None))
    return out


def summarise(scores: list[dict]) -> dict:
    def share(rows: list[dict], key: str) -> float | None:
        return sum(r[key] for r in rows) / len(rows) if rows else None

    changed = [s for s in scores if s["changed"]]
    kept = [s for s in scores if not s["changed"]]
    fidelity = [{"ok": s["current"] and s["first"]} for s in changed]
    out = {
        "questions": len(scores),
        "update_fidelity": share(fidelity, "ok"),
        "changed_current": share(changed, "current"),
        "changed_first": share(changed, "first"),
        "kept_current": share(kept, "current"),
    }
    if scores and "answer_right" in scores[0]:
        out["answers_right_changed"] = share(changed, "answer_right")
        out["answers_right_kept"] = share(kept, "answer_right")
    return out


def agent_settings(mode: str, **over) -> AgentSettings:
    """``mode``: who writes the facts (AgentSettings.engram): rules, llm or both."""
    return AgentSettings(engram=mode, reconcile="rules", llm_base_url=None, llm_api_key=None,
                         **over)  # fmt: skip


def chat_scores(
    graph: LiquidGraph, agent: AgentSettings, users: list[User], llms: LLMs | None = None
) -> list[dict]:
    """Every user's chat replayed afresh in ``graph``; the scores of their last session."""
    loop = MemoryLoop(graph, llms or LLMs(agent), agent)
    scores = []
    for u in tqdm(users, desc="users", leave=False):
        ns = u.name.lower()  # a user id as chats have them; each system starts afresh
        graph.forget_namespace(ns)
        scores += run_user(loop, ns, u, respond=llms is not None)
    return scores


def run_system(engine, system: str, mode: str, users: list[User], llms: LLMs | None) -> dict:
    graph_over, agent_over = SYSTEMS[system]
    settings = engine.settings.model_copy(update=graph_over)
    started = time.perf_counter()
    with LiquidGraph(settings) as graph:
        scores = chat_scores(graph, agent_settings(mode, **agent_over), users, llms)
    return {"engine": engine.name, "system": system, "mode": mode,
            "seconds": time.perf_counter() - started, "summary": summarise(scores),
            "scores": scores}  # fmt: skip


def table(results: list[dict]) -> Table:
    t = Table(title="bench_chat: the current truth after a change", title_justify="left")
    cols = [
        ("update_fidelity", "fidelity"),
        ("changed_current", "chg current"),
        ("changed_first", "chg first"),
        ("kept_current", "kept current"),
        ("answers_right_changed", "answer chg"),
        ("answers_right_kept", "answer kept"),
    ]
    if not any("answers_right_changed" in r["summary"] for r in results):
        cols = cols[:4]  # fmt: skip
    for name in ["engine", "engram", "system", *(c for _, c in cols), "questions", "s"]:
        t.add_column(name, justify="left" if name in ("engine", "engram", "system") else "right")
    for r in results:
        s = r["summary"]
        cells = ["-" if s.get(key) is None else f"{s[key]:.0%}" for key, _ in cols]
        t.add_row(r["engine"], r["mode"], r["system"], *cells, str(s["questions"]),
                  f"{r['seconds']:.0f}")  # fmt: skip
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=16, help="users on the patterns (rules)")
    ap.add_argument("--llm-users", type=int, default=0, help="users on the local LLM too")
    ap.add_argument(
        "--adapters", type=Path, help="the local LLM's role adapters (default: none, the base)"
    )
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--home", type=Path, help="keep the stores here (default: a temporary folder)")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_chat.json")
    engines.add_options(ap)
    args = ap.parse_args()
    users = make_users(max(args.users, args.llm_users), args.seed)
    console = Console(width=150)
    results = []
    with tempfile.TemporaryDirectory(prefix="mags-bench-chat-") as tmp:
        home = args.home or tmp
        for name in engines.selected(args):
            with engines.running(name, Path(home) / name, args) as engine:
                for system in args.systems:
                    results.append(run_system(engine, system, "rules", users[: args.users], None))
                if args.llm_users and name == "arcadedb":  # the model's time, not the engine's
                    folder = args.adapters or Path(home) / "no-adapters"
                    agent = agent_settings("llm", local_adapters=folder)
                    llms = LLMs(agent, notice=lambda text: console.print(text, style="yellow"))
                    for system, mode in (
                        ("MAGS", "llm"),
                        ("MAGS", "both"),
                        ("all three off", "llm"),
                    ):
                        results.append(run_system(engine, system, mode,
                                                  users[: args.llm_users], llms))  # fmt: skip
    console.print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"commit": git_commit(), "machine": machine(), "seed": args.seed,
               "users": len(users), "results": results}  # fmt: skip
    args.out.write_text(json.dumps(payload, indent=1, default=float))
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
