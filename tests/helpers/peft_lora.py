"""A PEFT LoRA adapter for SmolLM2-135M made with numpy (no torch): the keys and
adapter_config.json as PEFT saves them, random A and B, shapes read from the base GGUF."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from gguf import GGUFReader
from safetensors.numpy import save_file

BASE_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
# PEFT's module -> (its parent in transformers' Llama, the tensor llama.cpp names it by)
MODULES = {
    "q_proj": ("self_attn", "attn_q"),
    "k_proj": ("self_attn", "attn_k"),
    "v_proj": ("self_attn", "attn_v"),
    "o_proj": ("self_attn", "attn_output"),
    "gate_proj": ("mlp", "ffn_gate"),
    "up_proj": ("mlp", "ffn_up"),
    "down_proj": ("mlp", "ffn_down"),
}
LAYERS = (0, 7, 29)
RANK, ALPHA = 4, 8
HEAD_DIM, N_HEAD, N_HEAD_KV = 64, 9, 3  # SmolLM2-135M


def ne_of(path: Path) -> dict[str, tuple[int, ...]]:
    """Tensor shapes of a GGUF in ggml order (ne[0] first), as llama.cpp checks them."""
    return {t.name: tuple(int(n) for n in t.shape) for t in GGUFReader(str(path)).tensors}


def fields(path: Path) -> dict:
    return {k: f.contents() for k, f in GGUFReader(str(path)).fields.items()}


def peft_adapter(folder: Path, shapes: dict, b_std: float = 1.0, seed: int = 0, **config) -> dict:
    """A PEFT-format LoRA folder (keys and adapter_config.json as PEFT saves them) with
    random A and B for ``shapes``' model; returns the arrays by safetensors key."""
    rng = np.random.default_rng(seed)
    tensors = {}
    for layer in LAYERS:
        for module, (parent, name) in MODULES.items():
            n_in, n_out = shapes[f"blk.{layer}.{name}.weight"]
            key = f"base_model.model.model.layers.{layer}.{parent}.{module}"
            a = rng.normal(0, n_in**-0.5, (RANK, n_in))
            tensors[f"{key}.lora_A.weight"] = a.astype(np.float32)
            tensors[f"{key}.lora_B.weight"] = rng.normal(0, b_std, (n_out, RANK)).astype(np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / "adapter_model.safetensors"))
    card = {
        "peft_type": "LORA",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": BASE_ID,
        "r": RANK,
        "lora_alpha": ALPHA,
        "lora_dropout": 0.05,
        "bias": "none",
        "target_modules": list(MODULES),
        "use_dora": False,
        "use_rslora": False,
        "rank_pattern": {},
        "alpha_pattern": {},
        "modules_to_save": None,
        "fan_in_fan_out": False,
        "lora_bias": False,
        "init_lora_weights": True,
    } | config
    (folder / "adapter_config.json").write_text(json.dumps(card, indent=2))
    return tensors
