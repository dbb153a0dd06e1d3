"""mags tune: workloads, the four terms measured on a real store, a resumable study, the CLI."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from finetune.tune import workload as wl
from finetune.tune.objective import Terms, Weights, judge, replay
from finetune.tune.report import write_env
from finetune.tune.space import NAMES, defaults
from finetune.tune.study import Options, run, shortfall
from graph_db import GraphSettings, MagsError
from graph_db.settings import TUNABLE

ONE_ENGINE = pytest.mark.parametrize("graph", ["arcadedb"], indirect=True)


def test_every_knob_is_a_setting_a_view_can_change():
    assert set(NAMES) <= set(TUNABLE)
    assert "capacity" not in NAMES  # a budget the user sets, not a knob to search
    assert defaults()["walk_depth"] == GraphSettings.model_fields["walk_depth"].default


def test_the_game_workload_holds_its_truth_and_keeps_the_held_out_world_apart():
    work = wl.game((1,), (2,), turns=60)
    (tune,), (held,) = work.tune, work.held_out
    assert tune.name != held.name
    probes = [e for e in tune.events if isinstance(e, wl.Probe)]
    assert probes and all(p.blocks == "semantic" and p.key and p.truth for p in probes)
    ids = [e.id for e in tune.events if isinstance(e, wl.Episode)]
    assert len(ids) == len(set(ids)) == tune.turns
    held_ids = {e.id for e in held.events if isinstance(e, wl.Episode)}
    assert not held_ids & set(ids)
    facts = [e for e in tune.events if isinstance(e, wl.Fact)]
    assert facts and {f.source for f in facts} <= set(ids)  # each fact names its episode
    with pytest.raises(MagsError, match=r"seeds \[2\] are both tuned on and held out"):
        wl.game((1, 2), (2,), turns=60)


def test_locomo_holds_out_the_last_conversations_and_every_probe_has_its_evidence(tmp_path):
    from tests.helpers.locomo_like import write_conversation

    paths = [write_conversation(tmp_path / f"conv-t{i}.json") for i in (1, 2, 3)]
    work = wl.locomo(paths, held_out=1)
    assert [p.name for p in work.held_out] == [paths[-1].stem]
    assert paths[-1].stem not in {p.name for p in work.tune}
    for part in (*work.tune, *work.held_out):
        ids = {e.id for e in part.events if isinstance(e, wl.Episode)}
        probes = [e for e in part.events if isinstance(e, wl.Probe)]
        assert probes and all(p.evidence and p.evidence <= ids for p in probes)
        assert len(probes) == 5  # categories 1-4; the adversarial one is left out
    for bad in (0, len(paths)):
        with pytest.raises(MagsError, match="--held-out"):
            wl.locomo(paths, held_out=bad)


def test_the_textworld_workload_keeps_each_probes_evidence_in_its_own_game():
    work = wl.textworld("easy", (1,), (2,))
    (tune,), (held,) = work.tune, work.held_out
    tune_ids = {e.id for e in tune.events if isinstance(e, wl.Episode)}
    held_ids = {e.id for e in held.events if isinstance(e, wl.Episode)}
    assert tune_ids and held_ids and not tune_ids & held_ids
    for part, ids in ((tune, tune_ids), (held, held_ids)):
        probes = [e for e in part.events if isinstance(e, wl.Probe)]
        assert probes and all(p.evidence and p.evidence | p.stale <= ids for p in probes)


def _m(id: str, block: str = "episodic", **props) -> SimpleNamespace:
    fields = {"subject": None, "predicate": None, "object": None, "valid_to": None}
    return SimpleNamespace(id=id, block=block, **(fields | props))


def test_an_earlier_answer_above_the_current_one_is_not_faithful():
    probe = wl.Probe("where is the key?", evidence=frozenset({"e2"}), stale=frozenset({"e1"}))
    assert judge(probe, [_m("x"), _m("e2"), _m("e1")]) == (True, True, 1)
    assert judge(probe, [_m("e1"), _m("e2")]) == (True, False, 1)
    assert judge(probe, [_m("e1"), _m("x")]) == (False, False, 0)
    assert judge(probe, [_m("x")]) == (False, True, 0)


def test_a_superseded_fact_shown_is_not_faithful():
    probe = wl.Probe(
        "How many sides?", "semantic", key=("Vexil die", "has_sides"), truth="8", superseded=("6",)
    )
    kw = {"subject": "Vexil die", "predicate": "has_sides"}
    now, old = _m("f2", "semantic", object="8", **kw), _m("f1", "semantic", object="6", **kw)
    assert judge(probe, [now]) == (True, True, 1)
    assert judge(probe, [now, _m("f1", "semantic", object="6", valid_to=1.0, **kw)])[1] is False
    assert judge(probe, [old, now]) == (True, False, 1)  # a current-looking stale value above


def test_the_loss_weighs_churn_and_size_against_the_defaults():
    ref = Terms(10, 8, 8, 0, 100, 200, 1000, 8.0)
    half = Terms(10, 8, 8, 0, 100, 100, 500, 8.0)
    w = Weights(prediction=1, churn=0.1, size=0.2, unused=0.05)
    assert w.loss(ref, ref) == pytest.approx(0.2 + 0.1 + 0.2 + 0.05 * 0.8)
    assert w.loss(half, ref) == pytest.approx(0.2 + 0.05 + 0.1 + 0.05 * 0.8)


def test_replay_measures_what_the_graph_holds_and_stricter_pruning_churns_more(graph, ns):
    (part,) = wl.game((5,), (6,), turns=30).tune
    kept = replay(graph.tuned(), ns, part, maintain_every=10)
    stats = graph.stats(ns)
    nodes, edges = sum(stats["nodes"].values()), sum(e["count"] for e in stats["edges"].values())
    assert kept.size_units == 3 * nodes + edges
    assert kept.probes == part.probes > 3
    assert kept.accuracy >= 0.9 and kept.fidelity_errors == 0  # gold facts, current first
    strict = replay(graph.tuned(w_min=0.6), ns + "-strict", part, maintain_every=10)
    assert strict.churn_events > kept.churn_events  # every weak edge pruned at each pass
    assert strict.size_units < kept.size_units
    for n in (ns, ns + "-strict"):
        graph.forget_namespace(n)


@ONE_ENGINE
def test_a_study_resumes_leaves_no_scratch_and_writes_settings_the_store_reads(graph, tmp_path):
    work = wl.game((1,), (2,), turns=24)
    first = run(graph, work, Options(trials=2, maintain_every=12), tmp_path, progress=False)
    assert [t["defaults"] for t in first.trials] == [True, False]
    assert first.trials[0]["params"] == defaults()
    import optuna

    stored = optuna.load_study(study_name=first.study, storage=f"sqlite:///{first.storage}")
    stored.ask()  # a run killed in the middle of trial 2: it stays "running" in the file
    again = run(graph, work, Options(trials=3, maintain_every=12), tmp_path, progress=False)
    assert again.study == first.study
    assert [t["number"] for t in again.trials] == [0, 1, 3]  # one more, the rest reused
    states = [t.state.name for t in optuna.load_study(
        study_name=first.study, storage=f"sqlite:///{first.storage}").trials]  # fmt: skip
    assert states == ["COMPLETE", "COMPLETE", "FAIL", "COMPLETE"]
    assert set(again.held_out) == {"defaults", "chosen"}
    assert again.tuning["defaults"]["probes"] == work.tune[0].probes
    assert not graph.namespaces(prefix="tune-")
    env = tmp_path / "chosen.env"
    outcome = again
    outcome.chosen["changed"] = {"walk_depth": 3, "w_min": 0.0125}  # what a trial might find
    write_env(env, outcome, work)
    read = GraphSettings(_env_file=env)
    assert (read.walk_depth, read.w_min) == (3, 0.0125)


@ONE_ENGINE
def test_the_chosen_trial_is_the_best_that_keeps_the_defaults_floor(graph, tmp_path):
    import optuna

    work = wl.game((3,), (4,), turns=24)
    options = Options(trials=5, maintain_every=12, require=("accuracy", "fidelity", "size"))
    outcome = run(graph, work, options, tmp_path, progress=False)
    stored = optuna.load_study(study_name=outcome.study, storage=f"sqlite:///{outcome.storage}")
    ref = outcome.tuning["defaults"]
    done = [t for t in stored.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert len(done) == 5
    for t in done:  # the sampler is told how far each trial fell short of the defaults
        assert t.constraints == pytest.approx(
            shortfall(t.user_attrs["terms"], ref, options.require)
        )
    feasible = [t for t in done if all(v <= 0 for v in t.constraints.values())]
    assert feasible[0].user_attrs["defaults"]
    assert outcome.chosen["trial"] == min(feasible, key=lambda t: t.value).number
    with pytest.raises(MagsError, match="unknown requirement"):
        Options(require=("speed",))


def test_the_cli_names_what_a_workload_needs(tmp_path):
    from mags_langgraph.cli import app

    result = CliRunner().invoke(app, ["tune", "locomo", "--home", str(tmp_path)])
    assert result.exit_code == 2
    assert "--data" in result.output
    result = CliRunner().invoke(app, ["tune", "game", "--seeds", "one", "--home", str(tmp_path)])
    assert result.exit_code == 2
    assert "comma-separated integers" in result.output
