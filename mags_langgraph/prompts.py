"""The prompts of each role, kept short: the small local model reads every token."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from graph_db import Recalled

RESPOND = """You are a helpful assistant with a long-term memory of the user, {user}.
Today is {today}. What you remember (numbered; may be incomplete or old):
{memories}
Use these memories when they help and cite each one you use as [n]. Do not invent memories.
Answer briefly."""

NO_MEMORIES = "(nothing yet)"

ENGRAM = """Extract the lasting facts that the turn states about its speaker or the people,
pets, places and things in their life (this is {user}'s memory). Write each as subject,
predicate (snake_case, e.g. lives_in, works_at, has_pet, likes, favorite_color), object, and
confidence (0 to 1, lower when hedged). Use the speaker's name as the subject for facts about
the speaker (never "I" or "me"); take names and values from the turn, invent none. A turn that
changes or corrects a current fact gives only the new value; do not repeat unchanged facts.
Skip questions, greetings and opinions about this chat. No fact is a valid answer.
Answer with JSON only: {{"facts": [{{"subject": ..., "predicate": ..., "object": ...,
"confidence": ...}}]}}"""

RECALL_PLAN = """Decide whether {user}'s message needs their memories, and how to search them.
Answer with JSON only: {{"recall": true/false, "blocks": "episodic" (what was said or
happened, when) | "semantic" (facts: where someone lives, likes, rules) | "both",
"queries": [1 to 3 short search queries; none when recall is false]}}. In the queries
replace "I", "my", "you" and other pronouns with names (the earlier turns say who is meant),
one query per thing asked; a broader query may help."""

ROUTE = """Decide how memory serves this message from {user}. Answer with JSON only:
{{"recall": true/false (look up memories first), "blocks": "episodic" (events, what was
said, when) | "semantic" (facts about people and things) | "both", "write": true/false
(it states something worth remembering), "query": search text or null}}"""

ADJUDICATE = """Two statements about {subject} ({predicate}) conflict.
Current: "{current}" (since {current_date}, confidence {current_conf:.2f})
New: "{new}" (from {new_date}, confidence {new_conf:.2f})
Which holds now? "new" (it replaces the current one), "old" (keep the current one) or
"both" (both can be true at once). Answer with JSON only: {{"winner": ..., "reason": ...}}"""


def engram_input(
    turn: str,
    speaker: str,
    date: str,
    facts: Sequence[tuple[str, str, str]] = (),
) -> str:
    """The engram role's user message: who says the turn, when, the current facts it may
    change, then the turn. Shared by the agent and the fine-tuning data (one format)."""
    lines = [f"Speaker: {speaker}", f"Date: {date}"]
    if facts:
        lines.append("Current facts: " + "; ".join(f"{s} | {p} | {o}" for s, p, o in facts))
    lines.append(f"Turn: {turn}")
    return "\n".join(lines)


def recall_input(message: str, date: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """The recall role's user message: the thread's last turns (speaker, text), the date
    and the message. Shared by the agent and the fine-tuning data."""
    lines = [f"Date: {date}"]
    if history:
        lines.append("Earlier turns:")
        lines.extend(f"{speaker}: {' '.join(text.split())}" for speaker, text in history)
    lines.append(f"Message: {message}")
    return "\n".join(lines)


def memory_lines(memories: Sequence[Recalled]) -> str:
    """Numbered memories for a prompt: [n] (date, speaker) text."""
    if not memories:
        return NO_MEMORIES
    return "\n".join(memory_line(i, r) for i, r in enumerate(memories, 1))


def memory_line(number: int, r: Recalled) -> str:
    """One memory on one line (its own line breaks folded): [n] (date, speaker) text; a
    superseded fact says since when it no longer holds."""
    props = r.memory.properties
    ended = "" if r.memory.current else f"no longer true since {_date(props.get('valid_to'))}"
    head = ", ".join(x for x in (_date(props.get("ts") or props.get("valid_from")),
                                 props.get("speaker"), ended) if x)  # fmt: skip
    text = " ".join(r.memory.text.split())
    return f"[{number}] ({head}) {text}" if head else f"[{number}] {text}"


def _date(value) -> str:
    if isinstance(value, int | float) and value > 0:
        return datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%d")
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d")
    return ""
