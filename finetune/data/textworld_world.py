"""TextWorld games as a memory workload: a seeded explorer's transcript and probes from the truth.

Shared by ``benchmarks/bench_textworld.py`` (which replays a run into the store and scores
recall) and whatever else wants the same stream (``mags tune`` workloads): nothing here
stores or scores. ``play(level, seed, probe_every)`` builds one Microsoft TextWorld game for a
named difficulty level (``LEVELS``: world size, objects, quest length; ``cooking`` is the
tw-cooking challenge), plays it with a seeded scripted explorer and returns a ``TextWorldRun``:
an ordered list of events, each an ``Episode`` to store (the player's command, speaker
``player``; the game's answer, speaker ``game``) or a ``Probe`` asked at that moment.

The explorer walks every exit (breadth first to the nearest room with an exit it has not
taken), opens and unlocks what it can, takes objects, puts them on supporters, into
containers or drops them elsewhere, examines things now and then (what the game's walkthrough
examines as soon as it can), and in its last steps
(as many as the game's own walkthrough from the current state, ``policy_commands``, is long,
plus ``POLICY_SLACK``) follows that walkthrough until the quest is done (a won game ends the
run). An observation is the text the game prints, with the room the player is in, as the
status bar shows it ("-= Kitchen =-"), in front when the text does not start with it already
(the banner and the prompt line are dropped).

Probes are built from the game's true state (its facts) after a step, every ``probe_every``
steps: where an object is now, what a container or supporter holds, what lies in a direction
of a room, which key opens a door or container, what the recipe needs (cooking), in varied
phrasings. Each probe's evidence is the episodes that show the current answer: an episode
shows a fact when the fact holds after its step and the episode names every argument (the
inventory counts as named when the step put the object there, or the text lists what the
player carries; a command shows only what its own step changed). An exit is shown by the
step that went through it (either way). A probe whose answer no episode shows is not asked.
``Probe.stale`` holds, for an object that has moved, the episodes that showed it at an
earlier place: the latest place should rank above every one of them.

TextWorld is imported lazily; without it ``play`` raises ``MagsError`` naming
``pip install textworld`` (or the ``textworld`` extra).
"""

from __future__ import annotations

import random
import re
import tempfile
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from graph_db.errors import MagsError

T0 = 1_700_000_000.0  # event time of step 0 (in the past: nothing is "not yet valid")
DT = 30.0  # seconds of event time per step; the game's answer comes 1 s after the command
POLICY_SLACK = 3  # the walkthrough is followed in the last len(walkthrough) + this steps
PER_PROBE = 5  # probes asked at each probe point (fewer when fewer have evidence)
SESSION = "game"

ProbeKind = Literal["where", "contents", "exit", "key", "recipe"]
DIRECTIONS = ("north", "south", "east", "west")
_OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}


@dataclass(frozen=True)
class Level:
    """One difficulty: the generator's world size, objects and quest length, and the
    explorer's step budget."""

    name: str
    rooms: int
    objects: int
    quest_length: int
    steps: int
    cooking: bool = False  # the tw-cooking challenge (rooms/objects/quest then approximate)


LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("easy", rooms=3, objects=5, quest_length=2, steps=30),
        Level("medium", rooms=6, objects=12, quest_length=4, steps=50),
        Level("hard", rooms=10, objects=20, quest_length=6, steps=75),
        Level("harder", rooms=15, objects=30, quest_length=8, steps=120),
        Level("hardest", rooms=20, objects=40, quest_length=10, steps=110),
        # recipe of 3 ingredients, 3 to find, 6 rooms, closed containers, cooking and cutting
        Level("cooking", rooms=6, objects=20, quest_length=12, steps=60, cooking=True),
    )
}


@dataclass(frozen=True)
class Episode:
    """One turn to store: the player's command or the game's answer."""

    id: str  # unique within the run ("t0007-cmd", "t0007-obs"); prefix it per store
    text: str
    speaker: Literal["player", "game"]
    ts: float
    step: int
    session_id: str = SESSION


@dataclass(frozen=True)
class Probe:
    """A question asked after ``step``, with the episodes that show its current answer."""

    question: str
    kind: ProbeKind
    answer: str
    evidence: tuple[str, ...]
    step: int
    subject: str  # the object / container / room+direction / door / "recipe" asked about
    stale: tuple[str, ...] = ()  # "where" of a moved object: episodes of earlier places


Event = Episode | Probe


@dataclass
class TextWorldRun:
    """One game played: the events in order and what the game was."""

    level: str
    seed: int
    events: list[Event] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def episodes(self) -> list[Episode]:
        return [e for e in self.events if isinstance(e, Episode)]

    @property
    def probes(self) -> list[Probe]:
        return [e for e in self.events if isinstance(e, Probe)]

    def segments(self) -> Iterator[tuple[list[Episode], list[Probe]]]:
        """The events as (episodes to store, then probes to ask) blocks, in order."""
        eps: list[Episode] = []
        probes: list[Probe] = []
        for e in self.events:
            if isinstance(e, Episode):
                if probes:
                    yield eps, probes
                    eps, probes = [], []
                eps.append(e)
            else:
                probes.append(e)
        if eps or probes:
            yield eps, probes


def require_textworld() -> Any:
    """The ``textworld`` module, or a ``MagsError`` that names the fix."""
    try:
        import textworld
    except ImportError as e:
        raise MagsError(
            "the TextWorld workload needs Microsoft TextWorld: pip install textworld "
            "(or pip install 'mags[textworld]')"
        ) from e
    return textworld


def build_game(level: str | Level, seed: int, workdir: str | Path) -> Path:
    """Generate and compile the game of ``level`` with ``seed`` into ``workdir`` (kept:
    the same level and seed give the same game and reuse the file)."""
    tw = require_textworld()
    from textworld.generator import compile_game, make_game

    lv = LEVELS[level] if isinstance(level, str) else level
    path = Path(workdir) / f"tw-{lv.name}-{seed}.z8"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    opts = tw.GameOptions()
    opts.seeds = seed
    opts.path = str(path)
    opts.file_ext = ".z8"
    opts.force_recompile = True
    if lv.cooking:
        from textworld.challenges.tw_cooking import cooking

        settings = {"recipe": 3, "take": 3, "go": lv.rooms, "open": True, "cook": True,
                    "cut": True, "drop": False, "recipe_seed": seed, "split": "train"}  # fmt: skip
        game = cooking.make(settings, opts)
    else:
        opts.nb_rooms = lv.rooms
        opts.nb_objects = lv.objects
        opts.quest_length = lv.quest_length
        game = make_game(opts)
    return Path(compile_game(game, opts))


def env_infos() -> Any:
    """What the explorer and the probes read from the game each step."""
    tw = require_textworld()
    return tw.EnvInfos(
        facts=True,
        admissible_commands=True,
        policy_commands=True,
        score=True,
        max_score=True,
        won=True,
        lost=True,
        objective=True,
        extras=["walkthrough"],
    )


# -- the game's text -------------------------------------------------------------------------
_STATUS = re.compile(r"^>\s*(-=\s*(.+?)\s*=-)?.*$")
_BANNER = re.compile(r"^[\s$|\\/_<>]+$")


def clean_feedback(feedback: str) -> tuple[str, str | None]:
    """The game's text without the banner and the prompt line, and the status bar's room."""
    room = None
    lines = []
    for line in feedback.splitlines():
        m = _STATUS.match(line.strip()) if line.strip().startswith(">") else None
        if m:
            room = m.group(2) or room
            continue
        if line.strip() and _BANNER.match(line):
            continue
        lines.append(line.rstrip())
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return text, room


def observation_text(feedback: str, room: str | None) -> str:
    """The game's text, with the room the player is in as the status bar shows it in
    front ("-= Spare Room =-") unless the text starts with it already."""
    text, status_room = clean_feedback(feedback)
    where = status_room or (room.title() if room else None)
    if where and not text.startswith("-="):
        text = f"-= {where} =-\n{text}"
    return text


# -- the true state ----------------------------------------------------------------------------
Fact = tuple[str, tuple[str, ...]]


class World:
    """The facts after a step, read as places, contents, exits and keys."""

    def __init__(self, facts: list[Any]) -> None:
        self.facts: set[Fact] = {
            (str(f.name), tuple(str(a.name) for a in f.arguments)) for f in facts
        }
        self.types = {str(a.name): str(a.type) for f in facts for a in f.arguments}
        self.holder: dict[str, Fact] = {}  # portable object -> its at/in/on fact
        for name, args in self.facts:
            portable = self.types.get(args[0]) not in ("r", "d", "c", "s", "P")
            if name in ("at", "in", "on") and len(args) == 2 and portable:
                self.holder[args[0]] = (name, args)
        self.room = next((a[1] for n, a in self.facts if n == "at" and a[0] == "P"), None)

    def contents(self, holder: str) -> set[str]:
        return {o for o, (n, a) in self.holder.items() if a[1] == holder and n in ("in", "on")}

    def exits(self) -> dict[tuple[str, str], str]:
        """(room, direction) -> the room that lies that way."""
        out = {}
        for name, args in self.facts:
            if name.endswith("_of") and name[:-3] in DIRECTIONS and len(args) == 2:
                out[(args[1], name[:-3])] = args[0]
        return out

    def is_container(self, x: str) -> bool:
        return self.types.get(x) in ("c", "oven", "toaster", "stove", "meal")

    def recipe(self) -> list[str]:
        ings = [(n, a[0]) for n, a in self.facts if re.fullmatch(r"ingredient_\d+", n)]
        return [x for _, x in sorted(ings)]


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


def _shows(ep: Episode, fact: Fact, added: bool) -> bool:
    """Whether ``ep`` (of a step after which ``fact`` holds) shows ``fact``."""
    _name, args = fact
    if ep.speaker == "player" and not added:
        return False
    for a in args:
        if a == "I":
            if not (added or "carrying" in ep.text.lower()):
                return False
        elif not _mentions(ep.text, a):
            return False
    return True


# -- the explorer ------------------------------------------------------------------------------
# how often the explorer picks each kind of move (when it has one)
WEIGHTS = {"explore": 0.45, "open": 0.15, "take": 0.12, "place": 0.11, "examine": 0.1,
           "look": 0.04, "close": 0.03, "wander": 0.03}  # fmt: skip
_NEVER = ("eat ", "drink ", "lock ", "prepare ", "cook ", "slice ", "chop ", "dice ")


def _target(command: str) -> str:
    """What ``open X`` / ``unlock X with K`` acts on."""
    return command.split(" ", 1)[1].split(" with ")[0]


class Explorer:
    """A seeded scripted player: every exit, containers, objects moved around, then the
    walkthrough."""

    def __init__(self, rng: random.Random, walkthrough: list[str] | None = None) -> None:
        self.rng = rng
        self.wanted = {c for c in walkthrough or () if c.startswith("examine ")}
        self.map: dict[tuple[str, str], str] = {}  # (room, direction) -> room, as walked
        self.tried: set[tuple[str, str]] = set()
        self.examined: set[str] = set()
        self.seen: set[str] = set()  # rooms been in

    def learn(self, room: str | None, command: str, new_room: str | None) -> None:
        if room and command.startswith("go "):
            d = command[3:]
            self.tried.add((room, d))
            if new_room and new_room != room:
                self.map[(room, d)] = new_room
                self.map.setdefault((new_room, _OPPOSITE.get(d, d)), room)
                self.tried.add((new_room, _OPPOSITE.get(d, d)))

    def _frontier(self, r: str, world: World, open_dirs: dict[str, set[str]]) -> bool:
        """Whether room ``r`` has an exit not taken yet, or a closed door to a room not
        seen yet."""
        if any((r, d) not in self.tried for d in open_dirs.get(r, ())):
            return True
        carried = {o for o, (_, a) in world.holder.items() if a[1] == "I"}
        return any(
            n == "link"
            and a[0] == r
            and a[2] not in self.seen
            and ("open", (a[1],)) not in world.facts
            and (("locked", (a[1],)) not in world.facts
                 or any(("match", (k, a[1])) in world.facts for k in carried))
            for n, a in world.facts
        )  # fmt: skip

    def _path_to_frontier(
        self, room: str, world: World, open_dirs: dict[str, set[str]]
    ) -> str | None:
        """The first move towards the nearest other known room on the frontier."""
        seen, queue = {room}, deque([(room, None)])
        while queue:
            r, first = queue.popleft()
            if r != room and self._frontier(r, world, open_dirs):
                return first
            for (src, d), dst in self.map.items():
                if src == r and dst not in seen and d in open_dirs.get(r, {d}):
                    seen.add(dst)
                    queue.append((dst, first or d))
        return None

    def choose(self, world: World, admissible: list[str], carrying: set[str],
               open_dirs: dict[str, set[str]]) -> str:  # fmt: skip
        """A kind of move by ``WEIGHTS`` (among the kinds that have a command now), then one
        command of that kind."""
        room = world.room or ""
        kinds: dict[str, list[str]] = {k: [] for k in WEIGHTS}
        self.seen.add(room)
        untried = [c for c in admissible if c.startswith("go ") and (room, c[3:]) not in self.tried]
        doors = [
            c
            for c in admissible
            if c.startswith(("open ", "unlock ")) and world.types.get(_target(c)) == "d"
        ]
        toward = None
        if not untried and not doors:
            toward = self._path_to_frontier(room, world, open_dirs)
        for c in admissible:
            if c.startswith(_NEVER):
                continue
            wanted = c in self.wanted and c[8:] not in self.examined  # the walkthrough's reads
            if c in untried or c in doors or wanted or (toward and c == f"go {toward}"):
                kinds["explore"].append(c)
            elif c.startswith("go "):
                kinds["wander"].append(c)
            elif c.startswith(("open ", "unlock ")):
                kinds["open"].append(c)
            elif c.startswith("take "):
                kinds["take"].append(c)
            elif c.startswith(("put ", "insert ", "drop ")):
                kinds["place"].append(c)
            elif c.startswith("examine ") and c[8:] not in self.examined:
                kinds["examine"].append(c)
            elif c in ("look", "inventory"):
                kinds["look"].append(c)
            elif c.startswith("close "):
                kinds["close"].append(c)
        live = [k for k, cs in kinds.items() if cs]
        if not live:
            return "look"
        weights = [WEIGHTS[k] for k in live]
        if "explore" not in live and "wander" in live:  # nothing new here: move on more
            weights[live.index("wander")] = WEIGHTS["explore"]
        kind = self.rng.choices(live, weights=weights)[0]
        c = self.rng.choice(kinds[kind])
        if c.startswith("examine "):
            self.examined.add(c[8:])
        return c


# -- questions ---------------------------------------------------------------------------------
_ASK = {
    "where": (
        "Where is the {x} now?",
        "Where did the {x} end up?",
        "What is the current location of the {x}?",
        "Where can I find the {x} at the moment?",
        "Where's the {x} right now?",
    ),
    "contents_in": (
        "What is in the {x}?",
        "What does the {x} contain now?",
        "What's inside the {x} at the moment?",
        "Which things are in the {x}?",
    ),
    "contents_on": (
        "What is on the {x}?",
        "What lies on the {x} now?",
        "Which things are sitting on the {x}?",
        "What has been put on the {x}?",
    ),
    "exit": (
        "What lies {d} of the {x}?",
        "Which room is {d} of the {x}?",
        "If I go {d} from the {x}, where do I end up?",
        "Where does the {d} exit of the {x} lead?",
    ),
    "key": (
        "Which key opens the {x}?",
        "What unlocks the {x}?",
        "Which key fits the {x}?",
        "What do I need to unlock the {x}?",
    ),
    "recipe": (
        "What does the recipe need?",
        "Which ingredients does the cookbook ask for?",
        "What goes into the meal, according to the recipe?",
    ),
}


def _place(fact: Fact) -> str:
    name, (_, h) = fact
    if h == "I":
        return "carried by the player"
    return {"at": f"in the {h} (on the floor)", "in": f"in the {h}", "on": f"on the {h}"}[name]


class _Tracker:
    """Which episodes showed which facts, step by step, to build probes with evidence."""

    def __init__(self) -> None:
        self.steps: list[tuple[World, list[Episode], set[Fact]]] = []  # world, eps, added
        self.shown: dict[Fact, list[tuple[int, str]]] = {}  # fact -> (step, episode id)
        self.moved_at: dict[str, int] = {}  # object -> step its holder last changed
        self.contents_at: dict[str, int] = {}  # holder -> step its contents last changed
        self.exits: dict[tuple[str, str], list[str]] = {}  # (room, dir) -> episode ids
        self.keys: dict[str, tuple[str, list[str]]] = {}  # door/container -> key, episode ids
        self.recipe_eps: list[str] = []

    def record(self, step: int, world: World, eps: list[Episode], before: World | None,
               command: str | None) -> None:  # fmt: skip
        added = world.facts - (before.facts if before else set())
        for obj, fact in world.holder.items():
            if before is None or before.holder.get(obj) != fact:
                self.moved_at[obj] = step
                self.contents_at[fact[1][1]] = step
                if before is not None and obj in before.holder:
                    self.contents_at[before.holder[obj][1][1]] = step
        for fact in world.holder.values():
            for ep in eps:
                if _shows(ep, fact, fact in added):
                    self.shown.setdefault(fact, []).append((step, ep.id))
        if before is not None and command and before.room and world.room != before.room:
            d = command[3:] if command.startswith("go ") else None
            if d in DIRECTIONS:
                ids = [ep.id for ep in eps]
                self.exits.setdefault((before.room, d), []).extend(ids)
                self.exits.setdefault((world.room, _OPPOSITE[d]), []).extend(ids)
        m = re.fullmatch(r"unlock (.+) with (.+)", command or "")
        locked = ("locked", (m.group(1),)) if m else None
        if m and before is not None and locked in before.facts and locked not in world.facts:
            self.keys[m.group(1)] = (m.group(2), [ep.id for ep in eps])
        recipe = world.recipe()
        for ep in eps:
            shows = ep.speaker == "game" and "recipe" in ep.text.lower()
            if recipe and shows and all(_mentions(ep.text, x) for x in recipe):
                self.recipe_eps.append(ep.id)
        self.steps.append((world, eps, added))

    def candidates(self, step: int, world: World, rng: random.Random) -> list[Probe]:
        out: list[Probe] = []

        def ask(kind: str, **kw: str) -> str:
            return rng.choice(_ASK[kind]).format(**kw)

        for obj, fact in sorted(world.holder.items()):
            since = self.moved_at.get(obj, 0)
            ev = [i for s, i in self.shown.get(fact, []) if s >= since]
            if not ev:
                continue
            stale = sorted(
                {
                    i
                    for f, shown in self.shown.items()
                    if f[1][0] == obj and f != fact
                    for s, i in shown
                    if s < since
                }
            )
            out.append(Probe(ask("where", x=obj), "where", _place(fact), tuple(ev), step, obj,
                             tuple(stale)))  # fmt: skip
        holders = {f[1][1] for f in world.holder.values() if f[0] in ("in", "on")} - {"I"}
        for h in sorted(holders):
            items = world.contents(h)
            since = self.contents_at.get(h, 0)
            ev = [
                ep.id
                for s, (_, eps, _) in enumerate(self.steps)
                if s >= since
                for ep in eps
                if ep.speaker == "game" and _mentions(ep.text, h)
                and all(_mentions(ep.text, x) for x in items)
            ]  # fmt: skip
            if ev:
                kind = "contents_in" if world.is_container(h) else "contents_on"
                answer = ", ".join(sorted(items))
                out.append(Probe(ask(kind, x=h), "contents", answer, tuple(ev), step, h))
        true_exits = world.exits()
        for (room, d), ids in sorted(self.exits.items()):
            if (room, d) in true_exits:
                q = ask("exit", d=d, x=room)
                out.append(Probe(q, "exit", true_exits[(room, d)], tuple(ids), step,
                                 f"{room}:{d}"))  # fmt: skip
        for door, (key, ids) in sorted(self.keys.items()):
            if ("match", (key, door)) in world.facts:
                out.append(Probe(ask("key", x=door), "key", key, tuple(ids), step, door))
        if self.recipe_eps:
            out.append(Probe(ask("recipe"), "recipe", ", ".join(world.recipe()),
                             tuple(self.recipe_eps), step, "recipe"))  # fmt: skip
        return out


def _pick(cands: list[Probe], asked: dict[tuple[str, str], int], last_probe: int,
          moved_since: set[str], n: int, rng: random.Random) -> list[Probe]:  # fmt: skip
    """Up to ``n`` probes: objects that moved since the last probe point first, then kinds
    in turn, subjects asked least often first."""
    chosen = [p for p in cands if p.kind == "where" and p.subject in moved_since and p.stale]
    rng.shuffle(chosen)
    chosen = chosen[: max(1, n // 2)]
    rest = [p for p in cands if p not in chosen]
    rng.shuffle(rest)
    rest.sort(key=lambda p: asked.get((p.kind, p.subject), 0))
    by_kind: dict[str, list[Probe]] = {}
    for p in rest:
        by_kind.setdefault(p.kind, []).append(p)
    kinds = list(by_kind)
    rng.shuffle(kinds)
    while len(chosen) < n and any(by_kind.values()):
        for k in kinds:
            if by_kind[k] and len(chosen) < n:
                chosen.append(by_kind[k].pop(0))
    for p in chosen:
        asked[(p.kind, p.subject)] = asked.get((p.kind, p.subject), 0) + 1
    return chosen


def play(
    level: str,
    seed: int,
    probe_every: int = 10,
    *,
    steps: int | None = None,
    per_probe: int = PER_PROBE,
    workdir: str | Path | None = None,
) -> TextWorldRun:
    """Build the game of ``level`` with ``seed``, play it with the seeded explorer for the
    level's step budget (or ``steps``), probing every ``probe_every`` steps and at the end."""
    if level not in LEVELS:
        raise MagsError(f"unknown TextWorld level {level!r}: one of {', '.join(LEVELS)}")
    tw = require_textworld()
    lv = LEVELS[level]
    budget = steps or lv.steps
    with tempfile.TemporaryDirectory(prefix="mags-tw-") as tmp:
        path = build_game(lv, seed, workdir or tmp)
        env = tw.start(str(path), request_infos=env_infos())
        try:
            return _play(env, lv, seed, budget, probe_every, per_probe, path)
        finally:
            env.close()


def _play(env: Any, lv: Level, seed: int, budget: int, probe_every: int, per_probe: int,
          path: Path) -> TextWorldRun:  # fmt: skip
    rng = random.Random(f"textworld:{lv.name}:{seed}")
    run = TextWorldRun(lv.name, seed)
    tracker = _Tracker()
    asked: dict[tuple[str, str], int] = {}
    state = env.reset()
    world = World(state["facts"])
    intro = observation_text(state.feedback, world.room)
    eps = [Episode("t0000-obs", intro, "game", T0 + 1, 0)]
    run.events += eps
    tracker.record(0, world, eps, None, None)
    walkthrough = list(state.get("extra.walkthrough") or [])
    explorer = Explorer(rng, walkthrough)
    moved_since: set[str] = set()
    last_probe, score, done, policy_failures, taken = 0, 0, False, 0, 0
    open_dirs: dict[str, set[str]] = {}
    for step in range(1, budget + 1):
        room = world.room
        admissible = list(state["admissible_commands"] or [])
        if room:
            open_dirs[room] = {c[3:] for c in admissible if c.startswith("go ")}
        carrying = {o for o, (n, a) in world.holder.items() if a[1] == "I"}
        policy = list(state["policy_commands"] or [])
        if policy and policy_failures < 3 and budget - step < len(policy) + POLICY_SLACK:
            command = policy[0]
        else:  # exploring: not the move that would win (and end) the game yet
            command = explorer.choose(world, admissible, carrying, open_dirs)
            for _ in range(5):
                if policy != [command]:
                    break
                command = explorer.choose(world, admissible, carrying, open_dirs)
            if policy == [command]:
                command = "look"
        state, score, done = env.step(command)
        before, world = world, World(state["facts"])
        if command.startswith(("go ", "put ", "insert ", "drop ", "take ", "unlock ", "open ")):
            policy_failures = policy_failures + 1 if world.facts == before.facts else 0
        explorer.learn(room, command, world.room)
        taken += 1
        ts = T0 + step * DT
        eps = [
            Episode(f"t{step:04d}-cmd", command, "player", ts, step),
            Episode(
                f"t{step:04d}-obs",
                observation_text(state.feedback, world.room),
                "game",
                ts + 1,
                step,
            ),
        ]
        run.events += eps
        tracker.record(step, world, eps, before, command)
        moved_since |= {o for o, f in world.holder.items() if before.holder.get(o) != f}
        if step % probe_every == 0 or step == budget or done:
            cands = tracker.candidates(step, world, rng)
            run.events += _pick(cands, asked, last_probe, moved_since, per_probe, rng)
            moved_since, last_probe = set(), step
        if done:
            break
    run.info = {
        "level": lv.name, "seed": seed, "rooms": lv.rooms, "objects": lv.objects,
        "quest_length": lv.quest_length, "cooking": lv.cooking, "steps": taken,
        "walkthrough": walkthrough, "score": score,
        "max_score": state.get("max_score"), "won": bool(state.get("won")),
        "rooms_seen": len({r for (r, _) in explorer.map} | ({world.room} - {None})),
        "game_file": path.name,
    }  # fmt: skip
    return run


__all__ = [
    "DT",
    "LEVELS",
    "T0",
    "Episode",
    "Level",
    "Probe",
    "TextWorldRun",
    "build_game",
    "clean_feedback",
    "env_infos",
    "observation_text",
    "play",
    "require_textworld",
]
