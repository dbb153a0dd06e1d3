"""What a query says about *who* and *when*: names and calendar dates in its text.

A question like "What did Nate cook on 9 November, 2022?" is about what Nate said, around
that day. Similarity alone misses both: a name is one word among many, and a date in the
question is rarely written in the turn it points to (turns carry their time as ``ts``).
Recall turns these into soft boosts, never filters (a wrong guess costs a little rank, not the
memory): a time near a date in the query raises relevance (``recall_time_weight``), a speaker
named in it raises the final score (``recall_speaker_weight``), and the query is also searched
without its names (``name_free``): what was said, whoever said it. Asked by someone
(``asker``), "Where do I live?" is about them: the query is also searched as "Where do pat
live?" (``as_asker``), since facts name their subject, and their memories rank as if named.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

DAY_S = 86_400.0
MONTHS = [
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
]  # fmt: skip
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # fmt: skip
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
#: (pattern, groups as (day, month, year) positions, spread in days)
_FORMS = [
    (re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\.?,?\s+{_YEAR}\b", re.I), (1, 2, 3), 3.0),
    (re.compile(rf"\b{_MONTH}\.?\s+{_DAY},?\s+{_YEAR}\b", re.I), (2, 1, 3), 3.0),
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), (3, 2, 1), 3.0),
    (re.compile(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?{_YEAR}\b", re.I), (0, 1, 2), 20.0),
]


@dataclass(frozen=True)
class Grounding:
    """The names and dates of each query of a recall; the last ``derived`` queries were
    derived from the others (their names taken out)."""

    names: list[set[str]]
    dates: list[list[tuple[float, float]]]
    derived: int = 0

    @classmethod
    def of(cls, queries: Sequence[str], derived: int = 0, asker: str | None = None) -> Grounding:
        """``asker``: who asks; a query in the first person names them."""
        me = first_name(asker)
        names = [names_in(q) | ({me} if me and _FIRST_PERSON.search(q) else set()) for q in queries]
        return cls(names, [query_dates(q) for q in queries], derived)

    def names_speaker(self, props: Mapping[str, Any]) -> bool:
        """Whether a query names the memory's speaker (or a fact's subject)."""
        name = props.get("speaker") or props.get("subject")
        return any(is_named(name, names) for names in self.names)

    def time_boosts(self, props: Mapping[str, Any], weight: float) -> list[float]:
        """Per query: ``weight`` x closeness of the memory's time to a date written in it
        (exp(-distance / spread); 0 without a date)."""
        t = props.get("ts")
        if t is None:  # a fact: when it became true
            t = props.get("valid_from")
        return self.time_boosts_at(t, weight)

    def time_boosts_at(self, t: float | None, weight: float) -> list[float]:
        """``time_boosts`` of a memory of time ``t`` (None: it has none)."""
        return [
            weight * max(math.exp(-abs(t - d) / spread) for d, spread in dates)
            if weight and dates and t is not None
            else 0.0
            for dates in self.dates
        ]


def query_dates(text: str) -> list[tuple[float, float]]:
    """Calendar dates written in ``text`` as (epoch seconds, spread in seconds): a day is
    spread over ~3 days, a month over ~20 days around its middle. Dates without a year
    ("in June") are left out: which June is a guess."""
    found: list[tuple[float, float]] = []
    taken: list[tuple[int, int]] = []  # spans already read as a more precise form
    for pattern, (d, m, y), spread in _FORMS:
        for match in pattern.finditer(text):
            if any(a <= match.start() < b for a, b in taken):
                continue
            when = _date(match, d, m, y)
            if when is not None:
                found.append((when.timestamp(), spread * DAY_S))
                taken.append(match.span())
    return found


def _date(match: re.Match[str], d: int, m: int, y: int) -> datetime | None:
    month_text = match.group(m)
    if month_text.isdigit():
        month = int(month_text)
    else:
        month = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(month_text.lower()))
    day = int(match.group(d)) if d else 15
    try:
        return datetime(int(match.group(y)), month, day, tzinfo=UTC)
    except ValueError:  # "31 February"
        return None


def about_now(text: str) -> bool:
    """Whether a query asks how things stand ("Where is the laptop?", "What does Pat do for
    work?"): it names no date and no past ("did", "was", "ago", "last", "first", "when",
    ...), or it asks for the outcome ("Where did the laptop end up?", "What did Pat
    eventually choose?"). Then the latest of several turns about the same thing answers it."""
    return (not _PAST.search(text) or bool(_OUTCOME.search(text))) and not query_dates(text)


def topic_of(text: str) -> str:
    """``text`` without the words that say when or how it asks, not what about: the outcome
    or the present ("end up", "at the moment", "current"), and "where can I find" or "what
    is the location of" (ways to say "where is"). "Pick up", "a moment" or "you find
    yourself in a bar" in a turn must not set it apart from the other turns about it."""
    return _ASK_WHERE.sub("where", _OUTCOME.sub(" ", text))


_OUTCOME = re.compile(
    r"\b(ends? up|ended up|winds? up|wound up|in the end|eventually|finally|latest|"
    r"most recent(ly)?|current(ly)?|right now|at the moment|these days|nowadays)\b",
    re.I,
)
_ASK_WHERE = re.compile(
    r"\bwhere\s+(?:can|could|do|does|would|will|should|might|may)\s+"
    r"(?:i|you|we|one|they|he|she)\s+(?:find|locate|get|see)\b"
    r"|\bwhat(?:\s+is|'s)\s+the\s+(?:location|whereabouts)\s+of\b",
    re.I,
)
_PAST = re.compile(
    r"\b(did|didn't|was|wasn't|were|weren't|had|used to|ago|yesterday|last|before|earlier|"
    r"previously|originally|first|once|when|since)\b",
    re.I,
)


def names_in(text: str) -> set[str]:
    """Capitalised words of ``text`` (lower-cased, "Nate's" -> "nate", any script): the
    names a question may be about."""
    words = re.findall(r"\b[^\W\d_][\w-]*", text)
    return {w.lower() for w in words if len(w) > 1 and w[0].isupper()} - _NOT_NAMES


def name_free(text: str) -> str | None:
    """``text`` without the names in it ("What did Nate cook?" -> "What did cook?"), or None
    when it names nobody or little else is left. Searched beside the query, it finds turns by
    what they say: with the names in, the turns that only greet someone by name match best."""
    names = names_in(text)
    if not names:
        return None
    kept = re.sub(
        r"\b([^\W\d_][\w-]*)(?:'s)?", lambda m: "" if m[1].lower() in names else m[0], text
    )
    kept = re.sub(r"\s+", " ", kept).strip()
    return kept if len(re.findall(r"\w{3,}", kept)) >= 2 else None


def is_named(name: str | None, names: set[str]) -> bool:
    """Whether a memory's speaker or subject ``name`` is named in the query: its first word
    (a given name; "Nate" for "Nate Smith") is among the query's capitalised words."""
    first = first_name(name)
    return bool(first) and first in names


@functools.lru_cache(maxsize=4096)  # a recall asks it of every candidate; names repeat
def first_name(name: str | None) -> str:
    """The first word of a speaker's name, lower-cased ("" for none)."""
    return re.split(r"[\s']+", name.strip().lower(), maxsplit=1)[0] if name else ""


_FIRST_PERSON = re.compile(r"\b(i['’]m|i['’]ve|i['’]d|i['’]ll|i|me|myself|my|mine)\b", re.I)
_AS_ASKER = {"i'm": "{} is", "i've": "{} has", "i'd": "{} would", "i'll": "{} will", "my": "{}'s",
             "mine": "{}'s"}  # fmt: skip


def as_asker(text: str, asker: str | None) -> str | None:
    """``text`` with its first person replaced by ``asker`` ("Where do I live?" asked by
    pat -> "Where do pat live?"), or None when it has none. Facts name their subject
    ("pat lives in Porto"): the first-person question is far from them, this one near."""
    if not asker or not asker.strip() or not _FIRST_PERSON.search(text):
        return None
    who = asker.strip()

    def swap(m: re.Match[str]) -> str:
        return _AS_ASKER.get(m[1].lower().replace("’", "'"), "{}").format(who)

    return _FIRST_PERSON.sub(swap, text)


# sentence-initial and question words, months and days: capitalised without being names
_NOT_NAMES = set(MONTHS) | {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "what", "when", "where", "who", "whom", "whose", "why", "which", "how", "is", "are",
    "was", "were", "do", "does", "did", "can", "could", "would", "should", "will", "has",
    "have", "had", "the", "a", "an", "in", "on", "at", "i", "my", "me", "we", "our", "you",
    "your", "tell", "list", "name", "describe", "if", "after", "before", "since",
}  # fmt: skip
