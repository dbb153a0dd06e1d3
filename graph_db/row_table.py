"""What recall ranks and filters a memory by (``recall_rows.cypher``'s row: times, speaker,
importance, the fact's subject and predicate, ...), held by the read index in columns so
that recall reads the rows of its candidates and walked memories in process, not over Bolt.

Columns, not a dict per memory, for the read index's budget (under 1 KB a memory beyond its
vectors): the times and importance as float64 (NaN for unset), ``asks`` as a byte, the
speaker as an interned string, and a fact's subject, predicate and source turn apart (facts
are few). The terms are the lexicon's (``Lexicon.terms``), not held twice.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

FLOATS = ("valid_from", "valid_to", "ts", "created_at", "importance", "last_access")
FACT_KEYS = ("subject", "predicate", "source_episode_id")
ASKS = {None: 2, False: 0, True: 1}  # asks as a byte: unknown, states, asks
_ASKED = (False, True, None)
_KEYS = (*FLOATS, *FACT_KEYS, "speaker", "asks", "terms", "label")  # a row's, in order


class RowTable:
    """The rows of one namespace's memories, by the memory's number in the namespace (its
    node's in ``graph_db.adjacency``: one id -> number map for the index, not one a part;
    see the module doc)."""

    def __init__(self) -> None:
        self.held = 0
        self.floats = np.full((0, len(FLOATS)), np.nan)
        self.asks = bytearray()
        self.labels: list[str | None] = []  # None: no row at that number
        self.speakers: list[str | None] = []
        self.facts: dict[int, tuple[Any, ...]] = {}  # FACT_KEYS' values, when any is set

    def __len__(self) -> int:
        return self.held

    def label(self, at: int) -> str | None:
        """The label of the memory at ``at``; None when no row is held there."""
        return self.labels[at] if at < len(self.labels) else None

    def put(self, at: int, label: str, row: dict[str, Any]) -> None:
        """Hold ``row`` (as ``recall_rows`` gives it) for the memory at ``at`` of ``label``."""
        if at >= len(self.labels):
            grow = at + 1 - len(self.labels)
            self.labels.extend([None] * grow)
            self.speakers.extend([None] * grow)
            self.asks.extend(bytes([2]) * grow)
        if at >= len(self.floats):  # grow by half again
            grown = np.full((max(64, at + at // 2), len(FLOATS)), np.nan)
            grown[: len(self.floats)] = self.floats
            self.floats = grown
        if self.labels[at] is None:
            self.held += 1
        self.floats[at] = [_float(row.get(k)) for k in FLOATS]
        self.asks[at] = ASKS.get(row.get("asks"), 1)
        self.labels[at] = label
        speaker = row.get("speaker")
        self.speakers[at] = sys.intern(speaker) if isinstance(speaker, str) else speaker
        extra = tuple(row.get(k) for k in FACT_KEYS)
        if any(v is not None for v in extra):
            self.facts[at] = tuple(sys.intern(v) if isinstance(v, str) else v for v in extra)
        else:
            self.facts.pop(at, None)

    def set(self, at: int, key: str, value: float | None) -> None:
        """One of the times or the importance (``FLOATS``) of the memory at ``at``."""
        if self.label(at) is not None:
            self.floats[at, FLOATS.index(key)] = _float(value)

    def drop(self, at: int) -> None:
        if self.label(at) is not None:
            self.labels[at] = self.speakers[at] = None
            self.facts.pop(at, None)
            self.held -= 1

    def rows(self, held: list[tuple[str, int, str | None]]) -> dict[str, dict[str, Any]]:
        """The rows of ``held`` (id, number, terms; each with a row), the float columns read
        in one take (a recall asks for hundreds; NaN read as None)."""
        floats = self.floats[[at for _, at, _ in held]]
        values = floats.astype(object)
        values[np.isnan(floats)] = None
        none = (None,) * len(FACT_KEYS)
        facts, speakers, asks, labels = self.facts, self.speakers, self.asks, self.labels
        out: dict[str, dict[str, Any]] = {}
        for (mid, at, terms), row in zip(held, values.tolist(), strict=True):
            rest = (speakers[at], _ASKED[asks[at]], terms, labels[at])
            out[mid] = dict(zip(_KEYS, (*row, *facts.get(at, none), *rest), strict=True))
        return out

    def trim(self) -> None:
        """Let the columns' room to grow go (after a build)."""
        self.floats = self.floats[: len(self.labels)].copy()


def _float(value: Any) -> float:
    return np.nan if value is None else float(value)
