"""The walked memories' columns score and filter as recall does one candidate at a time."""

from __future__ import annotations

import numpy as np
import pytest

from graph_db.columns import Columns
from graph_db.recall import visible

DIM = 8


def _rows(rng: np.random.Generator) -> tuple[dict, dict]:
    """Six memories: with and without sentence views and an in-context view, current,
    superseded, and born after a past moment."""
    shapes = [(0, 0), (2, 1), (3, 0), (0, 1), (1, 1), (4, 0)]
    rows, stacks = {}, {}
    for i, (n, c) in enumerate(shapes):
        mid = f"m{i}"
        vecs = rng.normal(size=(1 + n + c, DIM)).astype(np.float32)
        stacks[mid] = (vecs, n, c)
        rows[mid] = {
            "label": "Fact" if i == 3 else "Episode",
            "ts": 100.0 * i,
            "created_at": 100.0 * i,
            "valid_from": None,
            "valid_to": 250.0 if i in (1, 4) else None,
            "importance": 0.5,
            "last_access": None,
            "speaker": "Pat" if i % 2 else None,
            "asks": i == 2,
            "terms": "pat walk dog" if i != 5 else None,
        }
    return rows, stacks


def test_dense_scores_are_the_per_memory_formula() -> None:
    rng = np.random.default_rng(3)
    rows, stacks = _rows(rng)
    cols = Columns.of_rows(rows, stacks, DIM)
    qv = rng.normal(size=(2, DIM)).astype(np.float32)
    own, dense = cols.dense(qv, 0.5)
    for i, mid in enumerate(rows):
        vecs, n, c = stacks[mid]
        o = vecs[0] @ qv.T
        best = np.maximum(o, (vecs[1 : 1 + n] @ qv.T).max(axis=0)) if n else o
        ctx = vecs[-1] @ qv.T if c else o
        np.testing.assert_allclose(own[i], o, rtol=1e-5)
        np.testing.assert_allclose(dense[i], best + 0.5 * ctx, rtol=1e-5)


def test_take_keeps_each_memorys_vectors_with_it() -> None:
    rng = np.random.default_rng(4)
    rows, stacks = _rows(rng)
    cols = Columns.of_rows(rows, stacks, DIM)
    part = cols.take([5, 1, 3])
    assert part.ids == ["m5", "m1", "m3"]
    for i, mid in enumerate(part.ids):
        np.testing.assert_array_equal(part.stack(i)[0], stacks[mid][0])
        assert part.stack(i)[1:] == stacks[mid][1:]


T, F = True, False


@pytest.mark.parametrize(
    ("as_of", "history", "want"),
    [
        (None, False, [T, F, T, T, F, T]),  # current: not superseded
        (None, True, [T] * 6),
        (150.0, False, [T, T, F, F, F, F]),  # born by then, superseded after
        (300.0, False, [T, F, T, T, F, F]),
        (450.0, True, [T, F, T, T, F, F]),  # a past view ignores history
    ],
)
def test_visible_is_recalls(as_of: float | None, history: bool, want: list[bool]) -> None:
    rows, stacks = _rows(np.random.default_rng(5))
    cols = Columns.of_rows(rows, stacks, DIM)
    assert [visible(r, as_of, history) for r in rows.values()] == want
    assert cols.visible(as_of, history).tolist() == want


def test_terms_compare_in_the_lexicons_form() -> None:
    rows, stacks = _rows(np.random.default_rng(6))
    cols = Columns.of_rows(rows, stacks, DIM)
    assert cols.words.tolist() == [3, 3, 3, 3, 3, 1]  # no terms: counted as one word
    wanted = cols.words_in({"walk", "dog"})
    # m3 is a fact (only turns are compared by their terms), m5 has none
    assert [cols.has_all(i, wanted) for i in range(6)] == [T, T, T, F, T, F]
    cols.vocab = {"pat": 0, "walk": 1, "dog": 2}
    assert cols.key("pat walk dog") == np.array([0, 1, 2], np.uint32).tobytes()
    assert cols.key("pat sleeps") == "pat sleeps"  # a word no turn has: equal to no id form
    assert cols.words_in({"walk", "cat"}) is None


def test_own_vectors_and_a_join_without_vectors() -> None:
    rng = np.random.default_rng(7)
    rows, stacks = _rows(rng)
    cols = Columns.of_rows(rows, stacks, DIM)
    np.testing.assert_array_equal(cols.own(), np.stack([stacks[mid][0][0] for mid in rows]))
    assert cols.take([]).own().shape == (0, DIM)
    first, rest = cols.take([0, 1]), cols.take([2, 3, 4, 5])
    joined = first.joined(rest, vectors=False)
    assert joined.ids == cols.ids and joined.words.tolist() == cols.words.tolist()
    np.testing.assert_array_equal(joined.floats, cols.floats)
    assert joined.vectors.shape == (0, DIM) and len(joined.views) == len(joined.ctx) == 0
    both = first.joined(rest)  # with them: each memory's vectors stay its own
    for i, mid in enumerate(both.ids):
        np.testing.assert_array_equal(both.stack(i)[0], stacks[mid][0])


def test_the_read_index_gathers_the_columns_its_rows_make() -> None:
    """Columns gathered from the read index (a column at a time) hold what ``of_rows``
    makes of the same rows: vectors (float16 as held), times, speakers, term counts; a
    turn's terms as the turns' term ids; the ids it does not hold come back apart."""
    from graph_db.read_index import _Space
    from graph_db.vecpack import pack

    rng = np.random.default_rng(5)
    rows, stacks = _rows(rng)
    space = _Space((None, None), DIM)
    held = {}
    for mid, row in rows.items():
        vecs, n, c = stacks[mid]
        vecs = vecs.astype(np.float16).astype(np.float32)  # as the index holds them
        held[mid] = (vecs, n, c)
        packed = pack(vecs[0], vecs[1 : 1 + n] if n else None, vecs[-1] if c else None)
        space.put_created(row["label"], {"id": mid, **row, "vecs": packed})
    asked = ["m4", "gone", "m0", "m3", "m5", "m1", "m2"]
    cols, missing = space.columns(asked)
    want = Columns.of_rows({mid: rows[mid] for mid in cols.ids}, held, DIM)
    assert cols.ids == ["m4", "m0", "m3", "m5", "m1", "m2"]
    assert missing == ["gone"]
    assert cols.labels == want.labels
    assert cols.speakers == want.speakers
    np.testing.assert_array_equal(cols.floats, want.floats)
    np.testing.assert_array_equal(cols.asks, want.asks)
    np.testing.assert_array_equal(cols.words, want.words)
    np.testing.assert_array_equal(cols.views, want.views)
    np.testing.assert_array_equal(cols.ctx, want.ctx)
    np.testing.assert_array_equal(cols.vectors, want.vectors)
    # a turn's terms as the turns' lexicon ids; a fact's (compared by none) left out
    assert cols.terms == [None if want.labels[i] == "Fact" else cols.key(t)
                          for i, t in enumerate(want.terms)]  # fmt: skip
    assert cols.terms[cols.ids.index("m5")] is None  # stored without terms
