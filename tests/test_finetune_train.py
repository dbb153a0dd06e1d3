"""A real GRPO run of a few steps on CPU (TRL + PEFT, the 'mags[finetune]' extra) with a tiny
model and tokenizer built here: the adapter learns, logs its rewards, saves, reloads, resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the finetune extra: pip install 'mags[finetune]'")
pytest.importorskip("trl", reason="the finetune extra: pip install 'mags[finetune]'")
pytest.importorskip("peft", reason="the finetune extra: pip install 'mags[finetune]'")

from finetune.prompting import messages  # noqa: E402
from finetune.records import EngramExample  # noqa: E402
from finetune.reward_config import DEFAULT_CONFIG  # noqa: E402
from finetune.reward_parse import completion_text  # noqa: E402
from finetune.train import train  # noqa: E402
from finetune.train_config import TrainConfig  # noqa: E402
from tests.helpers.tiny_lm import build, corpus_of  # noqa: E402

SEED = Path(__file__).resolve().parents[1] / "finetune" / "data" / "seed" / "engram.jsonl"


def _length(completions, **_) -> list[float]:
    """Variance a random model can show (its JSON never parses): longer is better."""
    return [min(len(completion_text(c)), 60) / 60 for c in completions]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("grpo")
    lines = SEED.read_text().splitlines()[:8]
    data = root / "data" / "engram"
    data.mkdir(parents=True)
    (data / "train.jsonl").write_text("\n".join(lines) + "\n")
    model_dir = build(root / "tiny", corpus_of(lines))
    config = TrainConfig.model_validate(
        {
            "model": {"name": str(model_dir)},
            "lora": {"r": 4, "alpha": 8, "target_modules": ["q_proj", "v_proj"]},
            "grpo": {
                "learning_rate": 0.02,
                "num_generations": 2,
                "per_device_train_batch_size": 2,
                "max_completion_length": 12,
                "max_steps": 3,
                "save_steps": 2,
                "temperature": 1.0,
            },
            "sft": {"steps": 3, "learning_rate": 0.01, "per_device_train_batch_size": 2},
            "data": {"dir": str(root / "data")},
            "rewards": {"config": str(DEFAULT_CONFIG)},
        }
    )
    out = root / "run"
    info = train("engram", config, out, extra_rewards=[(_length, 1.0)])
    example = EngramExample.model_validate_json(lines[0])
    return config, out, info, example


def test_grpo_steps_log_each_reward_and_save_an_adapter_naming_its_base(tiny_run):
    config, out, info, _ = tiny_run
    assert info["steps"] == 3 and info["role"] == "engram"
    log = json.loads((out / "metrics.json").read_text())
    steps = [row for row in log if "loss" in row]
    assert len(steps) == 3
    for name in ("engram_format", "engram_grounding", "engram_triplet_f1", "engram_brevity"):
        assert all(f"rewards/{name}/mean" in row for row in steps), name
    assert any(row["rewards/_length/mean"] > 0 for row in steps)
    card = json.loads((out / "adapter" / "adapter_config.json").read_text())
    assert card["base_model_name_or_path"] == config.model.name
    assert card["r"] == 4 and sorted(card["target_modules"]) == ["q_proj", "v_proj"]
    assert (out / "adapter" / "adapter_model.safetensors").is_file()
    assert json.loads((out / "mags_adapter.json").read_text())["train_examples"] == 8


def test_the_saved_adapter_has_learned_and_changes_generation_when_reloaded(tiny_run):
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    config, out, _, example = tiny_run
    weights = load_file(out / "adapter" / "adapter_model.safetensors")
    lora_b = [t for k, t in weights.items() if "lora_B" in k]
    assert lora_b and any(t.abs().max() > 0 for t in lora_b)  # B starts at zero
    tok = AutoTokenizer.from_pretrained(config.model.name)
    ids = tok.apply_chat_template(
        messages(example), add_generation_prompt=True, return_tensors="pt"
    )
    ids = ids["input_ids"] if not hasattr(ids, "shape") else ids
    base = AutoModelForCausalLM.from_pretrained(config.model.name)
    with torch.no_grad():
        before = base(ids).logits
        tuned = PeftModel.from_pretrained(base, str(out / "adapter"))
        after = tuned(ids).logits
        assert (after - before).abs().max() > 1e-3
        plain = tuned.get_base_model()
        with tuned.disable_adapter():
            assert torch.allclose(plain(ids).logits, before)


def test_grpo_goes_on_training_the_cold_starts_adapter(tiny_run):
    from safetensors.torch import load_file

    _, out, _, _ = tiny_run
    sft_log = json.loads((out / "sft" / "metrics.json").read_text())
    assert [row["step"] for row in sft_log if "loss" in row] == [1, 2, 3]
    cold = load_file(out / "sft" / "adapter" / "adapter_model.safetensors")
    final = load_file(out / "adapter" / "adapter_model.safetensors")
    assert cold.keys() == final.keys()
    assert any((cold[k] - final[k]).abs().max() > 0 for k in cold)


def test_a_run_resumes_from_its_last_checkpoint(tiny_run):
    config, out, _, _ = tiny_run
    assert (out / "checkpoint-2").is_dir()
    info = train("engram", config, out, max_steps=4, extra_rewards=[(_length, 1.0)])
    assert info["steps"] == 4
    log = json.loads((out / "metrics.json").read_text())
    assert [row["step"] for row in log if "loss" in row][-2:] == [
        3,
        4,
    ]  # earlier steps come from the checkpoint


def test_a_stopped_run_keeps_the_metrics_of_the_steps_it_logged(tiny_run, tmp_path):
    config, _, _, _ = tiny_run
    config = config.model_copy(update={"sft": config.sft.model_copy(update={"steps": 0})})
    calls: list[int] = []

    def _stops_at_the_third_step(completions, **_):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("stopped")
        return [0.5] * len(completions)

    with pytest.raises(RuntimeError, match="stopped"):
        train("engram", config, tmp_path / "run", extra_rewards=[(_stops_at_the_third_step, 1.0)])
    log = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert [row["step"] for row in log if "loss" in row] == [1, 2]


@pytest.mark.skipif(torch.cuda.is_available(), reason="vLLM may run where there is a GPU")
def test_grpo_generates_with_vllm_only_where_it_can_run():
    from finetune.train import vllm_wanted

    assert vllm_wanted("auto") is False  # no GPU here: TRL generates
    assert vllm_wanted(True) is True and vllm_wanted(False) is False
