"""Recall's anchors: the lazy facility location picks what the plain greedy picks."""

from __future__ import annotations

import numpy as np
import pytest

from graph_db import recall
from graph_db.recall import facility_location


def _greedy(emb: np.ndarray, rel: np.ndarray, m: int, div: float) -> list[int]:
    """The plain greedy, every candidate's gain computed at every pick (the definition)."""
    if len(rel) <= m:
        return np.argsort(-rel, kind="stable").tolist()
    sim = np.clip(emb @ emb.T, 0.0, 1.0).astype(np.float64)
    covered, chosen = np.zeros(len(rel)), []
    for _ in range(m):
        gain = (np.maximum(sim, covered) - covered) @ rel / max(rel.sum(), 1e-9)
        value = (1 - div) * rel + div * gain
        value[chosen] = -np.inf
        chosen.append(int(np.argmax(value)))
        covered = np.maximum(covered, sim[chosen[-1]])
    return chosen


def _case(rng: np.random.Generator, n: int, dim: int, ties: bool) -> tuple[np.ndarray, ...]:
    emb = rng.normal(size=(n, dim)).astype(np.float32)
    if ties:  # the same memory written again: equal rows, so equal gains
        emb[rng.integers(0, n, n // 2)] = emb[0]
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    rel = np.round(rng.random(n), 1 if ties else 6)  # equal relevances too
    return emb, rel


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("div", [0.0, 0.3, 0.5, 1.0])
def test_the_lazy_picks_are_the_greedys_in_order(ties: bool, div: float) -> None:
    rng = np.random.default_rng(int(div * 10) + ties)
    for _ in range(150):
        n, m = int(rng.integers(2, 90)), int(rng.integers(1, 12))
        emb, rel = _case(rng, n, 8, ties)
        picks = facility_location(emb, rel, m, div)
        assert picks == _greedy(emb, rel, m, div)
        assert len(set(picks)) == len(picks) == min(n, m)


def test_a_recalls_size_computes_few_gains_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a recall's size (~300 candidates, 10 anchors) the same picks with far fewer gains
    computed than the greedy's n a pick: the bound prunes (with every gain computed again
    each pick, as GAIN_BATCH = n does, it would not)."""
    rng = np.random.default_rng(9)
    emb, rel = _case(rng, 300, 32, False)
    rel = np.exp(-4 * rng.random(300))  # a few relevant, most not: as z-scores make it
    rows: list[int] = []
    real_max = np.maximum

    def counted(a, *args, **kw):
        if np.ndim(a) == 2:
            rows.append(len(a))
        return real_max(a, *args, **kw)

    monkeypatch.setattr(recall.np, "maximum", counted)
    picks = facility_location(emb, rel, 10, 0.5)
    monkeypatch.undo()
    assert picks == _greedy(emb, rel, 10, 0.5)
    assert sum(rows) < 300 * 9 / 3
