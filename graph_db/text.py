"""Checks and normal forms for what users and models hand the store."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from graph_db.errors import InvalidInputError

_NS_MAX = 256
NAME_MAX = 256  # a speaker, an entity name
PAGE_MAX = 100_000  # the most memories one list call returns
K_MAX = 10_000  # the most results one search or recall returns
_INT32 = 2**31 - 1  # engines take limits and offsets as 32-bit integers
_WORD = re.compile(r"\w+", re.UNICODE)
_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n\r.,;:!?\"'`()[]{}<>"


NS_SEP = "/"


def check_ns(ns: object) -> str:
    """A namespace: one or more labels joined by "/", at most 256 characters. The one
    rule for every front end: ``LiquidGraph``'s "maya/notes" is ``MAGSStore``'s
    ("maya", "notes"), found under the prefix ("maya",); a user id is one label."""
    if not isinstance(ns, str) or not ns.strip():
        raise InvalidInputError(
            f"namespace must be a non-empty string, got {ns!r}; pass the user or agent id"
        )
    if len(ns) > _NS_MAX:
        raise InvalidInputError(f"namespace is {len(ns)} characters; the limit is {_NS_MAX}")
    for label in ns.split(NS_SEP):
        if not label.strip():
            raise InvalidInputError(
                f"namespace {ns!r} has an empty label: labels are joined by {NS_SEP!r} "
                '("maya/notes"), none blank, no leading or trailing one'
            )
    return check_text(ns, "namespace", _NS_MAX)


def check_label(label: object, what: str = "namespace label") -> str:
    """One label of a namespace, e.g. a user id: a namespace without "/" (a user
    "alice/x" would be a namespace inside "alice")."""
    if isinstance(label, str) and NS_SEP in label:
        raise InvalidInputError(
            f"a {what} may not contain {NS_SEP!r} (it separates namespace labels): {label!r}"
        )
    try:
        return check_ns(label)
    except InvalidInputError as e:
        raise InvalidInputError(str(e).replace("namespace", what, 1)) from None


def namespace_of(labels: tuple[str, ...] | list[str]) -> str:
    """The namespace of a path of labels (a store namespace tuple)."""
    if not isinstance(labels, tuple | list) or not labels:
        raise InvalidInputError(f"a namespace needs at least one label, got {labels!r}")
    return check_ns(NS_SEP.join(check_label(label) for label in labels))


def check_text(text: object, what: str, max_chars: int) -> str:
    """Non-empty, valid UTF-8, at most ``max_chars`` characters; stored verbatim."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise InvalidInputError(
                f"{what} is not valid UTF-8 (byte {e.start}); decode it first, e.g. "
                "data.decode('utf-8', errors='replace')"
            ) from e
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must be a string, got {type(text).__name__}")
    if not text.strip():
        raise InvalidInputError(f"{what} is empty; there is nothing to remember")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidInputError(
            f"{what} is not valid UTF-8 (lone surrogate at character {e.start}); decode input "
            "with errors='replace' before storing it"
        ) from e
    if len(text) > max_chars:
        raise InvalidInputError(
            f"{what} is {len(text):,} characters; the limit is {max_chars:,} "
            "(MAGS_MAX_TEXT_CHARS). Split it into several memories."
        )
    return text


def split_text(text: str, max_chars: int) -> list[str]:
    """``text`` as consecutive parts of at most ``max_chars`` characters, each cut after
    the last paragraph break in its second half, else the last line break, sentence end or
    space there, else at the limit (blank parts are dropped): a long message is stored in
    parts rather than refused."""
    parts: list[str] = []
    while len(text) > max_chars:
        window = text[:max_chars]
        ends = (window.rfind(sep) + len(sep) for sep in ("\n\n", "\n", ". ", " "))
        cut = next((end for end in ends if end > max_chars // 2), max_chars)
        parts.append(text[:cut])
        text = text[cut:]
    parts.append(text)
    return [p for p in parts if p.strip()]


def entity_key(name: str) -> str:
    """The normalised form entities are matched on: NFKC, case-folded, single spaces."""
    s = unicodedata.normalize("NFKC", name).casefold()
    return _SPACE.sub(" ", s).strip(_EDGE_PUNCT)


def predicate_key(predicate: str) -> str:
    """Predicates in snake case: 'Lives in' -> 'lives_in'."""
    words = _WORD.findall(unicodedata.normalize("NFKC", predicate).casefold())
    return "_".join(words)


# common English function words: they match everything and rank nothing; the bits a
# contraction leaves ("where's", "I'll", "you've") and "now" ("where is it now?") alike
STOPWORDS = frozenset(
    [
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "now",
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@lru_cache(maxsize=4)
def _stemmer(language: str):
    import Stemmer

    return Stemmer.Stemmer(language)


def terms(text: str, language: str = "english") -> str:
    """The text as the full-text index sees it: lower-cased word stems without stop words.

    Both the stored memory and the query go through this, so "Researching agencies" finds
    "research agency"; engines then index plain space-separated tokens the same way.
    """
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    words = [w for w in words if w not in STOPWORDS]
    if language != "none":
        words = _stemmer(language).stemWords(words)
    return " ".join(words)


def fulltext_query(text: str, language: str = "english", max_terms: int = 32) -> str:
    """A query for the full-text index: the query's distinct terms, words only (no query
    syntax). Distinct: Lucene (Neo4j) counts a repeated term twice, ArcadeDB once."""
    return " ".join(list(dict.fromkeys(terms(text, language).split()))[:max_terms])


def sentences(text: str, min_chars: int = 12) -> list[str]:
    """The sentences of a turn (what the per-sentence views embed); short bits are merged."""
    out: list[str] = []
    for part in _SENTENCE.split(text.strip()):
        if out and len(part) < min_chars:
            out[-1] = f"{out[-1]} {part}"
        elif part:
            out.append(part)
    return out


def is_question(text: str) -> bool:
    """Whether a turn only asks ("Where do I live?", "Any news? How was it?"): it states
    nothing, so recall ranks it under what was said (``recall_question_penalty``)."""
    parts = [p for p in re.split(r"(?<=[.!?…])\s+", text.strip()) if p.strip()]
    return bool(parts) and all(p.rstrip(" )\"'»”!").endswith("?") for p in parts)


def check_page(limit: object, offset: object) -> tuple[int, int]:
    """A page of a listing: 0 <= limit <= PAGE_MAX, 0 <= offset < 2**31."""
    for name, value in (("limit", limit), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInputError(f"{name} must be an int, not {value!r}")
    if not 0 <= limit <= PAGE_MAX:  # type: ignore[operator]
        raise InvalidInputError(
            f"limit must be between 0 and {PAGE_MAX}, not {limit}; page with offset"
        )
    if not 0 <= offset <= _INT32:  # type: ignore[operator]
        raise InvalidInputError(f"offset must be between 0 and {_INT32}, not {offset}")
    return int(limit), int(offset)  # type: ignore[arg-type]


def check_similarity(value: object) -> float | None:
    """A similarity threshold: None, or a cosine between -1 and 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        raise InvalidInputError(
            f"min_similarity must be a cosine between -1 and 1 (e.g. 0.3), not {value!r}"
        )
    return float(value)


def check_k(k: object) -> int:
    """How many results a search or recall returns: 0 <= k <= K_MAX (0: none)."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise InvalidInputError(f"k must be an int, not {k!r}")
    if not 0 <= k <= K_MAX:
        raise InvalidInputError(f"k must be between 0 and {K_MAX}, not {k}")
    return k


def to_json(value: object, what: str) -> str:
    """Metadata as stored: JSON text (a dict of strings, numbers, lists, ...)."""
    import json

    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInputError(
            f"{what} must be JSON (strings, numbers, booleans, lists, dicts): {e}"
        ) from None
