"""The search: an Optuna study over ``space.SPACE`` minimising the weighted four-term loss.

The defaults are measured first on the tuning parts; they are the study's first trial and
the reference churn and size are relative to. Trials sample with TPE and are pruned after
a part when they are worse than the median trial there. The study lives in an SQLite file
(resumable: the same workload, weights and options continue the same study). At the end,
the best trial and the defaults are both replayed on the held-out parts, which the search
never saw, and the Pareto front of the four terms over the finished trials is reported.

``Options.require`` makes the defaults a floor: a trial is feasible only when, on the tuning
parts, it is at least as accurate as the defaults ("accuracy"), makes no more fidelity errors
("fidelity") or leaves no larger a graph ("size"). The sampler is told (``Trial.set_constraint``,
which TPE reads), so it searches where the floor holds, and the chosen trial is the
feasible one of lowest loss; the defaults are always feasible, so "nothing better" is a
possible answer.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from finetune.tune.objective import TERMS, Terms, Weights, replay
from finetune.tune.space import SPACE, defaults
from finetune.tune.workload import Part, Workload
from graph_db import LiquidGraph
from graph_db.errors import MagsError


@dataclass(frozen=True)
class Options:
    trials: int = 20
    k: int = 10
    maintain_every: int = 50
    capacity: int | None = None
    seed: int = 7
    weights: Weights = field(default_factory=Weights)
    require: tuple[str, ...] = ("accuracy", "fidelity")

    def __post_init__(self) -> None:
        unknown = set(self.require) - set(REQUIREMENTS)
        if unknown:
            raise MagsError(
                f"unknown requirement(s) {sorted(unknown)}: choose from {', '.join(REQUIREMENTS)}"
            )


REQUIREMENTS = ("accuracy", "fidelity", "size")


def shortfall(
    terms: dict[str, Any], reference: dict[str, Any], require: tuple[str, ...]
) -> dict[str, float]:
    """How far a trial falls short of the defaults on each requirement (<= 0: met, as
    Optuna's constraints read)."""
    gaps = {
        "accuracy": reference["accuracy"] - terms["accuracy"],
        "fidelity": float(terms["fidelity_errors"] - reference["fidelity_errors"]),
        "size": terms["size"] - reference["size"],
    }
    return {r: gaps[r] for r in REQUIREMENTS if r in require}


@dataclass
class Outcome:
    study: str
    storage: Path
    trials: list[dict[str, Any]]
    pareto: list[dict[str, Any]]
    chosen: dict[str, Any]
    tuning: dict[str, dict[str, Any]]
    held_out: dict[str, dict[str, Any]]

    @property
    def verdict(self) -> dict[str, bool]:
        """On the held-out parts: at least as accurate as the defaults, and a smaller graph."""
        d, c = self.held_out["defaults"], self.held_out["chosen"]
        return {"as_accurate": c["accuracy"] >= d["accuracy"], "smaller": c["size"] < d["size"]}

    def to_json(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "chosen": self.chosen,
            "tuning": self.tuning,
            "held_out": self.held_out,
            "verdict": self.verdict,
            "pareto": self.pareto,
            "trials": self.trials,
        }


def study_name(workload: Workload, options: Options) -> str:
    """Same workload and options, same study: a resumed run continues it."""
    key = json.dumps(
        {
            "workload": workload.name,
            "notes": workload.notes,
            "k": options.k,
            "maintain_every": options.maintain_every,
            "capacity": options.capacity,
            "weights": options.weights.__dict__,
            **({"require": sorted(options.require)} if options.require else {}),
            "space": [k.__dict__ for k in SPACE],
        },
        sort_keys=True,
        default=str,
    )
    return f"{workload.name}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def _optuna():
    try:
        import optuna
    except ImportError:
        raise MagsError("mags tune needs Optuna: pip install 'optuna>=5'") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def run(
    graph: LiquidGraph,
    workload: Workload,
    options: Options,
    storage_dir: Path,
    *,
    progress: bool = True,
    say: Callable[[str], None] = lambda _: None,
) -> Outcome:
    optuna = _optuna()
    name = study_name(workload, options)
    storage_dir.mkdir(parents=True, exist_ok=True)
    storage = storage_dir / "studies.db"
    study = optuna.create_study(
        study_name=name,
        storage=f"sqlite:///{storage}",
        load_if_exists=True,
        direction="minimize",
        sampler=optuna.samplers.TPESampler(seed=options.seed),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=0),
    )
    fixed = {"capacity": options.capacity} if options.capacity else {}
    base = defaults()
    if "reference" not in study.user_attrs:
        say(f"Measuring the defaults on {len(workload.tune)} tuning part(s) ...")
        parts = [
            _run_parts(graph, name, "ref", {**base, **fixed}, [p], options)[0]
            for p in workload.tune
        ]
        study.set_user_attr("reference", [_dump(t) for t in parts])
        ref_total = _total(parts)
        distributions = {k.name: _distribution(optuna, k) for k in SPACE}
        first = optuna.trial.create_trial(
            params=base,
            distributions=distributions,
            value=options.weights.loss(ref_total, ref_total),
            user_attrs={"terms": ref_total.summary(), "defaults": True},
        )
        for floor in options.require:  # the floor itself: met by definition
            first.set_constraint(floor, 0.0)
        study.add_trial(first)
    reference = [_load(d) for d in study.user_attrs["reference"]]
    ref_summary = _total(reference).summary()

    def finish(trial: Any, so_far: list[Terms]) -> None:
        """Keep a trial's terms and tell the sampler how far it fell short of the defaults
        on the same parts (a pruned trial ran only the first ones)."""
        terms, ref = _total(so_far).summary(), _total(reference[: len(so_far)]).summary()
        trial.set_user_attr("terms", terms)
        for floor, gap in shortfall(terms, ref, options.require).items():
            trial.set_constraint(floor, gap)

    def objective(trial: Any) -> float:
        params = {k.name: k.suggest(trial) for k in SPACE}
        so_far: list[Terms] = []
        for i, part in enumerate(workload.tune):
            so_far += _run_parts(
                graph, name, str(trial.number), {**params, **fixed}, [part], options
            )
            loss = options.weights.loss(_total(so_far), _total(reference[: i + 1]))
            trial.report(loss, i)
            if i + 1 < len(workload.tune) and trial.should_prune():
                finish(trial, so_far)
                raise optuna.TrialPruned()
        finish(trial, so_far)
        return loss

    for t in study.trials:  # a run killed mid-trial left it running: it never will again
        if t.state == optuna.trial.TrialState.RUNNING:
            study.tell(t.number, state=optuna.trial.TrialState.FAIL)
    counted = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    done = len([t for t in study.trials if t.state in counted])
    todo = max(0, options.trials - done)
    if todo:
        say(f"Study {name}: {done} trial(s) done, running {todo} more ...")
        study.optimize(objective, n_trials=todo, show_progress_bar=progress)
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    best = min(
        (t for t in complete if t.user_attrs.get("defaults") or _feasible(t, ref_summary, options)),
        key=lambda t: t.value,
    )
    chosen_params = {**base, **best.params}
    say("Replaying the defaults and the best trial on the held-out parts ...")
    if "held_out_defaults" not in study.user_attrs:  # the same every time: measured once
        held = _run_parts(
            graph, name, "held-defaults", {**base, **fixed}, workload.held_out, options
        )
        study.set_user_attr("held_out_defaults", _dump(_total(held)))
    held_defaults = _load(study.user_attrs["held_out_defaults"])
    held_chosen = (
        held_defaults
        if best.user_attrs.get("defaults")
        else _total(
            _run_parts(
                graph, name, "held-chosen", {**chosen_params, **fixed}, workload.held_out, options
            )
        )
    )
    changed = {k: v for k, v in chosen_params.items() if v != base[k]}
    return Outcome(
        study=name,
        storage=storage,
        trials=[_trial_row(t) for t in study.trials if t.state in counted],
        pareto=[_trial_row(t) for t in pareto_front(complete)],
        chosen={
            "trial": best.number,
            "loss": best.value,
            "changed": changed,
            "params": chosen_params,
        },
        tuning={"defaults": _total(reference).summary(), "chosen": best.user_attrs["terms"]},
        held_out={"defaults": held_defaults.summary(), "chosen": held_chosen.summary()},
    )


def _feasible(trial: Any, reference: dict[str, Any], options: Options) -> bool:
    terms = trial.user_attrs.get("terms")
    gaps = shortfall(terms, reference, options.require).values() if terms else [1.0]
    return all(g <= 0 for g in gaps)


def pareto_front(trials: list[Any]) -> list[Any]:
    """The finished trials no other trial beats on every term (lower is better on each)."""
    points = [
        (t, tuple(t.user_attrs["terms"][k] for k in TERMS))
        for t in trials
        if "terms" in t.user_attrs
    ]
    front = [
        t
        for t, p in points
        if not any(all(a <= b for a, b in zip(q, p, strict=True)) and q != p for _, q in points)
    ]
    return sorted(front, key=lambda t: t.value)


def _run_parts(
    graph: LiquidGraph,
    study: str,
    tag: str,
    params: dict[str, Any],
    parts: list[Part] | tuple[Part, ...],
    options: Options,
) -> list[Terms]:
    view = graph.tuned(**params)
    out = []
    for i, part in enumerate(parts):
        ns = f"tune-{study}-{tag}-{i}"
        graph.forget_namespace(ns)
        try:
            out.append(replay(view, ns, part, k=options.k, maintain_every=options.maintain_every))
        finally:
            graph.flush()
            graph.forget_namespace(ns)
    return out


def _total(terms: list[Terms]) -> Terms:
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


def _dump(t: Terms) -> dict[str, Any]:
    return dict(t.__dict__)


def _load(d: dict[str, Any]) -> Terms:
    return Terms(**d)


def _distribution(optuna: Any, knob: Any) -> Any:
    if knob.integer:
        return optuna.distributions.IntDistribution(int(knob.low), int(knob.high), log=knob.log)
    return optuna.distributions.FloatDistribution(knob.low, knob.high, log=knob.log)


def _trial_row(t: Any) -> dict[str, Any]:
    return {
        "number": t.number,
        "state": t.state.name.lower(),
        "loss": t.value,
        "defaults": bool(t.user_attrs.get("defaults")),
        "terms": t.user_attrs.get("terms"),
        "params": t.params,
    }


logging.getLogger("optuna").setLevel(logging.WARNING)
