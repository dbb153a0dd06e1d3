"""The read index's full-text lexicon (graph_db/lexicon.py) against a lexicon built afresh
from what it should hold: writes, rewrites and deletes, through its compaction."""

from __future__ import annotations

import random

import numpy as np
import pytest

import graph_db.lexicon as lexicon_module
from graph_db.lexicon import K1, B, Lexicon, tag_of

WORDS = [f"w{i}" for i in range(40)]


def _fresh(docs: dict[str, str]) -> Lexicon:
    """``docs`` written one after another, in their order."""
    lexicon = Lexicon()
    for seq, (mid, terms) in enumerate(docs.items()):
        lexicon.put(mid, terms, seq)
    return lexicon


def test_writes_rewrites_and_deletes_score_as_a_lexicon_built_afresh():
    rnd = random.Random(7)
    docs = {f"m{i}": " ".join(rnd.choices(WORDS, k=rnd.randint(1, 12))) for i in range(200)}
    lexicon = _fresh(docs)
    for i in range(0, 200, 2):  # half deleted: the lexicon compacts on the way
        lexicon.drop(f"m{i}")
        del docs[f"m{i}"]
    for i in range(1, 200, 5):
        docs[f"m{i}"] = " ".join(rnd.choices(WORDS, k=4))
        lexicon.put(f"m{i}", docs[f"m{i}"])
    lexicon.put("m1", "")  # no terms: not found
    del docs["m1"]
    assert len(lexicon.ids) < 200  # compacted: dead rows and their postings went
    # each memory's terms read back as stored (order and repeats: recall ranks by them)
    assert {mid: lexicon.terms(mid) for mid in docs} == docs
    assert lexicon.terms("m1") is None and lexicon.terms("m0") is None
    fresh = _fresh(docs)
    for query in (["w1", "w2"], ["w3"], ["w5", "w5", "w39", "nope"]):
        got, want = lexicon.search(query, 1000), fresh.search(query, 1000)
        assert dict(got) == pytest.approx(dict(want), rel=1e-12)
        assert got and "m1" not in dict(got)


def test_the_best_come_first_and_a_tie_goes_to_the_earlier_written():
    lexicon = _fresh({"a": "cat sat", "b": "cat sat", "c": "cat cat cat", "d": "dog"})
    assert [mid for mid, _ in lexicon.search(["cat"], 3)] == ["c", "a", "b"]
    # also for which of the tied make the cut
    tied = _fresh({f"t{i:02}": "cat sat" for i in range(40)} | {"u": "cat cat cat"})
    assert [mid for mid, _ in tied.search(["cat"], 10)] == ["u", *(f"t{i:02}" for i in range(9))]
    assert lexicon.search(["cat"], 0) == [] and Lexicon().search(["cat"], 3) == []


def test_ties_rank_by_write_order_whatever_order_the_rows_came_in():
    """A namespace read back from the store numbers its rows in the store's order, not the
    write order; tied memories are ordered by their stored write order (``seq``), and those
    of none (stored by an older MAGS) by their ids' tags after them, so both rank alike."""
    written, unknown = [f"s{i}" for i in range(12)], ["a", "b", "c"]
    forward, backward = Lexicon(), Lexicon()
    for lexicon, order in (
        (forward, list(enumerate(written))),
        (backward, list(enumerate(written))[::-1]),
    ):
        lexicon.put("b", "cat sat")  # no write order: after those of one, its row first
        for seq, mid in order:
            lexicon.put(mid, "cat sat", 100 + seq)
        lexicon.put("a", "cat sat")
        lexicon.put("c", "cat sat")
    want = written + sorted(unknown, key=tag_of)
    assert [mid for mid, _ in forward.search(["cat"], 15)] == want
    forward.put("s0", "cat sat")  # rewritten (a new row): its write order stays
    assert [mid for mid, _ in forward.search(["cat"], 15)] == want
    for k in (1, 4, 13):  # also which of the tied make the cut
        assert [mid for mid, _ in forward.search(["cat"], k)] == want[:k]
        assert [mid for mid, _ in backward.search(["cat"], k)] == want[:k]


def _dense_bm25(lexicon: Lexicon, words: list[str], k: int) -> list[tuple[str, float]]:
    """The search as first written: dense arrays over every row, a term at a time."""
    n, live = len(lexicon.ids), len(lexicon.at)
    if k <= 0 or live == 0:
        return []
    avg = lexicon.total / live
    length = np.frombuffer(lexicon.length, np.uint32)
    scores = np.zeros(n, np.float64)
    hit = np.zeros(n, bool)
    for word in dict.fromkeys(words):
        tid = lexicon.vocab.get(word)
        if tid is None or lexicon.df[tid] == 0:
            continue
        rows = np.frombuffer(lexicon.rows[tid], np.uint32).astype(np.intp)
        tf = np.frombuffer(lexicon.counts[tid], np.uint16).astype(np.float64)
        df = lexicon.df[tid]
        idf = np.log1p((live - df + 0.5) / (df + 0.5))
        scores[rows] += idf * tf / (tf + K1 * (1 - B + B * length[rows] / avg))
        hit[rows] = True
    hit &= np.frombuffer(lexicon.alive, np.uint8).astype(bool)
    found = np.flatnonzero(hit)
    seq = np.frombuffer(lexicon.seq, np.int64)  # ties: the earlier written, then row
    found = found[np.lexsort((found, seq[found], -scores[found]))][:k]
    return [(lexicon.ids[r], float(scores[r])) for r in found]  # type: ignore[misc]


@pytest.mark.parametrize("sieve_share", [32, 1])  # top_k sieves at k 1 and 5 / at 50 too
@pytest.mark.parametrize("dense_rows", [0, 1 << 40])  # over the postings / over all rows
def test_search_is_the_dense_bm25_to_the_bit(monkeypatch, dense_rows, sieve_share):
    monkeypatch.setattr(lexicon_module, "DENSE_ROWS", dense_rows)
    monkeypatch.setattr(lexicon_module, "SIEVE_SHARE", sieve_share)
    rnd = random.Random(11)
    vocab = [f"v{i}" for i in range(300)]
    weights = [1 / (i + 2) for i in range(300)]  # Zipf-like: a few words in most rows
    lexicon = Lexicon()
    for i in range(3000):
        if i % 7 == 3:  # the same terms as an earlier row: equal scores, also at the k-th
            terms = lexicon.terms(f"m{i - 3}") or "v0"
        else:
            terms = " ".join(rnd.choices(vocab, weights, k=rnd.randint(1, 30)))
        lexicon.put(f"m{i}", terms)
    for i in rnd.sample(range(3000), 900):  # under half: no compaction, dead postings stay
        lexicon.drop(f"m{i}")
    for i in rnd.sample(range(3000), 200):  # rewritten: a new row, the old one dead
        lexicon.put(f"m{i}", " ".join(rnd.choices(vocab, weights, k=rnd.randint(1, 30))))
    lexicon.put("gone", "gone v1 v2 gone")
    lexicon.drop("gone")  # a word left only in a dropped row
    assert len(lexicon.ids) > len(lexicon.at) > len(lexicon.ids) // 2
    queries = [rnd.sample(vocab, rnd.randint(1, 8)) for _ in range(150)]
    queries += [rnd.sample(vocab[100:], rnd.randint(2, 8)) for _ in range(150)]  # rarer words
    queries += [[w, w, "nope", *q] for w, q in zip(vocab, queries[::20], strict=False)]
    queries += [["nope"], ["gone"], ["gone", "v1", "v2"], [], ["v0", "v1", "v2", "v3", "v4"]]
    postings = [
        sum(len(lexicon.rows[lexicon.vocab[w]]) for w in set(q) if w in vocab) for q in queries
    ]
    assert any(
        m * 8 < len(lexicon.ids) for m, q in zip(postings, queries, strict=True) if len(q) > 2
    )
    for query in queries:
        for k in (1, 5, 50, 5000):
            got = lexicon.search(query, k)
            assert got == _dense_bm25(lexicon, query, k)  # ids, order and floats exactly
            assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    assert lexicon.search(["nope"], 5) == [] and lexicon.search(["gone"], 5) == []


def test_the_sieve_keeps_the_k_best_and_the_earliest_of_those_tied_at_the_cut():
    """``top_k`` drops scores under the k-th best of a strided sample before it looks for the
    k-th: on few distinct scores (ties at the cut everywhere) it picks what a full sort does."""
    rng = np.random.default_rng(3)
    for n, k, levels in [(100_000, 50, 7), (40_000, 1, 3), (60_000, 10, 1000), (5_000, 3, 2)]:
        score = rng.integers(0, levels, n).astype(np.float64)
        row = np.arange(n) * 3  # ascending, as the callers give them
        got_row, got_score = lexicon_module.top_k(row, score, k)
        want = np.lexsort((row, -score))[:k]  # best first, ties: the earliest row
        assert sorted(got_row.tolist()) == sorted(row[want].tolist())
        assert sorted(got_score.tolist()) == sorted(score[want].tolist())


def test_rows_dropped_with_the_best_scores_do_not_hide_the_live_ones():
    """The dense sums keep a dropped row's postings: the sieve's sample counts live rows only
    (the best scores here are all in dropped rows, at every stride)."""
    lexicon = Lexicon()
    for i in range(40_000):
        lexicon.put(f"m{i}", "rare rare common" if i % 2 == 0 else "common filler", i)
    for i in range(0, 40_000, 2):
        if i % 2000:  # most of the best dropped (under half of all: no compaction)
            lexicon.drop(f"m{i}")
    assert len(lexicon.ids) == 40_000
    got = lexicon.search(["rare", "common"], 30)
    assert got == _dense_bm25(lexicon, ["rare", "common"], 30)
    assert [mid for mid, _ in got[:20]] == [f"m{i}" for i in range(0, 40_000, 2000)]
