"""The typed training config (TOML): base model, LoRA, GRPO, data and rewards.

Every field has the CPU default; a GPU config only changes what differs (see configs/).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from graph_db.errors import MagsError


class TrainConfigError(MagsError, ValueError):
    """A training config that cannot be used: the message names the key and the fix."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelConfig(_Strict):
    name: str = Field(description="hub id of the base model; the adapter names it")
    gguf: str = Field(
        default="",
        description="a GGUF to load instead of the hub weights: a path, or "
        "'package:<module>/<file>' for a file an installed package ships",
    )
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"


class LoraSettings(_Strict):
    r: int = Field(default=16, ge=1, le=256)
    alpha: int = Field(default=32, ge=1)
    dropout: float = Field(default=0.05, ge=0, lt=1)
    target_modules: list[str] = Field(default_factory=lambda: ["q_proj", "v_proj"], min_length=1)


class GrpoSettings(_Strict):
    learning_rate: float = Field(default=5e-5, gt=0)
    num_generations: int = Field(default=4, ge=2)
    per_device_train_batch_size: int = Field(default=4, ge=1)
    gradient_accumulation_steps: int = Field(default=1, ge=1)
    max_completion_length: int = Field(default=160, ge=8)
    max_steps: int = Field(default=100, ge=1)
    temperature: float = Field(default=0.9, gt=0)
    beta: float = Field(default=0.0, ge=0)
    logging_steps: int = Field(default=1, ge=1)
    save_steps: int = Field(default=25, ge=1)
    seed: int = 7
    use_vllm: bool | Literal["auto"] = Field(
        default="auto",
        description="generate with vLLM, colocated on the training GPU (extra 'vllm'); "
        "'auto': when vllm is installed and a GPU is there",
    )

    @model_validator(mode="after")
    def _groups_fit(self) -> GrpoSettings:
        batch = self.per_device_train_batch_size * self.gradient_accumulation_steps
        if batch % self.num_generations:
            raise ValueError(
                f"per_device_train_batch_size x gradient_accumulation_steps ({batch}) must be "
                f"a multiple of num_generations ({self.num_generations}): each prompt's "
                "completions are compared as one group"
            )
        return self


class SftSettings(_Strict):
    """A cold start before GRPO: supervised steps on the gold answers. A small base model
    that never writes the role's JSON earns no reward at all, and GRPO learns only from
    differences in reward within a group; a few SFT steps give it answers to compare."""

    steps: int = Field(default=0, ge=0, description="0: GRPO from the base model")
    learning_rate: float = Field(default=2e-4, gt=0)
    per_device_train_batch_size: int = Field(default=4, ge=1)
    max_length: int = Field(default=1024, ge=32)
    gradient_checkpointing: bool | None = Field(
        default=None,
        description="recompute activations in the backward pass (None: the trainer's default, "
        "on): saves memory on large models, costs a third more compute on small ones",
    )


class DataSettings(_Strict):
    dir: str = "finetune/data/build/v1"
    limit: int = Field(default=0, ge=0, description="0: every training example")
    seed_repeat: int = Field(
        default=1,
        ge=1,
        le=20,
        description="each hand-written training example ('seed' source) taken this many times: "
        "they are ~4% of the train split beside the generator's templates, and the turns "
        "closest to how people write",
    )


class RewardSettings(_Strict):
    config: str = "rewards.toml"


class TrainConfig(_Strict):
    model: ModelConfig
    lora: LoraSettings = Field(default_factory=LoraSettings)
    grpo: GrpoSettings = Field(default_factory=GrpoSettings)
    sft: SftSettings = Field(default_factory=SftSettings)
    data: DataSettings = Field(default_factory=DataSettings)
    rewards: RewardSettings = Field(default_factory=RewardSettings)
    source: Path | None = Field(default=None, exclude=True)

    def relative(self, path: str) -> Path:
        """A path of the config: absolute, or relative to the config file's folder, or
        (data folders) to the working directory when it exists there."""
        p = Path(path).expanduser()
        if p.is_absolute() or p.exists() or self.source is None:
            return p
        return self.source.parent / p


def load_train_config(path: str | Path) -> TrainConfig:
    """Read and check a training config; errors name the key and the fix."""
    path = Path(path)
    if not path.is_file():
        raise TrainConfigError(
            f"no training config at {path}: pass --config finetune/configs/cpu-smollm2.toml "
            "or a copy of it"
        )
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise TrainConfigError(f"{path} is not valid TOML ({e}); fix the line it names") from e
    try:
        return TrainConfig.model_validate({**raw, "source": path.resolve()})
    except ValidationError as e:
        where = "; ".join(
            f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors()
        )
        raise TrainConfigError(f"{path}: {where}. Fix these keys (see configs/).") from e
