"""The evolving-rules world (Paradox Dice Arena): a seeded stream whose facts change.

Shared by ``benchmarks/bench_game.py`` (which replays it into the store and probes recall)
and the fine-tuning data generator (which turns its announcements, changes, reverts,
restatements and chit-chat into engram and recall examples), so both see the same world.
Dice, creatures, arenas and players have made-up names (some near-twins: "Vexil die" /
"Vexel die") and functional attributes; ``generate_world(turns, seed)`` is deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

T0 = 1_700_000_000.0  # event time of turn 0 (in the past: nothing is "not yet valid")
DT = 60.0  # seconds of event time per turn


@dataclass(frozen=True)
class Attr:
    """A functional attribute: its predicate, value pool, how it is said and asked."""

    predicate: str
    values: tuple[str, ...]  # ("@arena",): the world's arenas
    says: str  # "the {s} has {v} sides"
    asks: str  # "How many sides does the {s} have?"


@dataclass(frozen=True)
class Kind:
    name: str
    subject: str  # "{n} die"
    attrs: tuple[Attr, ...]


TOWNS = ("Orbath", "Quillmere", "Dunhollow", "Saltmarch", "Emberfall", "Lowbridge", "Thornwick")
COLORS = ("crimson", "azure", "ivory", "jade", "amber", "violet", "obsidian")
KINDS = (
    Kind(
        "die",
        "{n} die",
        (
            Attr(
                "has_sides",
                ("4", "6", "8", "10", "12", "20"),
                "the {s} has {v} sides",
                "How many sides does the {s} have?",
            ),
            Attr("has_color", COLORS, "the {s} has the color {v}", "What color is the {s}?"),
            Attr(
                "costs",
                ("3 gold", "5 gold", "8 gold", "12 gold", "20 gold"),
                "the {s} costs {v}",
                "How much does the {s} cost?",
            ),
        ),
    ),
    Kind(
        "creature",
        "{n} drake",
        (
            Attr("lives_in", ("@arena",), "the {s} lives in {v}", "Where does the {s} live?"),
            Attr(
                "has_power",
                ("30", "45", "60", "75", "90"),
                "the {s} has a power of {v}",
                "What is the power of the {s}?",
            ),
            Attr(
                "has_element",
                ("fire", "frost", "storm", "shadow", "moss", "glass"),
                "the {s} has the element {v}",
                "Which element does the {s} have?",
            ),
        ),
    ),
    Kind(
        "arena",
        "{n} Arena",
        (
            Attr(
                "has_gravity",
                ("low", "normal", "high", "zero", "reversed"),
                "the {s} has {v} gravity",
                "What is the gravity in the {s}?",
            ),
            Attr(
                "has_rule",
                (
                    "doubles are rolled again",
                    "odd rolls score nothing",
                    "sixes explode",
                    "the lowest roll wins",
                    "every roll is mirrored",
                    "ties go to the defender",
                ),
                "the rule in the {s} is: {v}",
                "What is the rule in the {s}?",
            ),
            Attr(
                "costs",
                ("2 gold", "4 gold", "7 gold", "10 gold", "15 gold"),
                "entry to the {s} costs {v}",
                "How much does entry to the {s} cost?",
            ),
        ),
    ),
    Kind(
        "player",
        "{n}",
        (
            Attr("lives_in", TOWNS, "{s} lives in {v}", "Where does {s} live?"),
            Attr(
                "has_rank",
                ("bronze", "silver", "gold", "platinum", "diamond"),
                "{s} has the rank {v}",
                "What rank does {s} have?",
            ),
            Attr(
                "has_score",
                ("120 points", "250 points", "400 points", "640 points", "900 points"),
                "{s} has a score of {v}",
                "What is the score of {s}?",
            ),
        ),
    ),
)
HEAD = ("Vex", "Zor", "Qua", "Bri", "Mor", "Tal", "Fen", "Gul", "Xan", "Ryl", "Sko", "Pim", "Dra")
TAIL = ("il", "ax", "orra", "ek", "umb", "ith", "ondo", "ari", "usk", "elle", "opa", "yn", "ust")
VOWELS = "aeiou"
CHATTER = (
    "{p}: that last roll in the {a} was wild!",
    "{p}: anyone up for a rematch tomorrow?",
    "{p}: honestly I think the {c} is overrated.",
    "The crowd roars as the lights of the {a} come on.",
    "{p}: my lucky socks are {color} today.",
    "{p}: I rolled a {num} three times in a row, unbelievable.",
    "{p}: the snacks at the {a} cost way too much.",
    "{p}: does anyone remember who won last season?",
)
MENTIONS = (  # non-functional predicates: values accumulate, never supersede
    ("cheered_for", "player", "creature", "{s} cheered for the {o}"),
    ("rolled", "player", "die", "{s} rolled the {o}"),
    ("challenged", "player", "player", "{s} challenged {o} to a duel"),
    ("visited", "player", "arena", "{s} visited the {o}"),
)


@dataclass
class Probe:
    """A question with its ground truth at the time it is asked."""

    subject: str
    predicate: str
    question: str
    truth: str
    superseded: tuple[str, ...]  # values the key had before, other than the current one
    changed: bool  # the key has changed at least once
    final: bool = False  # part of the final sweep


@dataclass
class Turn:
    t: int
    ts: float
    action: str  # set, change, revert, restate, mention, chatter, probe
    episode: dict[str, Any] | None = None
    facts: list[dict[str, Any]] = field(default_factory=list)
    probe: Probe | None = None


@dataclass
class World:
    """The generated stream and the ground truth it implies."""

    seed: int
    entities: dict[str, str]  # subject -> kind
    asks: dict[tuple[str, str], str]  # key -> question
    turns: list[Turn]
    timeline: dict[tuple[str, str], list[tuple[int, str]]]  # key -> [(turn, value)] as set

    def expected_history(self, key: tuple[str, str]) -> list[str]:
        return [v for _, v in self.timeline[key]]


def _names(rng: random.Random, n: int, used: set[str]) -> list[str]:
    """``n`` made-up names, every second one a near-twin of the one before (one vowel)."""
    out: list[str] = []
    while len(out) < n:
        if len(out) % 2 == 1:
            base = out[-1]
            spots = [i for i, c in enumerate(base) if c in VOWELS]
            spots = spots or [i for i, c in enumerate(base) if c == "y"]  # "Rylyn": no vowel
            i = rng.choice(spots)
            name = base[:i] + rng.choice([v for v in VOWELS if v != base[i]]) + base[i + 1 :]
        else:
            name = rng.choice(HEAD) + rng.choice(TAIL)
        if name not in used:
            used.add(name)
            out.append(name)
    return out


def generate_world(turns: int, seed: int) -> World:
    """The seeded stream of ``turns`` turns plus a final probe of every key that was set."""
    rng = random.Random(seed)
    per_kind = max(2, min(8, turns // 60))
    used: set[str] = set()
    by_kind: dict[str, list[str]] = {}
    entities: dict[str, str] = {}
    attrs: dict[tuple[str, str], Attr] = {}
    for kind in KINDS:
        by_kind[kind.name] = [kind.subject.format(n=n) for n in _names(rng, per_kind, used)]
        for s in by_kind[kind.name]:
            entities[s] = kind.name
            for a in kind.attrs:
                attrs[(s, a.predicate)] = a
    arenas = tuple(by_kind["arena"])

    def pool(a: Attr) -> tuple[str, ...]:
        return arenas if a.values == ("@arena",) else a.values

    keys = list(attrs)
    asks = {k: attrs[k].asks.format(s=k[0]) for k in keys}
    timeline: dict[tuple[str, str], list[tuple[int, str]]] = {}
    out: list[Turn] = []

    def current(k: tuple[str, str]) -> str:
        return timeline[k][-1][1]

    def probe(k: tuple[str, str], final: bool = False) -> Probe:
        past = {v for _, v in timeline[k]}
        return Probe(
            subject=k[0],
            predicate=k[1],
            question=asks[k],
            truth=current(k),
            superseded=tuple(sorted(past - {current(k)})),
            changed=len(timeline[k]) > 1,
            final=final,
        )

    def statement(t: int, ts: float, action: str, k: tuple[str, str], v: str) -> Turn:
        said = attrs[k].says.format(s=k[0], v=v)
        text = {
            "set": f"Arena notice: {said}.",
            "change": f"Rule change! From now on, {said}.",
            "revert": f"Rule change reverted: {said} again.",
            "restate": f"Reminder: {said}.",
        }[action]
        text = text[0].upper() + text[1:]
        names = [k[0]] + ([v] if v in entities else [])
        ep = {"text": text, "speaker": "Announcer", "ts": ts, "entities": names}
        fact = {"subject": k[0], "predicate": k[1], "object": v, "confidence": 0.9}
        return Turn(t, ts, action, ep, [{**fact, "valid_from": ts}])

    for t in range(turns):
        ts = T0 + t * DT
        unset = [k for k in keys if k not in timeline]
        setk = [k for k in keys if k in timeline]
        flipped = [k for k in setk if len(timeline[k]) > 1]
        weights = {
            "set": (4.0 if t < turns // 2 else 1.0) if unset else 0.0,
            "change": 2.5 if setk else 0.0,
            "revert": 0.7 if flipped else 0.0,
            "restate": 0.6 if setk else 0.0,
            "mention": 1.0,
            "chatter": 1.5,
            "probe": 1.0 if setk else 0.0,
        }
        action = rng.choices(list(weights), weights=list(weights.values()))[0]
        if action == "set":
            k = rng.choice(unset)
            v = rng.choice(pool(attrs[k]))
            timeline[k] = [(t, v)]
            out.append(statement(t, ts, action, k, v))
        elif action == "change":
            k = rng.choice(setk)
            v = rng.choice([x for x in pool(attrs[k]) if x != current(k)])
            timeline[k].append((t, v))
            out.append(statement(t, ts, action, k, v))
        elif action == "revert":
            k = rng.choice(flipped)
            v = timeline[k][-2][1]  # A -> B -> A
            timeline[k].append((t, v))
            out.append(statement(t, ts, action, k, v))
        elif action == "restate":
            k = rng.choice(setk)
            out.append(statement(t, ts, action, k, current(k)))
        elif action == "mention":
            pred, sk, ok, says = rng.choice(MENTIONS)
            s = rng.choice(by_kind[sk])
            o = rng.choice([x for x in by_kind[ok] if x != s])
            text = says.format(s=s, o=o) + "."
            ep = {"text": text, "speaker": s, "ts": ts, "entities": [s, o]}
            fact = {"subject": s, "predicate": pred, "object": o, "confidence": 0.7}
            out.append(Turn(t, ts, action, ep, [{**fact, "valid_from": ts}]))
        elif action == "chatter":
            p = rng.choice(by_kind["player"])
            text = rng.choice(CHATTER).format(
                p=p,
                a=rng.choice(arenas),
                c=rng.choice(by_kind["creature"]),
                color=rng.choice(COLORS),
                num=rng.choice(("4", "6", "8", "12", "20")),
            )
            out.append(Turn(t, ts, action, {"text": text, "speaker": p, "ts": ts}))
        else:  # probe: two in three on a key that has changed
            k = rng.choice(flipped if flipped and rng.random() < 2 / 3 else setk)
            out.append(Turn(t, ts, action, probe=probe(k)))
    for i, k in enumerate(sorted(timeline)):
        t = turns + i
        out.append(Turn(t, T0 + t * DT, "probe", probe=probe(k, final=True)))
    for ep in (turn.episode for turn in out if turn.episode):
        ep["session_id"] = f"arena-{int((ep['ts'] - T0) // DT) // 50}"
    return World(seed, entities, asks, out, timeline)
