"""Packed recall vectors (graph_db/vecpack.py) and the schema 1 -> 2 migration."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graph_db import GraphSettings, LiquidGraph
from graph_db.liquid_graph import SCHEMA_VERSION
from graph_db.vecpack import pack, unpack, with_packed


def test_pack_round_trip_keeps_cosines_within_float16():
    rng = np.random.default_rng(0)
    own, views, ctx = rng.normal(size=8), rng.normal(size=(3, 8)), rng.normal(size=8)
    out = unpack(pack(own, views.reshape(-1), ctx), 8)
    assert set(out) == {"embedding", "views", "ctx_embedding"}
    assert out["views"].shape == (3, 8)
    np.testing.assert_allclose(out["embedding"], own, atol=5e-3)
    np.testing.assert_allclose(out["views"], views, atol=5e-3)
    np.testing.assert_allclose(out["ctx_embedding"], ctx, atol=5e-3)
    assert set(unpack(pack(own), 8)) == {"embedding"}


def test_unpack_refuses_a_wrong_dimension_or_format():
    packed = pack(np.ones(8))
    with pytest.raises(ValueError, match="hold 8 values"):
        unpack(packed, 16)
    with pytest.raises(ValueError, match="format"):
        unpack("f64" + packed[3:], 8)


def test_a_schema_1_store_is_packed_when_opened(tmp_path, embedder):
    """Memories written before packing (float-list views, no vecs) get vecs on open, the
    lists go, and recall ranks them as before."""
    settings = GraphSettings(home=tmp_path, neo4j_uri=None)
    with LiquidGraph(settings, embedder=embedder) as g:
        ids = g.add_episodes(
            "old",
            [
                {"text": "Where do you swim? I swim in the lake. Every day.", "session_id": "s"},
                {"text": "The lake is cold in May", "session_id": "s"},
            ],
        )
        before = [r.memory.id for r in g.recall("old", "cold lake swimming", k=2, fire=False)]
        rows = g.backend.read("recall_rows", ns="old", ids=ids, vecs=True)
        legacy = []
        for r in rows:  # back to the schema-1 form
            vecs = unpack(r["row"]["vecs"], embedder.dim)
            legacy.append(
                {
                    "id": r["id"],
                    "views": vecs["views"].reshape(-1).tolist() if "views" in vecs else None,
                    "ctx": vecs["ctx_embedding"].tolist() if "ctx_embedding" in vecs else None,
                }
            )
        assert any(x["views"] for x in legacy) and any(x["ctx"] for x in legacy)
        with g.backend.driver.session(database=g.backend.database) as s:
            s.run(
                "UNWIND $rows AS r MATCH (m:Episode {id: r.id}) "
                "SET m.views = r.views, m.ctx_embedding = r.ctx REMOVE m.vecs",
                rows=legacy,
            ).consume()
        meta = {"version": 1, "dim": embedder.dim, "model": embedder.name}
        g.backend.write("meta_put", key="schema", value=json.dumps(meta))
    with LiquidGraph(settings, embedder=embedder) as g:
        props = g.backend.read("export_nodes", ns="old")
        memories = [r["props"] for r in props if r["label"] == "Episode"]
        assert all(m.get("vecs") and "views" not in m for m in memories)
        assert json.loads(g.backend.read("meta_get", key="schema")[0]["value"])["version"] == (
            SCHEMA_VERSION
        )
        after = [r.memory.id for r in g.recall("old", "cold lake swimming", k=2, fire=False)]
        assert after == before


def test_with_packed_leaves_current_and_entity_rows_alone():
    current = {"id": "a", "embedding": [1.0, 0.0], "vecs": pack([1.0, 0.0])}
    assert with_packed(current) is current
    assert with_packed({"id": "e", "name": "x"}) == {"id": "e", "name": "x"}
    old = with_packed({"id": "b", "embedding": [1.0, 0.0], "views": [0.0, 1.0, 1.0, 0.0]})
    assert "views" not in old and unpack(old["vecs"], 2)["views"].shape == (2, 2)


def test_a_derived_context_view_mixes_the_two_turns_and_embeds_no_joined_text(
    graph, ns, monkeypatch
):
    """episode_context_view='derive': the in-context view is the length-weighted mix of the
    turn's and its predecessor's vectors, within a batch and across batches (the turn
    before read from the store), and no joined text reaches the model."""
    engram = graph._engram
    monkeypatch.setattr(
        engram, "settings", engram.settings.model_copy(update={"episode_context_view": "derive"})
    )
    embedded: list[str] = []
    embed = engram.embed
    monkeypatch.setattr(engram, "embed", lambda texts: embedded.extend(texts) or embed(texts))
    turns = [
        ("Ann", "I adopted a grey cat last spring"),
        ("Bo", "What is its name?"),
        ("Ann", "Her name is Miso and she sleeps all day"),
    ]
    ids = graph.add_episodes(
        ns, [{"text": t, "speaker": s, "session_id": "s"} for s, t in turns[:2]]
    )
    ids += graph.add_episodes(ns, [{"text": turns[2][1], "speaker": "Ann", "session_id": "s"}])
    assert not [t for t in embedded if "\n" in t]
    said = [f"{s}: {t}" for s, t in turns]
    own = embed(said)
    rows = {r["id"]: r["row"] for r in graph.backend.read("recall_rows", ns=ns, ids=ids, vecs=True)}
    stored = [unpack(rows[i]["vecs"], own.shape[1]) for i in ids]
    assert "ctx_embedding" not in stored[0]  # the session's first turn has none
    for i in (1, 2):
        mix = len(said[i].split()) * own[i] + len(said[i - 1].split()) * own[i - 1]
        np.testing.assert_allclose(stored[i]["ctx_embedding"], mix / np.linalg.norm(mix), atol=5e-3)
    graph.forget_namespace(ns)
