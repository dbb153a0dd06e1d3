"""A fuzz run over the public API's arguments (texts, names, numbers, namespaces, JSON):
the only exceptions are ``MagsError`` subclasses, a refused call leaves the graph as it
was, and what is stored reads back verbatim. Derandomised in the small form (the same
examples every run); MAGS_ADVERSARIAL=full draws many more, at random."""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from graph_db import LiquidGraph, UnknownNamespaceError
from graph_db.text import entity_key

pytestmark = pytest.mark.adversarial
FULL = os.environ.get("MAGS_ADVERSARIAL") == "full"
RUN = settings(
    max_examples=400 if FULL else 20,
    derandomize=not FULL,
    deadline=None,
    database=None,
    # no shrinking: each example is a round trip to the engine, and the first failing
    # example is reported as drawn
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ODD = st.characters(categories=["Cs", "Cc", "Zs", "Zl", "Mn", "So"])


def _mostly(valid: st.SearchStrategy, hostile: st.SearchStrategy) -> st.SearchStrategy:
    """Three draws in four valid: a call with several arguments is often accepted, so
    what it stored is checked too, not only refusals."""
    return st.sampled_from([True, True, True, False]).flatmap(lambda ok: valid if ok else hostile)


WORDS = st.text(min_size=1, max_size=200).filter(str.strip)
FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)
JSON = st.recursive(
    st.none() | st.booleans() | FINITE | st.integers(-(2**53), 2**53) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
TEXTS = _mostly(
    WORDS,
    st.one_of(
        st.text(max_size=20),
        st.text(alphabet=ODD, max_size=20),
        st.binary(max_size=40),
        st.sampled_from(["", " ", "\n\t", "x" * 32_000, "x" * 32_001, "é" * 32_001]),
        st.integers(),
        st.floats(),
        st.none(),
        st.lists(st.text(max_size=5), max_size=3),
    ),
)
NAMES = _mostly(
    st.text(min_size=1, max_size=40).filter(str.strip),
    st.one_of(
        st.text(alphabet=ODD, max_size=8),
        st.sampled_from(["", " ", "n" * 256, "n" * 257]),
        st.binary(max_size=10),
        st.integers(),
    ),
)
HOSTILE_NUMBERS = st.one_of(
    st.floats(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.booleans(),
    st.text(max_size=10),
)
NUMBERS = _mostly(st.none() | st.floats(min_value=0, max_value=4e9), HOSTILE_NUMBERS)
COUNTS = _mostly(st.integers(min_value=0, max_value=50), HOSTILE_NUMBERS | st.none())
NAMESPACES = _mostly(
    st.text(alphabet="abcdefghij-_.: 0123456789", min_size=1, max_size=30).filter(str.strip),
    st.one_of(
        st.text(max_size=30),
        st.text(alphabet=ODD, max_size=6),
        st.sampled_from(["a//b", "/x", "x/", "n" * 257, "fuzz/ok"]),
        st.none(),
        st.integers(),
    ),
)
METADATA = _mostly(
    st.none() | st.dictionaries(st.text(max_size=8), JSON, max_size=3),
    st.one_of(
        st.just({"tags": {"a", "b"}}),
        st.just({"x": float("nan")}),
        st.dictionaries(st.integers(), st.integers(), min_size=1, max_size=2),
        st.integers(),
    ),
)


def _state(graph: LiquidGraph, ns: str) -> object:
    """What a refused call must not change: the namespace's counts and memory ids."""
    try:
        return graph.stats(ns), sorted(m.id for m in graph.list(ns, limit=10_000))
    except UnknownNamespaceError:
        return None


def _as_text(value: object) -> object:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _same(a: object, b: object) -> bool:
    """JSON equality with NaN equal to itself (a refused NaN never gets here)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


@given(
    text=TEXTS,
    speaker=NAMES,
    ts=NUMBERS,
    metadata=METADATA,
    entities=st.lists(NAMES, max_size=3) | st.none(),
)
@RUN
def test_fuzz_add_episode(graph, ns, tally, text, speaker, ts, metadata, entities):
    graph.add_episodes(ns, ["the namespace exists"])
    before = _state(graph, ns)
    fields = {"speaker": speaker, "ts": ts, "metadata": metadata, "entities": entities}
    fields = {k: v for k, v in fields.items() if v is not None}

    def read_back(memory_id: str) -> bool:
        m = graph.get(ns, memory_id)
        return (
            m.text == _as_text(text)
            and (speaker is None or m.speaker == _as_text(speaker))
            and (ts is None or m.ts == float(ts))
            and (metadata is None or _same(m.metadata, metadata))
        )

    ok, out = tally.attempt("fuzz: add_episode", lambda: graph.add_episode(ns, text, **fields))
    if ok:
        assert read_back(out), f"not stored verbatim: {graph.get(ns, out)!r}"
        tally.outcome("fuzz: add_episode", "stored verbatim")
    else:
        assert _state(graph, ns) == before
        tally.outcome("fuzz: add_episode", "refused clearly")


@given(subject=NAMES, predicate=NAMES, obj=TEXTS, confidence=NUMBERS, valid_from=NUMBERS)
@RUN
def test_fuzz_add_fact(graph, ns, tally, subject, predicate, obj, confidence, valid_from):
    graph.add_episodes(ns, ["the namespace exists"])
    before = _state(graph, ns)
    fields = {"confidence": confidence, "valid_from": valid_from}
    fields = {k: v for k, v in fields.items() if v is not None}

    fact = {"subject": subject, "predicate": predicate, "object": obj, **fields}
    ok, out = tally.attempt("fuzz: add_fact", lambda: graph.add_facts(ns, [fact])[0])
    if ok:
        m = graph.get(ns, out.id)
        given_ = (_as_text(subject).strip(), _as_text(obj).strip())
        # created or rejected (kept as history): stored as given, but for surrounding
        # whitespace; merged: the id is the near-duplicate's, a fact about the same subject
        assert (
            (m.subject, m.object) == given_
            if out.action != "merged"
            else entity_key(m.subject) == entity_key(given_[0])
        ), (out, m)
        tally.outcome("fuzz: add_fact", "stored verbatim")
    else:
        assert _state(graph, ns) == before
        tally.outcome("fuzz: add_fact", "refused clearly")


@given(space=NAMESPACES, text=st.sampled_from(["hello", "I moved to Porto"]))
@RUN
def test_fuzz_namespaces(graph, tally, space, text):
    before = graph.namespaces(limit=100_000)
    ok, _ = tally.attempt("fuzz: namespaces", lambda: graph.add_episodes(space, [text]))
    if ok:
        assert [m.text for m in graph.list(space)] == [text]
        graph.forget_namespace(space)
        tally.outcome("fuzz: namespaces", "stored verbatim")
    else:
        assert graph.namespaces(limit=100_000) == before
        tally.outcome("fuzz: namespaces", "refused clearly")


@given(
    query=TEXTS,
    k=COUNTS,
    blocks=_mostly(st.sampled_from(["both", "episodic", "semantic"]), NAMES),
    as_of=NUMBERS,
    limit=COUNTS,
    offset=COUNTS,
)
@RUN
def test_fuzz_reads(graph, ns, tally, query, k, blocks, as_of, limit, offset):
    graph.add_episodes(ns, ["a memory to read", "another one about tea"])
    before = _state(graph, ns)
    area = "fuzz: reads"
    for call in (
        lambda: graph.search(ns, query, k=k, blocks=blocks),
        lambda: graph.recall(ns, query, k=k, blocks=blocks, as_of=as_of),
        lambda: graph.list(ns, blocks=blocks, limit=limit, offset=offset),
        lambda: graph.namespaces(prefix=query, limit=limit, offset=offset),
    ):
        ok, _ = tally.attempt(area, call)
        tally.outcome(area, "answered" if ok else "refused clearly")
    graph.flush()
    assert _state(graph, ns)[1] == before[1]  # reads never add or drop a memory
