"""The settings a tuning trial may change, and the ranges it samples them from.

Every name is one of ``graph_db.settings.TUNABLE`` (recall and maintenance settings that a
``LiquidGraph.tuned`` view can change for one call), so a trial needs no new store. The
ranges bracket the defaults by a factor of a few each way; ``capacity`` is left out (it is
a budget the user sets, and it would shrink any graph) and is fixed with ``--capacity``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph_db import GraphSettings


@dataclass(frozen=True)
class Knob:
    name: str
    low: float
    high: float
    integer: bool = False
    log: bool = False

    def suggest(self, trial: Any) -> int | float:
        if self.integer:
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=self.log)
        return trial.suggest_float(self.name, self.low, self.high, log=self.log)


SPACE: tuple[Knob, ...] = (
    Knob("recall_candidates", 20, 120, integer=True, log=True),
    Knob("recall_anchors", 3, 24, integer=True),
    Knob("recall_diversity", 0.0, 1.0),
    Knob("recall_lexical_weight", 0.0, 1.5),
    Knob("recall_length_prior", 0.0, 1.5),
    Knob("recall_length_cap", 3, 40, integer=True, log=True),
    Knob("walk_depth", 0, 3, integer=True),
    Knob("walk_threshold", 0.005, 0.2, log=True),
    Knob("decay_per_day", 0.001, 0.1, log=True),
    Knob("decay_recency_days", 0.0, 30.0),
    Knob("w_min", 0.005, 0.1, log=True),
    Knob("grace_days", 7.0, 365.0, log=True),
    Knob("forget_importance", 0.02, 0.3),
    Knob("forget_core", 0, 2, integer=True),
    Knob("core_protect", 2, 5, integer=True),
    Knob("protect_share", 0.02, 0.3),
)
NAMES = tuple(k.name for k in SPACE)


def defaults() -> dict[str, Any]:
    """The knobs' defaults (the settings' field defaults, not this machine's environment)."""
    fields = GraphSettings.model_fields
    return {name: fields[name].default for name in NAMES}


def env_lines(values: dict[str, Any]) -> list[str]:
    """``MAGS_*`` lines a ``.env`` holds for ``values`` (GraphSettings reads them)."""
    return [f"MAGS_{name.upper()}={_plain(v)}" for name, v in sorted(values.items())]


def _plain(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)
