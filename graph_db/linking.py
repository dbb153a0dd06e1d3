"""Pure helpers of the write path: initial ASSOC weights and NEXT chains.

Kept free of I/O so the rules can be tested with exact numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import pairwise


def attention_weights(
    sims: Sequence[float], w0: float, temperature: float, min_similarity: float
) -> list[float]:
    """GAT-style initial weights: w_j = w0 * softmax(sim_j / tau) over the kept neighbours.

    Neighbours under ``min_similarity`` get no edge (weight 0) and take no share.
    """
    kept = [s for s in sims if s >= min_similarity]
    if not kept:
        return [0.0 for _ in sims]
    top = max(kept)
    exps = [math.exp((s - top) / temperature) if s >= min_similarity else 0.0 for s in sims]
    total = sum(exps)
    return [w0 * e / total for e in exps]


def chain_diff(
    existing: Sequence[tuple[str, float, float]], new: Iterable[tuple[str, float, float]]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """NEXT edges to remove and to add when ``new`` episodes join a session.

    Each item is (id, ts, seq); the session is a chain in (ts, seq) order. Returns
    (unlink, link) as lists of (from_id, to_id) pairs.
    """
    old_order = [e[0] for e in sorted(existing, key=lambda e: (e[1], e[2]))]
    merged = sorted([*existing, *new], key=lambda e: (e[1], e[2]))
    order = [e[0] for e in merged]
    old_pairs = set(pairwise(old_order))
    new_pairs = set(pairwise(order))
    return sorted(old_pairs - new_pairs), [p for p in pairwise(order) if p not in old_pairs]
