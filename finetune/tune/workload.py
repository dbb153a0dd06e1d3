"""What a tuning trial replays: typed events (episodes, facts, probes) in the order they happen.

A workload is a list of parts (a game seed, a conversation), each replayed into a fresh
namespace; its held-out parts are never seen by the search. Probes carry their ground truth
at the moment they are asked: the episodes that show the current answer (``evidence``) and
those that showed an earlier one (``stale``), or, for a fact, the key and its current and
earlier values. Builders live beside their worlds: ``game`` here, ``locomo`` from LoCoMo's
JSON files, ``textworld`` from ``finetune.data.textworld_world``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from graph_db.errors import MagsError


@dataclass(frozen=True)
class Episode:
    id: str
    text: str
    speaker: str
    ts: float
    session: str = "default"


@dataclass(frozen=True)
class Fact:
    subject: str
    predicate: str
    object: str
    ts: float
    source: str | None = None  # the id of the episode that said it


@dataclass(frozen=True)
class Probe:
    """A question with its ground truth when asked. Episodic: any ``evidence`` id in the top
    k is a hit; fidelity: no ``stale`` id ranks above the first hit. Semantic: the current
    fact of ``key`` with object ``truth``; fidelity: no earlier value ranks above it and no
    superseded fact is shown."""

    question: str
    blocks: Literal["episodic", "semantic"] = "episodic"
    evidence: frozenset[str] = frozenset()
    stale: frozenset[str] = frozenset()
    key: tuple[str, str] | None = None  # (subject, predicate)
    truth: str | None = None
    superseded: tuple[str, ...] = ()


Event = Episode | Fact | Probe


@dataclass(frozen=True)
class Part:
    name: str
    events: tuple[Event, ...]
    single_valued: tuple[str, ...] = ()  # predicates declared functional before the replay

    @property
    def turns(self) -> int:
        return sum(isinstance(e, Episode) for e in self.events)

    @property
    def probes(self) -> int:
        return sum(isinstance(e, Probe) for e in self.events)


@dataclass(frozen=True)
class Workload:
    name: str
    tune: tuple[Part, ...]
    held_out: tuple[Part, ...]
    notes: dict[str, object] = field(default_factory=dict)


WORKLOADS = ("game", "locomo", "textworld")


def _apart(tune_seeds: tuple[int, ...], held_out_seeds: tuple[int, ...]) -> None:
    """Tuning never sees a held-out world: the two seed lists must not meet, nor be empty."""
    if not tune_seeds or not held_out_seeds:
        raise MagsError("give seeds to tune on and seeds to hold out (--seeds, --held-out-seeds)")
    if set(tune_seeds) & set(held_out_seeds):
        shared = sorted(set(tune_seeds) & set(held_out_seeds))
        raise MagsError(f"seeds {shared} are both tuned on and held out: hold out other seeds")


def game(tune_seeds: tuple[int, ...], held_out_seeds: tuple[int, ...], turns: int) -> Workload:
    """The evolving-rules world (``finetune.data.worlds``): announcements as episodes and
    their gold facts, probed on the facts (the current value, not a superseded one)."""
    from finetune.data.worlds import KINDS, generate_world

    _apart(tune_seeds, held_out_seeds)

    functional = tuple(sorted({a.predicate for kind in KINDS for a in kind.attrs}))

    def part(seed: int) -> Part:
        events: list[Event] = []
        for turn in generate_world(turns, seed).turns:
            ep_id = None
            if turn.episode:
                ep_id = f"game{seed}-t{turn.t}"
                e = turn.episode
                events.append(Episode(ep_id, e["text"], e.get("speaker") or "host", turn.ts))
            for f in turn.facts:
                events.append(Fact(f["subject"], f["predicate"], f["object"], turn.ts, ep_id))
            if turn.probe:
                p = turn.probe
                events.append(
                    Probe(
                        p.question,
                        "semantic",
                        key=(p.subject, p.predicate),
                        truth=p.truth,
                        superseded=tuple(p.superseded),
                    )
                )
        return Part(f"game-seed{seed}", tuple(events), functional)

    return Workload(
        "game",
        tuple(part(s) for s in tune_seeds),
        tuple(part(s) for s in held_out_seeds),
        {"turns": turns, "tune_seeds": list(tune_seeds), "held_out_seeds": list(held_out_seeds)},
    )


def locomo(paths: list[Path], held_out: int) -> Workload:
    """LoCoMo conversations: every turn an episode, then the questions of categories 1-4,
    each with its evidence turns. The last ``held_out`` conversations (by file name) are
    held out."""
    if not paths:
        raise MagsError("no LoCoMo conversations: give --data DIR with conv-*.json files")
    if not 0 < held_out < len(paths):
        raise MagsError(
            f"{len(paths)} LoCoMo conversations: hold out at least one and tune on at least "
            "one (--held-out)"
        )
    parts = [_locomo_part(p) for p in sorted(paths)]
    return Workload(
        "locomo",
        tuple(parts[:-held_out]),
        tuple(parts[-held_out:]),
        {"conversations": [p.name for p in parts]},
    )


def _locomo_part(path: Path) -> Part:
    from finetune.data.locomo import load

    conv = path.stem
    turns, qa = load(path)
    events: list[Event] = [
        Episode(f"{conv}:{t['id']}", t["text"], t["speaker"], t["ts"], f"session_{t['session']}")
        for t in turns
    ]
    ids = {e.id for e in events}
    for q in qa:
        evidence = frozenset(f"{conv}:{d}" for d in q["evidence"]) & ids
        events.append(Probe(str(q["question"]), "episodic", evidence))
    return Part(conv, tuple(events))


def textworld(level: str, tune_seeds: tuple[int, ...], held_out_seeds: tuple[int, ...]) -> Workload:
    """TextWorld games (``finetune.data.textworld_world``) played by the seeded explorer:
    commands and observations as episodes, probes from the game's true state with the
    episodes that show the current answer, and for a moved object those of its earlier
    places as stale."""
    from finetune.data import textworld_world as tw

    _apart(tune_seeds, held_out_seeds)

    def part(seed: int) -> Part:
        tag = f"tw{seed}-"
        events: list[Event] = []
        for e in tw.play(level, seed).events:
            if isinstance(e, tw.Episode):
                events.append(Episode(tag + e.id, e.text, e.speaker, e.ts, e.session_id))
            else:
                evidence = frozenset(tag + i for i in e.evidence)
                events.append(
                    Probe(e.question, "episodic", evidence, frozenset(tag + i for i in e.stale))
                )
        return Part(f"textworld-{level}-seed{seed}", tuple(events))

    return Workload(
        "textworld",
        tuple(part(s) for s in tune_seeds),
        tuple(part(s) for s in held_out_seeds),
        {"level": level, "tune_seeds": list(tune_seeds), "held_out_seeds": list(held_out_seeds)},
    )
