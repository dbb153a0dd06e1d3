"""MAGSStore behaves as LangGraph's stores do, and LangMem's tools and create_agent run on it."""

from __future__ import annotations

import asyncio

import pytest
from langchain.tools import ToolRuntime
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.func import entrypoint
from langgraph.store.base import InvalidNamespaceError

from mags_langgraph.store import MAGSStore


class ScriptedToolModel(FakeMessagesListChatModel):
    """A fake that 'calls tools' by its script (binding tools changes nothing)."""

    def bind_tools(self, tools, **kwargs):
        return self


@pytest.fixture
def store(graph):
    return MAGSStore(graph)


def test_put_get_update_delete(store, ns):
    space = (ns, "prefs")
    store.put(space, "diet", {"text": "Maya is vegetarian", "since": 2019})
    item = store.get(space, "diet")
    assert item.value == {"text": "Maya is vegetarian", "since": 2019}
    assert (item.key, item.namespace) == ("diet", space)
    store.put(space, "diet", {"text": "Maya is vegan now", "since": 2024})
    again = store.get(space, "diet")
    assert again.value["text"] == "Maya is vegan now"
    assert again.created_at == item.created_at and again.updated_at > item.updated_at
    assert store.get(space, "missing") is None
    assert store.get((f"{ns}-nobody",), "diet") is None  # an unknown namespace: nothing
    store.delete(space, "diet")
    assert store.get(space, "diet") is None
    store.delete(space, "diet")  # deleting twice is fine


def test_search_is_recall_and_filters(store, ns):
    space = (ns,)
    store.put(space, "a", {"text": "My sister Ana lives in Lisbon", "kind": "family"})
    store.put(space, "b", {"text": "I play the cello on Sundays", "kind": "hobby"})
    store.put(space, "c", {"text": "Ana's daughter is called Rita", "kind": "family"})
    hits = store.search(space, query="what instrument do I play?", limit=2)
    assert hits[0].key == "b" and hits[0].score is not None
    family = store.search(space, query="Ana", filter={"kind": "family"}, limit=5)
    assert {h.key for h in family} == {"a", "c"}
    listed = store.search(space, limit=10)  # no query: newest first
    assert [h.key for h in listed] == ["c", "b", "a"]
    assert [h.key for h in store.search(space, limit=1, offset=1)] == ["b"]


def test_namespaces_are_isolated_and_listed(store, ns):
    store.put((ns, "work"), "k", {"text": "Deadline on Friday"})
    store.put((ns, "home"), "k", {"text": "Buy milk"})
    store.put((f"{ns}x", "home"), "k", {"text": "Someone else's milk"})
    assert store.get((ns, "home"), "k").value["text"] == "Buy milk"
    hits = store.search((ns,), query="milk", limit=5)
    assert (ns, "home") in {h.namespace for h in hits}
    assert {h.namespace for h in hits} <= {(ns, "work"), (ns, "home")}  # not nsx's
    assert store.list_namespaces(prefix=(ns,)) == [(ns, "home"), (ns, "work")]
    assert (ns,) in store.list_namespaces(prefix=(ns,), max_depth=1)
    assert (ns, "home") in store.list_namespaces(suffix=("home",), limit=1000)
    with pytest.raises(InvalidNamespaceError):
        store.put((ns, "a/b"), "k", {"text": "x"})


def test_async_api(store, ns):
    async def run():
        await store.aput((ns,), "k", {"text": "I like green tea"})
        got = await store.aget((ns,), "k")
        hits = await store.asearch((ns,), query="tea")
        spaces = await store.alist_namespaces(prefix=(ns,))
        await store.adelete((ns,), "k")
        return got, hits, spaces, await store.aget((ns,), "k")

    got, hits, spaces, gone = asyncio.run(run())
    assert got.value == {"text": "I like green tea"} and hits[0].key == "k"
    assert spaces == [(ns,)] and gone is None


def test_langmem_tools_run_on_the_store(store, ns):
    from langmem import create_manage_memory_tool, create_search_memory_tool

    manage = create_manage_memory_tool(namespace=("memories", "{langgraph_user_id}"))
    search = create_search_memory_tool(namespace=("memories", "{langgraph_user_id}"))

    @entrypoint(store=store)
    def workflow(state: dict) -> dict:
        created = manage.invoke({"content": "Prefers Python for backend work", "action": "create"})
        found = search.invoke({"query": "which language for the backend?"})
        return {"created": created, "found": found}

    out = workflow.invoke({}, {"configurable": {"langgraph_user_id": ns}})
    assert "created memory" in out["created"]
    assert "Prefers Python for backend work" in out["found"]  # serialised for the model
    assert store.list_namespaces(prefix=("memories", ns)) == [("memories", ns)]


def test_create_agent_with_the_store(store, ns):
    from langchain.agents import create_agent

    @tool
    def save_note(note: str, runtime: ToolRuntime) -> str:
        """Save a note about the user."""
        runtime.store.put((ns,), "note", {"text": note})
        return "saved"

    model = ScriptedToolModel(
        responses=[
            AIMessage(
                "", tool_calls=[{"name": "save_note", "args": {"note": "Owns a kayak"}, "id": "c1"}]
            ),
            AIMessage("Noted."),
        ]
    )
    agent = create_agent(model, [save_note], store=store)
    out = agent.invoke({"messages": [("user", "I bought a kayak")]})
    assert out["messages"][-1].content == "Noted."
    assert store.get((ns,), "note").value == {"text": "Owns a kayak"}


def test_recalled_turns_can_be_deleted_and_replaced_under_their_key(store, graph, ns):
    turn = graph.add_episode(ns, "I am allergic to cats.", speaker=ns)
    [hit] = [h for h in store.search((ns,), query="allergy") if h.key == turn]
    assert hit.value["text"] == "I am allergic to cats." and store.get((ns,), turn)
    store.put((ns,), turn, {"text": "I am allergic to dogs, not cats."})  # LangMem's update
    assert [m.text for m in graph.list(ns)] == ["I am allergic to dogs, not cats."]
    assert store.get((ns,), turn).value == {"text": "I am allergic to dogs, not cats."}
    store.delete((ns,), turn)  # LangMem's delete
    assert graph.list(ns) == [] and store.get((ns,), turn) is None


def test_store_items_survive_maintenance(store, graph, ns):
    store.put((ns,), "k", {"text": "Keep this"})
    graph.maintain(ns, now=4e9)  # long after: an unused, isolated memory would be forgotten
    assert store.get((ns,), "k").value == {"text": "Keep this"}


def test_a_filter_applies_before_the_limit(store, graph, ns):
    """Two family items under 40 newer chat turns: a filtered search still finds both,
    with a query and without (LangGraph's stores filter before LIMIT)."""
    store.put((ns,), "a", {"text": "My sister Ana lives in Lisbon", "kind": "family"})
    store.put((ns,), "c", {"text": "Ana's daughter is called Rita", "kind": "family"})
    graph.add_episodes(ns, [f"We chatted about the weather, day {i}" for i in range(40)])
    for query in (None, "the weather"):
        hits = store.search((ns,), query=query, filter={"kind": "family"}, limit=2)
        assert {h.key for h in hits} == {"a", "c"}, query


def test_a_prefix_search_ranks_across_namespaces_on_one_scale(store, ns):
    """Recall's scores are relative to each namespace's best hit: without a common scale
    every namespace's best would tie at the top."""
    store.put((ns, "music"), "k", {"text": "I play the cello in a string quartet"})
    for topic, text in [("tax", "The tax return is due in April"),
                        ("car", "The car needs new winter tyres"),
                        ("garden", "The tomatoes need watering twice a day")]:  # fmt: skip
        store.put((ns, topic), "k", {"text": text})
    [best] = store.search((ns,), query="which instrument do I play?", limit=1)
    assert best.namespace == (ns, "music")


def test_without_a_query_the_latest_updated_come_first(store, ns):
    store.put((ns, "x"), "old", {"text": "first"})
    store.put((ns, "y"), "new", {"text": "second"})
    store.put((ns, "x"), "old", {"text": "first, edited"})
    assert [h.key for h in store.search((ns,), limit=2)] == ["old", "new"]


def test_a_search_writes_only_where_asked_and_as_refresh_ttl_says(store, graph, ns):
    """Co-firing (the trace a recall leaves) only in the prefix's own namespace, and not
    when the caller turns refresh_ttl off (LangGraph's one read that may write)."""
    store.put((ns,), "own", {"text": "I keep bees on the roof"})
    store.put((ns, "sub"), "other", {"text": "The bees swarmed in May"})

    def touched() -> dict[str, int]:
        graph.flush()
        return {
            m.metadata["store"]["key"]: m.access_count
            for space in (ns, f"{ns}/sub")
            for m in graph.list(space)
        }

    assert touched() == {"own": 0, "other": 0}
    store.search((ns,), query="bees", refresh_ttl=False)
    assert touched() == {"own": 0, "other": 0}
    store.search((ns,), query="bees")
    assert touched() == {"own": 1, "other": 0}


def test_an_item_is_permanent_from_its_one_write_and_turns_read_as_langmem_memories(
    store, graph, ns
):
    store.put((ns,), "k", {"text": "Keep this"})
    [item] = graph.list(ns)
    assert item.permanent is True
    turn = graph.add_episode(ns, "I moved to Porto", speaker=ns)
    [hit] = [h for h in store.search((ns,), query="Porto") if h.key == turn]
    assert hit.value["kind"] == "Memory" and hit.value["content"] == {"content": "I moved to Porto"}
