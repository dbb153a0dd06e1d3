"""The pure rules of the write path, with exact numbers."""

import math

import pytest

from graph_db.linking import attention_weights, chain_diff


def test_attention_weights_are_w0_softmax_over_kept_neighbours():
    w = attention_weights([0.9, 0.8, 0.1], w0=0.6, temperature=0.1, min_similarity=0.35)
    e1, e2 = 1.0, math.exp(-1.0)
    assert w[0] == pytest.approx(0.6 * e1 / (e1 + e2))
    assert w[1] == pytest.approx(0.6 * e2 / (e1 + e2))
    assert w[2] == 0.0
    assert sum(w) == pytest.approx(0.6)


def test_attention_weights_without_similar_neighbours_are_zero():
    assert attention_weights([0.1, 0.2], 0.6, 0.1, 0.35) == [0.0, 0.0]
    assert attention_weights([], 0.6, 0.1, 0.35) == []


def test_chain_append_links_tail_to_new():
    unlink, link = chain_diff([("a", 1, 0), ("b", 2, 0)], [("c", 3, 0), ("d", 4, 0)])
    assert unlink == []
    assert link == [("b", "c"), ("c", "d")]


def test_chain_insert_in_the_middle_relinks_neighbours():
    unlink, link = chain_diff([("a", 1, 0), ("c", 3, 0)], [("b", 2, 0)])
    assert unlink == [("a", "c")]
    assert link == [("a", "b"), ("b", "c")]


def test_chain_ties_on_time_keep_insertion_order():
    unlink, link = chain_diff([("a", 1, 1)], [("b", 1, 2), ("c", 1, 3)])
    assert (unlink, link) == ([], [("a", "b"), ("b", "c")])
