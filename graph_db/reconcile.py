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

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from graph_db.backends import GraphBackend
from graph_db.settings import GraphSettings


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
_META_KEY = "cardinality:"


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


class Cardinality:
    """Functional or multi-valued, per namespace: override > learned > built-in > pattern."""

    def __init__(self, backend: GraphBackend, settings: GraphSettings) -> None:
        self.backend = backend
        self.settings = settings
        self._cache: dict[str, dict[str, dict[str, int | bool]]] = {}

    def _table(self, ns: str) -> dict[str, dict[str, int | bool]]:
        if ns not in self._cache:
            rows = self.backend.read("meta_get", key=_META_KEY + ns)
            raw = rows[0]["value"] if rows and rows[0]["value"] else "{}"
            self._cache[ns] = json.loads(raw)
        return self._cache[ns]

    def _save(self, ns: str) -> None:
        value = json.dumps(self._table(ns), sort_keys=True)
        self.backend.write("meta_put", key=_META_KEY + ns, value=value)

    def kind(self, ns: str, predicate: str) -> Literal["functional", "multi", "unknown"]:
        entry = self._table(ns).get(predicate, {})
        if "override" in entry:
            return "functional" if entry["override"] else "multi"
        replaced, kept = int(entry.get("replaced", 0)), int(entry.get("kept_both", 0))
        if replaced >= 2 and replaced > kept:  # adjudicated single-valued, more than not
            return "functional"
        if kept >= 2 and kept > replaced:
            return "multi"
        if predicate in FUNCTIONAL or predicate.startswith(FUNCTIONAL_PREFIXES):
            return "functional"
        if predicate.endswith(FUNCTIONAL_SUFFIXES):
            return "functional"
        return "multi" if predicate in MULTI_VALUED else "unknown"

    def functional(self, ns: str, predicate: str) -> bool:
        return self.kind(ns, predicate) == "functional"

    def set(self, ns: str, predicate: str, functional: bool | None) -> None:
        """Override (or, with None, clear the override of) a predicate's cardinality."""
        entry = self._table(ns).setdefault(predicate, {})
        if functional is None:
            entry.pop("override", None)
        else:
            entry["override"] = functional
        self._save(ns)

    def learn(self, ns: str, predicate: str, replaced: bool) -> None:
        """An adjudicator said a new value of ``predicate`` replaced the old one (or not)."""
        entry = self._table(ns).setdefault(predicate, {})
        key = "replaced" if replaced else "kept_both"
        entry[key] = int(entry.get(key, 0)) + 1
        self._save(ns)

    def reset(self, ns: str) -> None:
        """Forget what ``ns`` learned and declared (the namespace is being deleted)."""
        self._cache[ns] = {}
        self._save(ns)
