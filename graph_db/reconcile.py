"""Reconcile (KEDKG): a new value of a single-valued predicate replaces the current one.

- Cardinality: a predicate is functional (one current value per subject: lives_in,
  has_sides) or multi-valued (likes). Built-in lists and name patterns decide, a
  namespace learns from adjudicated conflicts, and ``set_cardinality`` overrides both.
  An unknown predicate is put to a custom adjudicator (an LLM), whose verdicts teach
  the namespace; without one it is multi-valued: when unsure, nothing is superseded.
- Conflict: a new fact (s, p, o') meets a current (s, p, o), p functional, o != o'.
- Adjudicator: any callable ``(Conflict) -> Verdict`` (an LLM in the agent layer); the
  default weighs time, confidence and importance (see ``default_adjudicator``).
- Outcome: the loser gets ``valid_to`` and a ``SUPERSEDES {at, reason}`` edge from the
  winner; nothing is deleted, ``history()`` returns the chain, ``recall(as_of=...)`` the past.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from graph_db.backends import GraphBackend


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTIONAL = _words(
    """is is_a age born_in born_on birthday date_of_birth died_on lives_in located_in
    based_in works_at works_for employer job job_title occupation role title status
    relationship_status married_to spouse partner name full_name nickname gender nationality
    citizenship home_town hometown capital_of capital population height weight color colour
    size price costs cost value equals has_sides sides owner owned_by ceo_of leader_of
    headquarters phone phone_number email address zip_code timezone language_preference
    current_city current_job current_school school studies_at graduated_from version
    scheduled_for due_on starts_at ends_at deadline rule"""
)
MULTI_VALUED = _words(
    """likes loves dislikes hates enjoys has has_a owns knows friend_of friends_with visited
    went_to attended speaks plays reads read watched ate eats drinks uses wants needs
    prefers collects studies studied member_of part_of child_of parent_of sibling_of
    works_with met traveled_to travelled_to mentioned said interested_in hobby hobbies
    allergic_to"""
)
FUNCTIONAL_PREFIXES = ("favourite_", "favorite_", "current_", "number_of_", "has_number_of_")
FUNCTIONAL_SUFFIXES = ("_count", "_age", "_name", "_date", "_status", "_color", "_colour")
LEGACY_META_PREFIX = "cardinality:"  # schema < 3: one JSON blob per namespace
Kind = Literal["functional", "multi", "unknown"]
Run = Callable[..., list[dict]]  # backend.read, or Tx.run inside a transaction


@dataclass(frozen=True)
class FactView:
    """One side of a conflict: what the adjudicator needs to know of a fact."""

    id: str | None
    subject: str
    predicate: str
    object: str
    confidence: float
    importance: float
    valid_from: float


@dataclass(frozen=True)
class Conflict:
    new: FactView
    current: FactView


@dataclass(frozen=True)
class Verdict:
    """``new``: the new value replaces the current one; ``old``: the current one stays and
    the new one is kept as history; ``both``: not a conflict after all (both current)."""

    winner: Literal["new", "old", "both"]
    reason: str


Adjudicator = Callable[[Conflict], Verdict]


def default_adjudicator(margin: float) -> Adjudicator:
    """Newer information wins unless it is clearly less certain.

    Older than the current value (``valid_from``) -> it is history, the current stays.
    Else the new value wins if its confidence >= the current one's confidence x
    (0.75 + 0.25 x importance) - ``margin``: a well-used, confident fact is harder to move.
    """

    def adjudicate(c: Conflict) -> Verdict:
        if c.new.valid_from < c.current.valid_from:
            return Verdict("old", "older than the current value")
        strength = c.current.confidence * (0.75 + 0.25 * c.current.importance)
        if c.new.confidence >= strength - margin:
            return Verdict("new", f"newer value (confidence {c.new.confidence:.2f})")
        return Verdict(
            "old",
            f"less certain ({c.new.confidence:.2f}) than the current value ({strength:.2f})",
        )

    return adjudicate


@dataclass
class PredicateInfo:
    """What a namespace declared (``override``) and learned (adjudicated conflicts that
    replaced the current value, or kept both) about one predicate."""

    override: bool | None = None
    replaced: int = 0
    kept_both: int = 0

    @classmethod
    def of(cls, row: dict | None) -> PredicateInfo:
        if not row:
            return cls()
        return cls(row.get("override"), int(row.get("replaced") or 0),
                   int(row.get("kept_both") or 0))  # fmt: skip


def cardinality(predicate: str, info: PredicateInfo | None = None) -> Kind:
    """Functional or multi-valued: override > learned > built-in list > name pattern;
    ``unknown`` when nothing says."""
    info = info or PredicateInfo()
    if info.override is not None:
        return "functional" if info.override else "multi"
    if info.replaced >= 2 and info.replaced > info.kept_both:  # adjudicated single-valued
        return "functional"
    if info.kept_both >= 2 and info.kept_both > info.replaced:
        return "multi"
    if predicate in FUNCTIONAL or predicate.startswith(FUNCTIONAL_PREFIXES):
        return "functional"
    if predicate.endswith(FUNCTIONAL_SUFFIXES):
        return "functional"
    return "multi" if predicate in MULTI_VALUED else "unknown"


def predicate_node_key(ns: str, predicate: str) -> str:
    """The unique key of a namespace's ``Predicate`` node (a predicate key has no newline)."""
    return f"{ns}\n{predicate}"


class Cardinality:
    """The cardinality of a namespace's predicates, read from the store when a batch is
    planned (no process-local cache: two processes on one home see each other's lessons).
    What conflicts teach is added inside the write that reconciled them."""

    def __init__(self, backend: GraphBackend) -> None:
        self.backend = backend

    def infos(self, run: Run, ns: str, predicates: Iterable[str]) -> dict[str, PredicateInfo]:
        names = sorted(set(predicates))
        keys = [{"key": predicate_node_key(ns, n), "name": n} for n in names]
        rows = run("predicates_get", ns=ns, keys=keys) if keys else []
        found = {r["name"]: PredicateInfo.of(r) for r in rows}
        return {n: found.get(n, PredicateInfo()) for n in names}

    def kind(self, ns: str, predicate: str) -> Kind:
        return cardinality(predicate, self.infos(self.backend.read, ns, [predicate])[predicate])

    def set(self, ns: str, predicate: str, functional: bool | None) -> None:
        """Override (or, with None, clear the override of) a predicate's cardinality."""
        key = predicate_node_key(ns, predicate)
        self.backend.write(
            "predicate_set", ns=ns, key=key, predicate=predicate, override=functional
        )

    @staticmethod
    def lessons_rows(ns: str, lessons: dict[str, PredicateInfo]) -> list[dict]:
        """What a batch's conflicts taught, as rows for ``predicates_learn``."""
        return [
            {"key": predicate_node_key(ns, name), "name": name,
             "replaced": info.replaced, "kept_both": info.kept_both}
            for name, info in sorted(lessons.items())
            if info.replaced or info.kept_both
        ]  # fmt: skip
