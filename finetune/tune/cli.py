"""``mags tune``: search the graph's settings on a workload, report the held-out result.

Registered with the ``mags`` command through the ``mags.commands`` entry point (the agent
layer's CLI cannot import this layer); kept light at import time, since every ``mags``
start loads it.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class WorkloadName(StrEnum):
    game = "game"
    locomo = "locomo"
    textworld = "textworld"


def _seeds(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise typer.BadParameter(f"seeds are comma-separated integers, got {text!r}") from None


def tune(
    workload: Annotated[
        WorkloadName, typer.Argument(help="What to replay: game, locomo or textworld.")
    ],
    trials: Annotated[
        int, typer.Option(min=1, help="Trials in the study in all (a resumed study runs the rest).")
    ] = 20,
    data: Annotated[
        Path | None, typer.Option(help="locomo: the folder of conv-*.json files.")
    ] = None,
    held_out: Annotated[
        int, typer.Option(min=1, help="locomo: conversations held out (the last by name).")
    ] = 2,
    seeds: Annotated[
        str, typer.Option(help="game/textworld: seeds to tune on (comma-separated).")
    ] = "1,2",
    held_out_seeds: Annotated[str, typer.Option(help="game/textworld: seeds held out.")] = "3",
    turns: Annotated[int, typer.Option(min=20, help="game: turns per world.")] = 300,
    level: Annotated[str, typer.Option(help="textworld: the difficulty level.")] = "medium",
    k: Annotated[int, typer.Option("--k", min=1, help="Memories recalled per probe.")] = 10,
    maintain_every: Annotated[
        int, typer.Option(min=0, help="Turns between maintenance passes (0: none).")
    ] = 50,
    capacity: Annotated[
        int | None, typer.Option(min=1, help="Fixed capacity for every trial (not tuned).")
    ] = None,
    w_prediction: Annotated[
        float, typer.Option(min=0, help="Weight of the wrong-answer share.")
    ] = 1.0,
    w_churn: Annotated[
        float, typer.Option(min=0, help="Weight of churn (relative to the defaults').")
    ] = 0.05,
    w_size: Annotated[
        float, typer.Option(min=0, help="Weight of size (relative to the defaults').")
    ] = 0.1,
    w_unused: Annotated[
        float, typer.Option(min=0, help="Weight of the unused share of recall.")
    ] = 0.05,
    require: Annotated[
        str,
        typer.Option(
            help="Where the defaults are a floor on the tuning parts: a trial must be at "
            "least as accurate ('accuracy'), make no more fidelity errors ('fidelity'), "
            "leave no larger a graph ('size'). Comma-separated; '' for none."
        ),
    ] = "accuracy,fidelity",
    env_out: Annotated[
        Path | None, typer.Option(help="Where to write the chosen settings (.env lines).")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the outcome as JSON here.")
    ] = None,
    seed: Annotated[int, typer.Option(help="The sampler's seed.")] = 7,
    home: Annotated[
        Path | None,
        typer.Option("--home", help="MAGS home (default: MAGS_HOME or the user data dir)."),
    ] = None,
) -> None:
    """Tune recall and maintenance settings with Optuna on a workload; held-out split reported.

    The loss: wrong answers + churn + size (3 x nodes + edges) + unused recall, weighted.
    The study is kept in the MAGS home and resumes where it stopped; the chosen settings
    are written as MAGS_* lines, to copy into .env when the held-out result agrees.
    """
    from rich.console import Console

    from finetune.tune import report
    from finetune.tune import workload as wl
    from finetune.tune.objective import Weights
    from finetune.tune.study import Options, run
    from graph_db import GraphSettings, LiquidGraph

    console = Console()
    # every trial writes the same texts again: a query cache that holds them all turns the
    # embedding of every trial after the first into lookups (~1.5 KB a text)
    cache = {"query_cache_size": 100_000}
    settings = GraphSettings(home=home, **cache) if home else GraphSettings(**cache)
    if workload is WorkloadName.game:
        work = wl.game(_seeds(seeds), _seeds(held_out_seeds), turns)
    elif workload is WorkloadName.locomo:
        if data is None:
            raise typer.BadParameter("locomo needs --data DIR (the folder of conv-*.json files)")
        work = wl.locomo(sorted(data.glob("conv-*.json")), held_out)
    else:
        work = wl.textworld(level, _seeds(seeds), _seeds(held_out_seeds))
    options = Options(
        trials=trials,
        k=k,
        maintain_every=maintain_every,
        capacity=capacity,
        seed=seed,
        weights=Weights(w_prediction, w_churn, w_size, w_unused),
        require=tuple(r.strip() for r in require.split(",") if r.strip()),
    )
    console.print(
        f"Workload {work.name}: {len(work.tune)} part(s) to tune on "
        f"({sum(p.turns for p in work.tune)} turns, {sum(p.probes for p in work.tune)} probes), "
        f"{len(work.held_out)} held out ({sum(p.probes for p in work.held_out)} probes)."
    )
    with console.status(f"Opening the memory in {settings.neo4j_uri or settings.home} ..."):
        graph = LiquidGraph(settings)
    with graph:
        outcome = run(graph, work, options, settings.home / "tune", say=console.print)
    report.show(console, outcome)
    env_path = env_out or settings.home / "tune" / f"{outcome.study}.env"
    report.write_env(env_path, outcome, work)
    console.print(f"Chosen settings: {env_path}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report.record(outcome, work, options), indent=2) + "\n")
        console.print(f"Outcome: {json_out}")
