"""Recall examples from topics (a user's life) and from the evolving-rules world.

Each example gets a small fixture graph: the memories that answer it (gold) and plausible
distractors (the same topic for other people, the same person's other topics, an older value
that was since changed, small talk). Queries always name the person (the user's name for
"I"), resolve pronouns and ellipsis from the history, and never contain the answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from finetune.data.engram_gen import SAYS, WORLD_TURNS, world_date
from finetune.data.recall_topics import TOPICS, Topic
from finetune.data.recipe import Recipe, random_date
from finetune.data.style import SLOT, Filler, Segment, text, vary
from finetune.data.validate import check_example
from finetune.data.vocab import FRIEND, NAMES, NAMES_F, NAMES_M, REL_F, REL_M
from finetune.data.worlds import DT, KINDS, T0, World, generate_world
from finetune.records import Memory, RecallExample, RecallInput, Turn
from graph_db.errors import InvalidInputError
from mags_langgraph.schemas import RecallPlan

ASSISTANT = "assistant"
NEW_WEIGHT = 0.5  # new information (no lookup) beside each topic's questions
FILLER_TURNS = (
    ("Long day at work today.", "Sounds tiring, hope you get some rest."),
    ("I made {food} this morning.", "Yum! How did it turn out?"),
    ("The weather is finally nice.", "Perfect for a walk."),
    ("Can you help me plan the week?", "Of course, what's on your list?"),
    ("I'm back from the gym.", "Nice work!"),
    ("Just finished {book}.", "What did you think of it?"),
    ("Ugh, the train was late again.", "That's annoying, sorry."),
    ("Thinking about dinner already, maybe {food}.", "Sounds good to me."),
    ("Watching {show} tonight.", "Enjoy! No spoilers from me."),
    ("I tried {hobby} for the first time.", "How was it?"),
    ("Any ideas for a rainy {weekday}?", "A film marathon, maybe?"),
    ("My {species} woke me up at 5am.", "Oof, coffee time then."),
    ("I found a great {cuisine} place downtown.", "Nice, what did you order?"),
    ("Listening to {genre} while I work.", "Good focus music!"),
    ("The {event} went fine, I think.", "Glad to hear it."),
    ("Need a gift idea for a friend.", "What do they like?"),
    ("So tired, {weekday}s are the worst.", "Hang in there."),
    ("Got a parcel today, finally.", "Something good?"),
    ("I'm trying to drink more water.", "Great habit."),
    ("Planning a picnic at {place}.", "Lovely idea."),
)
INTROS = (
    "is coming over this weekend.", "called me this morning.", "just got back from a trip.",
    "has been super busy lately.", "is visiting next week.", "sent me the funniest video.",
    "asked about you, funnily enough.", "is having a rough week.",
)  # fmt: skip
REPLIES = ("Oh nice!", "That's lovely to hear.", "Fun! Any plans together?", "Hope all is well.")
ELLIPSIS = ("What about {N}?", "And {N}?", "How about {N}?", "Same question for {N}.")
ELLIPSIS_ME = ("What about me?", "And me?", "How about me?")
JOIN = (", and ", " and also ", "? Also, ", "? And ")
CHITCHAT_MEMORIES = (
    "Rainy day, stayed in and read.", "The bus was late again this morning.",
    "Made soup for the whole week.", "Watched a documentary about octopuses.",
    "Cleaned out the garage finally.", "Tried a new coffee place downtown.",
)  # fmt: skip
FALSE_FRAMES: dict[str, tuple[str, ...]] = {
    "greeting": ("hey!", "Good morning :)", "hi there", "Hello!", "evening!", "yo"),
    "thanks": (
        "thanks, that helps",
        "Thank you so much!",
        "perfect, thanks",
        "cheers!",
        "Great, that's what I needed.",
        "ty",
    ),
    "reaction": ("lol", "haha nice", "ok cool", "Wow.", "That's hilarious.", "fair enough"),
    "request_write": (
        "Can you write a haiku about {topic}?",
        "Write a short poem about {food}.",
        "Draft a polite email declining a meeting.",
        "Give me a tongue twister.",
        "Make up a name for a {species}.",
    ),
    "request_compute": (
        "What's 15% of 80?",
        "Convert 5 miles to kilometres.",
        "What's 17 times 23?",
        "How many minutes are in a week?",
        "Round 3.14159 to two decimals.",
    ),
    "request_know": (
        "What's the capital of {country}?",
        "How do you say hello in {language}?",
        "Explain what a black hole is.",
        "What does 'ubiquitous' mean?",
        "How long do you boil an egg?",
        "Who wrote {book}?",
    ),
    "goodbye": ("ok bye!", "talk later", "Good night!", "Gotta go, thanks.", "see ya"),
}


@dataclass(frozen=True)
class Person:
    name: str
    rel: str | None  # None: the user
    she: str  # subject pronoun
    her: str  # possessive
    obj: str  # object pronoun


def _cast(rng: random.Random, user: str, n: int) -> list[Person]:
    """The user and ``n`` people of their life, each with a relation and pronouns."""
    people = [Person(user, None, "I", "my", "me")]
    taken = {user}
    for _ in range(n):
        female = rng.random() < 0.5
        rel = rng.choice((REL_F if female else REL_M) + FRIEND)
        name = rng.choice([x for x in (NAMES_F if female else NAMES_M) if x not in taken])
        taken.add(name)
        pron = ("she", "her", "her") if female else ("he", "his", "him")
        people.append(Person(name, rel, *pron))
    return people


class Scene:
    """The values of one example: each (topic, person) has its own value, drawn once."""

    def __init__(self, rng: random.Random, people: list[Person]) -> None:
        self.rng = rng
        self.people = people
        self.fill = Filler(rng, exclude={p.name for p in people})
        self._values: dict[tuple[str, str, int], str] = {}

    @property
    def user(self) -> Person:
        return self.people[0]

    def value(self, topic: Topic, person: Person, version: int = 0) -> str:
        """The topic's value for ``person`` (``version`` > 0: an older, different value)."""
        key = (topic.key, person.name, version)
        if key not in self._values:
            tag = f"8{self.people.index(person)}{version}{len(self._values)}"
            self._values[key] = self.fill.format(_tagged(topic.value, tag))
        return self._values[key]

    def slots(self, topic: Topic, person: Person, who: str = "name") -> dict[str, str]:
        """Template slots for ``person``: N, v, rel, extras, and X/Xs/Xo as name or pronoun."""
        out = {"N": person.name, "v": self.value(topic, person), "rel": person.rel or "friend"}
        for slot, pool in topic.extra.items():
            out[slot] = self.fill(f"{pool}6")
        if who == "name":
            out |= {"X": person.name, "Xs": f"{person.name}'s", "Xo": person.name}
        elif who == "rel":
            out |= {
                "X": f"my {person.rel} {person.name}",
                "Xs": f"my {person.rel} {person.name}'s",
                "Xo": f"my {person.rel} {person.name}",
            }
        else:
            out |= {"X": person.she, "Xs": person.her, "Xo": person.obj}
        return out

    def format(self, template: str, slots: dict[str, str]) -> str:
        return SLOT.sub(lambda m: slots.get(m.group(1)) or self.fill(m.group(1)), template)

    def segments(self, template: str, slots: dict[str, str]) -> list[Segment]:
        """The template with its slot values protected from typos."""
        out: list[Segment] = []
        pos = 0
        for m in SLOT.finditer(template):
            out.append(Segment(template[pos : m.start()], False))
            out.append(Segment(slots.get(m.group(1)) or self.fill(m.group(1)), True))
            pos = m.end()
        out.append(Segment(template[pos:], False))
        return [s for s in out if s.text]


def _tagged(template: str, tag: str) -> str:
    return SLOT.sub(lambda m: "{" + m.group(1) + tag + "}", template)


def _before(day: str, rng: random.Random, lo: int, hi: int) -> str:
    return (date.fromisoformat(day) - timedelta(days=rng.randint(lo, hi))).isoformat()


class Fixture:
    """Memories being gathered for one example, gold ones marked."""

    def __init__(self, scene: Scene, day: str) -> None:
        self.scene = scene
        self.day = day
        self.items: list[tuple[Memory, bool]] = []

    def fact(self, topic: Topic, person: Person, gold: bool) -> None:
        text_ = self.scene.format(topic.fact, self.scene.slots(topic, person))
        self.items.append((Memory(kind="fact", text=text_), gold))

    def episode(
        self, topic: Topic, person: Person, gold: bool, version: int = 0, when: str | None = None
    ) -> str:
        scene = self.scene
        slots = scene.slots(topic, person)
        if version:
            slots["v"] = scene.value(topic, person, version)
        pool = topic.said if person is scene.user else topic.about
        day = when or _before(self.day, scene.rng, 1, 120)
        text_ = scene.format(scene.rng.choice(pool), slots)
        self.items.append(
            (Memory(kind="episode", text=text_, speaker=scene.user.name, date=day), gold)
        )
        return day

    def chitchat(self) -> None:
        day = _before(self.day, self.scene.rng, 1, 200)
        text_ = self.scene.rng.choice(CHITCHAT_MEMORIES)
        self.items.append(
            (Memory(kind="episode", text=text_, speaker=self.scene.user.name, date=day), False)
        )

    def distractors(self, topics: Sequence[Topic], avoid: set[tuple[str, str]], n: int) -> None:
        """``n`` memories that share names or topics with the gold ones but do not answer."""
        rng, scene = self.scene.rng, self.scene
        options = [(t, p) for t in topics for p in scene.people if (t.key, p.name) not in avoid]
        for t, p in rng.sample(options, min(n, len(options))):
            if rng.random() < 0.5:
                self.fact(t, p, False)
            else:
                self.episode(t, p, False)
        if rng.random() < 0.4:
            self.chitchat()

    def done(self, cap: int = 12) -> tuple[list[Memory], list[int]]:
        rng = self.scene.rng
        gold = [m for m, g in self.items if g]
        rest = [m for m, g in self.items if not g]
        seen = {m.text for m in gold}
        rest = [
            m
            for i, m in enumerate(rest)
            if m.text not in seen and m.text not in {x.text for x in rest[:i]}
        ]
        rest = rest[: max(0, cap - len(gold))]
        order = [(m, True) for m in gold] + [(m, False) for m in rest]
        rng.shuffle(order)
        return [m for m, _ in order], [i for i, (_, g) in enumerate(order) if g]


def _history(scene: Scene, n: int) -> list[Turn]:
    """``n`` unrelated exchanges before the message (their slots filled from the pools)."""
    out: list[Turn] = []
    for said, reply in scene.rng.sample(FILLER_TURNS, n):
        out += [
            Turn(speaker=scene.user.name, text=scene.format(said, {})),
            Turn(speaker=ASSISTANT, text=reply),
        ]
    return out


def _message(scene: Scene, template: str, slots: dict[str, str], chatty: bool = True) -> str:
    segments = vary(scene.segments(template, slots), scene.rng, set(), chatty=chatty)
    msg = text(segments)
    return msg[:1].upper() + msg[1:] if msg[:1].islower() and scene.rng.random() < 0.7 else msg


def _queries(scene: Scene, templates: Sequence[str], slots: dict[str, str]) -> list[str]:
    return list(dict.fromkeys(scene.format(t, slots) for t in templates))


def _pick_queries(rng: random.Random, topic: Topic, stepback: float = 0.25) -> list[str]:
    out = [rng.choice(topic.queries)]
    if topic.broad and rng.random() < stepback:
        out.append(rng.choice(topic.broad))
    return out


def _n_distract(rng: random.Random) -> int:
    return rng.randint(2, 8)


def topic_example(
    topic: Topic,
    kind: str,
    rng: random.Random,
    ident: str,
    mates: Sequence[Topic],
    domain: str,
) -> RecallExample:
    """One recall example of ``kind`` about ``topic`` (mates: other topics of the split)."""
    people = _cast(rng, rng.choice(NAMES), rng.randint(2, 4))
    scene = Scene(rng, people)
    user = scene.user
    day = random_date(rng, date(2024, 1, 1), 700)
    fix = Fixture(scene, day)
    others = [t for t in mates if t.key != topic.key]
    history: list[Turn] = []
    recall, blocks = True, topic.blocks
    person = user if kind in ("me", "new", "multi_me") or rng.random() < 0.3 else people[1]
    slots = scene.slots(topic, person)

    def gold_semantic(t: Topic, p: Person) -> None:
        fix.fact(t, p, True)
        if rng.random() < 0.5:
            fix.episode(t, p, True)

    if kind in ("me", "them", "corr"):
        if person is user:
            template = rng.choice(topic.me)
            msg_slots = slots
        else:
            who = "pron" if kind == "them" and rng.random() < 0.5 else rng.choice(("name", "rel"))
            msg_slots = scene.slots(topic, person, who)
            template = rng.choice(topic.them)
            if who == "pron":
                history = _history(scene, rng.randint(0, 1))
                history.append(
                    Turn(
                        speaker=user.name,
                        text=f"My {person.rel} {person.name} {rng.choice(INTROS)}",
                    )
                )
                if rng.random() < 0.6:
                    history.append(Turn(speaker=ASSISTANT, text=rng.choice(REPLIES)))
        if not history:
            history = _history(scene, rng.choice((0, 0, 1, 2)))
        message = _message(scene, template, msg_slots)
        queries = _queries(scene, _pick_queries(rng, topic), slots)
        if kind == "corr":
            old_day = fix.episode(topic, person, False, version=1, when=_before(day, rng, 60, 200))
            fixed = scene.format(topic.fact, slots).rstrip(".")
            old = scene.value(topic, person, 1)
            note = rng.choice(
                (
                    "Correction: {f}, not {o}.",
                    "Sorry, I got that wrong: {f}, not {o}.",
                    "Wait, my mistake, {f} (not {o}).",
                )
            )
            corr_day = _before(day, rng, 1, 50)
            assert corr_day > old_day
            fix.items.append(
                (
                    Memory(
                        kind="episode",
                        text=note.format(f=fixed, o=old),
                        speaker=user.name,
                        date=corr_day,
                    ),
                    True,
                )
            )
            if rng.random() < 0.6:
                fix.fact(topic, person, True)
        else:
            gold_semantic(topic, person)
            if topic.functional and rng.random() < 0.35:
                fix.episode(topic, person, False, version=1, when=_before(day, rng, 130, 400))
    elif kind == "ep":
        me = bool(topic.ep_me) and (person is user or not topic.ep_them)
        person = user if me else person
        slots = scene.slots(topic, person)
        pool = topic.ep_me if me else topic.ep_them
        msg_slots = slots if me else scene.slots(topic, person, rng.choice(("name", "rel")))
        message = _message(scene, rng.choice(pool), msg_slots)
        queries = _queries(scene, [rng.choice(topic.ep_queries)], slots)
        history = _history(scene, rng.choice((0, 1)))
        blocks = "episodic"
        fix.episode(topic, person, True)
    elif kind == "step":
        me = bool(topic.oblique_me) and (person is user or not topic.oblique_them)
        person = user if me else person
        slots = scene.slots(topic, person)
        pool = topic.oblique_me if me else topic.oblique_them
        msg_slots = slots if me else scene.slots(topic, person, rng.choice(("name", "rel")))
        message = _message(scene, rng.choice(pool), msg_slots)
        chosen = topic.oblique_queries or (topic.queries[0], *topic.broad[:1])
        queries = _queries(scene, chosen, slots)
        history = _history(scene, rng.choice((0, 1)))
        gold_semantic(topic, person)
    elif kind == "new":
        message = _message(scene, rng.choice(topic.said), slots)
        recall, blocks, queries = False, "both", []
        history = _history(scene, rng.choice((0, 1, 2)))
    elif kind == "multi":
        second = rng.choice(others)
        if person is user:
            a, b = rng.choice(topic.me), rng.choice(second.me)
            sa = sb = None
        else:
            a, b = rng.choice(topic.them), rng.choice(second.them)
            sa = scene.slots(topic, person, rng.choice(("name", "rel")))
            sb = scene.slots(second, person, "pron")
        head = _message(scene, a, sa or slots).rstrip("?. ")
        tail = _message(scene, b, sb or scene.slots(second, person), chatty=False)
        tail = tail[:1].lower() + tail[1:] if not tail.startswith(("I ", "I'")) else tail
        message = head + rng.choice(JOIN) + tail
        q2 = scene.format(rng.choice(second.queries), scene.slots(second, person))
        queries = [*_queries(scene, [rng.choice(topic.queries)], slots), q2]
        gold_semantic(topic, person)
        gold_semantic(second, person)
        blocks = topic.blocks if topic.blocks == second.blocks else "both"
        others = [t for t in others if t.key != second.key]
    elif kind == "ellipsis":
        first = people[1]
        target = user if rng.random() < 0.3 else people[2]
        s1 = scene.slots(topic, first)
        ask = scene.format(rng.choice(topic.them), s1)
        answer = scene.format(topic.fact, s1)
        history = [
            *_history(scene, rng.choice((0, 0, 1))),
            Turn(speaker=user.name, text=ask),
            Turn(speaker=ASSISTANT, text=rng.choice(("", "From what you told me, ")) + answer),
        ]
        history[-1] = Turn(
            speaker=ASSISTANT, text=history[-1].text[:1].upper() + history[-1].text[1:]
        )
        slots = scene.slots(topic, target)
        template = rng.choice(ELLIPSIS_ME if target is user else ELLIPSIS)
        message = _message(scene, template, slots)
        queries = _queries(scene, [rng.choice(topic.queries)], slots)
        gold_semantic(topic, target)
        fix.fact(topic, first, False)
        person = target
    else:
        raise InvalidInputError(f"unknown recall kind {kind!r}")
    avoid = {(topic.key, person.name)}
    fix.distractors([topic, *rng.sample(others, min(4, len(others)))], avoid, _n_distract(rng))
    memories, gold = fix.done()
    if len(memories) < 3:
        fix.distractors(others, avoid | {(m.text, "") for m in memories}, 3)
        memories, gold = fix.done()
    ex = RecallExample(
        id=ident,
        source=f"gen:recall.{kind}.{topic.key}",
        domain=domain,
        group=f"topic:{topic.key}",
        input=RecallInput(user=user.name, date=day, message=message, history=history[-6:]),
        output=RecallPlan(recall=recall, blocks=blocks, queries=queries),  # type: ignore[arg-type]
        memories=memories,
        gold=gold,
    )
    check_example(ex)
    return ex


def topic_kinds(topic: Topic) -> list[tuple[str, str]]:
    """(kind, domain) pairs a topic makes examples of."""
    out = [("me", topic.domain), ("them", topic.domain), ("new", topic.domain)]
    if topic.ep_queries:
        out.append(("ep", topic.domain))
    if topic.oblique_me or topic.oblique_them:
        out.append(("step", topic.domain))
    if topic.functional:
        out.append(("corr", "corrections"))
    out += [("multi", "questions"), ("ellipsis", "questions")]
    return out


def topic_recipes(topics: Sequence[Topic]) -> list[Recipe]:
    """A recipe per (topic, kind); multi-part questions pair topics of the same list."""

    def maker(t: Topic, kind: str, domain: str) -> Callable[[random.Random, str], RecallExample]:
        return lambda rng, ident: topic_example(t, kind, rng, ident, topics, domain)

    return [
        Recipe(
            f"recall.{kind}.{t.key}",
            domain,
            f"topic:{t.key}",
            maker(t, kind, domain),
            NEW_WEIGHT if kind == "new" else 1.0,
        )
        for t in topics
        for kind, domain in topic_kinds(t)
    ]


def false_example(frame: str, rng: random.Random, ident: str) -> RecallExample:
    """Small talk, thanks and self-contained requests: no lookup."""
    people = _cast(rng, rng.choice(NAMES), rng.randint(1, 3))
    scene = Scene(rng, people)
    day = random_date(rng, date(2024, 1, 1), 700)
    fix = Fixture(scene, day)
    fix.distractors(TOPICS, set(), rng.randint(3, 8))
    memories, gold = fix.done()
    message = _message(scene, rng.choice(FALSE_FRAMES[frame]), {})
    history = _history(scene, rng.choice((0, 1, 1, 2)))
    ex = RecallExample(
        id=ident,
        source=f"gen:recall.false.{frame}",
        domain="small_talk",
        group=f"frame:recall.false.{frame}",
        input=RecallInput(user=people[0].name, date=day, message=message, history=history),
        output=RecallPlan(recall=False, blocks="both", queries=[]),
        memories=memories,
        gold=gold,
    )
    check_example(ex)
    return ex


def false_recipes(frames: Sequence[str]) -> list[Recipe]:
    def maker(f: str) -> Callable[[random.Random, str], RecallExample]:
        return lambda rng, ident: false_example(f, rng, ident)

    return [
        Recipe(f"recall.false.{f}", "small_talk", f"frame:recall.false.{f}", maker(f))
        for f in frames
    ]


# --- the evolving-rules world ----------------------------------------------------------

WORDS = {
    "has_sides": "sides",
    "has_color": "color",
    "costs": "cost",
    "lives_in": "home",
    "has_power": "power",
    "has_element": "element",
    "has_gravity": "gravity",
    "has_rule": "rule",
    "has_rank": "rank",
    "has_score": "score",
}
IT_ASKS = {
    "has_sides": ("How many sides does it have now?", "How many sides is it these days?"),
    "has_color": ("What color is it now?", "Which color did it end up?"),
    "costs": ("How much does it cost now?", "What's the price now?"),
    "lives_in": ("Where does it live now?", "Which arena is its home now?"),
    "has_power": ("What's its power now?", "How strong is it now?"),
    "has_element": ("Which element is it now?", "What element does it have?"),
    "has_gravity": ("What's the gravity there now?", "Is the gravity there still the same?"),
    "has_rule": ("What's the rule there now?", "Which rule applies there now?"),
}
NAME_ASKS = (
    "What is the current {w} of {the}{s}?",
    "Remind me, {the}{s} {w}?",
    "{the_}{s}: what's the {w} now?",
    "Did the {w} of {the}{s} change? What is it now?",
)
MSG_WORDS = {"has_sides": "number of sides", "lives_in": "home arena"}
HISTORY_IT = (
    "Did they change the {s} again?", "Quick question about the {s}.",
    "We're using the {s} tonight.", "I keep losing to the {s}.",
)  # fmt: skip


def _statement(world: World, i: int) -> tuple[str, str, str, str]:
    turn = world.turns[i]
    f = turn.facts[0]
    return turn.action, f["subject"], f["predicate"], f["object"]


def world_probe_example(world: World, rng: random.Random, ident: str) -> RecallExample:
    """A question about a key's current value (or when it last changed), with the key's
    announcements, its near-twins' and the subject's other attributes as the fixture."""
    stated = [
        i for i, t in enumerate(world.turns) if t.action in ("set", "change", "revert", "restate")
    ]
    probes = [i for i, t in enumerate(world.turns) if t.probe and not t.probe.final and i > 10]
    at = rng.choice(probes)
    probe = world.turns[at].probe
    assert probe is not None
    key = (probe.subject, probe.predicate)
    kind = world.entities[probe.subject]
    past = [i for i in stated if i < at]
    mine = [i for i in past if _statement(world, i)[1:3] == key]
    last_change = max(i for i in mine if _statement(world, i)[0] != "restate")
    gold_turns = [i for i in mine if i >= last_change]
    head = probe.subject.split()[0][:3]
    near = [
        i
        for i in past
        if i not in mine
        and (_statement(world, i)[1] == probe.subject or _statement(world, i)[1].startswith(head))
    ]
    players = [s for s, k in world.entities.items() if k == "player"]
    user = rng.choice(players)
    day = world_date(world.seed, world.turns[at].t)
    the = "" if kind == "player" else "the "
    w = WORDS[probe.predicate]
    episodic = probe.changed and rng.random() < 0.25
    history: list[Turn] = []
    if episodic:
        gold_turns = [last_change]
        message = f"When did {the}{probe.subject}'s {w} last change?"
        queries = [f"{probe.subject} {w} change"]
        blocks = "episodic"
    elif kind != "player" and probe.predicate in IT_ASKS and rng.random() < 0.35:
        history.append(Turn(speaker=user, text=rng.choice(HISTORY_IT).format(s=probe.subject)))
        if rng.random() < 0.6:
            history.append(
                Turn(
                    speaker=ASSISTANT,
                    text=rng.choice(("Sure, what about it?", "Let me check my notes.")),
                )
            )
        message = rng.choice(IT_ASKS[probe.predicate])
        queries = [f"{probe.subject} {w}"]
        blocks = "semantic"
    else:
        asks = (probe.question, *NAME_ASKS)
        said_w = MSG_WORDS.get(probe.predicate, w)
        message = rng.choice(asks).format(w=said_w, the=the, the_=the.capitalize(), s=probe.subject)
        queries = [f"{probe.subject} {w}"]
        if rng.random() < 0.3:
            queries.append(
                f"{probe.subject} rules" if kind != "player" else f"{probe.subject} stats"
            )
        blocks = "semantic"
    segments = vary([Segment(message, False)], rng, set(probe.subject.casefold().split()))
    message = text(segments)

    def episode(i: int) -> Memory:
        action, s, p, v = _statement(world, i)
        said = rng.choice(SAYS[(world.entities[s], p)]).format(s=s, v=v)
        lead = {
            "set": "Arena notice: ",
            "change": "Rule change! From now on, ",
            "revert": "Rule change reverted: ",
            "restate": "Reminder: ",
        }[action]
        body = said[0].upper() + said[1:] if action == "set" or action == "restate" else said
        return Memory(
            kind="episode",
            text=f"{lead}{body}.",
            speaker="Announcer",
            date=world_date(world.seed, world.turns[i].t),
        )

    items = [(episode(i), True) for i in gold_turns[-3:]]
    if not episodic:
        fact = rng.choice(SAYS[(kind, probe.predicate)]).format(s=probe.subject, v=probe.truth)
        items.append((Memory(kind="fact", text=fact[0].upper() + fact[1:] + "."), True))
    pool = [i for i in mine if i not in gold_turns] + near
    extra = rng.sample(pool, min(len(pool), rng.randint(2, 12 - len(items))))
    items += [(episode(i), False) for i in extra]
    chatter = [t.episode for t in world.turns[:at] if t.action == "chatter" and t.episode]
    for ep in rng.sample(chatter, min(len(chatter), max(1, 3 - len(items)))):
        who, said = ep["text"].split(": ", 1) if ": " in ep["text"] else ("Announcer", ep["text"])
        when = world_date(world.seed, int((ep["ts"] - T0) // DT))
        items.append((Memory(kind="episode", text=said, speaker=who, date=when), False))
    unique: dict[str, tuple[Memory, bool]] = {}
    for m, g in items:
        unique.setdefault(m.text, (m, g))
    items = list(unique.values())[:12]
    rng.shuffle(items)
    ex = RecallExample(
        id=ident,
        source="gen:world.probe" + (".when" if episodic else ".it" if history else ""),
        domain="game_rules",
        group=f"world:{world.seed}",
        input=RecallInput(user=user, date=day, message=message, history=history),
        output=RecallPlan(recall=True, blocks=blocks, queries=queries),  # type: ignore[arg-type]
        memories=[m for m, _ in items],
        gold=[i for i, (_, g) in enumerate(items) if g],
    )
    check_example(ex)
    return ex


def world_recall_recipe(seed: int, weight: float) -> Recipe:
    missing = {a.predicate for k in KINDS for a in k.attrs} - set(WORDS)
    if missing:
        raise InvalidInputError(f"world predicates {sorted(missing)} have no word in WORDS")
    world = generate_world(WORLD_TURNS, seed)
    return Recipe(
        "world",
        "game_rules",
        f"world:{seed}",
        lambda rng, ident: world_probe_example(world, rng, ident),
        weight,
    )
