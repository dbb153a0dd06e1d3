"""Filling templates and varying their surface: casual, typos, hedges, chatty openers.

A template is filled into segments, each marked protected (a slot value: a name, a place,
an entity the gold label copies) or free (the frame's own words). The variations only touch
free words, so the gold label stays grounded whatever they do: a typo never lands in a name,
lower case never changes what a fact's object matches (grounding is case-insensitive).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from finetune.data.validate import FIRST_PERSON, SECOND_PERSON, SOFT_MARKERS, THIRD_PERSON
from finetune.data.vocab import POOLS
from graph_db.errors import InvalidInputError

SLOT = re.compile(r"\{(\w+)\}")
_WORDISH = re.compile(r"[A-Za-z]{4,}")
# words a variation never misspells: pronouns (grounding of I/my), hedges (confidence), negations
KEEP = (
    FIRST_PERSON
    | SECOND_PERSON
    | THIRD_PERSON
    | {w for m in SOFT_MARKERS for w in m.split()}
    | {"not", "never", "no", "nothing", "dont", "don't", "isn't", "actually", "still", "anymore"}
)
CONTRACTIONS = (
    (r"\bI am\b", "I'm"),
    (r"\bdo not\b", "don't"),
    (r"\bdoes not\b", "doesn't"),
    (r"\bis not\b", "isn't"),
    (r"\bgoing to\b", "gonna"),
    (r"\bwant to\b", "wanna"),
    (r"\bI have\b", "I've"),
    (r"\bkind of\b", "kinda"),
    (r"\bbecause\b", "cuz"),
    (r"\bthough\b", "tho"),
    (r"\bokay\b", "ok"),
)
OPENERS = (
    "Oh, ", "So, ", "Btw, ", "Quick update: ", "Fun fact: ", "Guess what, ", "Also, ", "Hey, ",
    "Just so you know, ", "Random, but ", "Okay so ", "FYI ", "Hmm, ", "Anyway, ",
)  # fmt: skip
CLOSERS = (" :)", " haha", "!", " lol", " 🙂", " :D", "!!", " ...", " anyway", " 😅", " ^^")
HEDGES = ("I think ", "I guess ", "Maybe ", "Not sure, but ", "Probably ", "I think that ")


@dataclass
class Segment:
    text: str
    protected: bool


@dataclass
class Filler:
    """Slot values for one example: "{city}" and "{city2}" are two different cities."""

    rng: random.Random
    values: dict[str, str] = field(default_factory=dict)
    exclude: set[str] = field(default_factory=set)  # the user and speaker: never a slot value

    def __call__(self, slot: str) -> str:
        if slot not in self.values:
            pool_name = slot.rstrip("0123456789")
            pool = POOLS.get(pool_name)
            if pool is None:
                raise InvalidInputError(
                    f"template slot {{{slot}}} names no pool; add {pool_name!r} to "
                    "finetune/data/vocab.py POOLS or pass its value"
                )
            taken = {v for s, v in self.values.items() if s.rstrip("0123456789") == pool_name}
            free = [v for v in pool if v not in taken and v not in self.exclude]
            self.values[slot] = self.rng.choice(free)
        return self.values[slot]

    def format(self, template: str) -> str:
        return SLOT.sub(lambda m: self(m.group(1)), template)


def render(template: str, fill: Filler) -> list[Segment]:
    """The template as free and protected segments (slot values protected)."""
    out: list[Segment] = []
    pos = 0
    for m in SLOT.finditer(template):
        if m.start() > pos:
            out.append(Segment(template[pos : m.start()], False))
        out.append(Segment(fill(m.group(1)), True))
        pos = m.end()
    if pos < len(template):
        out.append(Segment(template[pos:], False))
    return out


def text(segments: list[Segment]) -> str:
    return re.sub(r"\s+", " ", "".join(s.text for s in segments)).strip()


def _first_free(segments: list[Segment]) -> Segment | None:
    for s in segments:
        if s.text.strip():
            return None if s.protected else s
    return None


def lower_start(segments: list[Segment]) -> None:
    """Lower-case the first letter when the text starts with a free word other than "I"."""
    s = _first_free(segments)
    if s is None:
        return
    stripped = s.text.lstrip()
    head = stripped.split(" ", 1)[0]
    if head in ("I", "I'm", "I've", "I'd", "I'll") or not stripped[:1].isupper():
        return
    lead = s.text[: len(s.text) - len(stripped)]
    s.text = lead + stripped[0].lower() + stripped[1:]


def hedge(segments: list[Segment], rng: random.Random) -> list[Segment]:
    lower_start(segments)
    return [Segment(rng.choice(HEDGES), False), *segments]


def opener(segments: list[Segment], rng: random.Random) -> list[Segment]:
    lower_start(segments)
    return [Segment(rng.choice(OPENERS), False), *segments]


def closer(segments: list[Segment], rng: random.Random) -> list[Segment]:
    last = segments[-1]
    if not last.protected and last.text.rstrip().endswith((".", "!")) and rng.random() < 0.7:
        last.text = last.text.rstrip()[:-1]
    return [*segments, Segment(rng.choice(CLOSERS), False)]


def casual(segments: list[Segment], rng: random.Random, lower_names: bool) -> None:
    """Contractions, lower case, no final full stop (names lower-cased too if asked)."""
    for s in segments:
        if s.protected:
            if lower_names:
                s.text = s.text.lower()
            continue
        for pattern, short in CONTRACTIONS:
            s.text = re.sub(pattern, short, s.text)
        s.text = s.text.lower()
        if rng.random() < 0.3:
            s.text = s.text.replace("'", "")
    last = segments[-1]
    if not last.protected and last.text.endswith("."):
        last.text = last.text[:-1]


def typo(segments: list[Segment], rng: random.Random, keep: set[str]) -> None:
    """One misspelt free word (swap, drop or double a letter) of four letters or more."""
    spots = [
        (i, m)
        for i, s in enumerate(segments)
        if not s.protected
        for m in _WORDISH.finditer(s.text)
        if m.group().casefold() not in KEEP and m.group().casefold() not in keep
    ]
    if not spots:
        return
    i, m = rng.choice(spots)
    w = m.group()
    j = rng.randrange(1, len(w) - 1)
    op = rng.randrange(3)
    if op == 0:
        new = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    elif op == 1:
        new = w[:j] + w[j + 1 :]
    else:
        new = w[:j] + w[j] + w[j:]
    s = segments[i]
    s.text = s.text[: m.start()] + new + s.text[m.end() :]


def vary(
    segments: list[Segment], rng: random.Random, keep: set[str], *, chatty: bool = True
) -> list[Segment]:
    """Random surface variation of a statement or question (free words only)."""
    if chatty and rng.random() < 0.18:
        segments = opener(segments, rng)
    if chatty and rng.random() < 0.15:
        segments = closer(segments, rng)
    if rng.random() < 0.25:
        casual(segments, rng, lower_names=rng.random() < 0.25)
    if rng.random() < 0.15:
        typo(segments, rng, keep)
    return segments
