"""A recipe makes examples of one frame (or one world): the unit the generator balances.

The generator draws recipes of a split by domain, asks each for an example, validates it and
drops near-duplicates; ``group`` is the leak-free unit of the split (near-twins share it).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from finetune.records import EngramExample, RecallExample

Example = EngramExample | RecallExample


@dataclass(frozen=True)
class Recipe:
    id: str  # the frame: "pets.named", "world"
    domain: str
    group: str  # "frame:pets.named", "world:701"
    make: Callable[[random.Random, str], Example]  # (rng, example id) -> example
    weight: float = 1.0


def random_date(rng: random.Random, start: date = date(2023, 1, 1), days: int = 1460) -> str:
    return (start + timedelta(days=rng.randrange(days))).isoformat()
