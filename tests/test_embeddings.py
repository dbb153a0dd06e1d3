"""The embedders: the fast int8 ONNX path ranks like the reference model, the cache is exact."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from graph_db import EmbeddingMismatchError, GraphSettings, InvalidInputError
from graph_db.embeddings import (
    CachedEmbedder,
    OnnxMiniLMEmbedder,
    SentenceTransformerEmbedder,
    check_vectors,
    make_embedder,
)

DOCS = [
    "I adopted a cat named Luna last week.",
    "We went hiking in the Alps during the summer.",
    "My sister works as a nurse in Chicago.",
    "The concert was cancelled because of the storm.",
    "I started learning to play the violin.",
    "Our team won the regional football tournament.",
    "She is allergic to peanuts and shellfish.",
    "He moved to Berlin for a job at a robotics startup.",
]
QUERIES = [
    "What pet do they have?",
    "Which instrument is being learned?",
    "Where did he move?",
    "What food allergies?",
    "What happened to the concert?",
]


@pytest.fixture(scope="module")
def onnx():
    return OnnxMiniLMEmbedder()


def test_onnx_int8_finds_the_right_documents(onnx):
    a, q = onnx.embed(DOCS), onnx.embed(QUERIES)
    assert a.shape == (len(DOCS), 384)
    assert np.allclose(np.linalg.norm(a, axis=1), 1, atol=1e-3)
    assert list(np.argmax(q @ a.T, axis=1)) == [0, 4, 7, 6, 3]


def test_onnx_int8_ranks_like_the_reference_model(onnx):
    """The sentence-transformers path (extra 'mags[torch]'), where it is installed."""
    pytest.importorskip("sentence_transformers", reason="pip install 'mags[torch]'")
    ref = SentenceTransformerEmbedder()
    assert onnx.dim == ref.dim == 384
    a, b = onnx.embed(DOCS), ref.embed(DOCS)
    assert np.allclose(np.linalg.norm(a, axis=1), 1, atol=1e-3)
    assert float(np.mean(np.sum(a * b, axis=1))) > 0.99
    qa, qb = onnx.embed(QUERIES), ref.embed(QUERIES)
    assert list(np.argmax(qa @ a.T, axis=1)) == list(np.argmax(qb @ b.T, axis=1))
    assert list(np.argmax(qa @ a.T, axis=1)) == [0, 4, 7, 6, 3]


def test_batches_and_order_do_not_change_vectors(onnx):
    whole = onnx.embed(DOCS)
    one_by_one = np.vstack([onnx.embed([d]) for d in DOCS])
    assert np.allclose(whole, one_by_one, atol=1e-4)


def test_a_few_texts_run_one_a_thread_and_give_the_batchs_vectors_in_order():
    """Up to ``threads`` texts (a recall's query and its variants) run one a thread through
    a one-thread session, beside each other: the vectors are those of the bulk path, in the
    order asked."""
    e = OnnxMiniLMEmbedder(threads=3)
    whole = e.embed(QUERIES)  # 5 texts: the bulk path
    handed = []
    submit = e._side_by_side()[1].submit  # opened by the first such batch: here, to be watched
    e._beside.submit = lambda *a: handed.append(a) or submit(*a)
    few = e.embed(QUERIES[2::-1])
    assert len(handed) == 2 and all(a[2] is e._solo for a in handed)  # the first runs here
    assert np.allclose(few, whole[2::-1], atol=1e-5)


def test_the_cache_returns_the_same_vectors_and_skips_the_model(onnx):
    calls = []

    class Counting:
        name, dim = onnx.name, onnx.dim

        def embed(self, texts):
            calls.append(list(texts))
            return onnx.embed(texts)

    cached = CachedEmbedder(Counting(), size=4)
    first = cached.embed(DOCS[:3])
    again = cached.embed([DOCS[2], DOCS[0], DOCS[3]])
    assert calls == [DOCS[:3], [DOCS[3]]]
    assert np.allclose(again[0], first[2]) and np.allclose(again[1], first[0])


def test_vectors_of_the_wrong_shape_are_refused():
    with pytest.raises(EmbeddingMismatchError):
        check_vectors(np.zeros((3, 384)), 384, 2)


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="the extra 'mags[torch]' is installed",
)
def test_another_model_without_the_torch_extra_names_the_fix():
    with pytest.raises(InvalidInputError, match=r"mags\[torch\]"):
        make_embedder(GraphSettings(embedding_model="BAAI/bge-small-en-v1.5"))
