"""The read index's full-text lexicon (graph_db/lexicon.py) against a lexicon built afresh
from what it should hold: writes, rewrites and deletes, through its compaction."""

from __future__ import annotations

import random

import pytest

from graph_db.lexicon import Lexicon

WORDS = [f"w{i}" for i in range(40)]


def _fresh(docs: dict[str, str]) -> Lexicon:
    lexicon = Lexicon()
    for mid, terms in docs.items():
        lexicon.put(mid, terms)
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
    assert lexicon.search(["cat"], 0) == [] and Lexicon().search(["cat"], 3) == []
