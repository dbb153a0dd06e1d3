"""A PEFT LoRA adapter as a GGUF LoRA that llama.cpp loads (``--lora``; xllamacpp's
``CommonParams.lora_adapters``), so the local server can run a trained role adapter.

llama.cpp's own converter (``convert_lora_to_gguf.py``) needs torch and the base model's
Hugging Face config. This one reads the adapter with safetensors' numpy API and takes what
it needs from the base GGUF the server runs: the architecture and block count (for the
``gguf`` package's tensor name map), the head counts (llama's q/k row order) and every
target tensor's shape, so an adapter for another base is refused here, naming both,
rather than by the server at start.

What llama.cpp checks (``src/llama-adapter.cpp``): ``general.type`` = adapter,
``adapter.type`` = lora, ``general.architecture`` = the model's; tensors
``<base tensor>.lora_a`` / ``.lora_b`` with ``a.ne[0]`` = the base's ``ne[0]`` (inputs),
``b.ne[1]`` = its ``ne[1]`` (outputs), ``a.ne[1]`` = ``b.ne[0]`` (rank); the update is
``scale * alpha / rank * B @ A``, PEFT's own scaling.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graph_db.errors import MagsError
from mags_langgraph.llm.adapters import lora_fits  # the server's check, for callers here

__all__ = ["BaseGGUF", "convert", "lora_fits", "read_base"]

# Architectures whose q/k rows the HF -> GGUF conversion interleaves for llama.cpp's rope
# (convert_hf_to_gguf.py, LlamaModel.permute); transformers' GGUF loader undoes it for
# these on load (LlamaTensorProcessor), so an adapter trained on either side is in the
# HF order and its lora_B rows need the same permutation as the base weights got.
PERMUTED_QK = {"llama"}

# adapter_config.json settings this converter cannot express in a GGUF LoRA.
_REFUSED: dict[str, str] = {
    "use_dora": "DoRA (its magnitude vector has no GGUF LoRA form)",
    "rank_pattern": "a rank pattern (one rank per module)",
    "alpha_pattern": "an alpha pattern (one alpha per module)",
    "modules_to_save": "modules_to_save (fully trained layers, not LoRA)",
    "fan_in_fan_out": "fan_in_fan_out (Conv1D-style transposed weights)",
    "lora_bias": "LoRA biases",
    "trainable_token_indices": "trained token embeddings",
    "target_parameters": "LoRA on raw parameters (target_parameters)",
    "layer_replication": "layer replication",
    "alora_invocation_tokens": "activated LoRA (aLoRA)",
    "use_qalora": "QA-LoRA",
}
_A, _B = ".lora_A.weight", ".lora_B.weight"


@dataclass(frozen=True)
class BaseGGUF:
    """What a GGUF LoRA must match in the model it is applied to."""

    path: Path
    arch: str
    n_blocks: int
    n_head: int
    n_head_kv: int
    shapes: dict[str, tuple[int, ...]]  # tensor name -> ne (ggml order: inputs first)


def read_base(path: Path) -> BaseGGUF:
    """The base GGUF's architecture, head counts and tensor shapes (header only, mmapped)."""
    from gguf import GGUFReader

    try:
        reader = GGUFReader(str(path))
    except (OSError, ValueError) as e:
        raise MagsError(f"{path} is not a readable GGUF model ({e}); give the base's GGUF") from e

    def field(key: str) -> Any:
        f = reader.fields.get(key)
        return None if f is None else f.contents()

    arch = field("general.architecture")
    n_blocks, n_head = field(f"{arch}.block_count"), field(f"{arch}.attention.head_count")
    if field("general.type") == "adapter" or not arch or n_blocks is None:
        raise MagsError(f"{path} is not a GGUF model (no architecture or block count)")
    shapes = {t.name: tuple(int(n) for n in t.shape) for t in reader.tensors}
    n_kv = field(f"{arch}.attention.head_count_kv")
    return BaseGGUF(path, arch, int(n_blocks), int(n_head or 0), int(n_kv or n_head or 0), shapes)


def read_adapter(adapter_dir: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``adapter_config.json`` (checked for what a GGUF LoRA can hold) and the weights."""
    from safetensors.numpy import load_file

    config_path = adapter_dir / "adapter_config.json"
    weights = adapter_dir / "adapter_model.safetensors"
    if not config_path.is_file() or not weights.is_file():
        raise MagsError(
            f"{adapter_dir} is not a PEFT adapter folder (needs adapter_config.json and "
            "adapter_model.safetensors): give the adapter folder `finetune.train` wrote"
        )
    config = json.loads(config_path.read_text())
    if config.get("peft_type", "LORA") != "LORA":
        raise MagsError(f"{adapter_dir} is a {config['peft_type']} adapter; only LoRA converts")
    for key, what in _REFUSED.items():
        if config.get(key):
            raise MagsError(
                f"{adapter_dir} uses {what}, which a GGUF LoRA cannot hold: retrain without {key}"
            )
    if config.get("bias", "none") != "none":
        raise MagsError(
            f"{adapter_dir} trains biases (bias={config['bias']!r}), which a GGUF LoRA "
            "cannot hold: retrain with bias='none'"
        )
    return config, load_file(str(weights))


def _pairs(adapter_dir: Path, weights: dict[str, np.ndarray]) -> dict[str, tuple[Any, Any]]:
    """PEFT's ``base_model.model.<module>.lora_A/B.weight`` as (A, B) by HF weight name."""
    pairs: dict[str, list[Any]] = {}
    for key, array in weights.items():
        which = 0 if key.endswith(_A) else 1 if key.endswith(_B) else None
        if which is None:
            raise MagsError(
                f"{adapter_dir} holds {key}, which is not a LoRA A/B matrix (embedding "
                "LoRA, DoRA or saved modules): a GGUF LoRA cannot hold it; retrain without it"
            )
        module = key[: -len(_A)].removeprefix("base_model.model.")
        pairs.setdefault(f"{module}.weight", [None, None])[which] = array
    for name, (a, b) in pairs.items():
        if a is None or b is None:
            raise MagsError(f"{adapter_dir}: {name} has only one of lora_A / lora_B; resave it")
    if not pairs:
        raise MagsError(f"{adapter_dir} holds no LoRA weights")
    return {name: (a, b) for name, (a, b) in pairs.items()}


def permute_rows(b: np.ndarray, n_head: int) -> np.ndarray:
    """lora_B's output rows in llama.cpp's rope order: per head, the two halves of the
    head dimension interleaved, as the HF -> GGUF conversion does to q/k weights."""
    n_out = b.shape[0]
    return b.reshape(n_head, 2, n_out // n_head // 2, *b.shape[1:]).swapaxes(1, 2).reshape(b.shape)


def gguf_tensors(
    adapter_dir: Path, weights: dict[str, np.ndarray], base: BaseGGUF
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(lora_a, lora_b) float32 by base tensor name, checked against the base's shapes."""
    import gguf

    arches = {name: arch for arch, name in gguf.MODEL_ARCH_NAMES.items()}
    if base.arch not in arches:
        raise MagsError(f"{base.path}: architecture {base.arch!r} is unknown to the gguf package")
    names = gguf.get_tensor_name_map(arches[base.arch], base.n_blocks)
    heads = {gguf.MODEL_TENSOR.ATTN_Q: base.n_head, gguf.MODEL_TENSOR.ATTN_K: base.n_head_kv}
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for hf_name, (a, b) in _pairs(adapter_dir, weights).items():
        found = names.get_type_and_name(hf_name, try_suffixes=(".weight",))
        if found is None:
            raise MagsError(
                f"{adapter_dir} adapts {hf_name}, which a {base.arch} model does not have "
                f"(base {base.path}): wrong base model?"
            )
        kind, name = found
        (r, n_in), (n_out, r_b) = a.shape, b.shape
        if r != r_b:
            raise MagsError(f"{adapter_dir}: {hf_name}'s lora_A has rank {r}, lora_B {r_b}")
        want = base.shapes.get(name)
        if want != (n_in, n_out):
            has = f"maps {want[0]} -> {want[1]}" if want else "does not exist"
            raise MagsError(
                f"{adapter_dir} does not fit {base.path}: {hf_name} maps {n_in} -> {n_out} "
                f"but the base's {name} {has}. Convert against the GGUF of the model the "
                "adapter was trained on (--base-gguf)."
            )
        a, b = a.astype(np.float32), b.astype(np.float32)
        if base.arch in PERMUTED_QK and kind in heads:
            b = permute_rows(b, heads[kind])
        out[name] = (np.ascontiguousarray(a), np.ascontiguousarray(b))
    return out


def convert(adapter_dir: Path, base_gguf: Path, out: Path, role: str | None = None) -> Path:
    """Write ``adapter_dir`` (PEFT) as a GGUF LoRA for ``base_gguf`` to ``out``; returns it.

    The file appears whole or not at all (written beside, then renamed), so a server
    reading the adapters folder never meets half of one."""
    import gguf

    adapter_dir, out = Path(adapter_dir), Path(out)
    config, weights = read_adapter(adapter_dir)
    base = read_base(Path(base_gguf))
    tensors = gguf_tensors(adapter_dir, weights, base)
    rank = next(iter(tensors.values()))[0].shape[0]
    alpha = float(config.get("lora_alpha") or rank)
    if config.get("use_rslora"):  # PEFT scales by alpha/sqrt(r), llama.cpp by alpha/r
        alpha *= math.sqrt(rank)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.part")
    writer = gguf.GGUFWriter(str(tmp), base.arch)  # writes general.architecture
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, alpha)
    if config.get("base_model_name_or_path"):
        writer.add_string("mags.base_model", str(config["base_model_name_or_path"]))
    if role:
        writer.add_string("mags.role", role)
    for name, (a, b) in tensors.items():
        writer.add_tensor(f"{name}.lora_a", a)  # numpy (r, n_in): ne = (n_in, r)
        writer.add_tensor(f"{name}.lora_b", b)  # numpy (n_out, r): ne = (r, n_out)
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        writer.close()
    os.replace(tmp, out)
    return out
