"""Engram examples from frames (templates) and from the evolving-rules world.

Each example is built with its gold facts by construction: the frame says which slot values
are stated and with which predicate; the world knows every key's current value, so a change
gives the new value with the old one among the current facts, and a restatement gives none.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta

from finetune.data.engram_frames import CONFIDENCE, FRAMES, EFrame, S
from finetune.data.recipe import Recipe, random_date
from finetune.data.style import SLOT, Filler, Segment, hedge, lower_start, render, text, vary
from finetune.data.validate import HEDGES, check_example, has_marker, words
from finetune.data.vocab import NAMES
from finetune.data.worlds import World, generate_world
from finetune.records import EngramExample, EngramInput, KnownFact
from graph_db.errors import InvalidInputError
from graph_db.text import predicate_key
from mags_langgraph.schemas import Engram, Triplet

# current facts about the speaker that a turn does not touch (the model must not restate them)
BACKGROUND = (
    ("lives_in", "city"), ("works_at", "company"), ("job_title", "job"), ("likes", "food"),
    ("speaks", "language"), ("plays", "sport"), ("allergic_to", "allergen"),
    ("has_cat", "pet"), ("hobby", "hobby"), ("favorite_color", "color"),
    ("studies", "subject"), ("owns", "phone"), ("has_sister", "fname"), ("diet", "diet"),
    ("hometown", "city"), ("favorite_food", "food"), ("has_boss", "name"),
)  # fmt: skip
JOINERS = (". Also, ", ", and ", ". Oh and ", "! Plus ", ". Btw, ", "; ", ". And ")
MULTI_SHARE = 0.15
HEDGE_SHARE = 0.2


def _people(rng: random.Random) -> tuple[str, str]:
    user = rng.choice(NAMES)
    speaker = user if rng.random() < 0.85 else rng.choice([n for n in NAMES if n != user])
    return user, speaker


def _background(
    rng: random.Random, fill: Filler, subject: str, skip: set[str], n: int
) -> list[KnownFact]:
    options = [(p, pool) for p, pool in BACKGROUND if p not in skip]
    out = []
    for i, (pred, pool) in enumerate(rng.sample(options, min(n, len(options)))):
        out.append(KnownFact(subject=subject, predicate=pred, object=fill(f"{pool}9{i}")))
    return out


def _n_background(rng: random.Random) -> int:
    return rng.choices((0, 1, 2, 3, 4, 5), weights=(30, 22, 18, 14, 10, 6))[0]


def _apart(template: str) -> str:
    """A partner frame's slots renamed ("{city}" -> "{city7}"): its values differ from ours."""

    def rename(m: re.Match[str]) -> str:
        pool = m.group(1).rstrip("0123456789")
        return "{" + pool + "7" + m.group(1)[len(pool) :] + "}"

    return SLOT.sub(rename, template)


def _joinable(a: EFrame, b: EFrame) -> bool:
    """Two plain one-sentence frames with no predicate in common (a is b: a may join)."""
    plain = all(
        f.solo
        and all(c != "H" for *_, c in f.facts)
        and not any(has_marker(t, HEDGES) for t in f.texts)
        for f in (a, b)
    )
    shared = a is not b and bool({f[1] for f in a.facts} & {f[1] for f in b.facts})
    return plain and not shared


def frame_example(
    frame: EFrame,
    rng: random.Random,
    ident: str,
    group: str,
    partners: Sequence[EFrame] = (),
) -> EngramExample:
    """One example of ``frame`` (joined to a partner frame in a multi-fact turn now and then)."""
    user, speaker = _people(rng)
    fill = Filler(rng, exclude={user, speaker})
    segments = render(rng.choice(frame.texts), fill)
    facts = list(frame.facts)
    source = f"gen:{frame.id}"
    hedged = False
    mates = [p for p in partners if p.id != frame.id and _joinable(frame, p)]
    if _joinable(frame, frame) and mates and rng.random() < MULTI_SHARE:
        other = rng.choice(mates)
        last = segments[-1]
        if not last.protected:
            last.text = last.text.rstrip().rstrip(".!")
        tail = render(_apart(rng.choice(other.texts)), fill)
        lower_start(tail)
        segments = [*segments, Segment(rng.choice(JOINERS), False), *tail]
        facts += [(s, p, _apart(o), c) for s, p, o, c in other.facts]
        source = f"gen:{frame.id}+{other.id}"
    elif frame.hedge and rng.random() < HEDGE_SHARE:
        segments = hedge(segments, rng)
        hedged = True

    def entity(spec: str) -> str:
        return speaker if spec == S else fill.format(spec)

    out = []
    for s, p, o, c in facts:
        code = "H" if hedged and c == "P" else c
        out.append(
            Triplet(
                subject=entity(s),
                predicate=predicate_key(fill.format(p)),
                object=entity(o),
                confidence=CONFIDENCE[code],
            )
        )
    known = [
        KnownFact(subject=entity(s), predicate=predicate_key(fill.format(p)), object=entity(o))
        for s, p, o in frame.known
    ]
    touched = {f.predicate for f in out} | {k.predicate for k in known}
    known += _background(rng, fill, speaker, touched, _n_background(rng))
    rng.shuffle(known)
    keep = {w for f in out for w in words(f"{f.subject} {f.object}")}
    turn = text(vary(segments, rng, keep))
    ex = EngramExample(
        id=ident,
        source=source,
        domain=frame.domain,
        group=group,
        input=EngramInput(
            user=user, speaker=speaker, date=random_date(rng), turn=turn, facts=known[:8]
        ),
        output=Engram(facts=out),
    )
    check_example(ex)
    return ex


def frame_recipes(frames: Sequence[EFrame], groups: dict[str, str]) -> list[Recipe]:
    """One recipe per frame; multi-fact turns join frames of the same list (the same split)."""
    solo = [f for f in frames if f.solo]

    def maker(frame: EFrame) -> Callable[[random.Random, str], EngramExample]:
        return lambda rng, ident: frame_example(frame, rng, ident, groups[frame.id], solo)

    return [Recipe(f.id, f.domain, groups[f.id], maker(f)) for f in frames]


# --- the evolving-rules world ----------------------------------------------------------

SAYS: dict[tuple[str, str], tuple[str, ...]] = {
    ("die", "has_sides"): (
        "the {s} has {v} sides", "the {s} now has {v} sides", "the {s} is a {v}-sided die",
        "the {s} rolls with {v} sides",
    ),
    ("die", "has_color"): ("the {s} has the color {v}", "the {s} is {v}", "the {s} comes in {v}"),
    ("die", "costs"): ("the {s} costs {v}", "the {s} is priced at {v}", "a {s} sells for {v}"),
    ("creature", "lives_in"): (
        "the {s} lives in {v}", "the {s} makes its home in {v}", "the {s} is found in {v}",
    ),
    ("creature", "has_power"): (
        "the {s} has a power of {v}", "the {s}'s power is {v}", "the {s} attacks with power {v}",
    ),
    ("creature", "has_element"): (
        "the {s} has the element {v}", "the {s} is a {v} creature",
        "the {s} belongs to the {v} element",
    ),
    ("arena", "has_gravity"): ("the {s} has {v} gravity", "gravity in the {s} is {v}"),
    ("arena", "has_rule"): (
        "the rule in the {s} is: {v}", "in the {s}, {v}", "the {s} plays by this rule: {v}",
    ),
    ("arena", "costs"): (
        "entry to the {s} costs {v}", "a ticket to the {s} is {v}",
        "the {s} charges {v} for entry",
    ),
    ("player", "lives_in"): ("{s} lives in {v}", "{s} resides in {v}", "{s} is living in {v}"),
    ("player", "has_rank"): ("{s} has the rank {v}", "{s} is ranked {v}", "{s} holds {v} rank"),
    ("player", "has_score"): ("{s} has a score of {v}", "{s} sits at {v}", "{s}'s score is {v}"),
}  # fmt: skip
ACTIONS = {
    "set": (
        "Arena notice: {said}.", "Official: {said}.", "Announcement: {said}.", "{Said}.",
        "Note for all players: {said}.", "For the record, {said}.",
    ),
    "change": (
        "Rule change! From now on, {said}.", "Update: {said} (changed today).",
        "Starting this round, {said}.", "New ruling: {said}.", "Changed: {said} from now on.",
    ),
    "revert": (
        "Rule change reverted: {said} again.", "Back to the old way: {said}.",
        "The last change is undone, {said} once more.",
    ),
    "restate": (
        "Reminder: {said}.", "As a reminder, {said}.", "Just to repeat: {said}.",
        "Still true: {said}.",
    ),
}  # fmt: skip
MENTION_SAYS = {
    "cheered_for": ("{s} cheered for the {o}", "{s} was cheering for the {o} all match"),
    "rolled": ("{s} rolled the {o}", "{s} picked up the {o} and rolled it"),
    "challenged": ("{s} challenged {o} to a duel", "{s} threw down a challenge to {o}"),
    "visited": ("{s} visited the {o}", "{s} stopped by the {o}"),
}
ANNOUNCER = "Announcer"
WORLD_TURNS = 240


def world_states(world: World) -> list[dict[tuple[str, str], str]]:
    """The current value of every key before each turn (index = turn position)."""
    state: dict[tuple[str, str], str] = {}
    out = []
    for turn in world.turns:
        out.append(dict(state))
        for f in turn.facts:
            if turn.action in ("set", "change", "revert", "restate"):
                state[(f["subject"], f["predicate"])] = f["object"]
    return out


def world_date(world_seed: int, t: int) -> str:
    """Four turns a day from a start date of the world's own."""
    start = date(2024, 1, 1) + timedelta(days=world_seed % 300)
    return (start + timedelta(days=t // 4)).isoformat()


def _world_known(
    rng: random.Random,
    state: dict[tuple[str, str], str],
    key: tuple[str, str] | None,
    subject: str,
) -> list[KnownFact]:
    """The touched key's current value and a few distractors: the same subject's other
    attributes and near-twin subjects (the same name but for one vowel)."""
    out = []
    if key is not None and key in state:
        out.append(KnownFact(subject=key[0], predicate=key[1], object=state[key]))
    head = subject.split()[0][:2]
    near = [k for k in state if k != key and (k[0] == subject or k[0].startswith(head))]
    rest = [k for k in state if k != key and k not in near]
    n = rng.randint(1, 6)
    picks = rng.sample(near, min(len(near), n))
    picks += rng.sample(rest, min(len(rest), max(0, rng.randint(0, 2))))
    out += [KnownFact(subject=k[0], predicate=k[1], object=state[k]) for k in picks]
    rng.shuffle(out)
    return out[:8]


def world_example(
    world: World, states: list[dict], rng: random.Random, ident: str
) -> EngramExample:
    """One engram example from a random turn of ``world`` (announcement, mention, chatter)."""
    i = rng.choice([j for j, t in enumerate(world.turns) if t.episode])
    turn, state = world.turns[i], states[i]
    players = [s for s, k in world.entities.items() if k == "player"]
    user = rng.choice(players)
    facts: list[Triplet] = []
    if turn.action in ACTIONS:
        f = turn.facts[0]
        s, p, v = f["subject"], f["predicate"], f["object"]
        kind = world.entities[s]
        said = rng.choice(SAYS[(kind, p)]).format(s=s, v=v)
        frame = rng.choice(ACTIONS[turn.action])
        line = frame.format(said=said, Said=said[0].upper() + said[1:])
        speaker = ANNOUNCER
        if state.get((s, p)) != v:
            facts.append(Triplet(subject=s, predicate=p, object=v, confidence=0.95))
        known = _world_known(rng, state, (s, p), s)
    elif turn.action == "mention":
        f = turn.facts[0]
        s, p, o = f["subject"], f["predicate"], f["object"]
        line = rng.choice(MENTION_SAYS[p]).format(s=s, o=o) + rng.choice((".", "!", ""))
        speaker = rng.choice([ANNOUNCER, *[x for x in players if x != s]])
        facts.append(Triplet(subject=s, predicate=p, object=o, confidence=0.95))
        known = _world_known(rng, state, None, s)
    else:  # chatter: nothing lasting is said
        raw = turn.episode["text"]
        speaker, line = raw.split(": ", 1) if ": " in raw else (ANNOUNCER, raw)
        known = _world_known(rng, state, None, speaker)
    keep = {w for t in facts for w in words(f"{t.subject} {t.object}")}
    turn_text = text(vary([Segment(line, False)], rng, keep, chatty=not facts))
    ex = EngramExample(
        id=ident,
        source=f"gen:world.{turn.action}",
        domain="game_rules",
        group=f"world:{world.seed}",
        input=EngramInput(
            user=user,
            speaker=speaker,
            date=world_date(world.seed, turn.t),
            turn=turn_text,
            facts=known,
        ),
        output=Engram(facts=facts),
    )
    check_example(ex)
    return ex


def world_recipe(seed: int, weight: float) -> Recipe:
    world = generate_world(WORLD_TURNS, seed)
    states = world_states(world)
    return Recipe(
        "world",
        "game_rules",
        f"world:{seed}",
        lambda rng, ident: world_example(world, states, rng, ident),
        weight,
    )


def frames_by_id() -> dict[str, EFrame]:
    """The frames by id (ids are unique; every slot names a pool, or this fails loudly)."""
    out = {f.id: f for f in FRAMES}
    if len(out) != len(FRAMES):
        raise InvalidInputError("two engram frames share an id; make each id unique")
    for f in FRAMES:
        for t in f.texts:
            Filler(random.Random(0)).format(t)
    return out
