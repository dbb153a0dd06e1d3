"""Decisions that need no model: the default router, and first-person fact patterns.

The router keeps a turn at two model calls (respond, engram). The patterns are what the
engram role falls back to when the served model is the tiny SmolLM2 (its triplets are
mostly noise): few, common, and precise, so the tiny path stays correct if not complete.
"""

from __future__ import annotations

import re

from mags_langgraph.schemas import Route, Triplet

_SMALL_TALK = re.compile(
    r"^\W*(hi|hello|hey|yo|thanks|thank you|thx|ok|okay|cool|great|nice|bye|goodbye|"
    r"good (morning|night|evening)|see you|lol|yes|no|sure)\W*$",
    re.IGNORECASE,
)
_EVENT_WORDS = re.compile(
    r"\b(when|last time|yesterday|ago|did (i|we)|what did|talk(ed)? about|told you|said)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|my|me|mine|we|our)\b", re.IGNORECASE)


def route(message: str) -> Route:
    """Recall unless the message is small talk; write facts when it states something."""
    text = message.strip()
    if not text or _SMALL_TALK.match(text):
        return Route(recall=False, blocks="both", write=False)
    question = text.endswith("?")
    blocks = "episodic" if _EVENT_WORDS.search(text) else "both"
    statement = not question or len(re.findall(r"[.!]\s", text)) > 0
    return Route(recall=True, blocks=blocks, write=statement and bool(_FIRST_PERSON.search(text)))


_NAME = r"([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})"
_THING = r"([^.,;!?]{1,60}?)"
_END = r"(?=\s*(?:[.,;!?]|\band\b|\bbut\b|$))"
_PATTERNS: list[tuple[re.Pattern[str], str]] = [  # lead case-free, names capitalised
    (re.compile(rf"(?i:\bmy name is) {_NAME}"), "name"),
    (re.compile(rf"(?i:\bi (?:now |currently )?(?:live|am living|'m living) in) {_NAME}"),
     "lives_in"),
    (re.compile(rf"(?i:\bi(?: have|'ve)? (?:just |recently )?(?:moved|relocated) to) {_NAME}"),
     "lives_in"),
    (re.compile(rf"(?i:\bi (?:now |currently )?work (?:at|for)) {_NAME}"), "works_at"),
    (re.compile(rf"(?i:\bi(?: have|'ve)? (?:just |recently )?(?:joined|started (?:a new job )?"
                rf"(?:at|with))) {_NAME}"), "works_at"),
    (re.compile(rf"(?i:\bi(?: am|'m) an?) {_THING}{_END}"), "is_a"),
    (re.compile(rf"(?i:\bi (?:really )?(?:like|love|enjoy)) {_THING}{_END}"), "likes"),
    (re.compile(rf"(?i:\bi (?:don't like|do not like|dislike|hate)) {_THING}{_END}"), "dislikes"),
    (re.compile(rf"(?i:\bmy favou?rite) ([a-z ]{{2,30}}?) (?i:is) {_THING}{_END}"), "favorite_{0}"),
    (re.compile(rf"(?i:\bmy) ([a-z]{{2,20}}) (?i:is (?:called|named)) {_NAME}"), "{0}_name"),
    (re.compile(rf"(?i:\bi have an?) ([a-z ]{{2,30}}?) (?i:called|named) {_NAME}"), "has_{0}"),
]  # fmt: skip


def facts_from(message: str, user: str) -> list[Triplet]:
    """The first-person facts ``message`` states, with ``user`` as the subject."""
    out: list[Triplet] = []
    for pattern, predicate in _PATTERNS:
        for m in pattern.finditer(message):
            parts = [g.strip() for g in m.groups()]
            obj = parts[-1].strip(" '\"")
            pred = predicate.format(*(p.replace(" ", "_").lower() for p in parts[:-1]))
            if obj and len(obj) <= 60:
                out.append(Triplet(subject=user, predicate=pred, object=obj, confidence=0.7))
    return out
