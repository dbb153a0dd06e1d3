"""The numbers of the liquid edges, in one place: lazy decay and the Hebbian rule.

The Cypher library computes the same formulas where the edges are (hebbian_update,
edges_prune, memory_vitals, triadic_close, walk_edges: one expression each, kept in step
with these); these are the reference the tests check the store against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from graph_db.settings import GraphSettings

DAY_S = 86_400.0


@dataclass(frozen=True)
class DecayParams:
    """Decay per second and the hold after a firing, as the Cypher queries take them."""

    decay: float
    hold: float

    @classmethod
    def of(cls, settings: GraphSettings) -> DecayParams:
        return cls(settings.decay_per_day / DAY_S, settings.decay_recency_days * DAY_S)

    def as_params(self) -> dict[str, float]:
        return {"decay": self.decay, "hold": self.hold}


def effective_weight(
    w: float,
    w_at: float | None,
    fired_at: float | None,
    now: float,
    params: DecayParams,
    permanent: bool = False,
) -> float:
    """w * exp(-decay * (now - start)), start = max(w_at, fired_at + hold).

    Decay is lazy: the stored ``w`` was exact at ``w_at``. The recency correction holds an
    edge at full strength for ``hold`` seconds after it last fired, so what was used
    recently is kept; permanent edges never decay.
    """
    if permanent:
        return w
    w_at = now if w_at is None else w_at
    held = (w_at if fired_at is None else fired_at) + params.hold
    start = max(w_at, held)
    return w if now <= start else w * math.exp(-params.decay * (now - start))


def hebbian(w_eff: float, usefulness: float, eta: float) -> float:
    """w <- w + eta * u * (1 - w): bounded by 1, big steps while weak, small when strong."""
    return w_eff + eta * usefulness * (1.0 - w_eff)
