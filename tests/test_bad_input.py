"""Bad input gets a clear error naming the fix, and nothing stored is lost."""

from __future__ import annotations

import numpy as np
import pytest

from graph_db import (
    EmbeddingMismatchError,
    EngineError,
    GraphSettings,
    GraphUnavailableError,
    InvalidInputError,
    LiquidGraph,
    UnknownNamespaceError,
)
from graph_db.embeddings import check_vectors


class TinyEmbedder:
    """A real embedder of the wrong dimension (8) for this store."""

    name = "tiny-hash-8"
    dim = 8

    def embed(self, texts):
        out = np.array([[hash((t, i)) % 97 + 1 for i in range(8)] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def seeded(graph, ns):
    graph.add_episodes(ns, ["I keep this memory"])
    graph.add_fact(ns, "I", "keep", "this fact")
    before = (graph.stats(ns), [m.id for m in graph.list(ns)])
    yield ns
    assert (graph.stats(ns), [m.id for m in graph.list(ns)]) == before, "bad input lost data"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("x" * 1_000_000, "MAGS_MAX_TEXT_CHARS"),
        (b"caf\xe9 invalid", "not valid UTF-8"),
        ("lone \udcff surrogate", "not valid UTF-8"),
        (42, "valid string"),
    ],
)
def test_bad_episode_text_is_refused_whole(graph, seeded, text, match):
    with pytest.raises(InvalidInputError, match=match):
        graph.add_episodes(seeded, ["a fine turn", {"text": text}])


def test_bad_facts_are_refused(graph, seeded):
    with pytest.raises(InvalidInputError, match="blank"):
        graph.add_facts(seeded, [{"subject": " ", "predicate": "p", "object": "o"}])
    with pytest.raises(InvalidInputError, match="no words"):
        graph.add_facts(seeded, [{"subject": "s", "predicate": "!!", "object": "o"}])
    with pytest.raises(InvalidInputError, match="confidence"):
        graph.add_facts(
            seeded, [{"subject": "s", "predicate": "p", "object": "o", "confidence": 2}]
        )
    with pytest.raises(InvalidInputError, match="extra"):
        graph.add_episodes(seeded, [{"text": "hi", "ns": "someone-else"}])


@pytest.mark.parametrize("bad_ns", ["", "   ", None, "x" * 300, "bad \udcff"])
def test_bad_namespaces_are_refused(graph, bad_ns):
    with pytest.raises(InvalidInputError, match="namespace"):
        graph.add_episodes(bad_ns, ["hello"])


def test_unknown_namespace_reads_say_so(graph, ns):
    for call in (
        lambda: graph.search(ns, "anything"),
        lambda: graph.list(ns),
        lambda: graph.get(ns, "some-id"),
        lambda: graph.stats(ns),
        lambda: graph.export(ns, "/tmp/never.snap.gz"),
    ):
        with pytest.raises(UnknownNamespaceError, match="write to it first"):
            call()


def test_wrong_dimensions_are_refused(graph):
    with pytest.raises(EmbeddingMismatchError, match="dimension"):
        check_vectors(np.zeros((2, 5)), 384, 2)
    with pytest.raises(EmbeddingMismatchError, match="NaN"):
        check_vectors(np.full((1, 384), np.nan), 384, 1)
    # the store remembers its model's dimension, on either engine
    with pytest.raises(EmbeddingMismatchError, match="MAGS_EMBEDDING_MODEL"):
        LiquidGraph(graph.settings, embedder=TinyEmbedder())


def test_an_unreachable_engine_names_the_fix():
    settings = GraphSettings(neo4j_uri="bolt://127.0.0.1:9", connect_timeout_s=2)
    with pytest.raises(GraphUnavailableError, match="MAGS_NEO4J_URI"):
        LiquidGraph(settings, embedder=TinyEmbedder())


def test_a_duplicate_id_is_refused_and_changes_nothing(graph, seeded):
    (first,) = graph.add_episodes(seeded, ["an original"])
    with pytest.raises(InvalidInputError, match="ids must be unique"):
        graph.add_episodes(seeded, [{"text": "another turn", "id": first}])
    graph.forget(seeded, first)


class FailingReads:
    """The store's backend, except that every read fails as an engine would; writes are
    recorded, not done, and closing leaves the shared backend open."""

    def __init__(self, backend) -> None:
        self.backend, self.dialect, self.writes = backend, backend.dialect, []

    def read(self, name, **params):
        raise EngineError(f"{name}: the engine is restarting")

    def write(self, name, **params):
        self.writes.append(name)
        return []

    def ensure_schema(self, dim, parts=("",)):
        self.writes.append("schema")

    def close(self):
        pass


def test_a_failed_read_on_open_rewrites_no_schema_meta(graph):
    proxy = FailingReads(graph.backend)
    with pytest.raises(EngineError, match="the engine is restarting"):
        LiquidGraph(graph.settings, backend=proxy, embedder=graph.embedder)
    assert proxy.writes == []
    (row,) = graph.backend.read("meta_get", key="schema")
    assert row["value"]  # still there, untouched


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda g, ns: g.search(ns, "q", blocks="dreams"), "blocks must be"),
        (lambda g, ns: g.recall(ns, "q", as_of="last tuesday"), "not a time"),
        (lambda g, ns: g.recall(ns, "q", as_of=True), "cannot be a bool"),
        (lambda g, ns: g.list(ns, blocks="x"), "blocks must be"),
    ],
)
def test_bad_read_arguments_are_invalid_input(graph, ns, call, says):
    graph.add_episodes(ns, ["something to read"])
    with pytest.raises(InvalidInputError, match=says):
        call(graph, ns)


def test_a_long_text_splits_into_parts_that_give_it_back():
    from graph_db import split_text

    text = "a" * 60 + "\n\n" + "b" * 30 + ". " + "c" * 20
    assert split_text(text, 100) == ["a" * 60 + "\n\n", "b" * 30 + ". " + "c" * 20]
    words = " ".join(f"word{i}" for i in range(5000))
    parts = split_text(words, 1000)
    assert "".join(parts) == words and max(map(len, parts)) <= 1000
    assert all(p.endswith(" ") for p in parts[:-1])  # never inside a word
    assert split_text("x" * 250, 100) == ["x" * 100, "x" * 100, "x" * 50]
