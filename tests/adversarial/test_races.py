"""Races: concurrent first writes to a namespace, processes starting on one fresh home,
processes contending for one user's records. Each used to raise into callers (a duplicate
key, HomeLockedError, TransientError with hundreds of driver warnings)."""

from __future__ import annotations

import json
import logging

import pytest

from graph_db import GraphSettings, LiquidGraph
from tests.helpers.threads import all_at_once, assert_one_chain
from tests.helpers.workers import start_fact_writer, start_worker, wait_for

pytestmark = pytest.mark.adversarial
AREA = "races"


def test_eight_threads_writing_a_new_namespace_first_all_succeed(graph, ns, tally):
    """The namespace registry's insert races; registering must be idempotent."""
    ids = all_at_once(
        8,
        lambda t: tally.stored(AREA, lambda: graph.add_episodes(ns, [f"first words {t}"])[0], bool),
    )
    assert sorted(m.id for m in graph.list(ns)) == sorted(ids)


@pytest.mark.slow
def test_processes_opening_a_fresh_home_at_once_all_join_one_engine(tmp_path, embedder, tally):
    """One of four starts the engine; the others wait for it and join (they used to fail
    with HomeLockedError while it was still starting)."""
    home = tmp_path / "home"
    procs = [start_worker("race", home) for _ in range(3)]
    try:
        with LiquidGraph(GraphSettings(home=home), embedder=embedder) as g:
            tally.stored(AREA, lambda: g.add_episodes("race", ["written by the test"]), bool)
            for proc in procs:
                tally.stored(AREA, lambda proc=proc: wait_for(proc, "ready"), bool)
            texts = {m.text for m in g.list("race")}
        assert texts == {f"written by process {p.pid}" for p in procs} | {"written by the test"}
    finally:
        for proc in procs:
            proc.stdin.close()
        for proc in procs:
            proc.wait(timeout=60)


@pytest.mark.slow
def test_four_processes_writing_one_user_see_success_and_no_retry_warnings(
    graph, ns, caplog, tally
):
    """Transient conflicts between processes (deadlocks on one user's records) are the
    store's to retry: every caller succeeds, and the driver's per-retry WARNINGs are gone
    (one INFO line says retries happen)."""
    writes = 6
    children = [start_fact_writer(graph, ns, f"p{i}", writes, 2) for i in range(3)]
    try:
        for child in children:
            assert child.stdout.readline().strip() == "ready"
        for child in children:
            child.stdin.write("go\n")
            child.stdin.flush()
        with caplog.at_level(logging.WARNING):
            all_at_once(
                2,
                lambda t: [
                    tally.stored(
                        AREA,
                        lambda i=i: graph.add_facts(
                            ns,
                            [
                                {
                                    "subject": "Maya",
                                    "predicate": "lives_in",
                                    "object": f"here {t}-{i}",
                                }
                            ],
                        ),
                        bool,
                    )
                    for i in range(writes // 2)
                ],
            )
        for child in children:
            assert child.stdout.readline().strip() == "done"
            assert json.loads(child.stdout.readline()) == []  # no warning in that process
    finally:
        for child in children:
            child.stdin.close()
        assert [child.wait(timeout=180) for child in children] == [0, 0, 0]
    assert [r.getMessage() for r in caplog.records] == []
    assert_one_chain(graph, ns, "Maya", "lives_in", 4 * writes)
