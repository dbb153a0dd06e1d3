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
_ASKS = {None: 2, False: 0, True: 1}
_ASKED = (False, True, None)


class RowTable:
    """The rows of one namespace's memories, by id (see the module doc)."""

    def __init__(self) -> None:
        self.slot: dict[str, int] = {}
        self.free: list[int] = []
        self.floats = np.full((0, len(FLOATS)), np.nan)
        self.asks = bytearray()
        self.labels: list[str | None] = []
        self.speakers: list[str | None] = []
        self.facts: dict[str, tuple[Any, ...]] = {}  # id -> FACT_KEYS' values, when any is set

    def __len__(self) -> int:
        return len(self.slot)

    def put(self, mid: str, label: str, row: dict[str, Any]) -> None:
        """Hold ``row`` (as ``recall_rows`` gives it) for memory ``mid`` of ``label``."""
        at = self.slot.get(mid)
        if at is None:
            at = self.free.pop() if self.free else len(self.labels)
            self.slot[mid] = at
            if at == len(self.labels):
                self.labels.append(None)
                self.speakers.append(None)
                self.asks.append(2)
            if at >= len(self.floats):  # grow by half again
                grown = np.full((max(64, at + at // 2), len(FLOATS)), np.nan)
                grown[: len(self.floats)] = self.floats
                self.floats = grown
        self.floats[at] = [_float(row.get(k)) for k in FLOATS]
        self.asks[at] = _ASKS.get(row.get("asks"), 1)
        self.labels[at] = label
        speaker = row.get("speaker")
        self.speakers[at] = sys.intern(speaker) if isinstance(speaker, str) else speaker
        extra = tuple(row.get(k) for k in FACT_KEYS)
        if any(v is not None for v in extra):
            self.facts[mid] = tuple(sys.intern(v) if isinstance(v, str) else v for v in extra)
        else:
            self.facts.pop(mid, None)

    def set(self, mid: str, key: str, value: float | None) -> None:
        """One of the times or the importance (``FLOATS``) of ``mid``, if held."""
        at = self.slot.get(mid)
        if at is not None:
            self.floats[at, FLOATS.index(key)] = _float(value)

    def drop(self, mid: str) -> None:
        at = self.slot.pop(mid, None)
        if at is not None:
            self.labels[at] = self.speakers[at] = None
            self.free.append(at)
            self.facts.pop(mid, None)

    def rows(self, mids: list[str], terms: list[str | None]) -> dict[str, dict[str, Any]]:
        """The rows of those of ``mids`` held (each with its ``terms``), the float columns
        read in one take (a recall asks for hundreds)."""
        held = [
            (i, mid, at) for i, mid in enumerate(mids) if (at := self.slot.get(mid)) is not None
        ]
        floats = self.floats[[at for _, _, at in held]].tolist()
        none = (None,) * len(FACT_KEYS)
        out: dict[str, dict[str, Any]] = {}
        for (i, mid, at), values in zip(held, floats, strict=True):
            row = {k: None if v != v else v for k, v in zip(FLOATS, values, strict=True)}  # NaN
            row.update(zip(FACT_KEYS, self.facts.get(mid, none), strict=True))
            row["speaker"] = self.speakers[at]
            row["asks"] = _ASKED[self.asks[at]]
            row["terms"] = terms[i]
            row["label"] = self.labels[at]
            out[mid] = row
        return out

    def trim(self) -> None:
        """Let the columns' room to grow go (after a build)."""
        self.floats = self.floats[: len(self.labels)].copy()


def _float(value: Any) -> float:
    return np.nan if value is None else float(value)
