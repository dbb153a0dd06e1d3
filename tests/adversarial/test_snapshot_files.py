"""Snapshot files as an attacker or a careless hand edits them: every malformed file is one
``SnapshotError`` before any transaction, and restoring never silently replaces a
namespace that holds memories (the file names its namespace: a crafted header, or
``restore(file, ns="victim")``, used to overwrite another user's memories)."""

from __future__ import annotations

import gzip
import json

import pytest

from graph_db import SnapshotError
from tests.helpers.snapshot_data import populate, state

pytestmark = pytest.mark.adversarial
AREA = "snapshot files"


def _edited(good, tmp_path, name, edit) -> object:
    """A copy of the snapshot ``good`` with its JSON lines changed by ``edit``."""
    with gzip.open(good, "rt") as f:
        lines = [json.loads(line) for line in f.read().splitlines()]
    edit(lines)
    out = tmp_path / f"{name}.jsonl.gz"
    with gzip.open(out, "wt") as f:
        f.write("\n".join(json.dumps(x) for x in lines) + "\n")
    return out


def _first(lines, label):
    return next(x for x in lines if x.get("kind") == "node" and x["label"] == label)


EDITS = {  # a hand-edited or crafted file, and what the refusal says
    "text-an-int": (lambda ls: _first(ls, "Episode")["props"].update(text=42), "text must be"),
    "no-id": (lambda ls: _first(ls, "Fact")["props"].pop("id"), "has no id"),
    "garbage-vectors": (
        lambda ls: _first(ls, "Episode")["props"].update(vecs="f16:0:0:AAAA"),
        "packed vectors",
    ),
    "short-embedding": (
        lambda ls: _first(ls, "Entity")["props"].update(embedding=[0.1, 0.2]),
        "embedding must be",
    ),
    "dangling-edge": (
        lambda ls: next(x for x in ls if x.get("kind") == "edge").update(a="nope"),
        "edge joins",
    ),
    "not-a-record": (lambda ls: ls.__setitem__(1, [1, 2, 3]), "malformed"),
    "header-without-ns": (lambda ls: ls[0].pop("ns"), "malformed header"),
    "label-not-a-string": (lambda ls: _first(ls, "Fact").update(label=["Fact"]), "unknown labels"),
}


@pytest.mark.parametrize("name", EDITS)
def test_a_malformed_snapshot_is_one_clear_error_and_changes_nothing(
    graph, ns, tmp_path, name, tally
):
    populate(graph, ns)
    before = state(graph, ns)
    edit, says = EDITS[name]
    bad = _edited(graph.export(ns, tmp_path / "good.jsonl.gz"), tmp_path, name, edit)
    err = tally.refused(AREA, lambda: graph.restore(bad, replace=True), says)
    assert isinstance(err, SnapshotError)
    assert state(graph, ns) == before


def test_a_snapshot_never_silently_replaces_another_namespace(graph, ns, tmp_path, tally):
    victim = f"{ns}-victim"
    graph.add_episodes(victim, ["the victim's own memory"])
    populate(graph, ns)
    snap = graph.export(ns, tmp_path / "mine.jsonl.gz")
    crafted = _edited(snap, tmp_path, "crafted", lambda ls: ls[0].update(ns=victim))
    before = state(graph, victim)
    for attempt in (lambda: graph.restore(snap, ns=victim), lambda: graph.restore(crafted)):
        err = tally.refused(AREA, attempt, "already holds memories.*replace=True")
        assert "victim" in str(err)
    assert state(graph, victim) == before
    graph.restore(crafted, replace=True)  # explicit: done
    assert "the victim's own memory" not in {m.text for m in graph.list(victim)}
    graph.forget_namespace(victim)
