"""The rewards' weights and thresholds, read from a TOML file and checked before training.

Why a file and not constants: the weights are the knobs a training run is tuned by, and a
run should say which ones it used (``finetune/configs/rewards.toml`` is the default). A bad
value stops the run at start with the key and the fix, not as NaN losses an hour later.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from graph_db.errors import MagsError

DEFAULT_CONFIG = Path(__file__).parent / "configs" / "rewards.toml"


class RewardConfigError(MagsError, ValueError):
    """A rewards config that cannot be read or holds a bad value (the message names the fix)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Weights(_Strict):
    """Weights of the rewards of one role, in TRL's ``reward_weights`` sense (0: off)."""

    @field_validator("*")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"{v} is not a finite number >= 0")
        return float(v)

    @model_validator(mode="after")
    def _some_on(self) -> _Weights:
        if not any(v > 0 for v in self.model_dump().values()):
            raise ValueError("every weight is 0: no reward would be computed; turn one on")
        return self

    def named(self) -> dict[str, float]:
        """The weights that are on, by reward name, in declaration order."""
        return {k: v for k, v in self.model_dump().items() if v > 0}


class EngramWeights(_Weights):
    format: float = 1.0
    grounding: float = 1.0
    triplet_f1: float = 2.0
    brevity: float = 0.25


class RecallWeights(_Weights):
    format: float = 1.0
    usefulness: float = 2.0
    brevity: float = 0.25


class Weights(_Strict):
    engram: EngramWeights = EngramWeights()
    recall: RecallWeights = RecallWeights()


class FormatConfig(_Strict):
    """Format score: 0 without JSON, ``schema_invalid`` for JSON that breaks the schema,
    else 1 minus the penalties below, never under ``valid_floor``."""

    schema_invalid: float = Field(default=0.2, ge=0, le=1)
    valid_floor: float = Field(default=0.3, ge=0, le=1)
    fence_penalty: float = Field(default=0.1, ge=0, le=1, description="a ``` fence around it")
    prose_penalty: float = Field(default=0.3, ge=0, le=1, description="any other text outside")
    repair_penalty: float = Field(default=0.2, ge=0, le=1, description="trailing commas fixed")
    extra_keys_penalty: float = Field(default=0.2, ge=0, le=1)
    contract_penalty: float = Field(
        default=0.2, ge=0, le=1, description="snake_case predicates; recall vs queries count"
    )
    non_english_penalty: float = Field(
        default=0.4, ge=0, le=1, description="full at half the letters outside Latin script"
    )


class TripletConfig(_Strict):
    object_similarity: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="cosine (default embedder) from which two different objects match",
    )


class UsefulnessConfig(_Strict):
    """Top-k of each query: min(k, max(gold count, round(k_fraction x memories))), or k."""

    k: int = Field(default=3, ge=1, le=100, description="top-k of each query's recall (max)")
    k_fraction: float = Field(
        default=0.34,
        ge=0,
        le=1,
        description="k is at most this share of the example's memories (at least 1), so a "
        "fixture of 3-4 memories is not found whole by any query; 0: always k",
    )
    needless_recall: float = Field(
        default=0.8, ge=0, le=1, description="score of recall=true when nothing is to be found"
    )
    use_blocks: bool = Field(default=True, description="search the blocks the plan names")
    history: bool = Field(default=True, description="superseded facts are findable too")

    def top_k(self, memories: int, gold: int = 1) -> int:
        """The k of an example with this many memories and gold memories: never under the
        gold's count, so the gold plan can score 1."""
        if not self.k_fraction:
            return self.k
        return min(self.k, max(1, gold, round(self.k_fraction * memories)))


class BrevityConfig(_Strict):
    """Smooth: exp(-excess / scale) per part, multiplied; 1 within the budget."""

    min_chars: int = Field(default=80, ge=1)
    char_slack: float = Field(default=1.5, ge=1, description="budget = slack x the gold's size")
    char_scale: float = Field(default=200.0, gt=0)
    item_scale: float = Field(default=2.0, gt=0, description="facts or queries beyond gold's")
    query_words: int = Field(default=12, ge=1)
    word_scale: float = Field(default=6.0, gt=0)


class RewardConfig(_Strict):
    weights: Weights = Weights()
    format: FormatConfig = FormatConfig()
    triplet: TripletConfig = TripletConfig()
    usefulness: UsefulnessConfig = UsefulnessConfig()
    brevity: BrevityConfig = BrevityConfig()


def load_reward_config(path: str | Path | None = None) -> RewardConfig:
    """The config in ``path`` (default: ``finetune/configs/rewards.toml``), checked."""
    file = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise RewardConfigError(
            f"rewards config {file} does not exist; pass an existing TOML file or omit it for "
            f"the default ({DEFAULT_CONFIG})"
        ) from e
    except tomllib.TOMLDecodeError as e:
        raise RewardConfigError(f"rewards config {file} is not valid TOML ({e}); fix it") from e
    try:
        return RewardConfig.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(map(str, err['loc']))} = {err.get('input')!r}: {err['msg']}"
            for err in e.errors()[:5]
        )
        raise RewardConfigError(
            f"rewards config {file}: {problems}. Fix these keys: weights are finite numbers "
            ">= 0 (0 turns a reward off), shares and thresholds lie in [0, 1], unknown keys are "
            "typos (see finetune/reward_config.py for the names)"
        ) from e
