"""What ``mags tune`` prints and writes: the Pareto front, the held-out comparison, the .env."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from finetune.tune.objective import TERMS
from finetune.tune.space import defaults, env_lines
from finetune.tune.study import Options, Outcome
from finetune.tune.workload import Workload


def show(console: Console, outcome: Outcome) -> None:
    front = Table(title=f"Pareto front of {outcome.study} (lower is better on each term)")
    for col in ("trial", "loss", *TERMS, "accuracy", "settings changed"):
        front.add_column(col, justify="right")
    for row in outcome.pareto[:12]:
        t = row["terms"]
        front.add_row(
            "defaults" if row["defaults"] else str(row["number"]),
            f"{row['loss']:.4f}",
            *(f"{t[k]:.4f}" for k in TERMS),
            f"{t['accuracy']:.3f}",
            str(len(_changed(row["params"]))),
        )
    console.print(front)
    table = Table(
        title="Defaults against the chosen trial (the search never saw the held-out parts)"
    )
    for col in (
        "parts",
        "settings",
        "accuracy",
        "fidelity errors",
        "churn/turn",
        "size/turn",
        "unused",
    ):
        table.add_column(col, justify="left" if col in ("parts", "settings") else "right")
    for split, rows in (("tuning", outcome.tuning), ("held out", outcome.held_out)):
        for name, t in rows.items():
            table.add_row(
                split,
                name,
                f"{t['accuracy']:.3f}",
                str(t["fidelity_errors"]),
                f"{t['churn']:.3f}",
                f"{t['size']:.2f}",
                f"{t['unused']:.3f}",
            )
    console.print(table)
    v = outcome.verdict
    chosen = outcome.chosen
    console.print(
        f"Chosen: trial {chosen['trial']} (loss {chosen['loss']:.4f}), changing "
        f"{', '.join(f'{k}={_fmt(v_)}' for k, v_ in chosen['changed'].items()) or 'nothing'}."
    )
    accuracy = "at least as accurate as" if v["as_accurate"] else "[yellow]less accurate than[/]"
    size = "a smaller graph" if v["smaller"] else "[yellow]a graph no smaller[/]"
    console.print(f"On the held-out parts it is {accuracy} the defaults, with {size}.")


def _changed(params: dict[str, Any]) -> dict[str, Any]:
    base = defaults()
    return {k: v for k, v in sorted(params.items()) if v != base[k]}


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def write_env(path: Path, outcome: Outcome, work: Workload) -> None:
    v = outcome.verdict
    held = outcome.held_out
    lines = [
        f"# mags tune {work.name}, study {outcome.study}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"# held out: accuracy {held['defaults']['accuracy']:.3f} (defaults) -> "
        f"{held['chosen']['accuracy']:.3f}, size/turn {held['defaults']['size']:.2f} -> "
        f"{held['chosen']['size']:.2f}"
        + ("" if v["as_accurate"] else "  (LESS ACCURATE: think twice)"),
        "# the settings the best trial changed (GraphSettings reads MAGS_* from .env)",
        *env_lines(outcome.chosen["changed"]),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def record(outcome: Outcome, work: Workload, options: Options) -> dict[str, Any]:
    import os
    import platform
    from importlib.metadata import version

    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "workload": {"name": work.name, **work.notes},
        "options": {
            "trials": options.trials,
            "k": options.k,
            "maintain_every": options.maintain_every,
            "capacity": options.capacity,
            "weights": options.weights.__dict__,
            "require": list(options.require),
            "seed": options.seed,
        },
        "mags": version("mags"),
        **outcome.to_json(),
    }
