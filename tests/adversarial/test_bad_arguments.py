"""Bad arguments a careless caller passes: each is one MAGS error naming the fix, before
the engine (a 32-bit overflow, a pydantic ValidationError, a TypeError and silently
stored NaN times used to come out instead), and nothing is stored. Namespace names follow
one rule in every front end (graph_db.text.check_ns)."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.store.base import InvalidNamespaceError

from mags_langgraph.chat import ChatSession
from mags_langgraph.llamaindex import MAGSRetriever
from mags_langgraph.llm import LLMs
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.middleware import MAGSMemoryMiddleware
from mags_langgraph.settings import AgentSettings
from mags_langgraph.store import MAGSStore
from mags_langgraph.tools import memory_tools

pytestmark = pytest.mark.adversarial
AREA = "bad arguments"
NAMES = "namespace names"


@pytest.mark.parametrize(
    "write, says",
    [
        (lambda g, ns: g.add_fact(ns, "  ", "likes", "tea"), "must not be blank"),
        (lambda g, ns: g.add_fact(ns, "Maya", "likes", "\n\t "), "must not be blank"),
        (lambda g, ns: g.add_episode(ns, "hi", metadata={"tags": {"a", "b"}}), "must be JSON"),
        (lambda g, ns: g.add_episode(ns, "hi", metadata={"score": float("nan")}), "must be JSON"),
        (lambda g, ns: g.add_fact(ns, "a", "b", "c", metadata={"f": object()}), "must be JSON"),
        (lambda g, ns: g.add_episode(ns, "hi", ts=float("nan")), "finite"),
        (lambda g, ns: g.add_episode(ns, "hi", ts=float("inf")), "finite"),
        (lambda g, ns: g.add_fact(ns, "a", "b", "c", valid_from=float("-inf")), "finite"),
        (lambda g, ns: g.add_fact(ns, "a", "b", "c", confidence=float("nan")), "confidence"),
        (lambda g, ns: g.add_episode(ns, "hi", speaker="x" * 10_000_000), "speaker"),
        (lambda g, ns: g.add_episode(ns, "hi", entities=["y" * 1000]), "entity name"),
    ],
)
def test_bad_fields_are_refused_clearly_and_store_nothing(graph, ns, write, says, tally):
    tally.refused(AREA, lambda: write(graph, ns), says)
    assert ns not in graph.namespaces(prefix=ns)


@pytest.mark.parametrize(
    "limit, offset", [(10**12, 0), (2**63, 0), (-1, 0), (10, -1), (10, 2**40), (True, 0)]
)
def test_listing_bounds_are_checked_before_the_engine(graph, ns, limit, offset, tally):
    graph.add_episodes(ns, ["one memory"])
    tally.refused(AREA, lambda: graph.list(ns, limit=limit, offset=offset), r"limit|offset")
    tally.refused(AREA, lambda: graph.namespaces(limit=limit, offset=offset), r"limit|offset")


# -- one rule for namespace names ------------------------------------------------------
BAD_PATHS = ["a//b", "/a", "a/", "/", " / ", "a/ /b"]


@pytest.mark.parametrize("name", BAD_PATHS)
def test_a_namespace_with_an_empty_label_is_refused_everywhere(graph, name, tally):
    tally.refused(NAMES, lambda: graph.add_episodes(name, ["hello"]), "empty label")
    tally.refused(NAMES, lambda: graph.search(name, "hello"), "empty label")
    store = MAGSStore(graph)
    labels = tuple(name.split("/"))
    err = tally.refused(NAMES, lambda: store.put(labels, "k", {"text": "x"}), "label")
    assert isinstance(err, InvalidNamespaceError)  # LangGraph's type too
    assert name not in graph.namespaces(prefix=name.strip("/ ") or "a")


def _front_ends(graph):
    """Every front end that takes a user id, constructed or called with ``user``."""
    llms = LLMs(AgentSettings(), models={"default": FakeListChatModel(responses=["unused"])})
    loop = MemoryLoop(graph, llms)
    return {
        "loop": lambda user: loop.recall(user, "hello"),
        "chat": lambda user: ChatSession(graph, llms, user),
        "middleware": lambda user: MAGSMemoryMiddleware(loop, user_id=user),
        "tools": lambda user: memory_tools(loop, user_id=user),
        "llamaindex": lambda user: MAGSRetriever(graph, user),
    }


@pytest.mark.parametrize("front_end", ["loop", "chat", "middleware", "tools", "llamaindex"])
def test_a_user_id_is_one_label_in_every_front_end(graph, ns, front_end, tally):
    """A user "alice/x" would be a namespace inside alice's: refused alike everywhere."""
    call = _front_ends(graph)[front_end]
    tally.refused(NAMES, lambda: call(f"{ns}/x"), "user id may not contain '/'")
    tally.refused(NAMES, lambda: call("  "), "needs a user|user id")
    assert ns not in graph.namespaces(prefix=ns)


def test_a_namespace_path_is_the_stores_tuple(graph, ns, tally):
    """The rule itself: LiquidGraph's "u/notes" is the store's ("u", "notes"), found under
    the prefix ("u",), and never the namespace "u" itself."""
    store = MAGSStore(graph)
    tally.stored(NAMES, lambda: graph.add_episodes(f"{ns}/notes", ["a note on tea"]), bool)
    assert [i.namespace for i in store.search((ns, "notes"))] == [(ns, "notes")]
    assert [i.namespace for i in store.search((ns,))] == [(ns, "notes")]
    assert ns not in graph.namespaces(prefix=ns)
    graph.forget_namespace(f"{ns}/notes")
    err = tally.refused(NAMES, lambda: store.put((f"{ns}.x",), "k", {"a": "b"}), "periods")
    assert isinstance(err, InvalidNamespaceError)
